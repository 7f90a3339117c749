#!/usr/bin/env bash
# The Python side of retry-core: venv, test dependencies, `pip install .`, pytest, stubtest.
# Idempotent and quick when already set up: dependencies are installed once (a stamp file
# records the requirement list), and `pip install .` reuses cargo's incremental build.
#
#   scripts/python.sh            # everything
#   scripts/python.sh --no-tests # set up and install only
#   PYTHON=python3.12 scripts/python.sh
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
venv="$root/.venv"
python="${PYTHON:-python3}"

run_tests=1
[[ "${1:-}" == "--no-tests" ]] && run_tests=0

if [[ ! -x "$venv/bin/python" ]]; then
    echo "python.sh: creating $venv"
    "$python" -m venv "$venv"
fi
py="$venv/bin/python"
# The maturin backend runs `maturin` from PATH.
export PATH="$venv/bin:$PATH"

# Test dependencies, with sensible major-version pins. Reinstalled only when this list changes.
deps=(
    "maturin>=1.9.4,<2"
    "pytest>=8,<10"
    "pytest-benchmark>=4,<6"
    "openai>=1.40,<4"
    "anthropic>=0.34,<3"
    "httpx>=0.27,<1"
    "pydantic>=2.5,<3"
    "tenacity>=8,<10"
    # The fastest peer decorator: bench/python/bench_overhead.py measures us beside it.
    "backoff>=2,<3"
    "mypy>=1.10,<3"
    "pyyaml>=6,<7"
    # The providers' own SDKs, pointed at the fault lab by tests/python/test_provider_sdks.py
    # (about 20 s and 180 MB on top of the above). litellm is left out: it pins openai<3, which
    # would downgrade the openai SDK the rest of the suite is checked against, and fetches a
    # model-cost map from the network at import.
    "boto3>=1.34,<2"
    "botocore>=1.34,<2"
    "google-genai>=1.0,<4"
    "google-api-core>=2.15,<3"
    "mistralai>=1.0,<3"
    "groq>=0.9,<2"
    "cohere>=5.5,<8"
    "requests>=2.31,<3"
    "aiohttp>=3.9,<4"
    # Observability (issue 22): span events through the OpenTelemetry API, checked with the
    # SDK's in-memory exporter; fleet metrics parsed and collected by prometheus_client.
    "opentelemetry-api>=1.20,<2"
    "opentelemetry-sdk>=1.20,<2"
    "prometheus-client>=0.17,<1"
)
stamp="$venv/.retry-core-deps"
want="$(printf '%s\n' "${deps[@]}")"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    echo "python.sh: installing test dependencies"
    "$py" -m pip install --quiet --upgrade pip
    "$py" -m pip install --quiet "${deps[@]}"
    printf '%s\n' "$want" > "$stamp"
fi

# `pip install .` through the maturin backend (an abi3 wheel for CPython 3.10+). Cargo's target
# directory is shared with the workspace, so a rebuild after a small change is incremental.
echo "python.sh: pip install ."
CARGO_TARGET_DIR="$root/target" "$py" -m pip install --quiet --no-build-isolation --force-reinstall --no-deps .

if (( run_tests )); then
    # The fault lab the integration tests start (tests/python/test_lab.py); incremental.
    echo "python.sh: cargo build -p retry-lab"
    cargo build -q -p retry-lab
    # redis-server for the fleet's Redis tests: they fail (not skip) without it.
    command -v redis-server >/dev/null || echo "python.sh: redis-server is missing; run scripts/setup.sh as root (apt-get install -y redis-server)" >&2
    echo "python.sh: pytest"
    "$py" -m pytest tests/python -q
    echo "python.sh: mypy --strict and stubtest"
    "$py" -m mypy --config-file "$root/python-ext/mypy.ini" -p retry_core
    "$py" -m mypy.stubtest retry_core --allowlist "$root/python-ext/stubtest-allowlist.txt" --mypy-config-file "$root/python-ext/mypy.ini"
fi
