#!/usr/bin/env bash
# Regenerates the paper-mode scoring fixtures from checkouts of the peers'
# repositories: their own scorers, run unchanged in a scratch directory,
# give every fixture response its expected score.
#
#   scripts/paper_fixtures.sh DSR_BENCH_CHECKOUT G1_CHECKOUT
#
#   DSR_BENCH_CHECKOUT  git clone https://github.com/dransyhe/DSR-Bench (fixtures made at 8fcaa7d)
#   G1_CHECKOUT         git clone https://github.com/shenyangHuang/G1 (evaluation/Erdos; made at 6c20a61)
#
# Writes lib/dsr/testdata/paper/dsr_{instances,responses}.jsonl and
# lib/graphtext/testdata/paper/erdos_{instances,responses}.jsonl; then
#   go test ./lib/dsr ./lib/graphtext -run 'TestPaperScore'
# checks narlab's paper mode against them. Nothing of the peers' code is
# copied into the repository. Python: a scratch virtual environment
# (PAPER_FIXTURES_VENV, default /tmp/narlab-paper-fixtures-venv) with the
# few packages their scoring code imports.
set -euo pipefail
if [[ $# -ne 2 ]]; then
	sed -n '2,19p' "$0" >&2
	exit 2
fi
dsr=$(cd "$1" && pwd)
g1=$(cd "$2" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
[[ -f $dsr/evaluation/utils.py ]] || { echo "paper_fixtures: $dsr is not a DSR-Bench checkout (no evaluation/utils.py)" >&2; exit 1; }
[[ -f $g1/evaluation/Erdos/correctness_check.py ]] || { echo "paper_fixtures: $g1 has no evaluation/Erdos/correctness_check.py" >&2; exit 1; }

venv=${PAPER_FIXTURES_VENV:-/tmp/narlab-paper-fixtures-venv}
if [[ ! -x $venv/bin/python ]]; then
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q "pydantic==2.10.4" "networkx==3.4.2" "numpy<2" "pulp==3.3.2"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
go run ./cmd/paperfixtures dsr -ref "$dsr" >"$tmp/dsr_cases.jsonl"
go run ./cmd/paperfixtures erdos >"$tmp/erdos_cases.jsonl"
mkdir -p lib/dsr/testdata/paper lib/graphtext/testdata/paper
"$venv/bin/python" scripts/paperfixtures/peers.py dsr --repo "$dsr" --cases "$tmp/dsr_cases.jsonl" --out "$tmp"
"$venv/bin/python" scripts/paperfixtures/peers.py erdos --repo "$g1" --cases "$tmp/erdos_cases.jsonl" --out "$tmp"
cp "$tmp"/dsr_instances.jsonl "$tmp"/dsr_responses.jsonl lib/dsr/testdata/paper/
cp "$tmp"/erdos_instances.jsonl "$tmp"/erdos_responses.jsonl lib/graphtext/testdata/paper/
for d in lib/dsr/testdata/paper lib/graphtext/testdata/paper; do
	{
		echo "Made by scripts/paper_fixtures.sh on $(date -u +%Y-%m-%d)."
		echo "DSR-Bench: $(git -C "$dsr" rev-parse HEAD 2>/dev/null || echo unknown)"
		echo "G1: $(git -C "$g1" rev-parse HEAD 2>/dev/null || echo unknown)"
		echo "Python: $("$venv/bin/python" --version 2>&1); $("$venv/bin/pip" freeze 2>/dev/null | grep -iE '^(pydantic|networkx|pulp)==' | tr '\n' ' ')"
	} >"$d/SOURCE"
done
echo "paper_fixtures: $(wc -l <lib/dsr/testdata/paper/dsr_responses.jsonl) DSR-Bench and $(wc -l <lib/graphtext/testdata/paper/erdos_responses.jsonl) Erdős responses"
