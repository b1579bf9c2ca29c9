"""Headless-Chromium screenshots for scripts/browser-check.sh.

usage: browser_check.py CHROMIUM PROFILE_DIR RUN_URL OUT_DIR [NOTEBOOK.html ...]

RUN_URL (may be empty) is an MLflow run page: its Model metrics and System
metrics tabs are captured once their charts are drawn. Each notebook page is
opened from disk and its largest image (the main figure) captured. Every
capture is checked (not blank) and written atomically as PNG.
"""
import base64
import io
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

import websocket
from PIL import Image

chromium, profile, run_url, out_dir = sys.argv[1:5]
pages = sys.argv[5:]
W, H = 1400, 1000

# The MLflow UI's browser settings (localStorage "<key>_v1" = JSON): the
# model-training layout and the assistant panel closed.
PRESET = """
try {
  localStorage.setItem('mlflow.workflowType_v1', '"machine_learning"');
  localStorage.setItem('mlflow.assistant.fab.autoOpenedOnFirstLoad_v1', 'true');
  localStorage.setItem('mlflow.assistant.panelOpen_v1', 'false');
} catch (e) {}
"""


class DevTools:
    """A minimal client of the DevTools protocol over one page's websocket."""

    def __init__(self, ws_url):
        self.ws = websocket.create_connection(ws_url, timeout=120, suppress_origin=True)
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
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        return r.get("result", {}).get("value")

    def wait(self, expr, what, timeout=120):
        deadline = time.time() + timeout
        while not self.eval(expr):
            if time.time() > deadline:
                sys.exit(f"browser-check: {what} did not finish drawing in {timeout} s (waited for: {expr})")
            time.sleep(0.5)


def check(img, what):
    """Fails on a blank or tiny capture."""
    if img.width < 300 or img.height < 150:
        sys.exit(f"browser-check: {what}: capture is only {img.width}x{img.height}")
    small = img.convert("RGB").resize((200, max(1, 200 * img.height // img.width)))
    colours = small.getcolors(maxcolors=1 << 16)
    if colours is not None and len(colours) < 8:
        sys.exit(f"browser-check: {what}: capture looks blank ({len(colours)} colours)")
    bg = small.getpixel((0, 0))
    pixels = small.get_flattened_data() if hasattr(small, "get_flattened_data") else small.getdata()
    ink = sum(1 for p in pixels if p != bg) / (small.width * small.height)
    if ink < 0.01:
        sys.exit(f"browser-check: {what}: capture looks blank ({100 * ink:.2f} % ink)")


def save(img, name):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, name)
    tmp = path + ".tmp"
    img.save(tmp, format="PNG", optimize=True)
    os.replace(tmp, path)
    print(f"wrote {path} ({img.width}x{img.height})", file=sys.stderr)


def shot(dt, clip=None):
    params = {"format": "png", "captureBeyondViewport": clip is not None}
    if clip:
        params["clip"] = dict(clip, scale=1)
    data = dt.call("Page.captureScreenshot", **params)["data"]
    return Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")


os.makedirs(profile, exist_ok=True)
proc = subprocess.Popen(
    [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
     "--disable-background-networking", "--disable-component-update", "--disable-sync",
     "--remote-debugging-port=0", f"--user-data-dir={profile}", f"--window-size={W},{H}", "about:blank"],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.time() + 60
    while not (os.path.exists(port_file) and "\n" in open(port_file).read()):
        if time.time() > deadline or proc.poll() is not None:
            sys.exit("browser-check: chromium did not open its DevTools port")
        time.sleep(0.1)
    port = open(port_file).read().split("\n")[0]
    tabs = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
    dt = DevTools(next(t for t in tabs if t["type"] == "page")["webSocketDebuggerUrl"])
    dt.call("Page.enable")
    dt.call("Page.addScriptToEvaluateOnNewDocument", source=PRESET)
    dt.call("Emulation.setDeviceMetricsOverride", width=W, height=H, deviceScaleFactor=1, mobile=False)

    if run_url:
        m = re.match(r"^(https?://[^/#]+)/#/experiments/([^/?]+)/runs/([^/?]+)", run_url)
        if not m:
            sys.exit(f"browser-check: unexpected run URL {run_url!r}")
        base = f"{m.group(1)}/#/experiments/{m.group(2)}/runs/{m.group(3)}"
        for tab, name, height, ready in [
            # Every section drawn: the summary values (logged at step 0)
            # as bars, the train/loss and val/score curves as lines.
            ("/model-metrics", "mlflow-model-metrics.png", 1500,
             "document.querySelectorAll('.js-plotly-plot path.js-line').length >= 2 && "
             "document.querySelectorAll('.js-plotly-plot .barlayer .point').length >= 4"),
            # CPU and the two memory series drawn.
            ("/system-metrics", "mlflow-system-metrics.png", 700,
             "document.querySelectorAll('.js-plotly-plot path.js-line').length >= 3"),
        ]:
            dt.call("Emulation.setDeviceMetricsOverride", width=W, height=height, deviceScaleFactor=1, mobile=False)
            dt.call("Page.navigate", url=base + tab + "?workflowType=machine_learning")
            dt.wait(ready, base + tab)
            # Plotly's toolbar sits over the top of every chart (hiding the
            # curves' last points); a screenshot has no use for it.
            dt.eval("""(() => { const s = document.createElement('style');
              s.textContent = '.modebar-container { display: none !important; }';
              document.head.appendChild(s); return true; })()""")
            time.sleep(2)  # let the charts' transitions settle
            img = shot(dt)
            check(img, tab)
            save(img, name)

    dt.call("Emulation.setDeviceMetricsOverride", width=W, height=H, deviceScaleFactor=1, mobile=False)
    for page in pages:
        name = os.path.splitext(os.path.basename(page))[0]
        dt.call("Page.navigate", url="file://" + os.path.abspath(page))
        dt.wait("document.readyState === 'complete' && Array.from(document.images).every(i => i.complete)", page, 60)
        # The main figure: the one the notebook names (metadata
        # narlab.main_figure, `#- main-figure K` in its source), else the
        # page's largest image by drawn area.
        main = -1
        src = os.path.join("notebooks", name + ".ipynb")
        if os.path.exists(src):
            main = json.load(open(src)).get("metadata", {}).get("narlab", {}).get("main_figure", -1)
        rect = dt.eval("""(() => {
          const imgs = Array.from(document.images);
          const pick = %d;
          if (pick >= 0 && pick < imgs.length) {
            const r = imgs[pick].getBoundingClientRect();
            return {x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height};
          }
          let best = null, area = 0;
          for (const i of imgs) {
            const r = i.getBoundingClientRect();
            if (r.width * r.height > area) { area = r.width * r.height; best = r; }
          }
          if (!best) return null;
          return {x: best.left + window.scrollX, y: best.top + window.scrollY, width: best.width, height: best.height};
        })()""" % main)
        if not rect:
            sys.exit(f"browser-check: {page} shows no image")
        img = shot(dt, {k: round(v) for k, v in rect.items()})
        check(img, page)
        save(img, f"notebook-{name}.png")
finally:
    proc.terminate()
    proc.wait()
