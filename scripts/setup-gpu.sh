#!/usr/bin/env bash
# Installs XLA's CUDA PJRT plugin and NVIDIA's CUDA libraries from PyPI into
# the project's environment (.venv), for `make gpu`. The plugin's RPATH
# finds the libraries in site-packages/nvidia/*/lib, and narlab points XLA
# at ptxas (nvidia/cuda_nvcc) itself, so no LD_LIBRARY_PATH is needed; on a
# machine with an NVIDIA GPU narlab then picks XLA CUDA (`bin/narlab
# backends`). CUDA 12 by default; NARLAB_CUDA=13 for CUDA 13 drivers.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py="$root/.venv/bin/python"
[ -x "$py" ] || { echo "setup-gpu: run make setup first" >&2; exit 1; }
cuda=${NARLAB_CUDA:-12}
# The plugin and the NVIDIA wheels that jax's "with-cuda" extra lists
# (jax-cuda12-plugin 0.10.2 metadata), at those lower bounds or newer.
"$py" -m pip install -q --no-deps "jax-cuda${cuda}-pjrt==0.12.0.1"
"$py" -m pip install -q \
  "nvidia-cublas-cu${cuda}>=12.1.3.1" "nvidia-cuda-cupti-cu${cuda}>=12.1.105" "nvidia-cuda-nvcc-cu${cuda}>=12.6.85" \
  "nvidia-cuda-runtime-cu${cuda}>=12.1.105" "nvidia-cudnn-cu${cuda}>=9.8,<10" "nvidia-cufft-cu${cuda}>=11.0.2.54" \
  "nvidia-cusolver-cu${cuda}>=11.4.5.107" "nvidia-cusparse-cu${cuda}>=12.1.0.106" "nvidia-nccl-cu${cuda}>=2.18.1" \
  "nvidia-nvjitlink-cu${cuda}>=12.1.105" "nvidia-cuda-nvrtc-cu${cuda}>=12.1.55" "nvidia-nvshmem-cu${cuda}>=3.2.5"
"$root/bin/narlab" backends
