#!/usr/bin/env bash
# The GPU machine's side of scripts/gpu_bench.sh (copied to .gpu/run.sh by
# `scripts/gpu_bench.sh prepare`; see there). Runs from the repository root.
#
# The default rows: Triplet-GMPNN rows whose steady state auto now trains
# unrolled on a card (the fourth lease, H100, 2026-11-27, found
# mst_prim/triplet_gmpnn at a quarter of the reference's steps/s in the
# step loop), beside the loop (@loop), then protocol rows no lease has
# measured.
# Two parts, interleaved so that a lease cut short still returns some of
# each, every row in a process of its own under ROW_TIMEOUT (default 120 s),
# no row started after DEADLINE seconds (default 470), none running past
# HARD_DEADLINE (default 530):
#   protocol rows  ALGO/PROCESSOR: narlab's BenchmarkProtocol, then the
#                  reference's ref_protocol.py, on the same card;
#   sparse rows    sparse/N, dense/N: BenchmarkSparseVsDense (bfs on
#                  lib/salsa's Erdős–Rényi graphs of N nodes);
#   predict rows   predict:ALGO/PROCESSOR: evaluation alone, one test
#                  batch of 32 at n=64 (narlab's BenchmarkPredict, then
#                  the reference's ref_predict.py, PREDICT_REPEATS timed
#                  batches each, default 5);
#   calls rows     calls:ALGO/PROCESSOR: narlab's BenchmarkStepCall (one
#                  evaluation step program call beside a program that
#                  does almost nothing, same batch as predict rows).
#   ROW@OPTION...  a predict or protocol row, narlab alone, with options:
#                  @device and @host evaluate with Config.Exec.EvalLoop "device"
#                  (the loop over the steps inside one program; auto's pick
#                  on a GPU) and "host", @kN trains in the
#                  step loop N steps a call (Config.Exec.StepsPerCall),
#                  @loop and @unroll force Config.Exec.StepLoop (auto's
#                  pick against a fixed one),
#                  @noautotune turns XLA's GPU autotuning off (what part of
#                  a first step is autotuning).
# GPU memory: each process's peak of nvidia-smi's memory.used, less the
# card's memory in use before it (the CUDA context included), sampled every
# 100 ms; neither side preallocates (narlab asks the plugin not to, JAX is
# told XLA_PYTHON_CLIENT_PREALLOCATE=false). The reference also reports
# JAX's own peak (device_peak_mb).
# Output under $OUT: gpu.txt (the card), gpu_bench.jsonl (one line a row),
# log.txt (every process's output).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$here/out}"
mkdir -p "$out"
rows="${ROWS:-mst_prim/triplet_gmpnn,mst_prim/triplet_gmpnn@loop,floyd_warshall/mpnn,strongly_connected_components/triplet_gmpnn,naive_string_matcher/mpnn}"
steps="${STEPS:-20}"
limit="${ROW_TIMEOUT:-120}"
deadline="${DEADLINE:-470}"
hard="${HARD_DEADLINE:-530}" # no process runs past this many seconds
py=$(command -v python3)
log="$out/log.txt"

# The CUDA PJRT plugin of the Python at hand (jax-cuda12-pjrt or -cuda13).
plugin=${NARLAB_XLA_PLUGIN:-$("$py" - <<'EOF'
import glob, os, site, sys
dirs = site.getsitepackages() + [site.getusersitepackages()]
for d in dirs:
    for p in sorted(glob.glob(os.path.join(d, "jax_plugins", "xla_cuda1*", "xla_cuda_plugin.so"))):
        print(p); sys.exit(0)
EOF
)}
if [ -z "$plugin" ]; then
  echo "gpu_bench: no CUDA PJRT plugin (jax_plugins/xla_cuda1*/xla_cuda_plugin.so) in $py's site-packages" >&2
  exit 1
