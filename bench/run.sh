#!/usr/bin/env bash
# One command for the numbers: bench/results/REPORT.md (tables, each with the command that
# produced it and the date) and its PNG charts. Also `make bench-report`.
#
#   bench/run.sh            # everything (about 8 minutes on 2 shared cores, after the builds)
#   bench/run.sh --quick    # 50 seeds, a shorter criterion run; for a look, not for the record
#
# Steps: the scenario simulator (retry-sim, release build: virtual-time scenarios, fleets,
# candidate defaults, and the real-time check against retry-lab over loopback); the criterion
# benches of the core (`cargo bench -p llm-retry-core --bench engine`, parsed into a table); the
# fleets across processes (bench/fleet_processes.py: Redis, per process, none); the
# bindings' bench/python/bench*.py and bench/ruby/bench*.rb when present and runnable (skipped
# with a note otherwise); charts with matplotlib in the project's .venv (created if missing).
# Every number in the report comes from these runs.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="bench/results"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

quick=0
[[ "${1:-}" == "--quick" ]] && quick=1
seeds=200
criterion_args=()
if ((quick)); then
    seeds=50
    criterion_args=(-- --warm-up-time 1 --measurement-time 2)
fi
now() { date -u '+%Y-%m-%d %H:%M UTC'; }

echo "bench: building retry-sim (release)"
cargo build --release -q -p retry-sim

sim_cmd=(target/release/retry-sim --out "$out" --seeds "$seeds" --live)
echo "bench: ${sim_cmd[*]}"
"${sim_cmd[@]}" --command "${sim_cmd[*]}"

# Recovery after short outages (1-5 s) with and without the default fleet, on virtual time and
# against the lab (README, "Tuning the Fleet").
echo "bench: target/release/retry-sim fleet-tuning --live"
{
    echo "## Fleet tuning: recovery after short outages (virtual time and the lab)"
    echo
    echo "Produced by \`target/release/retry-sim fleet-tuning --live\` on $(now)."
    echo
    target/release/retry-sim fleet-tuning --live
    echo
} >"$work/fleet_tuning.md"

# Fleets across processes: 4 processes x 50 agents, one Redis fleet vs a fleet per process vs
# none, through a real outage of the lab (bench/fleet_processes.py).
echo "bench: python3 bench/fleet_processes.py"
if command -v redis-server >/dev/null 2>&1; then
    cargo build --release -q -p retry-lab
    cargo build --release -q -p llm-retry-core --features reqwest,redis --example fleet_agents
    python3 bench/fleet_processes.py --repeat "$( ((quick)) && echo 1 || echo 2)" >"$work/fleet_processes.md" 2>"$work/fleet_processes.err" ||
        { echo "## Fleets across processes"; echo; echo "**Failed**:"; echo; echo '```text'; tail -n 5 "$work/fleet_processes.err"; echo '```'; echo; } >"$work/fleet_processes.md"
else
    printf '## Fleets across processes\n\n**Skipped**: no redis-server (scripts/setup.sh installs it).\n\n' >"$work/fleet_processes.md"
fi

echo "bench: cargo bench -p llm-retry-core --bench engine ${criterion_args[*]:-}"
criterion_date="$(now)"
criterion_ok=1
cargo bench -p llm-retry-core --bench engine "${criterion_args[@]}" >"$work/criterion.txt" 2>&1 || criterion_ok=0

# Charts: matplotlib from PyPI inside the project's .venv.
venv=".venv"
if [[ ! -x "$venv/bin/python" ]]; then
    echo "bench: creating $venv"
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import matplotlib" 2>/dev/null; then
    echo "bench: installing matplotlib into $venv"
    "$venv/bin/python" -m pip install -q "matplotlib>=3.7,<4"
fi
"$venv/bin/python" sim/charts.py "$out"

