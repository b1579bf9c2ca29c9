#!/usr/bin/env bash
# `make test`: sets everything up (idempotently), runs every test, and then
# checks that the suite left nothing behind. In order:
#   - set-up: make setup, then make vet and make fuzz while, beside them,
#     the steps that mostly download run in the background: make llm,
#     scripts/setup-cluster.sh and scripts/setup-pybridge.sh (the one Python
#     environment of the Python-side tests); each one's output is printed
#     when it ends, and the tests start once all have succeeded;
#   - go test ./... with the XLA CPU backend required (NARLAB_REQUIRE_XLA=1);
#   - the checks: no process started by the suite still runs (each carries
#     $NARLAB_TEST_SUITE in its environment; a leftover is named, stopped,
#     and fails the run), the checkout's `git status` shows nothing that was
#     not there before, and nothing under the checkout's data/ was written;
#   - a summary: each phase's time, each package's time (slowest first),
#     the slowest tests, the total, and "packages: N passed, M failed".
# Each test binary checks its own processes too (internal/testenv); the
# check here also catches what a binary killed by a timeout left.
# GOTEST_FLAGS adds flags to go test (e.g. GOTEST_FLAGS=-count=1); PKGS
# names the packages (default ./..., the slowest first); SKIP_SETUP=1 leaves out the set-up,
# vet and fuzz phases (to rerun the tests alone, with their checks).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
make=${MAKE:-make}
go=${GO:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -t 1 ]; then log() { printf '\033[1m[test]\033[0m %s\n' "$*"; }; else log() { printf '[test] %s\n' "$*"; }; fi

start=$SECONDS
git_before=$(git status --porcelain --untracked-files=all 2>/dev/null || true)
touch "$tmp/stamp"
# Every process started from here on inherits the mark (this shell's own
# /proc environment does not: it was exec'd without it).
NARLAB_TEST_SUITE="make-test-$$-$(date +%s%N)"
export NARLAB_TEST_SUITE

phases=()
# phase NAME CMD...: runs CMD, records its time; returns its status.
phase() {
  local name=$1 s=$SECONDS rc
  shift
  log "$name"
  "$@"
  rc=$?
  phases+=("$(printf '%6ds  %s' $((SECONDS - s)) "$name")")
  return $rc
}

# background NAME CMD...: starts CMD in the background, its output into
# $tmp/NAME.log; await_background waits for every one started, prints each
# one's output and time, and fails if any failed. (The set-up steps that
# mostly download run beside vet and fuzz, which mostly compute.)
bg_names=()
bg_pids=()
background() {
  local name=$1
  shift
  log "$name (in the background)"
  (
    s=$SECONDS
    "$@" >"$tmp/$name.log" 2>&1
    rc=$?
    echo "$rc $((SECONDS - s))" >"$tmp/$name.rc"
    exit $rc
  ) &
  bg_names+=("$name")
  bg_pids+=("$!")
}
await_background() {
  local i name rc took ok=0 s=$SECONDS
  for i in "${!bg_pids[@]}"; do
    wait "${bg_pids[$i]}"
  done
  for name in "${bg_names[@]}"; do
    read -r rc took <"$tmp/$name.rc" 2>/dev/null || { rc=1; took=0; }
    log "$name (ran in the background, ${took}s, exit status $rc):"
    sed 's/^/    /' "$tmp/$name.log"
    phases+=("$(printf '%6ds  %s (in the background)' "$took" "$name")")
    [ "$rc" = 0 ] || ok=1
  done
  phases+=("$(printf '%6ds  %s' $((SECONDS - s)) "waiting for the background set-up")")
  return $ok
}

# leftovers: the live processes carrying this run's mark, one a line
# (pid, process group, working directory, command).
leftovers() (
  unset NARLAB_TEST_SUITE
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [ "$p" = $$ ] && continue
    tr '\0' '\n' 2>/dev/null < "$d/environ" | grep -qxF "NARLAB_TEST_SUITE=$mark" || continue
    state=$(awk '{print $3}' "$d/stat" 2>/dev/null)
    [ -z "$state" ] || [ "$state" = Z ] && continue
    printf '%s %s %s %s\n' "$p" "$(ps -o pgid= -p "$p" | tr -d ' ')" "$(readlink "$d/cwd")" "$(tr '\0' ' ' < "$d/cmdline")"
  done
)

