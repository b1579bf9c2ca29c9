"""Writes lib/jaxrand/testdata/jax.json: values JAX 0.4.38 itself draws
(keys, split, fold_in, random bits, uniform, bernoulli, gumbel, haiku's
next_rng_key stream and dropout, and XLA CPU's float32 log), which
lib/jaxrand's tests compare with bit for bit.

Usage: PY=$(scripts/ref-harness.sh --jax) && $PY scripts/jaxrand_fixtures.py [OUT]

It needs only the reference's JAX environment (jax, jaxlib 0.4.38 and
dm-haiku 0.0.17, no dm-clrs code). Floats are stored as their IEEE-754
bit patterns (uint32), so nothing is lost in JSON. The float32 log values
are those of XLA's CPU backend on the machine that runs this script; they
are the same on x86-64 CPUs with FMA (lib/jaxrand's Log32 documents the
algorithm).
"""
import json
import os
import sys

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np


def u32(a):
    return [int(x) for x in np.asarray(a, dtype=np.uint32).ravel()]


def f32bits(a):
    return u32(np.asarray(a, dtype=np.float32).view(np.uint32))


def key_list(k):
    return [int(x) for x in np.asarray(k, dtype=np.uint32).ravel()]


def main():
    assert jax.__version__ == "0.4.38", jax.__version__
    assert not jax.config.jax_enable_x64
    assert not jax.config.jax_threefry_partitionable
    out = {"generator": "scripts/jaxrand_fixtures.py", "jax": jax.__version__, "haiku": hk.__version__}

    # run.py's key: PRNGKey(RandomState(42).randint(2**32)).
    runpy_seed = int(np.random.RandomState(42).randint(2**32))
    seeds = [0, 1, 42, 2**31 - 1, 2**31, 2**32 - 1, -1, -2**31, 2**32, 2**40 + 5, -2**40, runpy_seed]
    out["prngkey"] = [{"seed": s, "key": key_list(jax.random.PRNGKey(s))} for s in seeds]

    base = [jax.random.PRNGKey(0), jax.random.PRNGKey(42), jnp.array([123456789, 987654321], dtype=jnp.uint32)]
    out["split"] = [{"key": key_list(k), "n": n, "keys": [key_list(x) for x in jax.random.split(k, n)]}
                    for k in base for n in (1, 2, 3, 5)]
    out["fold_in"] = [{"key": key_list(k), "data": d, "out": key_list(jax.random.fold_in(k, d))}
                      for k in base for d in (0, 7, 2**31, 2**32 - 1)]

    shapes = [[], [1], [2], [3], [2, 3], [5, 7], [4, 16, 8]]
    out["bits"] = [{"key": key_list(k), "shape": s, "bits": u32(jax.random.bits(k, tuple(s), jnp.uint32))}
                   for k in base for s in shapes]
    ranges = [(0.0, 1.0), (0.3, 2.9), (-3.0, 5.0), (float(jnp.finfo(jnp.float32).tiny), 1.0)]
    out["uniform"] = [{"key": key_list(k), "shape": s, "lo_bits": f32bits(np.float32(lo))[0],
                       "hi_bits": f32bits(np.float32(hi))[0],
                       "bits": f32bits(jax.random.uniform(k, tuple(s), jnp.float32, lo, hi))}
                      for k in base for s in ([3], [5, 7]) for lo, hi in ranges]
    # Probabilities as the reference passes them: Python floats (dropout's
    # keep rate 1 - rate; teacher forcing's probability), taken as float32.
    out["bernoulli"] = [{"key": key_list(k), "p": p, "p_bits": f32bits(np.float32(p))[0], "shape": s,
                         "values": [int(x) for x in np.asarray(jax.random.bernoulli(k, p, tuple(s))).ravel()]}
                        for k in base for p in (0.0, 0.5, 1.0 - 0.1, 1.0 - 0.5, 0.3) for s in ([4], [3, 5, 8])]
    out["gumbel"] = [{"key": key_list(k), "shape": s, "bits": f32bits(jax.random.gumbel(k, tuple(s)))}
                     for k in base for s in ([4], [4, 8, 8])]

    # The permutation decoders' noise (dm-clrs decoders.log_sinkhorn):
    # -log(-log(uniform + 1e-12) + 1e-12), jitted.
    @jax.jit
    def sinkhorn_noise(k):
        return -jnp.log(-jnp.log(jax.random.uniform(k, (4, 8, 8)) + 1e-12) + 1e-12)
    out["sinkhorn_noise"] = [{"key": key_list(k), "shape": [4, 8, 8], "bits": f32bits(sinkhorn_noise(k))}
                             for k in base]

    # XLA CPU's float32 log: random inputs over many binades and edge cases.
    rs = np.random.RandomState(0)
    xs = np.concatenate([
        rs.uniform(0, 1, 1500), rs.uniform(0, 64, 1500), np.exp(rs.uniform(-80, 80, 1500)),
        [1e-45, 1e-40, 1.1754942e-38, 1.17549435e-38, 0.5, 0.70710677, 0.70710678, 1.0, 1.0000001, 2.0,
         3.4028235e38, 0.0, np.inf, -1.0, -0.0, np.nan]]).astype(np.float32)
    out["log"] = {"x_bits": f32bits(xs), "log_bits": f32bits(jax.jit(jnp.log)(xs))}

    # haiku's key stream inside a transformed apply: next_rng_key before,
    # inside (two per iteration) and after an hk.scan, then a dropout.
    def f(x):
        k0 = hk.next_rng_key()

        def body(c, _):
            return c, jnp.stack([hk.next_rng_key(), hk.next_rng_key()])
        _, ks = hk.scan(body, 0, None, length=4)
        k9 = hk.next_rng_key()
        kd = hk.next_rng_key()
        return k0, ks, k9, kd, hk.dropout(kd, 0.25, x), hk.next_rng_keys(3)
    t = hk.transform(f)
    x = jnp.asarray(np.random.RandomState(1).uniform(-1, 1, (3, 5, 8)), dtype=jnp.float32)
    params = t.init(jax.random.PRNGKey(0), x)
    out["haiku"] = []
    for seed in (7, 1608637542):
        key = jax.random.PRNGKey(seed)
        k0, ks, k9, kd, d, k3 = jax.jit(t.apply)(params, key, x)
        out["haiku"].append({
            "apply_key": key_list(key),
            "keys": [key_list(k0)] + [key_list(k) for k in np.asarray(ks).reshape(-1, 2)] + [key_list(k9),
                                                                                              key_list(kd)],
            "take3": [key_list(k) for k in k3],
            "dropout_rate": 0.25, "x_shape": list(x.shape), "x_bits": f32bits(x), "dropout_bits": f32bits(d)})

    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "lib", "jaxrand", "testdata", "jax.json")
    with open(path, "w") as fh:
        json.dump(out, fh, separators=(",", ":"))
        fh.write("\n")


if __name__ == "__main__":
    main()
