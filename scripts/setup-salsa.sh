#!/usr/bin/env bash
# Creates the Python environment in which lib/salsa's tests run NetworkX,
# SciPy and PyTorch Geometric (TestNetworkX, TestDocSnippet), idempotently.
# `make test` runs it, and so do those tests (a second run with nothing
# changed takes about a second).
#   - exactly the packages of scripts/salsa-requirements.txt (every
#     dependency pinned, installed --no-deps; PyPI wheels only);
#   - in a cache shared by every checkout:
#       ${NARLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/narlab}/salsa-<hash>
#     where <hash> covers the list and the Python version, so a change of
#     either makes a new environment (the first build downloads about
#     3 GB);
#   - prints the environment's python on its last line of standard output.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -t 2 ]; then log() { printf '\033[1m[setup-salsa]\033[0m %s\n' "$*" >&2; }; else log() { printf '[setup-salsa] %s\n' "$*" >&2; }; fi

python=${PYTHON:-python3}
lock="$root/scripts/salsa-requirements.txt"
cache=${NARLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/narlab}
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
hash=$( { grep -v '^#' "$lock"; echo "python$pyver"; } | sha256sum | cut -c1-12)
venv="$cache/salsa-$hash"
mkdir -p "$cache"

# One build at a time (tests of several packages may start together).
exec 9>"$cache/salsa-$hash.lock"
flock 9
if [ ! -f "$venv/.complete" ]; then
  log "building $venv (NetworkX, SciPy, PyTorch Geometric; about 3 GB to download the first time)"
  start=$(date +%s)
  # A half-built environment from an interrupted run is discarded, never reused.
  rm -rf "$venv" "$venv.tmp"
  "$python" -m venv "$venv.tmp"
  "$venv.tmp/bin/python" -m pip install -q --disable-pip-version-check --no-deps --only-binary :all: -r "$lock"
  # venv scripts carry their directory in shebangs: recreate them in place.
  mv "$venv.tmp" "$venv"
  "$python" -m venv --upgrade "$venv" >/dev/null
  touch "$venv/.complete"
  log "built in $(( $(date +%s) - start ))s"
fi
# Fails loudly if the environment is broken.
"$venv/bin/python" -W ignore -c 'import numpy, scipy.spatial, networkx, torch, torch_geometric.data'
echo "$venv/bin/python"
