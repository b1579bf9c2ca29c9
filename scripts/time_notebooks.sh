#!/usr/bin/env bash
# Cold and warm execution time of every notebook, run by the real kernel
# through the notebook test (nbclient). Cold: an empty Go build cache, so the
# kernel compiles narlab and all its dependencies first, as on a machine where
# nothing has been built yet. Warm: the same notebook again right after.
# Usage: scripts/time_notebooks.sh [NN ...]   (default: every notebook)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
[ -x .venv/bin/jupyter ] || { echo "time_notebooks: run scripts/setup.sh (or make setup) first" >&2; exit 1; }

numbers=("$@")
if [ ${#numbers[@]} -eq 0 ]; then
  for nb in notebooks/[0-9][0-9]_*.ipynb; do numbers+=("$(basename "$nb" | cut -c1-2)"); done
fi

# The test binary is built once with the normal cache, so that only the
# kernel's own compilation starts from the empty one.
testbin=$(mktemp -d)/notebooks.test
trap 'rm -rf "$(dirname "$testbin")"' EXIT
go test -c -o "$testbin" ./notebooks

elapsed() { # notebook number, GOCACHE → the time the test reports
  (cd notebooks && GOCACHE="$2" "$testbin" -test.count=1 -test.timeout 30m -test.run "TestNotebooks/$1" -test.v 2>&1) |
    sed -n 's/.*executed in \([0-9hms.]*\).*/\1/p' | tail -1
}

printf '| notebook | cold | warm |\n|---|---:|---:|\n'
for n in "${numbers[@]}"; do
  cache=$(mktemp -d)
  cold=$(elapsed "$n" "$cache")
  warm=$(elapsed "$n" "$cache")
  rm -rf "$cache"
  name=$(basename notebooks/"$n"_*.ipynb .ipynb)
  printf '| %s | %s | %s |\n' "$name" "${cold:-failed}" "${warm:-failed}"
done