failed=0
fail() { log "FAIL: $*"; failed=1; }

checks() {
  mark=$NARLAB_TEST_SUITE
  local left
  left=$(leftovers)
  if [ -n "$left" ]; then
    sleep 2 # a process stopped a moment ago may still be leaving
    left=$(leftovers)
  fi
  if [ -n "$left" ]; then
    fail "processes started by the suite still run (stopping them now):"
    printf '%s\n' "$left" | while read -r pid pgid cwd cmd; do
      printf '    pid %s (group %s) in %s: %s\n' "$pid" "$pgid" "$cwd" "$cmd"
      if [ "$pid" = "$pgid" ]; then kill -TERM -- "-$pid" 2>/dev/null; else kill -TERM "$pid" 2>/dev/null; fi
    done
    sleep 5
    printf '%s\n' "$left" | while read -r pid pgid _; do
      if [ "$pid" = "$pgid" ]; then kill -KILL -- "-$pid" 2>/dev/null; else kill -KILL "$pid" 2>/dev/null; fi
    done
  else
    log "no process started by the suite is left"
  fi
  local git_after
  git_after=$(git status --porcelain --untracked-files=all 2>/dev/null || true)
  if [ "$git_after" != "$git_before" ]; then
    fail "the tests changed the checkout (git status before and after):"
    diff <(printf '%s\n' "$git_before") <(printf '%s\n' "$git_after") | sed 's/^/    /'
  else
    log "git status: as before the tests"
  fi
  if [ -d data ]; then
    local written
    written=$(find data -newer "$tmp/stamp" -print 2>/dev/null | head -20)
    if [ -n "$written" ]; then
      fail "the tests wrote into the checkout's data/ (each test binary has a temporary one):"
      printf '    %s\n' $written
    fi
  fi
}

summary() {
  log "time per phase:"
  printf '  %s\n' "${phases[@]}"
  if [ -s "$tmp/summary.txt" ]; then
    grep -v '^packages: ' "$tmp/summary.txt" | sed 's/^/[test] /; s/^\[test\]   /  /'
  fi
  log "total: $((SECONDS - start))s ($(( (SECONDS - start) / 60 ))m$(printf '%02d' $(( (SECONDS - start) % 60 )))s)"
  grep '^packages: ' "$tmp/summary.txt" 2>/dev/null || true
}

# The packages, the slowest first (their times in the summary of a run on
# the 2-core machine, 2026-12-06): go test runs test binaries in the order
# it is given them, two at a time on two cores, so starting the longest
# ones first keeps one lane from running lib/nn alone at the end. go test
# runs a package named twice once.
slowest_first="./lib/nn ./notebooks ./sweep ./python ./cmd/narlab ./tracking/mlflow ./experiments/clrs30 ./tracking ./experiments/llmeval ./lib/salsa"

# gotest: every test, its output as plain go test's (scripts/gotest_report.py
# reads the JSON events and keeps each test's time for the summary).
gotest() {
  # shellcheck disable=SC2086 # GOTEST_FLAGS and PKGS are lists
  env NARLAB_REQUIRE_XLA=1 CGO_ENABLED=1 "$go" test -json -timeout 45m ${GOTEST_FLAGS:-} ${PKGS:-$slowest_first ./...} 2>&1 |
    python3 scripts/gotest_report.py --summary "$tmp/summary.txt"
  return "${PIPESTATUS[0]}"
}

# The set-up, then the tests; the checks and the summary run whatever failed.
if [ "${SKIP_SETUP:-}" = 1 ]; then
  phase "go test" gotest || fail "go test"
elif phase "make setup" "$make" --no-print-directory setup; then
  background "make llm" "$make" --no-print-directory llm
  background "setup-cluster" scripts/setup-cluster.sh
  background "setup-pybridge" scripts/setup-pybridge.sh
  fg=0
  phase "make vet" "$make" --no-print-directory vet &&
    phase "make fuzz" "$make" --no-print-directory fuzz || fg=1
  if ! await_background; then
    fail "set-up (a background step above)"
  elif [ "$fg" != 0 ]; then
    fail "set-up (make vet or make fuzz, above)"
  else
    phase "go test" gotest || fail "go test"
  fi
else
  fail "set-up (make setup, above)"
fi
checks
summary
exit $failed
