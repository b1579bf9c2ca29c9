#!/usr/bin/env bash
# The GPU machine's side of scripts/gpu_bench.sh (copied to .gpu/run.sh by
# `scripts/gpu_bench.sh prepare`; see there). Runs from the repository root.
#
# The default rows (issue 50): the steady state of five CLRS-30 rows side by
# side with the reference on the same card, each side in a process of its
# own: bfs MPNN, dfs MPNN, mst_prim Triplet-GMPNN, floyd_warshall MPNN and
# insertion_sort Triplet-GMPNN, in that order (the slowest to compile last),
# narlab at its defaults (on a card auto trains every batch as one program:
# engine.Plan), within one call of at most 8 minutes.
# Every row runs in a process of its own under ROW_TIMEOUT (default 100 s), no
# row started after DEADLINE seconds (default 400), none running past
# HARD_DEADLINE (default 460). Row types:
#   steady rows    steady:ALGO/PROCESSOR: narlab's BenchmarkSteady (first
#                  step, steps/s and CPU s a step over STEPS steps after a
#                  pass over the train split's eight batches, matrix-product
#                  GFLOP/s), then the reference's ref_steady.py, on the same
#                  card;
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
#   ROW@OPTION...  a steady, predict or protocol row, narlab alone, with
#                  options: @device and @host evaluate with
#                  Config.Exec.EvalLoop "device" and "host", @kN trains in
#                  the step loop N steps a call (Config.Exec.StepsPerCall),
#                  @loop, @unroll and @program force Config.Exec.StepLoop
#                  (auto's pick against a fixed one), @noautotune turns
#                  XLA's GPU autotuning off.
# GPU memory: each process's peak of nvidia-smi's memory.used, less the
# card's memory in use before it (the CUDA context included), sampled every
# 100 ms; neither side preallocates (narlab asks the plugin not to, JAX is
# told XLA_PYTHON_CLIENT_PREALLOCATE=false). The reference also reports
# JAX's own peak (device_peak_mb) on protocol rows.
# Output under $OUT: gpu.txt (the card), gpu_bench.jsonl (one line a row),
# log.txt (every process's output).
#
# CPU=1 runs the same rows on the CPU (narlab on its own pick, the
# reference on JAX's CPU; PY names the reference's Python, one with jax and
# dm-haiku, e.g. scripts/ref-harness.sh --jax's), to check the script where
# there is no card: `make gpu-check`.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$here/out}"
mkdir -p "$out"
rows="${ROWS:-steady:bfs/mpnn,steady:dfs/mpnn,steady:mst_prim/triplet_gmpnn,steady:floyd_warshall/mpnn,steady:insertion_sort/triplet_gmpnn}"
steps="${STEPS:-20}"
limit="${ROW_TIMEOUT:-100}"
deadline="${DEADLINE:-400}"
hard="${HARD_DEADLINE:-460}" # no process runs past this many seconds
py=${PY:-$(command -v python3)}
cpu="${CPU:-0}"
log="$out/log.txt"

if [ "$cpu" = 1 ]; then
  # The CPU check: narlab's own backend pick, the reference on JAX's CPU.
  export JAX_PLATFORMS=cpu GOMLX_NO_AUTO_INSTALL=1
  {
    echo "CPU=1: no card; $(nproc) CPUs ($(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'))"
    echo "python: $("$py" -c 'import sys, jax; print(sys.version.split()[0], "jax", jax.__version__)' 2>&1 | tail -1)"
    echo "date: $(date -u +%FT%TZ)"
  } | tee "$out/gpu.txt"
