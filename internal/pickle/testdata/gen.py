"""Writes the pickles internal/pickle's tests read, with CPython's own
pickle module and NumPy, and the values they hold in a canonical JSON form
(VALUE.json) that the Go test compares its decoding with.

    python gen.py DIR TAG

TAG names the NumPy generation (np1: NumPy 1.x, whose arrays pickle as
numpy.core.*; np2: NumPy 2.x, numpy._core.*). The committed files were made
with NumPy 1.26.4 (scripts/setup-pybridge.sh's environment) and 2.4.6 (the
project's .venv), both under CPython 3.11:

    .../pybridge-*/bin/python internal/pickle/testdata/gen.py internal/pickle/testdata np1
    .venv/bin/python internal/pickle/testdata/gen.py internal/pickle/testdata np2
"""
import collections
import json
import os
import pickle
import sys
import types

import numpy as np

# A named tuple pickled as testmod.State (the way optax's states are).
State = collections.namedtuple("State", ["count", "mu"])
State.__module__ = "testmod"
sys.modules["testmod"] = types.ModuleType("testmod")
sys.modules["testmod"].State = State


class Evil:
    def __reduce__(self):
        return (eval, ("1+1",))


def canon(v):
    """The canonical JSON form of a value (internal/pickle's canon)."""
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, (np.ndarray, np.generic)):
        a = np.asarray(v)
        return {"array": a.dtype.str[1:], "shape": list(a.shape),
                "hex": np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes().hex()}
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": v.hex()}
    if isinstance(v, str):
        return {"str": v}
    if isinstance(v, (bytes, bytearray)):
        return {"bytes": bytes(v).hex()}
    if isinstance(v, State):
        return {"object": "testmod.State", "args": [canon(x) for x in v]}
    if isinstance(v, tuple):
        return {"tuple": [canon(x) for x in v]}
    if isinstance(v, list):
        return {"list": [canon(x) for x in v]}
    if isinstance(v, dict):
        return {"dict": [[canon(k), canon(x)] for k, x in v.items()]}
    raise TypeError(type(v))


def main():
    out, tag = sys.argv[1], sys.argv[2]
    basic = {
        "f32": np.arange(6, dtype=np.float32).reshape(2, 3) / 7,
        "i64": np.array([-1, 2**40], dtype=np.int64),
        "bytes": b"\x00\xffabc",
        "t": (1, -1, 300, 70000, -70000, 2**40, -2**63, 1.5, -0.1, None, True, False, "h\u00e9llo"),
        "list": [1, [2, "x"]],
        "empty": {},
        "scalar": np.float32(2.5),
        "long string": "x" * 300,
    }
    x = np.ones(3, dtype=np.float64)
    layouts = {
        "fortran": np.asfortranarray(np.arange(24, dtype="<f8").reshape(2, 3, 4)),
        "big-endian": np.arange(5, dtype=">i4") - 2,
        "big-endian float": np.array([1.5, -2.25], dtype=">f4"),
        "bool": np.array([True, False, True]),
        "u1": np.array([0, 7, 255], dtype=np.uint8),
        "i1": np.array([-128, 5], dtype=np.int8),
        "f2": np.array([1.5, -0.25, 65504, 6e-8], dtype=np.float16),
        "0-d": np.array(7, dtype=np.int32),
        "empty": np.zeros((0, 3), dtype=np.float32),
        "shared a": x, "shared b": x,
        "ordered": collections.OrderedDict([("b", 1), ("a", 2)]),
        "state": State(np.array(3, dtype=np.int32), {"w": np.ones((2, 2), dtype=np.float32)}),
        "big": np.arange(300, dtype=np.float32),
    }
    cases = {}
    for p in (2, 3, 4, 5):
        cases[f"basic-p{p}"] = (basic, pickle.dumps(basic, protocol=p))
        cases[f"layouts-p{p}"] = (layouts, pickle.dumps(layouts, protocol=p))
    bad = {
        "os-system": pickle.dumps(os.system, protocol=4),
        "eval": pickle.dumps(Evil(), protocol=4),
        "protocol-0": pickle.dumps({"a": 1}, protocol=0),
        "protocol-1": pickle.dumps({"a": 1}, protocol=1),
        "object-array": pickle.dumps(np.array([1, "a"], dtype=object), protocol=4),
        "structured": pickle.dumps(np.zeros(2, dtype=[("a", "f4")]), protocol=4),
        "out-of-band": pickle.dumps(np.arange(3.0), protocol=5, buffer_callback=lambda b: False),
        "set": pickle.dumps({"s": {1, 2}}, protocol=4),
        "masked": pickle.dumps(np.ma.array([1.0, 2.0], mask=[0, 1]), protocol=4),
        "complex": pickle.dumps(np.array([1j]), protocol=4),
    }
    whole = pickle.dumps(basic, protocol=4)
    bad["truncated"] = whole[: len(whole) // 2]
    bad["trailing"] = whole + b"\x00"
    bad["empty"] = b""
    for name, (value, data) in cases.items():
        # The pickle holds what was pickled: CPython reads it back equal.
        assert canon(pickle.loads(data)) == canon(value), name
        with open(os.path.join(out, f"{name}.{tag}.pkl"), "wb") as f:
            f.write(data)
        with open(os.path.join(out, f"{name}.{tag}.json"), "w") as f:
            json.dump(canon(value), f, indent=1)
            f.write("\n")
    for name, data in bad.items():
        with open(os.path.join(out, f"bad-{name}.{tag}.pkl"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
