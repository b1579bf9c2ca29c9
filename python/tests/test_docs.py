"""Runs the snippets of docs/python.md, each in a fresh interpreter whose
working directory holds data/clrs30 (what `narlab clrs generate --split all
--algos bfs,insertion_sort --out data/clrs30` writes). A snippet is a
```python block right after a line `<!-- test: TAG -->`; --doc-tags says
which tags run in this environment (numpy in the project's .venv, dmclrs
and pyg in the bridge environment)."""

import os
import re
import subprocess
import sys

import pytest

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'docs', 'python.md')


def snippets():
    text = open(DOC).read()
    found = re.findall(r'<!-- test: ([\w-]+) -->\n```python\n(.*?)```', text, flags=re.S)
    return [(tag, code) for tag, code in found]


def pytest_generate_tests(metafunc):
    if 'snippet' not in metafunc.fixturenames:
        return
    tags = metafunc.config.getoption('--doc-tags')
    if not tags:
        raise pytest.UsageError('pass --doc-tags (numpy, dmclrs, pyg): the snippets each environment runs')
    tags = tags.split(',')
    chosen = [(tag, code) for tag, code in snippets() if tag in tags]
    for tag in tags:
        if not any(t == tag for t, _ in chosen):
            raise pytest.UsageError(f'docs/python.md has no snippet tagged {tag}')
    counts = {}
    ids = []
    for tag, _ in chosen:
        counts[tag] = counts.get(tag, 0) + 1
        ids.append(f'{tag}-{counts[tag]}')
    metafunc.parametrize('snippet', chosen, ids=ids)


def test_snippet(snippet, data_dir, tmp_path):
    tag, code = snippet
    os.makedirs(tmp_path / 'data')
    os.symlink(os.path.join(data_dir, 'clrs30'), tmp_path / 'data' / 'clrs30')
    r = subprocess.run(
        [sys.executable, '-c', code], cwd=tmp_path, capture_output=True, text=True, timeout=900
    )
    print(r.stdout)
    assert r.returncode == 0, f'the {tag} snippet failed:\n{code}\n--- stderr:\n{r.stderr[-6000:]}'