else
  # The CUDA PJRT plugin of the Python at hand (jax-cuda12-pjrt or -cuda13).
  plugin=${NARLAB_XLA_PLUGIN:-$("$py" -c '
import glob, os, site, sys
for d in site.getsitepackages() + [site.getusersitepackages()]:
    for p in sorted(glob.glob(os.path.join(d, "jax_plugins", "xla_cuda1*", "xla_cuda_plugin.so"))):
        print(p); sys.exit(0)
')}
  if [ -z "$plugin" ]; then
    echo "gpu_bench: no CUDA PJRT plugin (jax_plugins/xla_cuda1*/xla_cuda_plugin.so) in $py's site-packages (CPU=1 checks the script on the CPU)" >&2
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
fi

# gpumem CMD...: runs CMD with nvidia-smi sampling; sets gpu_mb to the
# peak of memory.used less the idle figure before it.
gpumem() {
  if ! command -v nvidia-smi >/dev/null; then # the CPU check
    gpu_mb=null
    "$@"
    return $?
  fi
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
[ "$cpu" = 1 ] || (cd "$here" && env -u GOMLX_BACKEND timeout 90 ./nn.test -test.run '^TestCUDABackend$' -test.v 2>&1) |
  tee -a "$log" | grep -E "^(--- |ok|FAIL|PASS)|picked" | tee -a "$out/gpu.txt"

: > "$out/gpu_bench.jsonl"
tmp=$(mktemp)

# paired ROW SCRIPT ALGO PROCESSOR N BENCH ENV...: narlab's BENCH (ENV like
# NARLAB_BENCH_ROWS=...), then the reference's SCRIPT (its arguments:
# clrs-ref ALGO PROCESSOR N), each under gpumem; one line of gpu_bench.jsonl.
paired() {
  local row=$1 script=$2 algo=$3 proc=$4 k=$5 n ng r load1
  shift 5
  load1=$(cut -d' ' -f1 /proc/loadavg)
  echo "== $row: narlab ($SECONDS s)" | tee -a "$log" >&2
  gpumem narlab_bench "$@" >"$tmp"
  n=$(cat "$tmp") ng=$gpu_mb
  echo "== $row: reference ($SECONDS s)" | tee -a "$log" >&2
  gpumem timeout "$(budget)" "$py" "$here/$script" "$here/clrs-ref" "$algo" "$proc" "$k" >"$tmp" 2>>"$log"
  r=$(tail -1 "$tmp" | grep '^{' || echo null)
  printf '{"row": "%s", "narlab": "%s", "narlab_gpu_mb": %s, "ref": %s, "ref_gpu_mb": %s, "steps": %s, "load1": %s}\n' \
    "$row" "$n" "${ng:-null}" "$r" "${gpu_mb:-null}" "$k" "$load1" | tee -a "$out/gpu_bench.jsonl"
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
      loop | unroll | program) opts+=(NARLAB_STEP_LOOP="$o") ;;
      k[0-9]*) opts+=(NARLAB_STEPS_PER_CALL="${o#k}" NARLAB_STEP_LOOP=loop) ;;
      noautotune) opts+=(XLA_FLAGS="${XLA_FLAGS:+$XLA_FLAGS }--xla_gpu_autotune_level=0") ;;
      *) echo "gpu_bench: $row: unknown option @$o" | tee -a "$log" >&2; continue 2 ;;
      esac
    done
    case "$base" in
    predict:*) base=${base#predict:} bench=BenchmarkPredict ;;
    steady:*) base=${base#steady:} bench=BenchmarkSteady ;;
    esac
    echo "== $row: narlab ($SECONDS s)" | tee -a "$log" >&2
    BENCHTIME=$([ "$bench" = BenchmarkPredict ] && echo "${PREDICT_REPEATS:-5}x" || echo 1x) \
      gpumem narlab_bench "$bench" NARLAB_BENCH_ROWS="$base" NARLAB_BENCH_STEPS="$steps" "${opts[@]}" >"$tmp"
    printf '{"row": "%s", "narlab": "%s", "narlab_gpu_mb": %s}\n' "$row" "$(cat "$tmp")" "${gpu_mb:-null}" | tee -a "$out/gpu_bench.jsonl"
    continue
  fi
  a=${row%/*} b=${row#*/}
  case "$row" in predict:*) a=predict ;; calls:*) a=calls ;; steady:*) a=steady ;; esac
  case "$a" in
  predict)
    pr=${row#predict:} reps=${PREDICT_REPEATS:-5}
    BENCHTIME=${reps}x paired "$row" ref_predict.py "${pr%/*}" "${pr#*/}" "$reps" BenchmarkPredict NARLAB_BENCH_ROWS="$pr"
    ;;
  steady)
    sr=${row#steady:}
    paired "$row" ref_steady.py "${sr%/*}" "${sr#*/}" "$steps" BenchmarkSteady NARLAB_BENCH_ROWS="$sr" NARLAB_BENCH_STEPS="$steps"
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
