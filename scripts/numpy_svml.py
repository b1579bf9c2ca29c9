"""An exact emulation of the float64 np.cos and np.sin that produced the
CLRS reference data.

The project's fixtures were made with numpy 1.24 on an x86-64 CPU with
AVX-512, where numpy evaluates float64 np.cos/np.sin with Intel SVML's
__svml_cos8/__svml_sin8 (the low-accuracy variants). On other CPUs, and with
numpy >= 1.25, np.cos/np.sin round differently in the last bit for about half
of all arguments, and those bits reach the convex-hull samplers' point
coordinates (graham_scan, jarvis_march). svml_cos and svml_sin repeat the
routines' sequence of IEEE operations (fused multiply-adds computed exactly
with fractions), checked against the shared graham_scan/jarvis_march
fixtures; narlab's Go port is lib/clrs/internal/refmath.

    import numpy_svml
    numpy_svml.install()   # np.cos and np.sin now give the fixtures' bits

or, for a whole script: python3 scripts/numpy_svml.py SCRIPT [ARGS...]

They are slow (pure Python): for reference data, never for timing.
"""
import math
import runpy
import struct
import sys
from fractions import Fraction

import numpy as np


def _bits(x):
    return struct.unpack('<Q', struct.pack('<d', x))[0]


def _f(h):
    return struct.unpack('<d', struct.pack('<Q', h))[0]


def _fma(a, b, c):
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def _fma_rz(a, b, c):
    v = Fraction(a) * Fraction(b) + Fraction(c)
    r = float(v)
    if abs(Fraction(r)) > abs(v):
        r = math.nextafter(r, 0.0)
    return r


COS = {k: _f(v) for k, v in {
    'invpi': 0x3fd45f306dc9c883, 'shift': 0x4330000000000000, 'half': 0x432fffffffffffff,
    'pi1': 0x400921fb54442d18, 'pi2': 0x3ca1a62633145c06, 'pi3': 0x395c1cd129024e09,
    'c1': 0xbfc55555555554a7, 'c2': 0x3f8111111110a4a8, 'c3': 0xbf2a01a019a5b87b,
    'c4': 0x3ec71de38030fea0, 'c5': 0xbe5ae63546002231, 'c6': 0x3de60e6857a2f220,
    'c7': 0xbd69f0d60811aac8, 'tiny': 0x3e40000000000000}.items()}
SIN = {k: _f(v) for k, v in {
    'invpi': 0x3fd45f306dc9c883, 'shift': 0x4338000000000000,
    'pi1': 0x400921fb54442d18, 'pi2': 0x3ca1a62633145c06, 'pi3': 0x395c1cd129024e09,
    'c1': 0xbfc55555555554a8, 'c2': 0x3f8111111110a573, 'c3': 0xbf2a01a019a659dd,
    'c4': 0x3ec71de3806add1a, 'c5': 0xbe5ae6355aaa4a53, 'c6': 0x3de60e6bee01d83e,
    'c7': 0xbd69f1517e9f65f0}.items()}


def svml_cos(x):
    a = abs(x)
    if a < COS['tiny']:
        return 1.0
    z5 = _fma_rz(a, COS['invpi'], COS['shift'])
    sgn = (_bits(z5) & 1) << 63
    nh = z5 - COS['half']
    r = _fma(nh, COS['pi1'], -a)
    r = _fma(COS['pi2'], nh, r)
    r2 = r * r
    rf = _fma(COS['pi3'], nh, r)
    p = _fma(COS['c7'], r2, COS['c6'])
    for c in ('c5', 'c4', 'c3'):
        p = _fma(r2, p, COS[c])
    rs = _f(_bits(rf) ^ sgn)
    p = _fma(r2, p, COS['c2'])
    r3 = rs * r2
    p = _fma(r2, p, COS['c1'])
    return _fma(r3, p, rs)


def svml_sin(x):
    sh = _fma(x, SIN['invpi'], SIN['shift'])
    sgn = (_bits(sh) & 1) << 63
    if x == 0:
        sgn ^= _bits(x)
    n = sh - SIN['shift']
    r = _fma(-n, SIN['pi1'], x)
    r = _fma(-SIN['pi2'], n, r)
    r2 = r * r
    rf = _fma(-SIN['pi3'], n, r)
    p = _fma(SIN['c7'], r2, SIN['c6'])
    r3 = r2 * rf
    for c in ('c5', 'c4', 'c3', 'c2', 'c1'):
        p = _fma(r2, p, SIN[c])
    res = _fma(r3, p, rf)
    return _f(_bits(res) ^ sgn)


def install():
    """Replaces np.cos and np.sin (scalars and arrays of float64) with the
    emulation, for code that calls them as attributes of numpy."""
    def cos(x, *args, **kwargs):
        x = np.asarray(x, dtype=float)
        return np.vectorize(svml_cos, otypes=[float])(x) if x.ndim else svml_cos(float(x))

    def sin(x, *args, **kwargs):
        x = np.asarray(x, dtype=float)
        return np.vectorize(svml_sin, otypes=[float])(x) if x.ndim else svml_sin(float(x))

    np.cos, np.sin = cos, sin


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit('usage: numpy_svml.py SCRIPT [ARGS...]: runs SCRIPT with np.cos/np.sin emulated')
    install()
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name='__main__')
