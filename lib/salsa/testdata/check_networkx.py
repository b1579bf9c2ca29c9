#!/usr/bin/env python3
"""Checks a directory written by `narlab salsa generate` against NetworkX.

Independent of narlab's Go code: every graph is drawn again from its
sample's numpy stream, RandomState([seed, zlib.crc32(set name), i]), with
NetworkX's own generators (gnp_random_graph, connected_watts_strogatz_graph,
given the RandomState as seed) and SciPy's Delaunay triangulation, in
SALSA-CLRS's order of draws (n, k, p, graph; weights; source; fast_mis's
numbers). Then each sample's arrays are checked:

  graph      the edge list (A + I, row-major), p and k;
  inputs     pos, adj, A (weights sqrt(U*U.T + 1e-3)), s, randomness;
  bfs        pi: each node's parent is its lowest-indexed neighbour one hop
             closer to s (NetworkX's distances); length = ecc(s) + 1;
             hints: reach_h[t] = {v : d(v) <= t}, pi_h[t] = pi where d <= t;
  dfs        pi = NetworkX's dfs_predecessors from node 0 (neighbours in
             index order); length 3n; hints: the last d, f and time are the
             discovery and finishing times of dfs_labeled_edges, 0.01 a tick;
  dijkstra   distances: d(pi[v]) + w(pi[v], v) = d(v) with NetworkX's
             Dijkstra; hints: the last d = NetworkX's distances; the settled
             order (u) is increasing in distance; length n + 1;
  mst_prim   {v, pi[v]} = NetworkX's minimum spanning tree; length n + 1;
  fast_mis   inmis is independent and maximal (a dominating set); Luby's
             rounds replayed from the randomness input give the same set,
             the same number of rounds and, with hints, the same alive and
             member sets at every step, both randomness rows of a round the
             same numbers;
  eccentricity  = NetworkX's eccentricity(G, s).

Usage: check_networkx.py DIR [DIR …]. Prints a JSON summary (samples
checked per algorithm and family, hint checks) and exits 1 on the first
mismatch, naming it.
"""
import json
import os
import sys
import zlib

import networkx as nx
import numpy as np
from scipy.spatial import Delaunay


