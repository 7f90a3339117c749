#!/usr/bin/env bash
# `make demo`'s Python part: a PlanExe-style LLMExecutor run (two models, the real openai SDK,
# one Fleet) against the fault lab, printing one line per decision and why
# (python-ext/examples/planexe_demo.py). The example starts the lab and stops it.
#
# Uses the .venv that `make test` (scripts/python.sh) built; without one, or with one that lacks
# retry_core's Fleet or the openai SDK, it runs scripts/python.sh's setup steps first.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="$root/.venv/bin/python"

if ! [[ -x "$py" ]] || ! "$py" -c "from retry_core import Fleet; import openai" >/dev/null 2>&1; then
    echo "demo-python: setting up the venv (scripts/python.sh --no-tests)"
    scripts/python.sh --no-tests
fi
cargo build -q -p retry-lab

echo "== Python: PlanExe's LLMExecutor (retry_core.llm_executor), two models, the openai SDK, a Fleet =="
echo "   faults: 429 retry-after 1 -> 503 -> quota -> SSE error mid-stream -> ok; then 401 -> stall -> ok"
exec "$py" python-ext/examples/planexe_demo.py --lab "$root/target/debug/retry-lab"
