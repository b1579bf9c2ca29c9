#!/usr/bin/env bash
# Builds the narlab command (cgo, with the XLA backend) into ${1:-bin/narlab},
# stamped with the checkout's commit, its time and whether the checkout had
# uncommitted changes, for `narlab version`. The go command stamps the same
# into the build information by itself, except in a git worktree or under
# GOFLAGS=-buildvcs=false; `narlab version` prefers the go command's stamp and
# falls back on this one. Outside a git checkout the binary has neither.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/bin/narlab}")
cd "$root"
ldflags=()
if commit=$(git rev-parse HEAD 2>/dev/null); then
  modified=false
  if [ -n "$(git status --porcelain 2>/dev/null)" ]; then modified=true; fi
  when=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ)
  ldflags=(-ldflags "-X main.stampCommit=$commit -X main.stampTime=$when -X main.stampModified=$modified")
fi
mkdir -p "$(dirname "$out")"
CGO_ENABLED=${CGO_ENABLED:-1} go build "${ldflags[@]}" -o "$out" ./cmd/narlab
