#!/usr/bin/env python3
r"""Generate (y, x, math.atan2(y, x)) test vectors for refmath.Atan2.

Each output line holds three IEEE-754 binary64 bit patterns as 16 lowercase
hex digits, separated by single spaces:

    <bits of y> <bits of x> <bits of math.atan2(y, x)>

Lines starting with '#' are comments. The expected values come from
Python's math.atan2, i.e. from the C library's atan2, so the vectors are
only as good as the machine they were generated on.

The committed file testdata/atan2_vectors.txt.gz was produced, from this
directory, with

    python3 gen_atan2.py --gzip atan2_vectors.txt.gz

(defaults: --uniform 14000 --magnitudes 8000 --hard 400 --seed 20240607;
CPython 3.11.7 with mpmath 1.3.0, its math module linked against Debian
bookworm's /lib/x86_64-linux-gnu/libm.so.6, glibc 2.36-9+deb12u14, on an
x86-64 CPU with FMA and AVX2 and without AVX-512, so that glibc's ifunc
dispatched atan2 to __atan2_fma; the reference data's AVX-512 machine gets
the same variant). The script refuses to run elsewhere unless --force is
given, because other glibc versions, or CPUs without FMA, may differ in
the last bit.

The one-off large check (2 million uniform pairs in [-4, 4]^2, 2 million
differences of points in a radius-2 disk, 1 million random-magnitude pairs,
1000 not-correctly-rounded cases, and the enumerated edge cases) was run as

    python3 gen_atan2.py --uniform 4000000 --magnitudes 1000000 \
        --hard 1000 --seed 12345 /tmp/atan2_big.txt
    REFMATH_ATAN2_VECTORS=/tmp/atan2_big.txt \
        go test ./lib/clrs/internal/refmath/ -run TestAtan2VectorFile -v
"""

import argparse
import gzip
import math
import platform
import random
import struct
import sys


def bits(v):
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b & 0xFFFFFFFFFFFFFFFF))[0]


def next_up(v, n=1):
    """v moved n ulps towards +inf (n may be negative); finite v only."""
    for _ in range(abs(n)):
        v = math.nextafter(v, math.inf if n > 0 else -math.inf)
    return v


def random_double(rng, emin, emax):
    """A double with a random sign, exponent in [emin, emax] and mantissa.

    Exponents below -1022 give subnormals (the mantissa is shifted down).
    """
    e = rng.randint(emin, emax)
    m = rng.getrandbits(52)
    if e >= -1022:
        b = ((e + 1023) << 52) | m
    else:
        b = ((1 << 52) | m) >> (-1022 - e)
    if rng.random() < 0.5:
        b |= 1 << 63
    return from_bits(b)


def graham_pairs(rng, n):
    """Arguments as the Graham-scan hint produces them.

    Half are plain uniform pairs in [-4, 4]^2; the rest are differences of
    points drawn uniformly in a disk of radius 2 (the sampler's regime).
    """
    out = []
    for k in range(n):
        if k % 2 == 0:
            out.append((rng.uniform(-4, 4), rng.uniform(-4, 4)))
        else:
            pts = []
            while len(pts) < 2:
                px, py = rng.uniform(-2, 2), rng.uniform(-2, 2)
                if px * px + py * py <= 4:
                    pts.append((px, py))
            (x0, y0), (x1, y1) = pts
            out.append((y1 - y0, x1 - x0))
    return out


def magnitude_pairs(rng, n):
    """Random signs and exponents over the whole double range.

    Three quarters of the pairs have exponents within +-64 of each other
    (the polynomial/table paths); the rest are independent (mostly the
    paths where the exponent gap alone decides the result).
    """
    out = []
    for k in range(n):
        if k % 4 == 3:
            out.append((random_double(rng, -1074, 1023),
                        random_double(rng, -1074, 1023)))
            continue
        e = rng.randint(-1074, 1023)
        lo, hi = max(-1074, e - 64), min(1023, e + 64)
        y = random_double(rng, e, e)
        x = random_double(rng, lo, hi)
        if k % 2:
            x, y = y, x
        out.append((y, x))
    return out


