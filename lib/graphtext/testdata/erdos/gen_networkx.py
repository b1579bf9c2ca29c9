"""Reference answers for narlab's 49 Erdős graph tasks, computed with NetworkX.

Run once (outputs are committed):
    python3 -m venv /tmp/nxenv && /tmp/nxenv/bin/pip install networkx==3.4.2 numpy scipy
    /tmp/nxenv/bin/python gen_networkx.py > networkx.jsonl

Graphs are drawn here with NetworkX's own random generators (independent of
narlab's Go generator): 5-35 nodes, directed where the task is (tournaments,
DAGs, random digraphs), weighted where the task is (integer weights 1-10),
1-based node ids. Each line is
    {"task", "graph": {"n", "edges", "directed", "params"}, "answer", "objective"}
where "answer" is NetworkX's answer (one valid answer for tasks with many)
and "objective" is the number a validator must match for those tasks (path
length or weight, matching / cover size, spanning tree weight), else null.
traveling_salesman_problem is solved exactly by brute force over tours
(NetworkX only ships approximations); min_vertex_cover is the complement of
a maximum clique of the complement graph (nx.max_weight_clique).
"""
import itertools
import json
import random
import sys

import networkx as nx

PER_TASK = 6
rng = random.Random(20261122)


def relabel1(G):
    return nx.relabel_nodes(G, {v: i + 1 for i, v in enumerate(sorted(G.nodes()))})


def gnp(n=None, p=None, directed=False, connected=False, no_isolated=False):
    while True:
        nn = n or rng.randint(5, 35)
        pp = p or rng.uniform(0.05, 0.35)
        G = nx.gnp_random_graph(nn, pp, seed=rng.randrange(2**31), directed=directed)
        if connected and not nx.is_connected(G):
            continue
        if no_isolated and any(d == 0 for _, d in G.degree()):
            continue
        if G.number_of_edges() == 0:
            continue
        return relabel1(G)


def weigh(G):
    for u, v in G.edges():
        G[u][v]["weight"] = rng.randint(1, 10)
    return G


def two(G):
    a, b = rng.sample(sorted(G.nodes()), 2)
    return a, b


def edges_of(G, weighted):
    es = []
    for u, v, d in G.edges(data=True):
        es.append([u, v, d["weight"]] if weighted else [u, v])
    return es


def canon(es):
    return sorted(tuple(sorted(e)) for e in es)


