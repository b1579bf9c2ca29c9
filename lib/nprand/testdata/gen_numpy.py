#!/usr/bin/env python3
"""Writes numpy_draws.json: reference draws of numpy's legacy RandomState.

Run with any numpy (RandomState's streams are frozen across versions):
    python3 gen_numpy.py > numpy_draws.json
Each case replays a sequence of calls on one RandomState(seed) and records
every result, so the Go port is checked call by call, in order.
"""
import json
import numpy as np

CALLS = [
    ('uint32', 700),            # raw MT19937 outputs (crosses a state regeneration)
    ('random_sample', 9),
    ('uniform', -1.0, 3.0, 7),
    ('uniform', 0.0, 6.283185307179586, 5),
    ('randint', 0, 7, 20),
    ('randint', 0, 1, 3),       # consumes nothing
    ('randint', 3, 1000003, 6),
    ('randint', 0, 2**40, 4),   # 64-bit masked draws
    ('choice', 100, 5),
    ('binomial', 0.01, 40),
    ('binomial', 0.2, 40),
    ('binomial', 0.5, 40),
    ('binomial', 0.7, 40),
    ('binomial', 0.99, 40),
    ('permutation', 10),
    ('permutation', 1),
    ('permutation', 33),
    ('uniform', 0.0, 1.0, 3),
]


def run(seed):
    rs = np.random.RandomState(seed)
    out = []
    for call in CALLS:
        kind = call[0]
        if kind == 'uint32':
            v = rs.randint(0, 2**32, size=call[1], dtype=np.uint64).tolist()
        elif kind == 'random_sample':
            v = [x.hex() for x in rs.random_sample(call[1]).tolist()]
        elif kind == 'uniform':
            v = [x.hex() for x in rs.uniform(call[1], call[2], call[3]).tolist()]
        elif kind == 'randint':
            v = rs.randint(call[1], call[2], size=call[3], dtype=np.int64).tolist()
        elif kind == 'choice':
            v = rs.choice(call[1], (call[2],)).tolist()
        elif kind == 'binomial':
            v = rs.binomial(1, call[1], size=call[2]).tolist()
        elif kind == 'permutation':
            v = rs.permutation(call[1]).tolist()
        out.append({'call': list(call), 'result': v})
    return out


print(json.dumps({'numpy': np.__version__,
                  'cases': [{'seed': s, 'calls': run(s)} for s in (0, 1, 42, 5489, 2**32 - 1)]}))