fi
# narlab's own discovery would pick this plugin too (it finds /dev/nvidia0
# and $NARLAB_XLA_PLUGIN); naming it makes a failure loud instead of a
# silent fall back to the CPU.
export NARLAB_XLA_PLUGIN="$plugin" GOMLX_NO_AUTO_INSTALL=1 GOMLX_BACKEND="${GOMLX_BACKEND:-xla:$plugin,preallocate=false}"
export XLA_PYTHON_CLIENT_PREALLOCATE=false
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || echo "no nvidia-smi"
  echo "plugin: $plugin"
  echo "python: $("$py" -c 'import sys, jax; print(sys.version.split()[0], "jax", jax.__version__)' 2>&1 | tail -1)"
  echo "cpus: $(nproc); date: $(date -u +%FT%TZ)"
} | tee "$out/gpu.txt"

# The reference's extra pure-Python packages, beside the image's jax, optax, chex.
"$py" -m pip install -q --no-index --no-deps --upgrade --target /tmp/refsite "$here"/wheels/*.whl >>"$log" 2>&1 &&
  export PYTHONPATH=/tmp/refsite${PYTHONPATH:+:$PYTHONPATH}

# gpumem CMD...: runs CMD with nvidia-smi sampling; sets gpu_mb to the
# peak of memory.used less the idle figure before it.
gpumem() {
  local idle samples
  idle=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1)
  samples=$(mktemp)
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 >"$samples" 2>/dev/null &
  local smi=$!
  "$@"
  local rc=$?
  kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null
  gpu_mb=$(awk -v idle="${idle:-0}" 'BEGIN{m=0} $1+0>m{m=$1+0} END{print m-idle}' "$samples")
  rm -f "$samples"
  return $rc
}

# budget: the seconds the next process may run (ROW_TIMEOUT, less near the end).
budget() { local left=$((hard - SECONDS)); echo $((left < limit ? (left > 1 ? left : 1) : limit)); }

narlab_bench() { # BENCH ENV... → benchmark lines joined by ';' (BENCHTIME: -test.benchtime, default 1x)
  local bench=$1; shift
  (cd "$here" && env "$@" timeout "$(budget)" ./nn.test -test.run '^$' -test.bench "^$bench\$" -test.benchtime "${BENCHTIME:-1x}" -test.v 2>&1) |
    tee -a "$log" | grep -E "^Benchmark|backend " | tr -s "\t " " " | tr '\n' ';' | tr '"' "'"
}

# narlab's own pick on this machine (no $GOMLX_BACKEND): XLA CUDA, and a
# model trains and predicts on it.
(cd "$here" && env -u GOMLX_BACKEND timeout 90 ./nn.test -test.run '^TestCUDABackend$' -test.v 2>&1) |
  tee -a "$log" | grep -E "^(--- |ok|FAIL|PASS)|picked" | tee -a "$out/gpu.txt"

: > "$out/gpu_bench.jsonl"
tmp=$(mktemp)

# paired ROW SCRIPT ALGO PROCESSOR N BENCH ENV...: narlab's BENCH (ENV like
# NARLAB_BENCH_ROWS=...), then the reference's SCRIPT (its arguments:
# clrs-ref ALGO PROCESSOR N), each under gpumem; one line of gpu_bench.jsonl.
paired() {
  local row=$1 script=$2 algo=$3 proc=$4 k=$5 n ng r
  shift 5
  echo "== $row: narlab ($SECONDS s)" | tee -a "$log" >&2
  gpumem narlab_bench "$@" >"$tmp"
  n=$(cat "$tmp") ng=$gpu_mb
  echo "== $row: reference ($SECONDS s)" | tee -a "$log" >&2
  gpumem timeout "$(budget)" "$py" "$here/$script" "$here/clrs-ref" "$algo" "$proc" "$k" >"$tmp" 2>>"$log"
  r=$(tail -1 "$tmp" | grep '^{' || echo null)
  printf '{"row": "%s", "narlab": "%s", "narlab_gpu_mb": %s, "ref": %s, "ref_gpu_mb": %s}\n' \
    "$row" "$n" "${ng:-null}" "$r" "${gpu_mb:-null}" | tee -a "$out/gpu_bench.jsonl"
}
for row in ${rows//,/ }; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "gpu_bench: past ${deadline}s, skipping $row and the rest" | tee -a "$log" >&2
    break
  fi
  if [ "${row#*@}" != "$row" ]; then
    # ROW@OPTION...: narlab alone with options (device, host: NARLAB_EVAL_LOOP;
    # loop, unroll: NARLAB_STEP_LOOP;
    # kN: NARLAB_STEPS_PER_CALL=N); the reference's side is the plain row's.
    base=${row%%@*} opts=() bench=BenchmarkProtocol
    for o in $(echo "${row#*@}" | tr '@' ' '); do
      case "$o" in
      device | host) opts+=(NARLAB_EVAL_LOOP="$o") ;;
      loop | unroll) opts+=(NARLAB_STEP_LOOP="$o") ;;
      k[0-9]*) opts+=(NARLAB_STEPS_PER_CALL="${o#k}" NARLAB_STEP_LOOP=loop) ;;
      noautotune) opts+=(XLA_FLAGS="${XLA_FLAGS:+$XLA_FLAGS }--xla_gpu_autotune_level=0") ;;
      *) echo "gpu_bench: $row: unknown option @$o" | tee -a "$log" >&2; continue 2 ;;
      esac
    done
    case "$base" in predict:*) base=${base#predict:} bench=BenchmarkPredict ;; esac
    echo "== $row: narlab ($SECONDS s)" | tee -a "$log" >&2
    BENCHTIME=$([ "$bench" = BenchmarkPredict ] && echo "${PREDICT_REPEATS:-5}x" || echo 1x) \
      gpumem narlab_bench "$bench" NARLAB_BENCH_ROWS="$base" NARLAB_BENCH_STEPS="$steps" "${opts[@]}" >"$tmp"
    printf '{"row": "%s", "narlab": "%s", "narlab_gpu_mb": %s}\n' "$row" "$(cat "$tmp")" "${gpu_mb:-null}" | tee -a "$out/gpu_bench.jsonl"
    continue
  fi
  a=${row%/*} b=${row#*/}
  case "$row" in predict:*) a=predict ;; calls:*) a=calls ;; esac
  case "$a" in
  predict)
    pr=${row#predict:} reps=${PREDICT_REPEATS:-5}
    BENCHTIME=${reps}x paired "$row" ref_predict.py "${pr%/*}" "${pr#*/}" "$reps" BenchmarkPredict NARLAB_BENCH_ROWS="$pr"
    ;;
  calls)
    cr=${row#calls:}
    echo "== $row: narlab ($SECONDS s)" | tee -a "$log" >&2
    BENCHTIME=5x gpumem narlab_bench BenchmarkStepCall NARLAB_BENCH_ROWS="$cr" >"$tmp"
    printf '{"row": "%s", "narlab": "%s", "narlab_gpu_mb": %s}\n' "$row" "$(cat "$tmp")" "${gpu_mb:-null}" | tee -a "$out/gpu_bench.jsonl"
    ;;
  sparse|dense)
    echo "== $row: narlab ($SECONDS s)" | tee -a "$log" >&2
    gpumem narlab_bench BenchmarkSparseVsDense NARLAB_BENCH_PATH="$a" NARLAB_BENCH_N="$b" >"$tmp"
    n=$(cat "$tmp")
    printf '{"row": "%s", "narlab": "%s", "narlab_gpu_mb": %s}\n' "$row" "$n" "${gpu_mb:-null}" | tee -a "$out/gpu_bench.jsonl"
    ;;
  *)
    paired "$row" ref_protocol.py "$a" "$b" "$steps" BenchmarkProtocol NARLAB_BENCH_ROWS="$row" NARLAB_BENCH_STEPS="$steps"
    ;;
  esac
done
echo "gpu_bench: done in ${SECONDS}s" | tee -a "$log" >&2