def make(task, i):
    """Returns (G, params, answer, objective, weighted)."""
    P = {}
    W = False
    obj = None
    if task == "node_number":
        G = gnp(); ans = G.number_of_nodes()
    elif task == "dominating_set":
        G = gnp(); ans = sorted(nx.dominating_set(G))
    elif task == "common_neighbor":
        G = gnp(p=rng.uniform(0.2, 0.5)); u, v = two(G); P = {"u": u, "v": v}
        ans = sorted(nx.common_neighbors(G, u, v))
    elif task == "edge_number":
        G = gnp(); ans = G.number_of_edges()
    elif task == "neighbor":
        G = gnp(); u = rng.choice(sorted(G)); P = {"u": u}; ans = sorted(G.neighbors(u))
    elif task == "bfs":
        G = gnp(); s = rng.choice(sorted(G)); P = {"source": s}; ans = [list(e) for e in nx.bfs_edges(G, s)]
    elif task == "has_cycle":
        G = gnp()
        if i % 2 == 0:
            G = nx.minimum_spanning_tree(G)
        ans = len(nx.cycle_basis(G)) > 0
    elif task == "dfs":
        G = gnp(); s = rng.choice(sorted(G)); P = {"source": s}; ans = [list(e) for e in nx.dfs_edges(G, s)]
    elif task == "minimum_spanning_tree":
        G = gnp(); T = nx.minimum_spanning_tree(G); ans = [list(e) for e in canon(T.edges())]; obj = T.number_of_edges()
    elif task == "weighted_minimum_spanning_tree":
        G = weigh(gnp()); W = True; T = nx.minimum_spanning_tree(G)
        ans = [list(e) for e in canon(T.edges())]; obj = T.size(weight="weight")
    elif task == "edge_existence":
        G = gnp()
        if i % 2 == 0:
            u, v = rng.choice(sorted(G.edges()))
        else:
            u, v = two(G)
        P = {"u": u, "v": v}; ans = G.has_edge(u, v)
    elif task == "is_regular":
        if i % 2 == 0:
            n = rng.randint(6, 20); d = rng.choice([2, 3, 4]) if n % 2 == 0 else rng.choice([2, 4])
            G = relabel1(nx.random_regular_graph(d, n, seed=rng.randrange(2**31)))
        else:
            G = gnp()
        ans = nx.is_regular(G)
    elif task == "degree":
        G = gnp(); u = rng.choice(sorted(G)); P = {"u": u}; ans = G.degree(u)
    elif task == "is_tournament":
        G = relabel1(nx.tournament.random_tournament(rng.randint(4, 10), seed=rng.randrange(2**31)))
        if i % 2 == 1:
            u, v = rng.choice(sorted(G.edges()))
            if i % 4 == 1:
                G.remove_edge(u, v)
            else:
                G.add_edge(v, u)
        ans = nx.tournament.is_tournament(G)
    elif task == "density":
        G = gnp(); ans = nx.density(G)
    elif task == "adamic_adar_index":
        G = gnp(p=rng.uniform(0.2, 0.5)); u, v = two(G); P = {"u": u, "v": v}
        ans = next(nx.adamic_adar_index(G, [(u, v)]))[2]
    elif task == "clustering_coefficient":
        G = gnp(p=rng.uniform(0.2, 0.5)); u = rng.choice(sorted(G)); P = {"u": u}; ans = nx.clustering(G, u)
    elif task == "connected_component_number":
        G = gnp(p=rng.uniform(0.03, 0.15)); ans = nx.number_connected_components(G)
    elif task == "bipartite_maximum_matching":
        n = rng.randint(5, 30); k = rng.randint(1, n - 1)
        B = nx.bipartite.random_graph(k, n - k, rng.uniform(0.15, 0.5), seed=rng.randrange(2**31))
        G = relabel1(B)
        top = [v for v in G if v <= k]
        M = nx.bipartite.maximum_matching(G, top_nodes=top)
        ans = [list(e) for e in canon({(u, v) for u, v in M.items() if u < v})]; obj = len(ans)
    elif task == "local_connectivity":
        G = gnp(p=rng.uniform(0.1, 0.4)); s, t = two(G); P = {"source": s, "target": t}
        ans = nx.algorithms.connectivity.local_node_connectivity(G, s, t)
    elif task == "jaccard_coefficient":
        G = gnp(p=rng.uniform(0.2, 0.5)); u, v = two(G); P = {"u": u, "v": v}
        ans = next(nx.jaccard_coefficient(G, [(u, v)]))[2]
    elif task == "min_edge_covering":
        G = gnp(p=rng.uniform(0.15, 0.4), no_isolated=True)
        C = nx.min_edge_cover(G); ans = [list(e) for e in canon(C)]; ans = [list(x) for x in sorted(set(map(tuple, ans)))]; obj = len(ans)
    elif task == "is_eularian":
        if i % 2 == 0:
            n = rng.randint(5, 20)
            G = relabel1(nx.random_regular_graph(rng.choice([2, 4]), n, seed=rng.randrange(2**31)))
        else:
            G = gnp()
        ans = nx.is_eulerian(G)
    elif task == "degree_centrality":
        G = gnp(); u = rng.choice(sorted(G)); P = {"u": u}; ans = nx.degree_centrality(G)[u]
    elif task == "is_bipartite":
        if i % 2 == 0:
            n = rng.randint(5, 30); k = rng.randint(1, n - 1)
            G = relabel1(nx.bipartite.random_graph(k, n - k, 0.3, seed=rng.randrange(2**31)))
        else:
            G = gnp()
        ans = nx.is_bipartite(G)
    elif task == "resource_allocation_index":
        G = gnp(p=rng.uniform(0.2, 0.5)); u, v = two(G); P = {"u": u, "v": v}
        ans = next(nx.resource_allocation_index(G, [(u, v)]))[2]
    elif task == "max_weight_matching":
        G = gnp(); M = nx.max_weight_matching(G); ans = [list(e) for e in canon(M)]; obj = len(ans)
    elif task == "closeness_centrality":
        G = gnp(); u = rng.choice(sorted(G)); P = {"u": u}; ans = nx.closeness_centrality(G)[u]
    elif task == "traveling_salesman_problem":
        n = rng.randint(4, 8); G = weigh(relabel1(nx.complete_graph(n))); W = True
        best = min(sum(G[a][b]["weight"] for a, b in zip((1,) + p, p + (1,)))
                   for p in itertools.permutations(range(2, n + 1)))
        ans = float(best)
    elif task == "strongly_connected_number":
        G = gnp(directed=True, p=rng.uniform(0.05, 0.2)); ans = nx.number_strongly_connected_components(G)
    elif task == "shortest_path":
        G = gnp(connected=True, p=rng.uniform(0.15, 0.35)); s, t = two(G); P = {"source": s, "target": t}
        ans = nx.shortest_path(G, s, t); obj = len(ans) - 1
    elif task == "weighted_shortest_path":
        G = weigh(gnp(connected=True, p=rng.uniform(0.15, 0.35))); W = True; s, t = two(G); P = {"source": s, "target": t}
        ans = nx.dijkstra_path(G, s, t); obj = nx.dijkstra_path_length(G, s, t)
    elif task in ("center", "diameter", "barycenter", "radius", "periphery", "wiener_index"):
        G = gnp(connected=True, p=rng.uniform(0.1, 0.35))
        f = {"center": lambda: sorted(nx.center(G)), "diameter": lambda: nx.diameter(G),
             "barycenter": lambda: sorted(nx.barycenter(G)), "radius": lambda: nx.radius(G),
             "periphery": lambda: sorted(nx.periphery(G)), "wiener_index": lambda: float(nx.wiener_index(G))}[task]
        ans = f()
    elif task == "topological_sort":
        n = rng.randint(5, 35); D = nx.gnp_random_graph(n, rng.uniform(0.05, 0.3), seed=rng.randrange(2**31), directed=True)
        order = list(range(n)); rng.shuffle(order); pos = {v: k for k, v in enumerate(order)}
        G = nx.DiGraph([(u, v) for u, v in D.edges() if pos[u] < pos[v]]); G.add_nodes_from(range(n))
        G = relabel1(G); ans = list(nx.topological_sort(G))
    elif task == "betweenness_centrality":
        G = gnp(); u = rng.choice(sorted(G)); P = {"u": u}; ans = nx.betweenness_centrality(G)[u]
    elif task == "triangles":
        G = gnp(p=rng.uniform(0.2, 0.5)); u = rng.choice(sorted(G)); P = {"u": u}; ans = nx.triangles(G, u)
    elif task == "avg_neighbor_degree":
        G = gnp(); u = rng.choice(sorted(G)); P = {"u": u}; ans = nx.average_neighbor_degree(G)[u]
    elif task == "harmonic_centrality":
        G = gnp(); u = rng.choice(sorted(G)); P = {"u": u}; ans = nx.harmonic_centrality(G)[u]
    elif task == "bridges":
        G = gnp(); ans = [list(e) for e in canon(nx.bridges(G))]
    elif task == "global_efficiency":
        G = gnp(); ans = nx.global_efficiency(G)
    elif task == "maximal_independent_set":
        G = gnp(); ans = sorted(nx.maximal_independent_set(G, seed=rng.randrange(2**31)))
    elif task == "maximum_flow":
        G = weigh(gnp(directed=True, p=rng.uniform(0.1, 0.3))); W = True; s, t = two(G); P = {"source": s, "target": t}
        ans = float(nx.maximum_flow_value(G, s, t, capacity="weight"))
    elif task == "hamiltonian_path":
        G = relabel1(nx.tournament.random_tournament(rng.randint(5, 12), seed=rng.randrange(2**31)))
        ans = list(nx.tournament.hamiltonian_path(G))
    elif task == "min_vertex_cover":
        G = gnp(n=rng.randint(5, 20))
        clique, _ = nx.max_weight_clique(nx.complement(G), weight=None)
        ans = sorted(set(G) - set(clique)); obj = len(ans)
    else:
        raise SystemExit(f"unknown task {task}")
    if task in ("is_tournament",) or G.is_directed():
        directed = True
    else:
        directed = False
    graph = {"n": G.number_of_nodes(), "edges": edges_of(G, W), "directed": directed, "params": P}
    return {"task": task, "graph": graph, "answer": ans, "objective": obj}


