#!/usr/bin/env bash
# Issue 21's success-path target, measured in one run: the overhead of every front door over a
# plain call (Python and Ruby alike: plain, with options, with a fleet, with a fleet whose
# admission is on (issue 23: no contention), with and without an estimate) beside backoff's
# @on_exception, the fastest peer decorator. Release builds of both bindings; asserts nothing,
# prints the table (`--quick` runs fewer rounds). `--runs N` runs both benchmarks N times,
# alternated, and prints each row's median with its range (the machines are shared: one run's
# figure can be off by a third).
#
#   bash bench/doors.sh [--quick] [--runs N]        # or: make bench-doors
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
quick=()
runs=1
while (( $# )); do
    case "$1" in
        --quick) quick=(--quick) ;;
        --runs) runs="$2"; shift ;;
        *) echo "usage: bench/doors.sh [--quick] [--runs N]" >&2; exit 2 ;;
    esac
    shift
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

scripts/python.sh --no-tests >/dev/null
RELEASE=1 rake compile >/dev/null
for ((i = 1; i <= runs; i++)); do
    .venv/bin/python bench/python/bench_overhead.py --doors "${quick[@]}" --json "$work/py.$i.json" >/dev/null
    ruby -I gems/retry_core/lib bench/ruby/bench.rb --doors "${quick[@]}" --json "$work/rb.$i.json" >/dev/null
done
.venv/bin/python - "$work" "$runs" <<'PY'
import json, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])


def rows(i):
    py = json.load(open(f"{work}/py.{i}.json"))
    rb = json.load(open(f"{work}/rb.{i}.json"))["success_path"]
    return [("backoff @on_exception (the fastest peer)", py["backoff @on_exception (the fastest peer)"]),
            ("Python call_llm_with_retry(fn)", py["call_llm_with_retry(fn)"]),
            ("Python call_llm_with_retry(fn, policy=, on_event=)", py["call_llm_with_retry(fn, policy=, on_event=)"]),
            ("Python call_llm_with_retry(fn, fleet=, key=)", py["call_llm_with_retry(fn, fleet=, key=)"]),
            ("Python (fleet=, key=), admission on", py["call_llm_with_retry(fn, fleet=, key=) admission on"]),
            ("Python (fleet=, key=, estimate=), admission on",
             py["call_llm_with_retry(fn, fleet=, key=, estimate=) admission on"]),
            ("Ruby RetryCore.call_llm_with_retry { }", rb["call_llm_with_retry_ns"] - rb["loop_ns"]),
            ("Ruby (policy:, on_event:)", rb["with_options_ns"] - rb["loop_ns"]),
            ("Ruby (fleet:, key:)", rb["with_fleet_ns"] - rb["loop_ns"]),
            ("Ruby (fleet:, key:), admission on", rb["with_admission_ns"] - rb["answer_loop_ns"]),
            ("Ruby (fleet:, key:, estimate:), admission on", rb["with_estimate_ns"] - rb["answer_loop_ns"])]


table = [rows(i) for i in range(1, runs + 1)]
names = [name for name, _ in table[0]]
figures = {name: [dict(r)[name] for r in table] for name in names}
median = {name: statistics.median(v) for name, v in figures.items()}
peer = median[names[0]]
what = "median of %d runs (range)" % runs if runs > 1 else "one run"
print(f"Overhead over a plain call, ns, {what}; backoff @on_exception in the same runs: {peer:.0f} ns")
for name in names[1:]:
    over = median[name]
    spread = f"({min(figures[name]):.0f}-{max(figures[name]):.0f})" if runs > 1 else ""
    print(f"  {name:52} {over:8.0f} {spread:>13}   {'at or under backoff' if over <= peer else 'OVER backoff'}")
if runs > 1:
    print(f"  {'(backoff itself)':52} {peer:8.0f} {'(%.0f-%.0f)' % (min(figures[names[0]]), max(figures[names[0]])):>13}")
PY
