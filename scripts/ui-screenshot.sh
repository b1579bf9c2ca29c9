#!/usr/bin/env bash
# Takes docs/img/mlflow-ui.png, a screenshot of the MLflow UI showing a narlab
# run: its metric charts (train/… and val/… sections) above its validation-curve
# PNG artifact.
#
#   scripts/ui-screenshot.sh [OUT.png]      (or: make ui-screenshot)
#   NARLAB_BIN=bin/narlab scripts/ui-screenshot.sh   (use a prebuilt narlab)
#
# It installs Debian's chromium when it is missing (apt-get; needs root or
# sudo), starts a throw-away embedded MLflow server under a temporary data
# directory, logs a synthetic run with `narlab mlflow example` (metric series,
# a plots.ValidationCurves PNG, a table), and drives headless chromium over the
# DevTools protocol (the UI is a single-page app: the script presets the UI's
# browser settings, waits until the charts are drawn and the image is loaded,
# then captures). The two views are stacked into one PNG, written atomically.
# Needs the project's Python environment (make setup); not run in CI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${1:-docs/img/mlflow-ui.png}
if [ -t 2 ]; then log() { printf '\033[1m[ui-screenshot]\033[0m %s\n' "$*" >&2; }; else log() { printf '[ui-screenshot] %s\n' "$*" >&2; }; fi

python="$root/.venv/bin/python"
if [ ! -x "$python" ]; then
  echo "ui-screenshot: no Python environment in .venv; run scripts/setup.sh (make setup) first" >&2
  exit 1
fi

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  log "installing Debian's chromium"
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "ui-screenshot: chromium is missing and neither root nor sudo is available to install it" >&2; exit 1; }
    sudo=sudo
  fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q chromium
  chromium=$(command -v chromium)
fi

tmp=$(mktemp -d)
narlab="$tmp/narlab"
export NARLAB_ROOT="$root" NARLAB_DATA="$tmp/data"
unset MLFLOW_TRACKING_URI
cleanup() {
  "$narlab" mlflow stop >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT

if [ -n "${NARLAB_BIN:-}" ]; then
  cp "$NARLAB_BIN" "$narlab"   # a prebuilt narlab (default: built from this checkout)
else
  log "building narlab"
  go build -o "$narlab" ./cmd/narlab
fi
log "starting a throw-away MLflow server and logging an example run"
url=$("$narlab" mlflow example --experiment narlab-example --steps 500)
log "run: $url"

log "taking the screenshot with $chromium"
"$python" - "$chromium" "$url" "$out" "$tmp/chromium" <<'PY'
"""Drive headless chromium over the DevTools protocol and stack two views."""
import base64, io, json, os, re, subprocess, sys, time, urllib.request

import websocket
from PIL import Image

chromium, run_url, out, profile = sys.argv[1:5]
m = re.match(r"^(https?://[^/#]+)/#/experiments/([^/?]+)/runs/([^/?]+)", run_url)
if not m:
    sys.exit(f"ui-screenshot: unexpected run URL {run_url!r}")
base = f"{m.group(1)}/#/experiments/{m.group(2)}/runs/{m.group(3)}"
query = "?workflowType=machine_learning"  # the UI's "Model training" layout
W, H = 1600, 1000

# The UI's browser settings (localStorage, "<key>_v1" = JSON): the model
# training layout, and the assistant panel closed instead of opened on the
# first visit.
PRESET = """
try {
  localStorage.setItem('mlflow.workflowType_v1', '"machine_learning"');
  localStorage.setItem('mlflow.assistant.fab.autoOpenedOnFirstLoad_v1', 'true');
  localStorage.setItem('mlflow.assistant.panelOpen_v1', 'false');
} catch (e) {}
"""

VIEWS = [  # (tab, viewport height, ready when this is true)
    # The metric charts: three line charts (train/acc, train/loss, val/score) drawn.
    ("/model-metrics", H, "document.querySelectorAll('.js-plotly-plot path.js-line').length >= 3"),
    # The PNG artifact, loaded and decoded.
    ("/artifacts/plots/val_curve.png", 620,
     "Array.from(document.images).some(i => i.complete && i.naturalWidth >= 200)"),
]


class DevTools:
    def __init__(self, ws_url):
        self.ws = websocket.create_connection(ws_url, timeout=60, suppress_origin=True)
        self.n = 0

    def call(self, method, **params):
        self.n += 1
        my = self.n
        self.ws.send(json.dumps({"id": my, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == my:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def eval(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True)
        return r.get("result", {}).get("value")


os.makedirs(profile, exist_ok=True)
proc = subprocess.Popen(
    [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
     "--remote-debugging-port=0", f"--user-data-dir={profile}", f"--window-size={W},{H}", "about:blank"],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.time() + 60
    while not (os.path.exists(port_file) and "\n" in open(port_file).read()):
        if time.time() > deadline or proc.poll() is not None:
            sys.exit("ui-screenshot: chromium did not open its DevTools port")
        time.sleep(0.1)
    port = open(port_file).read().split("\n")[0]
    tabs = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
    page = next(t for t in tabs if t["type"] == "page")
    dt = DevTools(page["webSocketDebuggerUrl"])
    dt.call("Page.enable")
    dt.call("Page.addScriptToEvaluateOnNewDocument", source=PRESET)
    shots = []
    for suffix, height, ready in VIEWS:
        dt.call("Emulation.setDeviceMetricsOverride", width=W, height=height, deviceScaleFactor=1, mobile=False)
        dt.call("Page.navigate", url=base + suffix + query)
        deadline = time.time() + 90
        while not dt.eval(ready):
            if time.time() > deadline:
                sys.exit(f"ui-screenshot: {base + suffix} did not finish drawing in 90 s (waited for: {ready})")
            time.sleep(0.5)
        time.sleep(1.5)  # let transitions settle
        png = base64.b64decode(dt.call("Page.captureScreenshot", format="png")["data"])
        shots.append(Image.open(io.BytesIO(png)).convert("RGB"))
finally:
    proc.terminate()
    proc.wait()

sheet = Image.new("RGB", (W, sum(s.height for s in shots)), "white")
y = 0
for s in shots:
    sheet.paste(s, (0, y))
    y += s.height
os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
tmp = out + ".tmp"
sheet.save(tmp, format="PNG", optimize=True)
os.replace(tmp, out)
print(f"wrote {out} ({sheet.width}x{sheet.height})", file=sys.stderr)
PY