def special_pairs(rng):
    """Special values and boundaries of the algorithm, enumerated."""
    inf, nan = math.inf, math.nan
    tiny = 5e-324
    dmin = 2.2250738585072014e-308
    dmax = sys.float_info.max
    vals = [0.0, -0.0, inf, -inf, nan, -nan, 1.0, -1.0, 0.5, 2.0, 3.0,
            tiny, -tiny, 2 * tiny, dmin, -dmin, next_up(dmin, -1),
            dmax, -dmax, 1e-300, 1e300, 2.0**(-500), 2.0**500, next_up(2.0**(-500)),
            next_up(2.0**(-500), -1), next_up(2.0**500), next_up(2.0**500, -1),
            2.0**(-1000), 2.0**1000, math.pi, 1e-20, 1e20, 0.0625, 16.0]
    vals += [-v for v in vals if v == v and v != 0]
    out = [(y, x) for y in vals for x in vals]

    # |y| = |x| and near it: ratio 1 and the split between the octants.
    for _ in range(150):
        x = random_double(rng, -1074, 1023)
        for d in (-3, -2, -1, 0, 1, 2, 3):
            y = next_up(x, d) if math.isfinite(next_up(x, d)) else x
            for sy in (1, -1):
                for sx in (1, -1):
                    out.append((sy * abs(y), sx * abs(x)))
    for _ in range(300):
        x = rng.uniform(-4, 4)
        for d in (-2, -1, 0, 1, 2):
            out.append((next_up(x, d), x))
            out.append((-next_up(x, d), x))

    # Ratio u around 1/16 (polynomial/table switch) and around the
    # half-way points (k + 1/2)/256 where the row index rounds to even,
    # and exactly at the row centres k/256.
    for num, den in [(1.0, 16.0), (3.0, 48.0), (2.0**(-600), 2.0**(-596))]:
        for d in range(-3, 4):
            for sy in (1, -1):
                for sx in (1, -1):
                    out.append((sy * next_up(num, d), sx * den))
                    out.append((sx * den, sy * next_up(num, d)))
    for k in range(16, 257):
        for num in (k + 0.5, float(k)):
            for d in (-1, 0, 1):
                n = next_up(num, d)
                for sy in (1, -1):
                    for sx in (1, -1):
                        out.append((sy * n, sx * 256.0))
                        out.append((sy * 256.0, sx * n))

    # Exponent gap around the 57 threshold, with normal and subnormal
    # operands, and huge/tiny ratios.
    for gap in range(50, 65):
        for base in (-1074, -1060, -1022, -1000, -540, -500, -480, -1, 0,
                     470, 500, 900, 1023 - gap):
            for _ in range(3):
                a = random_double(rng, base, base)
                b = random_double(rng, base + gap, base + gap)
                if math.isfinite(b):
                    out.append((a, b))
                    out.append((b, a))
    for _ in range(500):
        a = random_double(rng, -1074, -1000)
        b = random_double(rng, -1074, -1000)
        out.append((a, b))
    return out


def hard_pairs(rng, n):
    """Graham-regime pairs where glibc's result is not correctly rounded.

    These are the arguments whose exact value lies close to a rounding
    boundary, where the order of operations and the choice of fused
    multiply-adds decide the last bit. Candidates are uniform in [-4, 4]^2,
    half of them with one coordinate shrunk below 1/16 of the other (the
    polynomial branch); each is kept if math.atan2 differs from atan2
    evaluated with mpmath at 128 bits and rounded to nearest.
    """
    import mpmath
    mpmath.mp.prec = 128
    out = []
    while len(out) < n:
        y, x = rng.uniform(-4, 4), rng.uniform(-4, 4)
        if rng.random() < 0.5:
            y *= rng.uniform(0, 1 / 16)
            if rng.random() < 0.5:
                x, y = y, x
        exact = float(mpmath.atan2(mpmath.mpf(y), mpmath.mpf(x)))
        if exact != math.atan2(y, x):
            out.append((y, x))
    return out


def format_vectors(pairs, header):
    """Yield the output lines, computing math.atan2 for each pair."""
    for line in header:
        yield "# " + line + "\n"
    for y, x in pairs:
        r = math.atan2(y, x)
        yield "%016x %016x %016x\n" % (bits(y), bits(x), bits(r))


def write(path, pairs, header, use_gzip):
    text = "".join(format_vectors(pairs, header)).encode("ascii")
    with open(path, "wb") as f:
        if use_gzip:
            # mtime=0 and an empty name keep the output reproducible.
            with gzip.GzipFile(filename="", mode="wb", mtime=0,
                               fileobj=f) as z:
                z.write(text)
        else:
            f.write(text)
    return len(pairs)


def check_platform(force):
    ok = (platform.system() == "Linux" and platform.machine() == "x86_64"
          and platform.libc_ver()[1] == "2.36")
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = line.split()
                    break
    except OSError:
        pass
    ok = ok and "fma" in flags and "avx2" in flags
    if not ok and not force:
        sys.exit("gen_atan2.py: expected x86-64 Linux, glibc 2.36, FMA+AVX2 "
                 "(got %s %s glibc %s); use --force to override"
                 % (platform.system(), platform.machine(),
                    platform.libc_ver()[1]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--uniform", type=int, default=14000,
                    help="Graham-scan regime pairs (default 14000)")
    ap.add_argument("--magnitudes", type=int, default=8000,
                    help="random-magnitude pairs (default 8000)")
    ap.add_argument("--hard", type=int, default=400,
                    help="pairs where glibc is not correctly rounded "
                    "(default 400; needs mpmath)")
    ap.add_argument("--seed", type=int, default=20240607)
    ap.add_argument("--gzip", action="store_true")
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()
    check_platform(args.force)

    rng = random.Random(args.seed)
    pairs = special_pairs(rng)
    pairs += graham_pairs(rng, args.uniform)
    pairs += magnitude_pairs(rng, args.magnitudes)
    pairs += hard_pairs(rng, args.hard)
    header = [
        "y x math.atan2(y, x) as IEEE-754 binary64 bits (hex)",
        "generated by gen_atan2.py --uniform %d --magnitudes %d --hard %d "
        "--seed %d" % (args.uniform, args.magnitudes, args.hard, args.seed),
        "python %s, glibc %s, %s"
        % (platform.python_version(), platform.libc_ver()[1],
           platform.machine()),
    ]
    n = write(args.out, pairs, header, args.gzip)
    print("wrote %d vectors to %s" % (n, args.out))


if __name__ == "__main__":
    main()
