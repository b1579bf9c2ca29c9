#!/usr/bin/env bash
# Builds the notebooks from their sources (notebooks/src/*.txt, by
# notebooks/build.py), executes every one with the "Go (narlab)" kernel and
# writes the notebook gallery: docs/notebooks/NAME.html (outputs and figures
# embedded, readable without running anything) and docs/notebooks/index.html.
#
# A gallery page is read on another machine: links to the local MLflow
# server (http://127.0.0.1:PORT/…, dead there) become their plain text, and
# the script fails if a page still shows this checkout's path, a temporary
# file's path, a local server's address or a relative link to nothing.
# What every page repeats (nbconvert's stylesheets, its module script) goes
# to docs/notebooks/gallery.css and gallery.js, which the pages link
# (scripts/gallery_clean.py; notebooks' TestGalleryShared checks it).
#
#   scripts/notebooks-html.sh [NAME ...]     (or: make notebooks-html)
#
# NAME picks notebooks by prefix (e.g. 01 04); default: all. The executed
# .ipynb files are kept under data/notebooks/ (scripts/notebook-screenshots.sh
# and the image check read them). Needs the project's Python environment and
# the kernel (make setup). The kernel logs to the local MLflow server, or to
# MLFLOW_TRACKING_URI when set.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export NARLAB_ROOT="$root"
python="$root/.venv/bin/python"
[ -x "$python" ] || { echo "notebooks-html: no Python environment in .venv; run make setup first" >&2; exit 1; }
out=docs/notebooks
exec_dir=data/notebooks
mkdir -p "$out" "$exec_dir"
"$python" notebooks/build.py
# A checkout with its own kernel spec (a second checkout, docs/DEVELOPERS.md)
# executes the notebooks with it, not with the first checkout's.
if [ -d "$root/.jupyter/kernels" ]; then
  export JUPYTER_PATH="$root/.jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"
fi

want=("$@")
picked=()
for nb in notebooks/*.ipynb; do
  name=$(basename "$nb" .ipynb)
  if [ ${#want[@]} -gt 0 ]; then
    ok=""
    for w in "${want[@]}"; do [[ $name == "$w"* ]] && ok=1; done
    [ -n "$ok" ] || continue
  fi
  picked+=("$nb")
done
[ ${#picked[@]} -gt 0 ] || { echo "notebooks-html: no notebook matches ${want[*]}" >&2; exit 1; }

for nb in "${picked[@]}"; do
  name=$(basename "$nb" .ipynb)
  echo "notebooks-html: executing $name" >&2
  start=$(date +%s)
  "$python" -m nbconvert --to notebook --execute --ExecutePreprocessor.timeout=1800 \
    --ExecutePreprocessor.kernel_name=narlab --output-dir "$exec_dir" "$nb" 2>"$exec_dir/$name.log" \
    || { tail -40 "$exec_dir/$name.log" >&2; exit 1; }
  # The HTML page: written next to itself first, then renamed into place.
  "$python" -m nbconvert --to html --output-dir "$out" --output "$name.html.tmp" "$exec_dir/$name.ipynb" 2>>"$exec_dir/$name.log"
  "$python" "$root/scripts/gallery_clean.py" "$root" "$out/$name.html.tmp.html" \
    || { rm -f "$out/$name.html.tmp.html"; exit 1; }
  mv "$out/$name.html.tmp.html" "$out/$name.html"
  echo "notebooks-html: wrote $out/$name.html ($(( $(date +%s) - start ))s)" >&2
done

# The index page: one link per notebook, with its first heading.
"$python" - "$out" <<'PY'
import html, json, os, sys
out = sys.argv[1]
rows = []
for f in sorted(os.listdir("notebooks")):
    if not f.endswith(".ipynb"):
        continue
    name = f[:-6]
    title = name
    for c in json.load(open(os.path.join("notebooks", f)))["cells"]:
        if c["cell_type"] == "markdown":
            first = "".join(c["source"]).lstrip().split("\n")[0]
            title = first.lstrip("# ").strip() or name
            break
    rows.append(f'<li><a href="{name}.html">{html.escape(name)}</a> — {html.escape(title)}</li>')
page = ("<!doctype html><meta charset='utf-8'><title>narlab notebooks</title>"
        "<h1>narlab notebooks, executed</h1>"
        "<p>Made by <code>make notebooks-html</code>; the sources are <code>notebooks/src/*.txt</code>.</p>"
        "<ul>" + "\n".join(rows) + "</ul>\n")
tmp = os.path.join(out, "index.html.tmp")
open(tmp, "w").write(page)
os.replace(tmp, os.path.join(out, "index.html"))
PY
echo "notebooks-html: wrote $out/index.html" >&2
