#!/usr/bin/env bash
# Prepares the reference harness that the side-by-side scripts compare with
# (bench_dataset.sh, bench_train.sh, parity_train.sh, parity_same_init.sh):
# dm-clrs 2.0.3's sources with their stubs, copied from
# ../shared/tools/clrs-ref into REF_DIR (default /tmp/clrs-ref) and set up
# there once (its setup.sh pip; a .ready file marks it done).
#
# Usage: scripts/ref-harness.sh          prints REF_DIR
#        scripts/ref-harness.sh --jax    also creates the throwaway JAX CPU
#                                        environment (REF_VENV, default
#                                        /tmp/narlab-refenv) and prints its python
#        scripts/ref-harness.sh --numpy  also creates a throwaway environment
#                                        with numpy 1.24.4, the numpy the
#                                        project's fixtures and performance
#                                        anchors were made with (REF_NUMPY_VENV,
#                                        default /tmp/narlab-refnumpy), and
#                                        prints its python
# Everything else it prints goes to stderr.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ref=${REF_DIR:-/tmp/clrs-ref}
if [ ! -f "$ref/.ready" ]; then
  src="$root/../shared/tools/clrs-ref"
  [ -d "$src" ] || { echo "ref-harness: no reference harness at $src" >&2; exit 1; }
  rm -rf "$ref" && cp -r "$src" "$ref" && chmod -R u+w "$ref"
  (cd "$ref" && ./setup.sh pip >&2)
  touch "$ref/.ready"
fi
if [ "${1:-}" = "--jax" ]; then
  REF_VENV=${REF_VENV:-/tmp/narlab-refenv} "$ref/setup-jax.sh" | tail -1
elif [ "${1:-}" = "--numpy" ]; then
  # numpy >= 1.25 computes float64 np.sin/np.cos with another code path than
  # 1.24 on AVX-512 CPUs (last bits of the convex-hull coordinates differ).
  venv=${REF_NUMPY_VENV:-/tmp/narlab-refnumpy}
  if [ ! -f "$venv/.ready" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install -q numpy==1.24.4 attrs==26.1.0 >&2
    touch "$venv/.ready"
  fi
  echo "$venv/bin/python"
else
  echo "$ref"
fi