class Mismatch(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Mismatch(what)


def draw_graph(fam, rs):
    ns = fam['n']
    n = int(ns[rs.randint(0, len(ns))]) if len(ns) > 1 else ns[0]
    p = k = None
    if fam['kind'] == 'er':
        p = rs.uniform(*fam['p'])
        while True:
            G = nx.gnp_random_graph(n, p, seed=rs)
            if nx.is_connected(G):
                break
    elif fam['kind'] == 'ws':
        ks = fam['k']
        k = int(ks[rs.randint(0, len(ks))]) if len(ks) > 1 else ks[0]
        p = rs.uniform(*fam['p'])
        G = nx.connected_watts_strogatz_graph(n, k, p, seed=rs)
    else:
        pts = rs.rand(n, 2)
        G = nx.Graph()
        G.add_nodes_from(range(n))
        for a, b, c in Delaunay(pts).simplices:
            G.add_edges_from([(a, b), (b, c), (c, a)])
    # Neighbours in index order (dfs depends on it).
    H = nx.Graph()
    H.add_nodes_from(range(n))
    H.add_edges_from(sorted((min(u, v), max(u, v)) for u, v in G.edges()))
    return H, n, p, k


def check_file(path, meta, seed, summary):
    z = np.load(path)
    algo, fam = meta['algorithm'], meta['family']
    node_ptr, edge_ptr, lengths = z['node_ptr'], z['edge_ptr'], z['lengths']
    ei = z['edge_index']
    hints = meta['hints']
    key = zlib.crc32(meta['set'].encode())
    for b in range(meta['samples']):
        where = f"{meta['file']} sample {b}"
        rs = np.random.RandomState([seed, key, b])
        G, n, p, k = draw_graph(fam, rs)
        n0, n1, e0, e1 = node_ptr[b], node_ptr[b + 1], edge_ptr[b], edge_ptr[b + 1]
        expect(n1 - n0 == n, f'{where}: {n1 - n0} nodes, NetworkX {n}')
        adj = nx.to_numpy_array(G, nodelist=range(n)) + np.eye(n)
        src, dst = np.nonzero(adj)
        expect(e1 - e0 == len(src) and np.array_equal(ei[0, e0:e1], src) and np.array_equal(ei[1, e0:e1], dst),
               f'{where}: the edge list differs from NetworkX\'s graph')
        if p is not None:
            expect(z['param/p'][b] == p, f'{where}: p = {z["param/p"][b]!r}, NetworkX draw {p!r}')
        if k is not None:
            expect(z['param/k'][b] == k, f'{where}: k = {z["param/k"][b]}, drawn {k}')
        T = int(lengths[b])
        node = lambda name: z[name][..., n0:n1]
        edge = lambda name: z[name][..., e0:e1]
        expect(np.array_equal(node('input/pos'), np.arange(n) / n), f'{where}: pos')
        expect(np.all(edge('input/adj') == 1), f'{where}: adj')
        weighted = algo in ('dijkstra', 'mst_prim')
        if weighted:
            U = rs.uniform(0, 1, (n, n))
            W = np.sqrt(U * U.T + 1e-3) * (adj - np.eye(n))
            for u, v in G.edges():
                G[u][v]['weight'] = W[u, v]
            expect(np.array_equal(edge('input/A'), W[src, dst]), f'{where}: weights A differ from numpy\'s draw')
        elif algo != 'fast_mis':
            expect(np.array_equal(edge('input/A'), (adj - np.eye(n))[src, dst]), f'{where}: A')
        s = None
        if algo in ('bfs', 'dijkstra', 'mst_prim', 'eccentricity'):
            s = rs.randint(0, n)
            expect(np.array_equal(node('input/s'), np.eye(n)[s]), f'{where}: source')
        hint = (lambda name: z['hint/' + name][:T, n0:n1]) if hints else None
        graph = lambda name: z[name][..., b]
        ok = globals()['check_' + algo](G, n, s, T, node, edge, graph, hint, rs, where)
        cell = summary.setdefault(algo, {}).setdefault(fam['kind'], {'samples': 0, 'hint_samples': 0, 'max_n': 0})
        cell['samples'] += 1
        cell['hint_samples'] += int(bool(hints and ok))
        cell['max_n'] = max(cell['max_n'], n)


def check_bfs(G, n, s, T, node, edge, graph, hint, rs, where):
    dist = nx.single_source_shortest_path_length(G, s)
    pi = node('output/pi')
    for v in range(n):
        want = v if v == s else min(u for u in G[v] if dist[u] == dist[v] - 1)
        expect(pi[v] == want, f'{where}: pi[{v}] = {pi[v]}, want {want} (lowest neighbour one hop closer)')
    expect(T == max(dist.values()) + 1, f'{where}: length {T}, want ecc(s) + 1 = {max(dist.values()) + 1}')
    if hint:
        d = np.array([dist[v] for v in range(n)])
        for t in range(T):
            expect(np.array_equal(hint('reach_h')[t], (d <= t).astype(float)), f'{where}: reach_h[{t}]')
            expect(np.array_equal(hint('pi_h')[t], np.where(d <= t, pi, np.arange(n))), f'{where}: pi_h[{t}]')
    return True


def check_dfs(G, n, s, T, node, edge, graph, hint, rs, where):
    pred = nx.dfs_predecessors(G, source=0)
    want = np.array([pred.get(v, v) for v in range(n)])
    expect(np.array_equal(node('output/pi'), want), f'{where}: pi differs from dfs_predecessors')
    expect(T == 3 * n, f'{where}: length {T}, want 3n = {3 * n}')
    if hint:
        d, f, clock = np.zeros(n), np.zeros(n), 0.0
        for u, v, kind in nx.dfs_labeled_edges(G, source=0):
            if kind == 'forward':
                clock += 0.01
                d[v] = clock
            elif kind == 'reverse':
                clock += 0.01
                f[v] = clock
        expect(np.array_equal(hint('d')[T - 1], d), f'{where}: discovery times')
        expect(np.array_equal(hint('f')[T - 1], f), f'{where}: finishing times')
        expect(np.array_equal(hint('pi_h')[T - 1], want), f'{where}: last pi_h')
    return True


def check_dijkstra(G, n, s, T, node, edge, graph, hint, rs, where):
    dist = nx.single_source_dijkstra_path_length(G, s)
    pi = node('output/pi')
    expect(pi[s] == s, f'{where}: pi[s]')
    for v in range(n):
        if v != s:
            u = pi[v]
            expect(G.has_edge(u, v) and dist[u] + G[u][v]['weight'] == dist[v], f'{where}: pi[{v}] = {u} is not on a shortest path')
    expect(T == n + 1, f'{where}: length {T}, want n + 1')
    if hint:
        expect(np.array_equal(hint('d')[T - 1], [dist[v] for v in range(n)]), f'{where}: final d differs from NetworkX\'s distances')
        order = [int(np.argmax(hint('u')[t])) for t in range(1, T)]
        expect(order == sorted(range(n), key=lambda v: dist[v]), f'{where}: nodes not settled by increasing distance')
    return True


def check_mst_prim(G, n, s, T, node, edge, graph, hint, rs, where):
    pi = node('output/pi')
    got = {(min(v, pi[v]), max(v, pi[v])) for v in range(n) if v != s}
    want = {(min(u, v), max(u, v)) for u, v in nx.minimum_spanning_tree(G).edges()}
    expect(got == want and pi[s] == s, f'{where}: the tree is not NetworkX\'s minimum spanning tree')
    expect(T == n + 1, f'{where}: length {T}, want n + 1')
    return True


def check_fast_mis(G, n, s, T, node, edge, graph, hint, rs, where):
    mis = node('output/inmis')
    members = {v for v in range(n) if mis[v] == 1}
    expect(all(not (u in members and v in members) for u, v in G.edges()), f'{where}: inmis is not independent')
    expect(nx.is_dominating_set(G, members), f'{where}: inmis is not maximal')
    R = node('input/randomness')[:T]
    alive, inmis = set(range(n)), set()
    expect(T % 2 == 0, f'{where}: odd length {T}')
    for r in range(T // 2):
        nums = rs.rand(n)
        expect(np.array_equal(R[2 * r], nums) and np.array_equal(R[2 * r + 1], nums), f'{where}: round {r}\'s numbers')
        if hint:
            expect(np.array_equal(hint('alive_h')[2 * r], [v in alive for v in range(n)]), f'{where}: alive_h before round {r}')
        joined = {v for v in alive if all(nums[v] < nums[w] or (nums[v] == nums[w] and v > w) for w in G[v] if w in alive)}
        inmis |= joined
        alive -= joined | {w for v in joined for w in G[v]}
        if hint:
            expect(np.array_equal(hint('alive_h')[2 * r + 1], [v in alive for v in range(n)]), f'{where}: alive_h after round {r}')
            expect(np.array_equal(hint('inmis_h')[2 * r + 1], [v in inmis for v in range(n)]), f'{where}: inmis_h after round {r}')
        expect(bool(alive) == (r < T // 2 - 1), f'{where}: {T // 2} rounds, but the replay ends otherwise')
    expect(inmis == members, f'{where}: the replayed rounds give another set')
    return True


def check_eccentricity(G, n, s, T, node, edge, graph, hint, rs, where):
    got, want = graph('output/eccentricity'), nx.eccentricity(G, v=s)
    expect(got == want, f'{where}: eccentricity {got}, NetworkX {want}')
    if hint:
        expect(graph('hint/eccentricity_h')[T - 1] == want, f'{where}: last eccentricity_h')
    return True


def main():
    summary = {}
    for d in sys.argv[1:]:
        m = json.load(open(os.path.join(d, 'manifest.json')))
        for meta in m['files']:
            try:
                check_file(os.path.join(d, meta['file']), meta, m['seed'], summary)
            except Mismatch as e:
                print(f'MISMATCH: {e}', file=sys.stderr)
                sys.exit(1)
    json.dump(summary, sys.stdout, sort_keys=True)


if __name__ == '__main__':
    main()
