#!/usr/bin/env bash
# `make example-outside`: the Forgeflare example builds outside this workspace, as a user's own
# crate would hold it: its file copied as src/main.rs of a fresh crate whose only dependencies
# are the core (by path, under its package name) and crates.io crates, built offline from the
# local registry cache with the workspace's lock file. Not in `make test` (a cold build of
# reqwest for a second feature set: minutes on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# The package name as core/Cargo.toml has it (llm-retry-core); the
# library name stays retry_core either way.
pkg=$(awk '/^\[package\]/{p=1; next} /^\[/{p=0} p && $1=="name"{gsub(/"/,"",$3); print $3; exit}' core/Cargo.toml)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
cp core/examples/forgeflare_agent.rs "$tmp/src/main.rs"
cp Cargo.lock "$tmp/Cargo.lock"
cat >"$tmp/Cargo.toml" <<TOML
[package]
name = "forgeflare-outside"
version = "0.0.0"
edition = "2021"
publish = false

# A workspace of its own: nothing is inherited from this repository's.
[workspace]

[dependencies]
retry_core = { package = "$pkg", path = "$root/core", features = ["reqwest"] }
reqwest = { version = "0.13", default-features = false, features = ["json"] }
serde_json = "1"
tokio = { version = "1", features = ["macros", "rt"] }
TOML
CARGO_TARGET_DIR="$root/target/example-outside" cargo build --offline --manifest-path "$tmp/Cargo.toml"
echo "example-outside: forgeflare_agent.rs builds as a crate of its own ($pkg by path + crates.io)"
