"""Fixtures of JAX's rules where values tie (lib/nn/testdata/ties/ties.json).

For each operation the reference model (dm-clrs on JAX 0.4.38) uses where
values can tie, JAX itself computes the value and the gradient (the
vector-Jacobian product with a fixed cotangent) at inputs built to tie
exactly: small integers and halves, so that every sum is exact on any
backend and a tie in JAX is a tie in narlab. lib/nn's TestJAXTieRules
computes the same with narlab's ops (lib/nn/ties.go and their call
sites) on both backends and requires the same numbers.

The expressions below are the reference model's operations as its code
calls them (jnp.max, jnp.min, jnp.maximum, jnp.minimum, jax.nn.relu,
jnp.argmax with jax.nn.one_hot, the triplet messages' sum of seven terms
and their max over the first node, the inf_bias of the *_mask
processors' decoders, the binary cross-entropy of mask probes), written
here from their definitions; nothing of the reference is imported.

Usage: $(scripts/ref-harness.sh --jax) scripts/tie_fixtures.py [OUT]
(OUT defaults to lib/nn/testdata/ties/ties.json)
"""
import json
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np


def arr(x):
    x = np.asarray(x, dtype=np.float32)
    return {"shape": list(x.shape), "data": [float(v) for v in x.ravel()]}


def vjp_case(name, op, fn, inputs, params=None, ct=None):
    """fn(*inputs) → y; records y and the gradients of sum(ct * y) with
    respect to every input (ct defaults to 1, 2, 3, … over y's entries, so
    that a split cotangent shows which share went where)."""
    xs = [jnp.asarray(np.asarray(v, dtype=np.float32)) for v in inputs.values()]
    y, pull = jax.vjp(fn, *xs)
    if ct is None:
        ct = (np.arange(y.size, dtype=np.float32) + 1).reshape(y.shape)
    grads = pull(jnp.asarray(ct, dtype=y.dtype))
    return {"name": name, "op": op, "params": params or {},
            "inputs": {k: arr(v) for k, v in inputs.items()},
            "cotangent": arr(ct), "value": arr(y),
            "grads": {k: arr(g) for k, g in zip(inputs, grads)}}


