#!/usr/bin/env bash
# `make demo`'s Ruby part: a SwarmSDK-shaped agent with RetryCore::SwarmSDK installed, talking to
# the fault lab over Net::HTTP (scripts/demo-ruby.rb), one line per decision and why. The script
# starts the lab and stops it.
#
# Uses the gem that `make test` (scripts/ruby.sh) installed into tmp/gem-home; without it, runs
# scripts/ruby.sh's build and install first.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

home="$root/tmp/gem-home"
if ! command -v ruby >/dev/null || ! GEM_HOME="$home" GEM_PATH="$home" ruby -e 'require "retry_core"' >/dev/null 2>&1; then
    echo "demo-ruby: building and installing the gem (scripts/ruby.sh --no-tests)"
    scripts/ruby.sh --no-tests
fi
cargo build -q -p retry-lab
default_path="$(env -u GEM_HOME -u GEM_PATH gem env gempath)"

echo "== Ruby: SwarmSDK's call_llm_with_retry replaced by RetryCore::SwarmSDK (Net::HTTP, policy :default, a Fleet) =="
echo "   faults: 429 retry-after 1 -> 529 -> ok; tool_use orphan 400 -> ok; stall -> reset -> ok; 401"
RETRY_LAB_BIN="$root/target/debug/retry-lab" GEM_HOME="$home" GEM_PATH="$home:$default_path" exec ruby scripts/demo-ruby.rb
