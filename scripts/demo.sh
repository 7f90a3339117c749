#!/usr/bin/env bash
# `make demo`: first each scripted fault through the original retry loops (SwarmSDK, PlanExe,
# Forgeflare) and through retry-core, side by side; then a local fault-injecting LLM endpoint and
# calls through retry-core that survive it, printing each decision and why. Each part starts the
# lab itself and stops it after.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/demo-side-by-side.sh
echo

echo "== Rust: a Forgeflare-shaped agent (reqwest, streaming, the forgeflare preset) =="
echo "   faults: 429 retry-after 1 -> connection reset -> stream cut mid-SSE -> ok; then 401"
# The example depends on retry-core and crates.io only (it builds outside this workspace), so
# the lab runs beside it as its own process, fed the demo's fault script.
cargo build -q -p retry-lab -p llm-retry-core --features llm-retry-core/reqwest --example forgeflare_agent
script=$(mktemp)
trap 'rm -f "$script"' EXIT
cat >"$script" <<'JSON'
{"steps": [
  {"fault": "rate_limit", "retry_after": 1},
  {"fault": "reset"},
  {"fault": "stream_cut", "after_chunks": 3},
  {"fault": "ok"},
  {"fault": "unauthorized"}
]}
JSON
# stdin is a pipe the lab watches: it exits as soon as this script closes it, even if killed.
coproc LAB { exec target/debug/retry-lab --port 0 --script "$script" --exit-on-stdin-close --quiet; }
lab_pid=$LAB_PID
read -r _ addr <&"${LAB[0]}"
cargo run -q -p llm-retry-core --features reqwest --example forgeflare_agent -- --base-url "http://$addr"
exec {LAB[1]}>&-
wait "$lab_pid" 2>/dev/null || true

for part in scripts/demo-python.sh scripts/demo-ruby.sh; do
  if [ -x "$part" ]; then
    echo
    "$part"
  fi
done
