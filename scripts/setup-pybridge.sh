#!/usr/bin/env bash
# Creates the one Python environment of every Python-side test,
# idempotently: the bridge tests of narlab's Python package (go test
# ./python: dm-clrs 2.0.3 with JAX, PyTorch Geometric), lib/nn's dm-clrs
# checkpoint test, and lib/salsa's checks against NetworkX, SciPy and
# PyTorch Geometric. `make test` runs it.
#   - exactly the packages of python/requirements-bridge.txt (every
#     dependency pinned, installed --no-deps; PyPI wheels only; PyTorch's
#     CPU needs only, see the list's header);
#   - in a cache shared by every checkout:
#       ${NARLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/narlab}/pybridge-<hash>
#     where <hash> covers the list and the Python version, so a change of
#     either makes a new environment and a rerun with nothing changed takes
#     a second (the first build downloads 2.65 GB and installs 4.7 GB);
#   - a record, pybridge.env in the same cache, naming its python.
# narlab's own package is not installed there: the tests put the checkout's
# python/ first on PYTHONPATH.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -t 2 ]; then log() { printf '\033[1m[setup-pybridge]\033[0m %s\n' "$*" >&2; }; else log() { printf '[setup-pybridge] %s\n' "$*" >&2; }; fi

python=${PYTHON:-python3}
lock="$root/python/requirements-bridge.txt"
cache=${NARLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/narlab}
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
hash=$( { grep -v '^#' "$lock"; echo "python$pyver"; } | sha256sum | cut -c1-12)
venv="$cache/pybridge-$hash"
record="$cache/pybridge.env"
mkdir -p "$cache"

# One build at a time (two checkouts, two commands).
exec 9>"$cache/pybridge-$hash.lock"
flock 9
if [ ! -f "$venv/.complete" ]; then
  log "building $venv (dm-clrs, JAX, PyTorch Geometric, NetworkX, SciPy; 2.65 GB to download the first time)"
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
else
  log "bridge environment $venv up to date"
fi
# Fails loudly if the environment is broken (the stand-ins stand for
# TensorFlow and TFDS, which dm-clrs imports; python/tests/standins).
PYTHONPATH="$root/python/tests/standins" "$venv/bin/python" -W ignore -c \
  'import clrs, jax, torch, torch_geometric.data, pytest, networkx, scipy.spatial; torch.ones(2).sum()'

tmp=$(mktemp "$cache/pybridge.env.XXXXXX")
cat > "$tmp" <<REC
# Written by scripts/setup-pybridge.sh; read by the tests (internal/project.BridgePython).
NARLAB_PYBRIDGE_PYTHON=$venv/bin/python
REC
chmod 644 "$tmp"
mv "$tmp" "$record"
log "python: $venv/bin/python"