# The bindings' benches, when present and runnable.
run_binding_bench() { # lang file command...
    local lang="$1" file="$2"
    shift 2
    local date
    date="$(now)"
    echo "bench: $*"
    {
        echo "### \`$file\`"
        echo
        local rc=0
        timeout 600 "$@" >"$work/binding.txt" 2>"$work/binding.err" || rc=$?
        if ((rc == 0)); then
            echo "Produced by \`$*\` on $date."
            echo
            echo '```text'
            cat "$work/binding.txt"
            echo '```'
        else
            echo "**Failed** (exit status $rc): \`$*\` on $date. Its first error lines:"
            echo
            echo '```text'
            head -n 3 "$work/binding.err"
            echo '```'
            echo
            echo "What it printed before that, for the record (not a finished run):"
            echo
            echo '```text'
            cat "$work/binding.txt"
            echo '```'
            echo
            if [[ "$lang" == python ]]; then
                echo "Prepare the binding with \`scripts/python.sh --no-tests\`, then rerun."
            else
                echo "Prepare the binding with \`RELEASE=1 rake compile\` (and do not rebuild it while the bench runs), then rerun."
            fi
        fi
        echo
    } >>"$work/bindings.md"
}
: >"$work/bindings.md"
shopt -s nullglob
py_benches=(bench/python/bench*.py)
rb_benches=(bench/ruby/bench*.rb)
if ((${#py_benches[@]})); then
    for f in "${py_benches[@]}"; do
        if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c "import retry_core" 2>/dev/null; then
            args=()
            ((quick)) && args=(--quick)
            run_binding_bench python "$f" "$venv/bin/python" "$f" "${args[@]}"
        else
            printf '### `%s`\n\n**Skipped**: the Python package `retry_core` is not installed in .venv (run `scripts/python.sh --no-tests`).\n\n' "$f" >>"$work/bindings.md"
        fi
    done
else
    printf 'No `bench/python/bench*.py` scripts: skipped.\n\n' >>"$work/bindings.md"
fi
if ((${#rb_benches[@]})) && command -v rake >/dev/null 2>&1; then
    # The Ruby benches load gems/retry_core/lib: build its extension from these sources first
    # (a stale lib/retry_core.so next to newer Ruby files gives wrong figures, or none).
    echo "bench: RELEASE=1 rake compile"
    RELEASE=1 rake compile >"$work/rake.txt" 2>&1 ||
        { tail -n 5 "$work/rake.txt" >&2; echo "bench: rake compile failed; the Ruby benches use the extension already there" >&2; }
fi
if ((${#rb_benches[@]})); then
    for f in "${rb_benches[@]}"; do
        if command -v ruby >/dev/null 2>&1; then
            # --json: the script's figures as JSON too (and it expects the option to be given).
            args=(--json "$work/$(basename "$f" .rb).json")
            ((quick)) && args+=(--quick)
            run_binding_bench ruby "$f" ruby -I gems/retry_core/lib "$f" "${args[@]}"
        else
            printf '### `%s`\n\n**Skipped**: no `ruby` on this machine.\n\n' "$f" >>"$work/bindings.md"
        fi
    done
else
    printf 'No `bench/ruby/bench*.rb` scripts: skipped.\n\n' >>"$work/bindings.md"
fi

# The report.
report="$out/REPORT.md"
{
    echo "# retry-core: measured"
    echo
    echo "Generated by \`bench/run.sh$( ((quick)) && echo ' --quick')\` on $(now), on $(nproc) cores ($(uname -sm)), $(rustc --version)."
    echo "Every table below comes from a run of this script; the CSV files beside this report hold the raw figures"
    echo "(\`scenarios.csv\`, \`amplification.csv\`, \`live.csv\`, \`candidates.csv\`, \`candidates_amplification.csv\`)."
    echo "Regenerate with \`make bench-report\`. The machine is shared (other builds may run at the same time), so"
    echo "timings (criterion, the bindings' benches) are upper bounds and the live lab check is approximate; virtual-time figures are exact."
    echo
    cat "$out/sim.md"
    cat "$work/fleet_tuning.md"
    cat "$work/fleet_processes.md"
    # Issue 23's admission benchmark is its own verb (`make bench-admission`, about 2 minutes);
    # its last section is kept here as it was written.
    if [[ -f "$out/admission.md" ]]; then
        echo "<!-- admission:start -->"
        cat "$out/admission.md"
        echo "<!-- admission:end -->"
    fi
    echo "## Engine cost (criterion)"
    echo
    if ((criterion_ok)) && target/release/retry-sim criterion "$work/criterion.txt" >"$work/criterion.md"; then
        echo "Produced by \`cargo bench -p llm-retry-core --bench engine${criterion_args[*]:+ ${criterion_args[*]}}\` on $criterion_date (criterion's 95 % confidence interval and point estimate)."
        echo
        cat "$work/criterion.md"
    else
        echo "**The criterion run failed**; its last lines:"
        echo
        echo '```text'
        tail -n 15 "$work/criterion.txt"
        echo '```'
    fi
    echo
    echo "## Bindings"
    echo
    cat "$work/bindings.md"
    # Measurement history is kept by hand in history.md (the README says only what is true
    # today); every regenerated report carries it at the end.
    if [[ -f "$out/history.md" ]]; then
        echo
        cat "$out/history.md"
    fi
} >"$report"
rm -f "$out/sim.md"
echo "bench: wrote $report"
