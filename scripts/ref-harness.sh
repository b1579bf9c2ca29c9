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
else
  echo "$ref"
fi
