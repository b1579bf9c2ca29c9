#!/usr/bin/env bash
# The GPU machine's side of scripts/gpu_bench.sh (copied to .gpu/run.sh by
# `scripts/gpu_bench.sh prepare`; see there). Runs from the repository root.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$here/out}"
mkdir -p "$out"
rows="${ROWS:-bfs/mpnn,bfs/triplet_gmpnn,floyd_warshall/mpnn,heapsort/mpnn,insertion_sort/triplet_gmpnn}"
steps="${STEPS:-20}"
limit="${ROW_TIMEOUT:-150}"
py=$(command -v python3)

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
export NARLAB_XLA_PLUGIN="$plugin" GOMLX_NO_AUTO_INSTALL=1
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || echo "no nvidia-smi"; } | tee "$out/gpu.txt"
echo "plugin: $plugin" | tee -a "$out/gpu.txt"

# The reference's extra pure-Python packages, beside the image's jax, optax, chex.
"$py" -m pip install -q --no-index --no-deps --target /tmp/refsite "$here"/wheels/*.whl >/dev/null 2>&1 &&
  export PYTHONPATH=/tmp/refsite${PYTHONPATH:+:$PYTHONPATH}

: > "$out/gpu_bench.jsonl"
for row in ${rows//,/ }; do
  algo=${row%/*} proc=${row#*/}
  echo "== $row: narlab" >&2
  n=$(cd "$here" && export NARLAB_BENCH_ROWS="$row" NARLAB_BENCH_STEPS="$steps" &&
      { timeout "$limit" ./nn.test -test.run '^$' -test.bench '^BenchmarkProtocol$' -test.benchtime 1x -test.v 2>&1;
        timeout "$limit" ./nn.test -test.run '^$' -test.bench '^BenchmarkTrainStep$' -test.benchtime "${steps}x" 2>&1; } |
      grep -E "^Benchmark|backend " | tr -s "\t " " " | tr '\n' ';')
  echo "== $row: reference" >&2
  r=$(timeout "$limit" "$py" "$here/ref_protocol.py" "$here/clrs-ref" "$algo" "$proc" "$steps" 2>"$out/ref-$algo-$proc.err" | tail -1 | grep '^{' || echo null)
  printf '{"row": "%s", "narlab": "%s", "ref": %s}\n' "$row" "${n//\"/\'}" "$r" | tee -a "$out/gpu_bench.jsonl"
done
