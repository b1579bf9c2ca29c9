#!/usr/bin/env python3
"""Reads `go test -json` events on stdin and prints what plain `go test` would
(each package's ok/FAIL line, the whole output of a failing test, build
errors; a passing test's log stays quiet), then, with --summary FILE, writes
to FILE each package's time (slowest first) and the slowest tests (top-level
tests and their direct subtests, such as each notebook of TestNotebooks).

Used by scripts/test.sh (make test). Only the standard library.
"""
import argparse
import json
import sys
from collections import defaultdict

PREFIX = "github.com/narlab/narlab/"


def short(pkg):
    return pkg[len(PREFIX):] if pkg.startswith(PREFIX) else pkg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--summary", help="file to write the timing summary to")
    ap.add_argument("--slowest", type=int, default=25, help="how many of the slowest tests to list")
    args = ap.parse_args()

    buffered = defaultdict(list)  # (package, test) -> output lines of a running test
    pkg_time = {}                 # package -> (seconds, "ok"|"FAIL")
    test_time = []                # (seconds, package, test, action) of tests and direct subtests
    out = sys.stdout
    for raw in sys.stdin:
        try:
            ev = json.loads(raw)
        except ValueError:
            out.write(raw)  # not an event (go's own message): pass it on
            out.flush()
            continue
        action, pkg, test = ev.get("Action"), ev.get("Package", ""), ev.get("Test")
        text = ev.get("Output", "")
        if action == "build-output":
            out.write(text)
        elif action == "output":
            if test:
                if text.startswith(("=== RUN", "=== PAUSE", "=== CONT", "=== NAME")):
                    continue
                buffered[(pkg, test)].append(text)
            else:
                out.write(text)  # the package's own lines: ok/FAIL, panics, TestMain's output
        elif action in ("pass", "fail", "skip") and test:
            lines = buffered.pop((pkg, test), [])
            if action == "fail":
                out.write("".join(lines))
            if test.count("/") <= 1 and "Elapsed" in ev:
                test_time.append((ev["Elapsed"], short(pkg), test, action))
        elif action in ("pass", "fail") and not test and "Elapsed" in ev:
            pkg_time[short(pkg)] = (ev["Elapsed"], "ok" if action == "pass" else "FAIL")
        out.flush()
    # Output of tests that never ended (a panic or a timeout kills the binary).
    for (pkg, test), lines in buffered.items():
        out.write("".join(lines))

    if args.summary:
        with open(args.summary, "w") as f:
            f.write("time per package (packages run two at a time, so the times add up to more than the wall time):\n")
            for name, (secs, status) in sorted(pkg_time.items(), key=lambda kv: -kv[1][0]):
                f.write(f"  {secs:8.1f}s  {status:<4} {name}\n")
            f.write(f"the {args.slowest} slowest tests:\n")
            for secs, pkg, test, action in sorted(test_time, reverse=True)[: args.slowest]:
                f.write(f"  {secs:8.1f}s  {pkg}.{test}{'' if action == 'pass' else ' (' + action + ')'}\n")
            passed = sum(1 for s in pkg_time.values() if s[1] == "ok")
            f.write(f"packages: {passed} passed, {len(pkg_time) - passed} failed\n")


if __name__ == "__main__":
    main()
