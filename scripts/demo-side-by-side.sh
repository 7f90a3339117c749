#!/usr/bin/env bash
# `make demo`'s first part: each scripted fault through the retry loops retry-core replaces
# (SwarmSDK's old and current loop, PlanExe's LLMExecutor, Forgeflare's schedule, re-implemented
# from their sources) and through retry-core, with the calls and seconds each spent
# (scripts/demo_side_by_side.py). Real requests to the fault lab; waits on a virtual clock.
#
# Uses the .venv that `make test` (scripts/python.sh) built; without one, runs its setup first.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="$root/.venv/bin/python"

if ! [[ -x "$py" ]] || ! "$py" -c "import retry_core" >/dev/null 2>&1; then
    echo "demo-side-by-side: setting up the venv (scripts/python.sh --no-tests)"
    scripts/python.sh --no-tests
fi
cargo build -q -p retry-lab

echo "== Side by side: each fault through the originals' loops and through retry-core =="
exec "$py" scripts/demo_side_by_side.py --lab "$root/target/debug/retry-lab"
