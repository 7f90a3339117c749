#!/usr/bin/env bash
# `make demo`: a local fault-injecting LLM endpoint, and calls through retry-core that survive it,
# printing each decision and why. Each language's part starts the lab itself and stops it after.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Rust: a Forgeflare-shaped agent (reqwest, streaming, the forgeflare preset) =="
echo "   faults: 429 retry-after 1 -> 503 -> SSE overloaded_error mid-stream -> ok -> 401"
cargo run -q -p llm-retry-core --features reqwest --example forgeflare_agent

for part in scripts/demo-python.sh scripts/demo-ruby.sh; do
  if [ -x "$part" ]; then
    echo
    "$part"
  fi
done
