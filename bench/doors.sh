#!/usr/bin/env bash
# Issue 21's success-path target, measured in one run: the overhead of every front door over a
# plain call (Python: plain, with options, with a fleet, with a fleet whose admission is on
# (issue 23: no contention), with and without an estimate; Ruby: the first three) beside backoff's
# @on_exception, the fastest peer decorator. Release builds of both bindings; asserts nothing,
# prints the table (and `--quick` runs fewer rounds).
#
#   bash bench/doors.sh [--quick]        # or: make bench-doors
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
quick=()
[[ "${1:-}" == "--quick" ]] && quick=(--quick)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

scripts/python.sh --no-tests >/dev/null
RELEASE=1 rake compile >/dev/null
.venv/bin/python bench/python/bench_overhead.py --doors "${quick[@]}" --json "$work/py.json" >/dev/null
ruby -I gems/retry_core/lib bench/ruby/bench.rb --doors "${quick[@]}" --json "$work/rb.json" >/dev/null
.venv/bin/python - "$work/py.json" "$work/rb.json" <<'PY'
import json, sys
py = json.load(open(sys.argv[1]))
rb = json.load(open(sys.argv[2]))["success_path"]
peer = py["backoff @on_exception (the fastest peer)"]
rows = [("Python call_llm_with_retry(fn)", py["call_llm_with_retry(fn)"]),
        ("Python call_llm_with_retry(fn, policy=, on_event=)", py["call_llm_with_retry(fn, policy=, on_event=)"]),
        ("Python call_llm_with_retry(fn, fleet=, key=)", py["call_llm_with_retry(fn, fleet=, key=)"]),
        ("Python (fleet=, key=), admission on", py["call_llm_with_retry(fn, fleet=, key=) admission on"]),
        ("Python (fleet=, key=, estimate=), admission on",
         py["call_llm_with_retry(fn, fleet=, key=, estimate=) admission on"]),
        ("Ruby RetryCore.call_llm_with_retry { }", rb["call_llm_with_retry_ns"] - rb["loop_ns"]),
        ("Ruby (policy:, on_event:)", rb["with_options_ns"] - rb["loop_ns"]),
        ("Ruby (fleet:, key:)", rb["with_fleet_ns"] - rb["loop_ns"])]
print(f"Overhead over a plain call, ns (backoff @on_exception in the same run: {peer:.0f} ns)")
for name, over in rows:
    print(f"  {name:52} {over:8.0f}   {'at or under backoff' if over <= peer else 'OVER backoff'}")
PY
