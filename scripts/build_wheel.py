#!/usr/bin/env python3
"""Writes narlab's platform wheel: the Python package python/narlab with the
narlab binary as narlab/bin/narlab (scripts/build-wheel.sh builds the binary,
checks its shared-library needs and calls this).

    build_wheel.py --binary BIN --platform manylinux_2_34_x86_64 --out DIR

The metadata comes from python/pyproject.toml (name, version, summary,
dependencies, extras, the narlab console script); the archive is written
with fixed timestamps, so the same sources and binary give the same bytes.
Standard library only (tomllib: Python 3.11+).
"""

import argparse
import base64
import hashlib
import io
import os
import re
import stat
import sys
import zipfile

try:
    import tomllib
except ModuleNotFoundError:
    sys.exit('build_wheel.py needs Python 3.11 or newer (tomllib); run scripts/build-wheel.sh with PYTHON=python3.11 or newer')

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = os.path.join(ROOT, 'python')
# 1980-01-01, the first time zip can hold: fixed, so builds are byte-identical.
EPOCH = (1980, 1, 1, 0, 0, 0)


def metadata(project, readme):
    lines = [
        'Metadata-Version: 2.4',
        f'Name: {project["name"]}',
        f'Version: {project["version"]}',
        f'Summary: {project["description"]}',
        f'License-Expression: {project["license"]}',
        'License-File: LICENSE',
        'License-File: NOTICE',
        f'Requires-Python: {project["requires-python"]}',
    ]
    lines += [f'Requires-Dist: {d}' for d in project.get('dependencies', [])]
    for extra, deps in project.get('optional-dependencies', {}).items():
        lines.append(f'Provides-Extra: {extra}')
        lines += [f'Requires-Dist: {d}; extra == "{extra}"' for d in deps]
    lines.append('Description-Content-Type: text/markdown')
    return '\n'.join(lines) + '\n\n' + readme


def package_files():
    """(archive name, path) of every file of python/narlab but caches and any binary there."""
    out = []
    base = os.path.join(PY, 'narlab')
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in ('__pycache__', 'bin'))
        for f in sorted(filenames):
            if f.endswith(('.pyc', '.pyo')):
                continue
            p = os.path.join(dirpath, f)
            out.append((os.path.relpath(p, PY).replace(os.sep, '/'), p))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--binary', required=True, help='the narlab binary to ship')
    ap.add_argument('--platform', required=True, help='the platform tag, e.g. manylinux_2_34_x86_64')
    ap.add_argument('--out', required=True, help='directory the wheel is written to')
    a = ap.parse_args()
    if not re.fullmatch(r'(manylinux_\d+_\d+|linux)_(x86_64|aarch64)', a.platform):
        sys.exit(f'build_wheel.py: platform tag {a.platform!r}: want manylinux_X_Y_ARCH or linux_ARCH')
    with open(os.path.join(PY, 'pyproject.toml'), 'rb') as f:
        project = tomllib.load(f)['project']
    with open(os.path.join(PY, project.get('readme', 'README.md'))) as f:
        readme = f.read()
    name, version = project['name'], project['version']
    tag = f'py3-none-{a.platform}'
    dist_info = f'{name}-{version}.dist-info'
    wheel_name = f'{name}-{version}-{tag}.whl'

    entries = []  # (archive name, bytes, executable)
    for arc, path in package_files():
        with open(path, 'rb') as f:
            entries.append((arc, f.read(), False))
    with open(a.binary, 'rb') as f:
        entries.append((f'{name}/bin/narlab', f.read(), True))
    for lic in ('LICENSE', 'NOTICE'):
        with open(os.path.join(ROOT, lic), 'rb') as f:
            entries.append((f'{dist_info}/licenses/{lic}', f.read(), False))
    entries.append((f'{dist_info}/METADATA', metadata(project, readme).encode(), False))
    wheel = f'Wheel-Version: 1.0\nGenerator: narlab scripts/build_wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n'
    entries.append((f'{dist_info}/WHEEL', wheel.encode(), False))
    scripts = project.get('scripts', {})
    if scripts:
        ep = '[console_scripts]\n' + ''.join(f'{k} = {v}\n' for k, v in scripts.items())
        entries.append((f'{dist_info}/entry_points.txt', ep.encode(), False))

    record = io.StringIO()
    for arc, data, _ in entries:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()
        record.write(f'{arc},sha256={digest},{len(data)}\n')
    record.write(f'{dist_info}/RECORD,,\n')
    entries.append((f'{dist_info}/RECORD', record.getvalue().encode(), False))

    os.makedirs(a.out, exist_ok=True)
    dest = os.path.join(a.out, wheel_name)
    tmp = dest + '.tmp'
    with zipfile.ZipFile(tmp, 'w', compression=zipfile.ZIP_DEFLATED) as z:
        for arc, data, executable in entries:
            info = zipfile.ZipInfo(arc, EPOCH)
            mode = 0o755 if executable else 0o644
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    os.replace(tmp, dest)
    print(dest)


if __name__ == '__main__':
    main()
