#!/usr/bin/env python3
"""Builds notebooks/*.ipynb from the plain-text sources in notebooks/src.

A source is a sequence of cells, each introduced by a line `#- markdown` or
`#- code`; a notebook-level line `#- expect MIME N` says that executing the
notebook must produce at least N outputs of that MIME type (the notebook
test checks it); `#- main-figure K` says the notebook's K-th image (from 0)
is its main figure, the one scripts/browser-check.sh captures (default: the
largest). Run after editing a source:  python3 notebooks/build.py
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def build(src_path):
    cells, expect, cur, main = [], {}, None, None
    for line in open(src_path, encoding='utf-8').read().split('\n'):
        m = re.match(r'^#- (markdown|code)\s*$', line)
        if m:
            cur = {'kind': m.group(1), 'lines': []}
            cells.append(cur)
            continue
        m = re.match(r'^#- main-figure (\d+)\s*$', line)
        if m:
            main = int(m.group(1))
            continue
        m = re.match(r'^#- expect (\S+) (\d+)\s*$', line)
        if m:
            expect[m.group(1)] = int(m.group(2))
            continue
        if cur is not None:
            cur['lines'].append(line)
    out = []
    for c in cells:
        text = '\n'.join(c['lines']).strip('\n')
        src = [l + '\n' for l in text.split('\n')]
        src[-1] = src[-1].rstrip('\n')
        if c['kind'] == 'markdown':
            out.append({'cell_type': 'markdown', 'metadata': {}, 'source': src})
        else:
            out.append({'cell_type': 'code', 'metadata': {}, 'execution_count': None, 'outputs': [], 'source': src})
    narlab = {'expect': expect}
    if main is not None:
        narlab['main_figure'] = main
    return {
        'cells': out,
        'metadata': {
            'kernelspec': {'name': 'narlab', 'display_name': 'Go (narlab)', 'language': 'go'},
            'language_info': {'name': 'go'},
            'narlab': narlab,
        },
        'nbformat': 4, 'nbformat_minor': 5,
    }


def main():
    srcs = sorted(f for f in os.listdir(os.path.join(HERE, 'src')) if f.endswith('.txt'))
    for f in srcs:
        nb = build(os.path.join(HERE, 'src', f))
        dst = os.path.join(HERE, f[:-4] + '.ipynb')
        with open(dst, 'w', encoding='utf-8') as fh:
            json.dump(nb, fh, indent=1, ensure_ascii=False)
            fh.write('\n')
        print('wrote', os.path.relpath(dst), file=sys.stderr)


if __name__ == '__main__':
    main()
