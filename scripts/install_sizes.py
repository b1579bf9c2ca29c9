#!/usr/bin/env python3
"""Measures what each install of narlab's wheel downloads (docs/python.md,
"Installing"): for every install below, pip resolves it in a fresh virtual
environment (pip install --dry-run --ignore-installed --report) and the
sizes of the files it would download are summed (HTTP HEAD of each file's
URL; the wheel itself counts as its file's size).

    scripts/install_sizes.py dist/narlab-0.1.0-py3-none-manylinux_2_34_x86_64.whl

Prints one Markdown row per install: what, packages, download MB. Needs the
package index (PyPI) and its files; nothing is installed.
"""

import json
import os
import subprocess
import sys
import tempfile
import urllib.request

INSTALLS = [
    ('the wheel (numpy)', ['{whl}']),
    ('[train]: + the XLA CPU plugin, with the jax its metadata asks for', ['{whl}[train]']),
    ('[train] less jax: + lammps-jax-pjrt-cpu --no-deps', ['--no-deps', 'lammps-jax-pjrt-cpu==0.11.2']),
    ('[mlflow]', ['{whl}[mlflow]']),
    ('[dmclrs]', ['{whl}[dmclrs]']),
    ('[pyg] (torch-geometric; torch not included)', ['{whl}[pyg]']),
    ('torch from PyPI (with NVIDIA CUDA libraries)', ['torch==2.15.0']),
]


def size_of(url, cache):
    if url not in cache:
        if url.startswith('file://'):
            cache[url] = os.path.getsize(urllib.request.url2pathname(url[len('file://'):]))
        else:
            req = urllib.request.Request(url, method='HEAD')
            with urllib.request.urlopen(req, timeout=60) as r:
                cache[url] = int(r.headers['Content-Length'])
    return cache[url]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    whl = os.path.abspath(sys.argv[1])
    cache = {}
    with tempfile.TemporaryDirectory() as d:
        venv = os.path.join(d, 'venv')
        subprocess.run([sys.executable, '-m', 'venv', venv], check=True)
        py = os.path.join(venv, 'bin', 'python')
        subprocess.run([py, '-m', 'pip', 'install', '-q', '--upgrade', 'pip'], check=True)
        print('| install | packages | download |\n|---|---:|---:|')
        for what, args in INSTALLS:
            report = os.path.join(d, 'report.json')
            cmd = [py, '-m', 'pip', 'install', '-q', '--dry-run', '--ignore-installed',
                   '--report', report] + [a.format(whl=whl) for a in args]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            with open(report) as f:
                items = json.load(f)['install']
            total = sum(size_of(i['download_info']['url'], cache) for i in items)
            print(f'| {what} | {len(items)} | {total / 1e6:,.1f} MB |', flush=True)


if __name__ == '__main__':
    main()