def make_directed(task, i):
    """Directed variants of undirected tasks whose NetworkX answer is
    defined on DiGraphs (the Erdős data may pose them on directed graphs)."""
    P = {}
    obj = None
    G = gnp(directed=True, p=rng.uniform(0.1, 0.3))
    if task == "neighbor":
        u = rng.choice(sorted(G)); P = {"u": u}; ans = sorted(G.successors(u))
    elif task == "degree":
        u = rng.choice(sorted(G)); P = {"u": u}; ans = G.degree(u)
    elif task == "has_cycle":
        if i % 2 == 0:
            G = nx.DiGraph([(u, v) for u, v in G.edges() if u < v]); G.add_nodes_from(range(1, 6))
            G = relabel1(G)
        ans = not nx.is_directed_acyclic_graph(G)
    elif task == "density":
        ans = nx.density(G)
    elif task == "edge_existence":
        u, v = rng.choice(sorted(G.edges())) if i % 2 == 0 else two(G)
        if i % 4 == 0:
            u, v = v, u
        P = {"u": u, "v": v}; ans = G.has_edge(u, v)
    elif task == "degree_centrality":
        u = rng.choice(sorted(G)); P = {"u": u}; ans = nx.degree_centrality(G)[u]
    elif task == "clustering_coefficient":
        u = rng.choice(sorted(G)); P = {"u": u}; ans = nx.clustering(G, u)
    elif task == "closeness_centrality":
        u = rng.choice(sorted(G)); P = {"u": u}; ans = nx.closeness_centrality(G)[u]
    elif task == "betweenness_centrality":
        u = rng.choice(sorted(G)); P = {"u": u}; ans = nx.betweenness_centrality(G)[u]
    elif task == "harmonic_centrality":
        u = rng.choice(sorted(G)); P = {"u": u}; ans = nx.harmonic_centrality(G)[u]
    elif task == "avg_neighbor_degree":
        u = rng.choice(sorted(G)); P = {"u": u}; ans = nx.average_neighbor_degree(G)[u]
    elif task in ("bfs", "dfs"):
        s = rng.choice(sorted(G)); P = {"source": s}
        ans = [list(e) for e in (nx.bfs_edges(G, s) if task == "bfs" else nx.dfs_edges(G, s))]
    elif task == "shortest_path":
        while True:
            s, t = two(G)
            if nx.has_path(G, s, t):
                break
        P = {"source": s, "target": t}; ans = nx.shortest_path(G, s, t); obj = len(ans) - 1
    elif task == "local_connectivity":
        s, t = two(G); P = {"source": s, "target": t}
        ans = nx.algorithms.connectivity.local_node_connectivity(G, s, t)
    else:
        raise SystemExit(f"no directed variant for {task}")
    graph = {"n": G.number_of_nodes(), "edges": edges_of(G, False), "directed": True, "params": P}
    return {"task": task, "graph": graph, "answer": ans, "objective": obj}


DIRECTED = ["neighbor", "degree", "has_cycle", "density", "edge_existence", "degree_centrality",
            "clustering_coefficient", "closeness_centrality", "betweenness_centrality", "harmonic_centrality",
            "avg_neighbor_degree", "bfs", "dfs", "shortest_path", "local_connectivity"]

TASKS = [l.strip() for l in open("tasks.txt") if l.strip()]
count = 0
for task in TASKS:
    for i in range(PER_TASK):
        print(json.dumps(make(task, i)))
        count += 1
for task in DIRECTED:
    for i in range(4):
        print(json.dumps(make_directed(task, i)))
        count += 1
print(f"wrote {count} instances of {len(TASKS)} tasks ({len(DIRECTED)} also directed)", file=sys.stderr)
