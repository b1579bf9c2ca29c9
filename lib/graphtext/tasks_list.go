package graphtext

import (
	"fmt"
	"math"
	"slices"
)

// taskList holds the 49 tasks in Table 6 order. Descriptions and questions
// follow the Erdős prompts where the notes quote them (shortest_path,
// degree_centrality) and the same style elsewhere [inferred]; a local Erdős
// copy's own prompt text is used when one is loaded (see ReadErdos).
var taskList = []*Task{
	{Name: "node_number", Category: "Easy", Kind: KindInt,
		Description: "The task is to determine the number of nodes in the graph.",
		Question:    "How many nodes are in the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return intA(g.N) }},
	{Name: "dominating_set", Category: "Easy", Kind: KindNodeSet, Validated: true,
		Description: "The task is to determine the dominating set of a graph. A dominating set is a subset of nodes such that every node in the graph is either in the set or adjacent to a node in the set.",
		Question:    "What is the dominating set of the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return nodesA(dominatingSet(v)) },
		validate:    validateDominating},
	{Name: "common_neighbor", Category: "Easy", Kind: KindNodeSet, Params: []string{"u", "v"},
		Description: "The task is to determine the common neighbors of two nodes in the graph.",
		Question:    "What are the common neighbors between node {u} and node {v}?",
		truth: func(v *view, g *Graph) (Answer, error) {
			return nodesA(common(v, param(g, "u"), param(g, "v")))
		}},
	{Name: "edge_number", Category: "Easy", Kind: KindInt,
		Description: "The task is to determine the number of edges in the graph.",
		Question:    "How many edges are in the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return intA(len(g.Edges)) }},
	{Name: "neighbor", Category: "Easy", Kind: KindNodeSet, Params: []string{"u"},
		Description: "The task is to determine the neighbors of a node in the graph.",
		Question:    "What are the neighbors of node {u} in the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return nodesA(v.out[param(g, "u")]) }},
	{Name: "bfs", Category: "Easy", Kind: KindEdgeSet, Params: []string{"source"}, Ordered: true, Validated: true,
		Description: "The task is to determine the breadth-first search (BFS) traversal order given a starting node. Stop when the BFS cannot be continued.",
		Question:    "What is the breadth-first search (BFS) traversal order for the starting node {source}?",
		truth:       func(v *view, g *Graph) (Answer, error) { return edgesA(bfsEdges(v, param(g, "source"))) },
		validate:    validateBFS},
	{Name: "has_cycle", Category: "Easy", Kind: KindBool,
		Description: "The task is to determine whether the graph has a cycle.",
		Question:    "Does the graph have a cycle?",
		truth:       func(v *view, g *Graph) (Answer, error) { return boolA(v.hasCycle()) }},
	{Name: "dfs", Category: "Easy", Kind: KindEdgeSet, Params: []string{"source"}, Ordered: true, Validated: true,
		Description: "The task is to determine the depth-first search (DFS) traversal order given a starting node. Stop when the DFS cannot be continued.",
		Question:    "What is the depth-first search (DFS) traversal order for the starting node {source}?",
		truth:       func(v *view, g *Graph) (Answer, error) { return edgesA(dfsEdges(v, param(g, "source"))) },
		validate:    validateDFS},
	{Name: "minimum_spanning_tree", Category: "Easy", Kind: KindEdgeSet, Validated: true,
		Description: "The task is to determine the minimum spanning tree of a graph. A minimum spanning tree is a subset of the edges that connects all vertices without any cycles and with the minimum total edge weight; every edge has weight 1 here. If the graph is not connected, give a minimum spanning forest.",
		Question:    "What is the minimum spanning tree of the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { es, _ := v.mstEdges(); return edgesA(es) },
		validate:    func(v *view, g *Graph, a Answer) error { return validateSpanning(v, g, a, false) }},
	{Name: "weighted_minimum_spanning_tree", Category: "Easy", Kind: KindEdgeSet, Weighted: true, Validated: true,
		Description: "The task is to determine the minimum spanning tree of a weighted graph. A minimum spanning tree is a subset of the edges that connects all vertices without any cycles and with the minimum total edge weight; an edge (u, v, w) has weight w. If the graph is not connected, give a minimum spanning forest.",
		Question:    "What is the minimum spanning tree of the weighted graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { es, _ := v.mstEdges(); return edgesA(es) },
		validate:    func(v *view, g *Graph, a Answer) error { return validateSpanning(v, g, a, true) }},
	{Name: "edge_existence", Category: "Easy", Kind: KindBool, Params: []string{"u", "v"},
		Description: "The task is to determine if there is an edge connecting two nodes.",
		Question:    "Is there an edge between node {u} and node {v}?",
		truth:       func(v *view, g *Graph) (Answer, error) { return boolA(v.adj[param(g, "u")][param(g, "v")]) }},
	{Name: "is_regular", Category: "Easy", Kind: KindBool,
		Description: "The task is to determine if the graph is regular, that is, if every node has the same degree.",
		Question:    "Is the graph regular?",
		truth:       func(v *view, g *Graph) (Answer, error) { return boolA(isRegular(v)) }},
	{Name: "degree", Category: "Easy", Kind: KindInt, Params: []string{"u"},
		Description: "The task is to determine the degree of a node in the graph. For the undirected graph, you should count the edge between two nodes only once.",
		Question:    "What is the degree of node {u} in the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return intA(v.degree(param(g, "u"))) }},
	{Name: "is_tournament", Category: "Easy", Kind: KindBool, Graph: DirectedGraph,
		Description: "The task is to determine if the graph is a tournament. A tournament is a directed graph in which every pair of distinct nodes is connected by exactly one directed edge.",
		Question:    "Is the graph a tournament?",
		truth:       func(v *view, g *Graph) (Answer, error) { return boolA(isTournament(v)) }},
	{Name: "density", Category: "Easy", Kind: KindFloat,
		Description: "The task is to determine the density of the graph. Density is defined as the ratio of the number of edges in the graph to the number of possible edges.",
		Question:    "What is the density of the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return floatA(density(g)) }},

	{Name: "adamic_adar_index", Category: "Medium", Kind: KindFloat, Params: []string{"u", "v"},
		Description: "The task is to determine the Adamic-Adar index of two nodes in a graph. The Adamic-Adar index is the sum of the inverse logarithm of the degrees of the common neighbors of the two nodes.",
		Question:    "What is the Adamic-Adar index between node {u} and node {v}?",
		truth: func(v *view, g *Graph) (Answer, error) {
			s := 0.0
			for _, w := range common(v, param(g, "u"), param(g, "v")) {
				s += 1 / math.Log(float64(len(v.out[w])))
			}
			return floatA(s)
		}},
	{Name: "clustering_coefficient", Category: "Medium", Kind: KindFloat, Params: []string{"u"},
		Description: "The task is to compute the clustering coefficient of a node. The clustering coefficient of a node is the fraction of possible triangles through that node that exist.",
		Question:    "What is the clustering coefficient of node {u}?",
		truth:       func(v *view, g *Graph) (Answer, error) { return floatA(clustering(v, param(g, "u"))) }},
	{Name: "connected_component_number", Category: "Medium", Kind: KindInt,
		Description: "The task is to determine the number of connected components in an undirected graph. A connected component is a maximal subgraph in which any two nodes are connected by a path.",
		Question:    "How many connected components are there in the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return intA(v.components()) }},
	{Name: "bipartite_maximum_matching", Category: "Medium", Kind: KindEdgeSet, Validated: true,
		Description: "The task is to determine a maximum matching in a bipartite graph. A matching is a set of edges without common nodes; a maximum matching has the largest possible number of edges. The input graph is guaranteed to be bipartite.",
		Question:    "What is the maximum matching of the bipartite graph?",
		truth: func(v *view, g *Graph) (Answer, error) {
			if !isBipartite(v) {
				return Answer{}, fmt.Errorf("graph is not bipartite")
			}
			return edgesA(matchingEdges(v))
		},
		validate: validateMatching},
	{Name: "local_connectivity", Category: "Medium", Kind: KindInt, Params: []string{"source", "target"},
		Description: "The task is to determine the local connectivity of two nodes in the graph. The local node connectivity of two nodes is the minimum number of nodes that must be removed to disconnect them, which equals the number of node-independent paths between them.",
		Question:    "What is the local connectivity between node {source} and node {target} in the graph?",
		truth: func(v *view, g *Graph) (Answer, error) {
			return intA(v.localNodeConnectivity(param(g, "source"), param(g, "target")))
		}},
	{Name: "jaccard_coefficient", Category: "Medium", Kind: KindFloat, Params: []string{"u", "v"},
		Description: "The task is to determine the Jaccard coefficient of two nodes in a graph. The Jaccard coefficient is the size of the intersection divided by the size of the union of the neighbor sets of the two nodes.",
		Question:    "What is the Jaccard coefficient between node {u} and node {v}?",
		truth: func(v *view, g *Graph) (Answer, error) {
			a, b := param(g, "u"), param(g, "v")
			c := len(common(v, a, b))
			un := len(v.out[a]) + len(v.out[b]) - c
			if un == 0 {
				return floatA(0)
			}
			return floatA(float64(c) / float64(un))
		}},
	{Name: "min_edge_covering", Category: "Medium", Kind: KindEdgeSet, Validated: true,
		Description: "The task is to determine a minimum edge covering of a graph. An edge cover is a set of edges such that every node is incident to at least one edge of the set; a minimum edge cover has the fewest edges.",
		Question:    "What is the minimum edge covering of the graph?",
		truth: func(v *view, g *Graph) (Answer, error) {
			es, err := minEdgeCover(v)
			if err != nil {
				return Answer{}, err
			}
			return edgesA(es)
		},
		validate: validateEdgeCover},
	{Name: "is_eularian", Category: "Medium", Kind: KindBool,
		Description: "The task is to determine if the graph is Eulerian. An Eulerian graph is a connected graph that has an Eulerian circuit, a closed walk that uses every edge exactly once.",
		Question:    "Is the graph Eulerian?",
		truth:       func(v *view, g *Graph) (Answer, error) { return boolA(isEulerian(v)) }},
	{Name: "degree_centrality", Category: "Medium", Kind: KindFloat, Params: []string{"u"},
		Description: "The task is to determine the degree centrality of a node in the graph. Degree centrality for a node is the fraction of nodes it is connected to.",
		Question:    "What is the degree centrality of node {u} in the graph?",
		truth: func(v *view, g *Graph) (Answer, error) {
			if g.N <= 1 {
				return floatA(1)
			}
			return floatA(float64(v.degree(param(g, "u"))) / float64(g.N-1))
		}},
	{Name: "is_bipartite", Category: "Medium", Kind: KindBool,
		Description: "The task is to determine if the graph is bipartite. A bipartite graph is a graph whose nodes can be split into two sets such that no edge joins two nodes of the same set.",
		Question:    "Is the graph bipartite?",
		truth:       func(v *view, g *Graph) (Answer, error) { return boolA(isBipartite(v)) }},
	{Name: "resource_allocation_index", Category: "Medium", Kind: KindFloat, Params: []string{"u", "v"},
		Description: "The task is to determine the resource allocation index of two nodes in a graph. The resource allocation index is the sum of the inverse degrees of the common neighbors of the two nodes.",
		Question:    "What is the resource allocation index between node {u} and node {v}?",
		truth: func(v *view, g *Graph) (Answer, error) {
			s := 0.0
			for _, w := range common(v, param(g, "u"), param(g, "v")) {
				s += 1 / float64(len(v.out[w]))
			}
			return floatA(s)
		}},

	{Name: "max_weight_matching", Category: "Hard", Kind: KindEdgeSet, Validated: true,
		Description: "The task is to determine the maximum weight matching of a graph. A matching is a set of edges without common nodes; a maximum weight matching has the largest total edge weight, and every edge has weight 1 here.",
		Question:    "What is the maximum weight matching of the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return edgesA(matchingEdges(v)) },
		validate:    validateMatching},
	{Name: "closeness_centrality", Category: "Hard", Kind: KindFloat, Params: []string{"u"},
		Description: "The task is to determine the closeness centrality of a node in the graph. The closeness centrality of a node u is the reciprocal of the average shortest path distance to u over the r-1 other nodes that can reach it, scaled by (r-1)/(n-1), where r counts the nodes that reach u including u itself.",
		Question:    "What is the closeness centrality of node {u} in the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return floatA(closeness(v, param(g, "u"))) }},
	{Name: "traveling_salesman_problem", Category: "Hard", Kind: KindFloat, Weighted: true,
		Description: "The task is to determine the minimal cost of the Traveling Salesman Problem (TSP). The TSP asks for the cheapest route that visits every node exactly once and returns to the starting node. The input graph is a complete graph and an edge (u, v, w) has cost w.",
		Question:    "What is the minimal total cost of a tour that visits every node?",
		truth: func(v *view, g *Graph) (Answer, error) {
			c, err := v.tsp()
			if err != nil {
				return Answer{}, err
			}
			return floatA(c)
		}},
	{Name: "strongly_connected_number", Category: "Hard", Kind: KindInt, Graph: DirectedGraph,
		Description: "The task is to determine the number of strongly connected components in a directed graph. A strongly connected component is a maximal subgraph in which every node is reachable from every other node.",
		Question:    "How many strongly connected components are there in the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return intA(v.scc()) }},
	{Name: "shortest_path", Category: "Hard", Kind: KindNodeSeq, Params: []string{"source", "target"}, Ordered: true, Validated: true,
		Description: "The task is to determine the shortest path between two nodes. The input nodes are guaranteed to be connected.",
		Question:    "What is the shortest path between node {source} and node {target}?",
		truth: func(v *view, g *Graph) (Answer, error) {
			p, err := shortestPath(v, param(g, "source"), param(g, "target"))
			if err != nil {
				return Answer{}, err
			}
			return nodesA(p)
		},
		validate: validateShortestPath},
	{Name: "weighted_shortest_path", Category: "Hard", Kind: KindNodeSeq, Weighted: true, Params: []string{"source", "target"}, Ordered: true, Validated: true,
		Description: "The task is to determine the shortest path between two nodes of a weighted graph. The input nodes are guaranteed to be connected.",
		Question:    "What is the shortest path between node {source} and node {target}?",
		truth: func(v *view, g *Graph) (Answer, error) {
			p, err := weightedPath(v, param(g, "source"), param(g, "target"))
			if err != nil {
				return Answer{}, err
			}
			return nodesA(p)
		},
		validate: validateWeightedPath},
	{Name: "center", Category: "Hard", Kind: KindNodeSet, Connected: true,
		Description: "The task is to determine the center of a graph. The center of a graph is the set of nodes whose eccentricity equals the radius of the graph. The input graph is guaranteed to be connected.",
		Question:    "What is the center of the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return eccSet(v, false) }},
	{Name: "diameter", Category: "Hard", Kind: KindInt, Connected: true,
		Description: "The task is to determine the diameter of a graph. The diameter of a graph is the largest shortest-path distance between any two nodes. The input graph is guaranteed to be connected.",
		Question:    "What is the diameter of the graph?",
		truth: func(v *view, g *Graph) (Answer, error) {
			ecc, _, err := v.eccentricities()
			if err != nil {
				return Answer{}, err
			}
			return intA(slices.Max(ecc[1:]))
		}},
	{Name: "barycenter", Category: "Hard", Kind: KindNodeSet, Connected: true,
		Description: "The task is to determine the barycenter of a graph. The barycenter of a graph is the set of nodes that minimize the sum of shortest-path distances to all other nodes. The input graph is guaranteed to be connected.",
		Question:    "What is the barycenter of the graph?",
		truth: func(v *view, g *Graph) (Answer, error) {
			_, d, err := v.eccentricities()
			if err != nil {
				return Answer{}, err
			}
			best, out := -1, []int{}
			for u := 1; u <= v.n; u++ {
				s := 0
				for x := 1; x <= v.n; x++ {
					s += d[u][x]
				}
				switch {
				case best < 0 || s < best:
					best, out = s, []int{u}
				case s == best:
					out = append(out, u)
				}
			}
			return nodesA(out)
		}},
	{Name: "radius", Category: "Hard", Kind: KindInt, Connected: true,
		Description: "The task is to determine the radius of a graph. The radius of a graph is the smallest eccentricity of its nodes, where the eccentricity of a node is its largest shortest-path distance to another node. The input graph is guaranteed to be connected.",
		Question:    "What is the radius of the graph?",
		truth: func(v *view, g *Graph) (Answer, error) {
			ecc, _, err := v.eccentricities()
			if err != nil {
				return Answer{}, err
			}
			return intA(slices.Min(ecc[1:]))
		}},
	{Name: "topological_sort", Category: "Hard", Kind: KindNodeSeq, Graph: DirectedGraph, Ordered: true, Validated: true,
		Description: "The task is to determine the topological sort of a directed acyclic graph (DAG).",
		Question:    "What is the topological sort of the directed acyclic graph (DAG)?",
		truth: func(v *view, g *Graph) (Answer, error) {
			o, ok := v.topoOrder()
			if !ok {
				return Answer{}, fmt.Errorf("graph has a directed cycle, so it has no topological order")
			}
			return nodesA(o)
		},
		validate: validateTopo},
	{Name: "periphery", Category: "Hard", Kind: KindNodeSet, Connected: true,
		Description: "The task is to determine the periphery of a graph. The periphery of a graph is the set of nodes whose eccentricity equals the diameter of the graph. The input graph is guaranteed to be connected.",
		Question:    "What is the periphery of the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return eccSet(v, true) }},
	{Name: "betweenness_centrality", Category: "Hard", Kind: KindFloat, Params: []string{"u"},
		Description: "The task is to determine the betweenness centrality of a node in the graph. The betweenness centrality of a node u is the sum, over pairs of other nodes, of the fraction of their shortest paths that pass through u, normalized by the number of such pairs.",
		Question:    "What is the betweenness centrality of node {u} in the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return floatA(betweenness(v, param(g, "u"))) }},
	{Name: "triangles", Category: "Hard", Kind: KindInt, Params: []string{"u"},
		Description: "The task is to find the number of triangles that include a given node as one vertex.",
		Question:    "How many triangles include node {u} in the graph?",
		truth: func(v *view, g *Graph) (Answer, error) {
			u, t := param(g, "u"), 0
			nb := v.out[u]
			for i, a := range nb {
				for _, b := range nb[i+1:] {
					if v.adj[a][b] {
						t++
					}
				}
			}
			return intA(t)
		}},
	{Name: "avg_neighbor_degree", Category: "Hard", Kind: KindFloat, Params: []string{"u"},
		Description: "The task is to determine the average degree of the neighbors of a node in the graph.",
		Question:    "What is the average neighbor degree of node {u} in the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return floatA(avgNeighborDegree(v, param(g, "u"))) }},
	{Name: "harmonic_centrality", Category: "Hard", Kind: KindFloat, Params: []string{"u"},
		Description: "The task is to determine the harmonic centrality of a node in the graph. The harmonic centrality of a node u is the sum of the reciprocals of the shortest-path distances from all other nodes to u (unreachable nodes contribute 0).",
		Question:    "What is the harmonic centrality of node {u} in the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return floatA(harmonic(v, param(g, "u"))) }},
	{Name: "bridges", Category: "Hard", Kind: KindEdgeSet,
		Description: "The task is to find all bridges of a graph. A bridge is an edge whose removal increases the number of connected components.",
		Question:    "What are the bridges of the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return edgesA(v.bridges()) }},

	{Name: "global_efficiency", Category: "Challenging", Kind: KindFloat,
		Description: "The task is to determine the global efficiency of a graph. Global efficiency is the average efficiency over all ordered pairs of distinct nodes, where the efficiency of a pair is the reciprocal of their shortest-path distance (0 when they are not connected).",
		Question:    "What is the global efficiency of the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return floatA(globalEfficiency(v)) }},
	{Name: "maximal_independent_set", Category: "Challenging", Kind: KindNodeSet, Validated: true,
		Description: "The task is to determine a maximal independent set of a graph. An independent set is a set of nodes no two of which are adjacent; it is maximal when no other node can be added to it.",
		Question:    "What is the maximal independent set of the graph?",
		truth:       func(v *view, g *Graph) (Answer, error) { return nodesA(maximalIndependentSet(v)) },
		validate:    validateMIS},
	{Name: "maximum_flow", Category: "Challenging", Kind: KindFloat, Graph: DirectedGraph, Weighted: true, Params: []string{"source", "target"},
		Description: "The task is to determine the value of the maximum flow from a source node to a sink node. The flow along each edge is limited by its capacity; an edge (u, v, w) has capacity w.",
		Question:    "What is the value of the maximum flow from node {source} to node {target}?",
		truth: func(v *view, g *Graph) (Answer, error) {
			return floatA(maxFlow(flowCapacities(v), v.n, param(g, "source"), param(g, "target")))
		}},
	{Name: "wiener_index", Category: "Challenging", Kind: KindFloat, Connected: true,
		Description: "The task is to determine the Wiener index of a connected graph. The Wiener index is the sum of the shortest-path distances over all pairs of nodes, each unordered pair counted once.",
		Question:    "What is the Wiener index of the graph?",
		truth: func(v *view, g *Graph) (Answer, error) {
			w, err := wiener(v)
			if err != nil {
				return Answer{}, err
			}
			return floatA(w)
		}},
	{Name: "hamiltonian_path", Category: "Challenging", Kind: KindNodeSeq, Graph: DirectedGraph, Ordered: true, Validated: true,
		Description: "The task is to return a Hamiltonian path in a directed graph. A Hamiltonian path is a path that visits every node exactly once, following edge directions. The input graph is guaranteed to have one.",
		Question:    "Return a Hamiltonian path in the graph.",
		truth: func(v *view, g *Graph) (Answer, error) {
			if isTournament(v) {
				return nodesA(tournamentPath(v))
			}
			p, ok, err := v.hamiltonianPath()
			if err != nil {
				return Answer{}, err
			}
			if !ok {
				return Answer{}, fmt.Errorf("graph has no Hamiltonian path")
			}
			return nodesA(p)
		},
		validate: validateHamiltonian},
	{Name: "min_vertex_cover", Category: "Challenging", Kind: KindNodeSet, Validated: true,
		Description: "The task is to determine a minimum vertex cover of a graph. A vertex cover is a set of nodes such that every edge has at least one endpoint in the set; a minimum vertex cover has the fewest nodes.",
		Question:    "What is the minimum vertex cover of the graph?",
		truth: func(v *view, g *Graph) (Answer, error) {
			c, err := v.minVertexCover()
			if err != nil {
				return Answer{}, err
			}
			return nodesA(c)
		},
		validate: validateMVC},
}

// eccSet returns the center (or the periphery) of a connected graph.
func eccSet(v *view, periphery bool) (Answer, error) {
	ecc, _, err := v.eccentricities()
	if err != nil {
		return Answer{}, err
	}
	target := slices.Min(ecc[1:])
	if periphery {
		target = slices.Max(ecc[1:])
	}
	out := []int{}
	for u := 1; u <= v.n; u++ {
		if ecc[u] == target {
			out = append(out, u)
		}
	}
	return nodesA(out)
}
