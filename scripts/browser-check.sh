#!/usr/bin/env bash
# The browser check: screenshots, in headless Chromium, of
#   - each notebook page of the gallery (docs/notebooks/NAME.html, made by
#     `make notebooks-html`): its main figure, the largest image on the page,
#     as docs/img/notebook-NAME.png;
#   - the MLflow run page of a real, short training run (BFS, MPNN, 300 steps
#     at reduced scale, system metrics sampled every 2 s): its Model metrics
#     tab as docs/img/mlflow-model-metrics.png and its System metrics tab as
#     docs/img/mlflow-system-metrics.png.
#
#   scripts/browser-check.sh                 (or: make browser-check)
#   NARLAB_BIN=bin/narlab scripts/browser-check.sh   (use a prebuilt narlab)
#   SKIP_MLFLOW=1 / SKIP_NOTEBOOKS=1         (one half only)
#
# It fails when a page does not finish drawing, or an image is missing or
# blank. It installs Debian's chromium when missing (apt-get; root or sudo),
# and runs MLflow under a throw-away data directory. Not run in CI; look at
# the images it writes before committing them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
log() { echo "[browser-check] $*" >&2; }

python="$root/.venv/bin/python"
[ -x "$python" ] || { echo "browser-check: no Python environment in .venv; run make setup first" >&2; exit 1; }

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  log "installing Debian's chromium"
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "browser-check: chromium is missing and neither root nor sudo is available to install it" >&2; exit 1; }
    sudo=sudo
  fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q chromium
  chromium=$(command -v chromium)
fi

tmp=$(mktemp -d)
narlab="$tmp/narlab"
cleanup() {
  NARLAB_DATA="$tmp/data" "$narlab" mlflow stop >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

run_url=""
if [ -z "${SKIP_MLFLOW:-}" ]; then
  if [ -n "${NARLAB_BIN:-}" ]; then
    cp "$NARLAB_BIN" "$narlab"
  else
    log "building narlab"
    CGO_ENABLED=1 go build -o "$narlab" ./cmd/narlab
  fi
  log "training BFS with MPNN (300 steps, reduced scale) into a throw-away MLflow server"
  out=$(env -u MLFLOW_TRACKING_URI NARLAB_ROOT="$root" NARLAB_DATA="$tmp/data" MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL=2 \
    "$narlab" train --algo bfs --processor mpnn --steps 300 --hidden 32 --batch 8 --train-length 8 \
      --eval-every 20 --experiment narlab-browser-check --dir "$tmp/run" 2>"$tmp/train.log") \
    || { tail -20 "$tmp/train.log" >&2; exit 1; }
  run_url=$(printf '%s\n' "$out" | sed -n 's/^mlflow run: //p' | tail -1)
  [ -n "$run_url" ] || { echo "browser-check: narlab train printed no run URL" >&2; printf '%s\n' "$out" >&2; exit 1; }
  log "run: $run_url"
fi

pages=()
if [ -z "${SKIP_NOTEBOOKS:-}" ]; then
  for f in docs/notebooks/*.html; do
    [ "$(basename "$f")" = index.html ] || pages+=("$f")
  done
  [ ${#pages[@]} -gt 0 ] || { echo "browser-check: no notebook pages in docs/notebooks (run make notebooks-html)" >&2; exit 1; }
fi

"$python" "$root/scripts/browser_check.py" "$chromium" "$tmp/chromium" "$run_url" docs/img "${pages[@]}"
