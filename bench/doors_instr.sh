#!/usr/bin/env bash
# Issue 23's success-path target counted, not timed: the instructions a call of each front door
# costs over a plain call (Python and Ruby: plain, with a fleet, with a fleet whose admission is
# on and no contention, and with an estimate as well), beside backoff's @on_exception (the
# fastest peer decorator), by callgrind: (I(N + 1 calls) - I(1 call)) / N for each door, in its
# own process (bench/python/doors_instr.py, bench/ruby/doors_instr.rb). Deterministic for a
# given build up to the hash seed (PYTHONHASHSEED=0; Ruby's is random, a few instructions a
# call): a wall-clock run on a shared machine swings by a third (bench/doors.sh). Release builds
# of both bindings, as bench/doors.sh makes them. Needs valgrind (apt-get install -y valgrind).
#
#   bash bench/doors_instr.sh [--calls N]     # or: make bench-doors-instr
set -euo pipefail
shopt -s inherit_errexit  # a door that fails under callgrind stops the script, not a row
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
calls=2000
while (( $# )); do
    case "$1" in
        --calls) calls="$2"; shift ;;
        *) echo "usage: bench/doors_instr.sh [--calls N]" >&2; exit 2 ;;
    esac
    shift
done
command -v valgrind >/dev/null || { echo "doors_instr: valgrind is missing (apt-get install -y valgrind)" >&2; exit 1; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

scripts/python.sh --no-tests >/dev/null
RELEASE=1 rake compile >/dev/null

# Instructions of one process under callgrind (its `summary:` line).
count() {
    local file="$out/run"
    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file="$file" "$@" >/dev/null 2>"$out/err" ||
        { echo "doors_instr: failed under callgrind: $*" >&2; grep -v '^==' "$out/err" | tail -5 >&2; exit 1; }
    awk '/^summary:/ {print $2}' "$file"
}

# Instructions per call of DOOR: N + 1 calls minus 1.
per_call() {
    local lang="$1" door="$2" a b
    case "$lang" in
        py) a=$(count .venv/bin/python bench/python/doors_instr.py "$door" 1)
            b=$(count .venv/bin/python bench/python/doors_instr.py "$door" $((calls + 1))) ;;
        rb) a=$(count ruby -I gems/retry_core/lib bench/ruby/doors_instr.rb "$door" 1)
            b=$(count ruby -I gems/retry_core/lib bench/ruby/doors_instr.rb "$door" $((calls + 1))) ;;
    esac
    echo $(( (b - a) / calls ))
}

declare -A n
for door in plain plain_usage backoff door fleet admission estimate; do
    c=$(per_call py "$door"); n[py.$door]=$c
done
for door in plain plain_usage door fleet admission estimate; do
    c=$(per_call rb "$door"); n[rb.$door]=$c
done

peer=$(( n[py.backoff] - n[py.plain] ))
echo "Instructions a call over a plain call (callgrind, (I($((calls + 1)) calls) - I(1 call)) / $calls, release builds)"
printf '  %-52s %9s %9s %7s\n' "" "a call" "overhead" "ratio"
row() {  # name, key, the plain call it is counted over
    local over=$(( n[$2] - n[$3] ))
    local verdict="OVER backoff"
    (( over <= peer )) && verdict="at or under backoff"
    printf '  %-52s %9d %9d %7s   %s\n' "$1" "${n[$2]}" "$over" "$(awk -v a="$over" -v b="$peer" 'BEGIN {printf "%.2fx", a / b}')" "$verdict"
}
printf '  %-52s %9d %9d %7s\n' "backoff @on_exception (the fastest peer)" "${n[py.backoff]}" "$peer" "1.00x"
row "Python call_llm_with_retry(fn)" py.door py.plain
row "Python call_llm_with_retry(fn, fleet=, key=)" py.fleet py.plain
row "Python (fleet=, key=), admission on" py.admission py.plain_usage
row "Python (fleet=, key=, estimate=), admission on" py.estimate py.plain_usage
row "Ruby RetryCore.call_llm_with_retry { }" rb.door rb.plain
row "Ruby (fleet:, key:)" rb.fleet rb.plain
row "Ruby (fleet:, key:), admission on" rb.admission rb.plain_usage
row "Ruby (fleet:, key:, estimate:), admission on" rb.estimate rb.plain_usage