def value_case(name, op, y, inputs, params=None):
    return {"name": name, "op": op, "params": params or {},
            "inputs": {k: arr(v) for k, v in inputs.items()}, "value": arr(y)}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "lib", "nn", "testdata", "ties", "ties.json")
    cases = []

    # jax.nn.relu: gradient 0 at 0 (both zeros), 1 above.
    x = [[-2.0, -0.0, 0.0, 0.0, 0.5, 3.0], [0.0, 1.0, -1.0, 0.0, 2.0, -0.5]]
    cases.append(vjp_case("relu at zero", "relu", jax.nn.relu, {"x": x}))

    # jax.nn.leaky_relu (GAT's attention logits, slope 0.01 as the
    # reference's default): where(x >= 0, x, 0.01 x), gradient 1 at 0.
    x = [[-2.0, -0.0, 0.0, 0.0, 0.5, 3.0], [0.0, 1.0, -1.0, 0.0, 2.0, -0.5]]
    cases.append(vjp_case("leaky relu at zero", "leaky_relu", jax.nn.leaky_relu, {"x": x}))

    # jnp.max over one axis: ties of 2, 3 and 4 elements; a cotangent of 1
    # over 3 ties is 1/3 each (a rounded division).
    x = np.array([[[1, 0, 2], [1, 0, 2], [0, 0, 2], [1, 0, -1]],
                  [[3, 5, 0.5], [3, -1, 0.5], [2, 5, 0.5], [3, 5, 0.5]]], dtype=np.float32)
    cases.append(vjp_case("max over axis 1 with ties", "reduce_max", lambda x: jnp.max(x, axis=1),
                          {"x": x}, {"axes": [1]}, ct=np.array([[1, 1, 7], [1, 2, 10]], np.float32)))
    # ... over two axes (the inf_bias minimum's and the readout's layouts).
    x = np.array([[[0, 4, 4], [4, 1, 4]], [[-1, -1, 2], [-3, -1, 2]]], dtype=np.float32)
    cases.append(vjp_case("max over axes 1 and 2 with ties", "reduce_max", lambda x: jnp.max(x, axis=(1, 2)),
                          {"x": x}, {"axes": [1, 2]}, ct=np.array([1, 5], np.float32)))
    x = np.array([[[0, 4, 0], [4, 1, 0]], [[-1, -3, 2], [-3, -1, -3]]], dtype=np.float32)
    cases.append(vjp_case("min over axes 1 and 2 with ties", "reduce_min", lambda x: jnp.min(x, axis=(1, 2)),
                          {"x": x}, {"axes": [1, 2]}, ct=np.array([3, 1], np.float32)))

    # jnp.maximum / jnp.minimum: half the cotangent to each side at a tie;
    # broadcast as the pointer decoders' max(p1[x], p2[y] + p3[x,y]).
    a = np.array([[1, 2, 3, -1, 0], [0, 0, 5, 5, 2]], np.float32)
    b = np.array([[1, 3, 2, -1, -0.0], [0.5, 0, 5, 4, 2]], np.float32)
    cases.append(vjp_case("maximum with ties", "maximum", jnp.maximum, {"a": a, "b": b}))
    cases.append(vjp_case("minimum with ties", "minimum", jnp.minimum, {"a": a, "b": b}))
    a = np.array([[[1, 2]], [[0, 3]]], np.float32)  # [2,1,2]
    b = np.array([[[1, 2], [1, 0], [2, 2]], [[0, 3], [0, 4], [-1, 3]]], np.float32)  # [2,3,2]
    cases.append(vjp_case("maximum broadcast with ties", "maximum", jnp.maximum, {"a": a, "b": b}))

    # argmax over the last axis, one-hot (hard re-prediction): the first
    # of tied maxima.
    x = np.array([[1, 3, 3, 0], [2, 2, 2, 2], [0, 1, -1, 1], [-1, -2, -1, -3]], np.float32)
    cases.append(value_case("one-hot argmax with ties", "one_hot_argmax",
                            jax.nn.one_hot(jnp.argmax(jnp.asarray(x), axis=-1), x.shape[-1]), {"x": x}))

    # The triplet messages and their max over the first node (axis 1):
    # tri[b,i,j,k] = t1_i + t2_j + t3_k + te1_ij + te2_ik + te3_jk + tg,
    # features last; values 0 and 1 so that many i tie.
    rng = np.random.RandomState(3)
    B, N, T = 1, 3, 2
    t = {"t1": rng.randint(0, 2, (B, N, T)), "t2": rng.randint(0, 2, (B, N, T)), "t3": rng.randint(0, 2, (B, N, T)),
         "te1": rng.randint(0, 2, (B, N, N, T)), "te2": rng.randint(0, 2, (B, N, N, T)),
         "te3": rng.randint(0, 2, (B, N, N, T)), "tg": rng.randint(0, 2, (B, T))}

    def triplets(t1, t2, t3, te1, te2, te3, tg):
        tri = (t1[:, :, None, None] + t2[:, None, :, None] + t3[:, None, None, :] + te1[:, :, :, None] +
               te2[:, :, None, :] + te3[:, None, :, :] + tg[:, None, None, None])
        return jnp.max(tri, axis=1)

    cases.append(vjp_case("triplet max over the first node with ties", "triplet_max", triplets, t))

    # The *_mask processors' decoders (inf_bias): logits off the adjacency
    # become min(-1, per-sample min - 1); sample 0's minimum ties three
    # ways, sample 1's is 0, so that min - 1 ties with -1.
    preds = np.array([[[2, -1, -1], [0, -1, 3], [1, 1, 2]], [[0, 2, 1], [3, 0.5, 1], [2, 1, 0]]], np.float32)
    adj = np.array([[[1, 0, 1], [1, 1, 0], [0, 1, 1]], [[1, 1, 0], [0, 1, 1], [1, 0, 1]]], np.float32)

    def inf_bias(p):
        low = jnp.min(p, axis=(1, 2), keepdims=True)
        return jnp.where(jnp.asarray(adj) > 0.5, p, jnp.minimum(-1.0, low - 1.0))

    c = vjp_case("inf_bias with tied minima", "inf_bias", inf_bias, {"preds": preds})
    c["inputs"]["adj"] = arr(adj)
    cases.append(c)

    # Binary cross-entropy of a mask probe at logits exactly 0 (maximum's
    # and abs's ties), summed over the unmasked entries.
    logits = np.array([[0, 0, 0, 1.5], [-2, 0, 0, 0]], np.float32)
    truth = np.array([[1, 0, -1, 1], [0, 1, 0, -1]], np.float32)

    def bce(p):
        loss = jnp.maximum(p, 0) - p * truth + jnp.log1p(jnp.exp(-jnp.abs(p)))
        return jnp.sum(loss * (truth != -1).astype(jnp.float32))

    c = vjp_case("mask cross-entropy at logit 0", "mask_loss", bce, {"logits": logits}, ct=np.float32(1))
    c["inputs"]["truth"] = arr(truth)
    cases.append(c)

    # Segments (the sparse model's segment max, and its hard re-prediction):
    # the max of each segment's rows as jnp.max over that segment.
    x = np.array([[1, 0], [3, 0], [3, 0], [2, 5], [2, 5], [2, 5], [-1, 4]], np.float32)
    seg = [0, 0, 0, 1, 1, 1, 2]

    def seg_max(x):
        return jnp.stack([jnp.max(x[np.array(seg) == s], axis=0) for s in range(3)])

    c = vjp_case("segment max with ties", "segment_max", seg_max, {"x": x}, {"segments": seg})
    cases.append(c)
    v = np.array([1, 3, 3, 2, 0, 2, -1], np.float32)
    hot = np.zeros_like(v)
    for s in range(3):
        rows = np.flatnonzero(np.array(seg) == s)
        hot[rows[int(jnp.argmax(jnp.asarray(v[rows])))]] = 1
    cases.append(value_case("segment one-hot argmax with ties", "segment_one_hot_argmax", hot, {"x": v},
                            {"segments": seg}))

    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump({"generator": "scripts/tie_fixtures.py", "jax": jax.__version__, "cases": cases}, f, indent=1)
        f.write("\n")
    print(f"{len(cases)} cases, JAX {jax.__version__} → {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
