#!/usr/bin/env bash
# Jupyter on narlab's notebooks, with the "Go (narlab)" kernel:
#
#   make jupyter                       (or: scripts/jupyter.sh [JUPYTER ARGS…])
#   make jupyter JUPYTER_ARGS='--no-browser --ip 0.0.0.0 --port 8888'
#
# It runs the project's Jupyter (.venv, installed by make setup) on
# notebooks/. As root (a container, a cloud machine) it adds --allow-root,
# without which `jupyter notebook` refuses to start. A checkout with its own
# kernel spec in .jupyter/ (a second checkout, see docs/DEVELOPERS.md) gets
# that kernel through JUPYTER_PATH. Arguments go to `jupyter notebook`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export NARLAB_ROOT="$root"
jupyter="$root/.venv/bin/jupyter"
[ -x "$jupyter" ] || { echo "jupyter: no Python environment in .venv; run make setup first" >&2; exit 1; }
if [ -d "$root/.jupyter/kernels" ]; then
  export JUPYTER_PATH="$root/.jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"
fi
args=(--notebook-dir="$root/notebooks")
if [ "$(id -u)" = 0 ]; then
  args+=(--allow-root)
fi
exec "$jupyter" notebook "${args[@]}" "$@"
