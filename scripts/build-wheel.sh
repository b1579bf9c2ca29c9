#!/usr/bin/env bash
# Builds narlab's platform wheel (`make wheel`): the Python package python/
# with the narlab binary (cgo, the XLA backend linked; scripts/build-narlab.sh)
# as narlab/bin/narlab, into ${1:-dist}/narlab-VERSION-py3-none-PLATFORM.whl,
# and prints its path. In a fresh virtual environment, with no Go anywhere:
#   pip install dist/narlab-*.whl            # the narlab command and package
#   pip install "dist/narlab-*.whl[train]"   # + the XLA CPU plugin (docs/python.md)
#
# The binary is checked before it is shipped:
#   - the shared libraries it needs must be glibc's own (libc, libm,
#     libpthread, libdl, librt, the loader), present on every glibc Linux;
#     anything else fails the build, naming the library;
#   - the platform tag is manylinux_X_Y_ARCH with X.Y the newest glibc
#     symbol version it references (pip installs it only where that glibc
#     or a newer one runs: Debian 12 and Ubuntu 22.04 have 2.36 and 2.35).
# The XLA CPU plugin is not in the wheel: it is the PyPI wheel
# lammps-jax-pjrt-cpu (the `train` extra), which the `narlab` command finds
# in its environment (python/narlab/cli.py).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/dist}")
python=${PYTHON:-python3}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cd "$root"

"$root/scripts/build-narlab.sh" "$stage/narlab" >&2
# Symbols and DWARF are for debuggers; Go's own tables (stack traces) stay.
strip --strip-all "$stage/narlab"

allowed='^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1)$'
needed=$(readelf -d "$stage/narlab" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for lib in $needed; do
  if ! [[ $lib =~ $allowed ]]; then
    echo "build-wheel: the narlab binary needs $lib, which is not part of glibc: a wheel would not run where it is missing" >&2
    exit 1
  fi
done
glibc=$(objdump -T "$stage/narlab" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -1)
if [ -z "$glibc" ]; then
  echo "build-wheel: found no glibc symbol versions in the binary" >&2
  exit 1
fi
major=${glibc%%.*}
rest=${glibc#*.}
minor=${rest%%.*}
case $(uname -m) in
  x86_64) arch=x86_64 ;;
  aarch64) arch=aarch64 ;;
  *) echo "build-wheel: no wheel platform tag for $(uname -m)" >&2; exit 1 ;;
esac
platform="manylinux_${major}_${minor}_${arch}"
echo "build-wheel: binary $(du -h "$stage/narlab" | cut -f1), needs $(echo $needed | tr ' ' ','), glibc >= $major.$minor: $platform" >&2
"$python" "$root/scripts/build_wheel.py" --binary "$stage/narlab" --platform "$platform" --out "$out"
