#!/usr/bin/env bash
# `make fuzz-smoke`: every fuzz target for a few seconds (FUZZ_SECONDS, default 5) from its
# seed corpus, on the stable toolchain. Installs cargo-fuzz from crates.io when it is missing.
# New corpus entries go to a temporary folder, so the committed seeds stay as they are.
set -euo pipefail
cd "$(dirname "$0")/.." # core/
secs="${FUZZ_SECONDS:-5}"

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz-smoke: installing cargo-fuzz"
  cargo install cargo-fuzz --locked --version '^0.13'
fi

# Stable rustc has no -Zsanitizer: build without one (see core/fuzz/README.md).
cargo fuzz build --sanitizer none

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for t in $(cargo fuzz list); do
  mkdir -p "$work/corpus/$t" "$work/artifacts/$t"
  if ! cargo fuzz run --sanitizer none "$t" "$work/corpus/$t" "fuzz/corpus/$t" -- \
      -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$work/artifacts/$t/" >"$work/$t.log" 2>&1; then
    tail -n 40 "$work/$t.log"
    mkdir -p "fuzz/artifacts/$t"
    cp "$work/artifacts/$t/"* "fuzz/artifacts/$t/" 2>/dev/null || true
    echo "fuzz-smoke: $t FAILED; the input is in core/fuzz/artifacts/$t/:" \
      "fix the bug, then add the input to core/fuzz/regressions/$t/" >&2
    exit 1
  fi
  echo "fuzz-smoke: $t ok, $(grep -E '^Done' "$work/$t.log")"
done
