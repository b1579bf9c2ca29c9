"""Makes a gallery page (nbconvert's HTML of an executed notebook) readable
on another machine, for scripts/notebooks-html.sh.

usage: gallery_clean.py CHECKOUT PAGE.html

Links to a local server (http://127.0.0.1:PORT/…, http://localhost:…: the
MLflow UI of the machine that executed the notebook) are dead anywhere else:
each becomes its text. Then the page is checked, and the script exits 1
naming what it found, if it still holds the checkout's path, a temporary
file's path (/tmp/…), a local server's address, or a relative link to a
file that does not exist beside the page.

Last, what every page repeats goes to one shared file beside the pages:
nbconvert's stylesheets in the page's head (about 260 KB and 7,800 lines a
page) to gallery.css, its inline module script to gallery.js; the page links
them. A page made by another nbconvert, with other styles, rewrites the
shared files and says so (the gallery's other pages then want executing
again: make notebooks-html).
"""
import html
import os
import re
import sys

root, page = sys.argv[1], sys.argv[2]
text = open(page, encoding="utf-8").read()

LOCAL = r"https?://(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?"
# <a href="http://127.0.0.1:…">TEXT</a> → TEXT
text, links = re.subn(r'<a\b[^>]*\bhref="' + LOCAL + r'[^"]*"[^>]*>(.*?)</a>', r"\1", text, flags=re.S)

problems = []
body = text[text.find("<body"):]
for what, pattern in [
    ("the checkout's path", re.escape(root.rstrip("/")) + r"\b"),
    ("a temporary file's path", r"(?<![\w.])/tmp/[\w.-]"),
    ("a local server's address", LOCAL),
]:
    for m in re.finditer(pattern, body):
        ctx = html.unescape(re.sub(r"<[^>]+>", " ", body[max(0, m.start() - 80):m.end() + 80]))
        problems.append(f"{what}: …{' '.join(ctx.split())}…")
for m in re.finditer(r'\bhref="([^"#:?]+)(?:[#?][^"]*)?"', body):
    target = html.unescape(m.group(1))
    if not os.path.exists(os.path.join(os.path.dirname(page), target)):
        problems.append(f"a link to nothing: {target}")

if problems:
    print(f"gallery_clean: {os.path.basename(page)} is not fit for the gallery:", file=sys.stderr)
    for p in problems[:20]:
        print("  " + p, file=sys.stderr)
    sys.exit(1)


def write_shared(name, content):
    """Writes the gallery's shared file NAME unless it holds content already."""
    path = os.path.join(os.path.dirname(page), name)
    if os.path.exists(path) and open(path, encoding="utf-8").read() == content:
        return
    if os.path.exists(path):
        print(f"gallery_clean: {name} changed (another nbconvert?): re-execute the other pages too", file=sys.stderr)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(content)
    os.replace(tmp, path)


def share(text):
    """Moves the head's styles and module script into the shared files."""
    end = text.find("<body")
    head, rest = text[:end], text[end:]
    styles = list(re.finditer(r"<style[^>]*>(.*?)</style>", head, flags=re.S))
    if styles:
        write_shared("gallery.css", "\n".join(m.group(1).strip("\n") for m in styles) + "\n")
        first = styles[0]
        out, last = [head[:first.start()], '<link rel="stylesheet" href="gallery.css">'], first.end()
        for m in styles[1:]:
            out.append(head[last:m.start()].rstrip(" \n") + "\n" if head[last:m.start()].strip() else "")
            last = m.end()
        out.append(head[last:])
        head = "".join(out)
    mod = re.search(r'<script type="module">(.*?)</script>', head, flags=re.S)
    if mod:
        write_shared("gallery.js", mod.group(1).strip("\n") + "\n")
        head = head[:mod.start()] + '<script type="module" src="gallery.js"></script>' + head[mod.end():]
    return head + rest


text = share(text)
tmp = page + ".clean"
with open(tmp, "w", encoding="utf-8") as f:
    f.write(text)
os.replace(tmp, page)
print(f"gallery_clean: {os.path.basename(page)}: {links} local link(s) made plain text", file=sys.stderr)
