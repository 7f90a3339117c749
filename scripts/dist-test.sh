#!/usr/bin/env bash
# `make test-dist`: the artifacts in dist/ (`make dist`), installed and used as a user gets them.
#
# 1. wheel: a clean venv, `pip install` the wheel and openai (PyPI or pip's cache), with no cargo,
#    rustc or libclang settings in the environment: PATH is rebuilt without ~/.cargo/bin (and
#    any other directory holding cargo or rustc) and `command -v cargo` must fail; the whole
#    environment is `env -i` plus HOME, PATH and NO_PROXY. Then scripts/dist-smoke.py: the
#    version, a real openai exception classified, a retry through the fault lab with the openai
#    client, a pruned history.
# 2. the precompiled gem: a clean GEM_HOME, the same PATH, `gem install --local`, then
#    scripts/dist-smoke.rb (the library must be lib/retry_core/<minor>/retry_core.so).
# 3. the source gem, offline: cargo on PATH but CARGO_HOME an empty directory and
#    CARGO_NET_OFFLINE=true, so only the gem's vendored crates can be used; `gem install --local`
#    compiles it; the same Ruby smoke program. (DIST_TEST_SOURCE_GEM=0 skips it.)
# 4. the crate: extracted, used by a scratch binary crate as a path dependency, offline, run.
# 5. with DIST_TEST_SDIST=1, the sdist too: `pip install` it in a clean venv (cargo on PATH).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
version="$(scripts/dist-check.sh --version)"
dist="$root/dist"
work="$root/tmp/dist-test"
t0=$SECONDS
step() { echo "test-dist: $* ($(( SECONDS - t0 )) s)"; }
passed=0  # artifacts installed and smoke-tested; any failure stops the script (set -e)

# The artifacts must be there, complete and of this version.
scripts/dist-check.sh

# The fault lab the smoke programs start (built with cargo before cargo leaves PATH).
cargo build -q -p retry-lab
lab="$root/target/debug/retry-lab"

rm -rf "$work"
mkdir -p "$work"

# A PATH without Rust: drop every directory that holds cargo or rustc.
clean_path=""
IFS=: read -ra dirs <<< "$PATH"
for d in "${dirs[@]}"; do
    [[ -z "$d" || -e "$d/cargo" || -e "$d/rustc" || "$d" == *"/.cargo/"* ]] && continue
    clean_path="${clean_path:+$clean_path:}$d"
done
python="$(python3 -c 'import sys; print(sys.executable)')"
clean() {
    env -i HOME="$HOME" PATH="$clean_path" LANG=C.UTF-8 NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost "$@"
}
if clean bash -c 'command -v cargo || command -v rustc'; then
    echo "test-dist: cargo or rustc is still on the clean PATH" >&2
    exit 1
fi
# shellcheck disable=SC2016 # expanded by the clean shell, not this one
clean bash -c '[[ -z "${LIBCLANG_PATH:-}${CARGO_HOME:-}${RUSTUP_HOME:-}" ]]'
step "clean PATH has no cargo, no rustc (command -v fails); no LIBCLANG_PATH, CARGO_HOME, RUSTUP_HOME"
default_gem_path="$(env -u GEM_HOME -u GEM_PATH gem env gempath)"
minor="$(ruby -e 'print RUBY_VERSION[/\A\d+\.\d+/]')"

# 1. The wheel.
wheel="$(ls "$dist"/retry_core-"$version"-*.whl)"
step "wheel: pip install $(basename "$wheel") openai into a clean venv"
clean "$python" -m venv "$work/venv"
clean "$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel" "openai>=1.40,<3"
(cd "$work" && clean "$work/venv/bin/python" -I "$root/scripts/dist-smoke.py" "$version" "$lab")
passed=$((passed + 1))

# 2. The precompiled gem.
native_gem="$dist/retry_core-$version-x86_64-linux.gem"
step "precompiled gem: gem install $(basename "$native_gem") into a clean GEM_HOME"
home="$work/gem-native"
clean GEM_HOME="$home" gem install --local --no-document "$native_gem"
(cd "$work" && clean GEM_HOME="$home" GEM_PATH="$home:$default_gem_path" \
    ruby "$root/scripts/dist-smoke.rb" "$version" "$lab" "/lib/retry_core/$minor/retry_core.so")
passed=$((passed + 1))

# 3. The source gem, offline: cargo on PATH, no registry but the vendored crates.
if [[ "${DIST_TEST_SOURCE_GEM:-1}" != 0 ]]; then
    source_gem="$dist/retry_core-$version.gem"
    step "source gem: gem install $(basename "$source_gem") with cargo, offline (empty CARGO_HOME, CARGO_NET_OFFLINE)"
    home="$work/gem-source"
    mkdir -p "$work/empty-cargo-home"
    cargo_bin="$(dirname "$(command -v cargo)")"
    clean PATH="$cargo_bin:$clean_path" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" \
        CARGO_HOME="$work/empty-cargo-home" CARGO_NET_OFFLINE=true GEM_HOME="$home" \
        gem install --local --no-document "$source_gem"
    # Cargo keeps its lock files and a cache database there; a registry or git checkout would
    # mean something was fetched.
    if [[ -e "$work/empty-cargo-home/registry" || -e "$work/empty-cargo-home/git" ]]; then
        ls -la "$work/empty-cargo-home"
        echo "test-dist: the offline build wrote to CARGO_HOME (it fetched something?)" >&2
        exit 1
    fi
    (cd "$work" && clean GEM_HOME="$home" GEM_PATH="$home:$default_gem_path" \
        ruby "$root/scripts/dist-smoke.rb" "$version" "$lab" "/retry_core.so")
    passed=$((passed + 1))
fi

# 4. The crate, as a path dependency of a user's binary crate, offline.
step "crate: a binary crate using the extracted llm-retry-core-$version.crate, offline"
mkdir -p "$work/crate" "$work/user/src"
tar -xzf "$dist/llm-retry-core-$version.crate" -C "$work/crate"
cat > "$work/user/Cargo.toml" <<TOML
[package]
name = "retry-core-user"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
llm-retry-core = { path = "../crate/llm-retry-core-$version" }
serde_json = "1"

[workspace]
TOML
cat > "$work/user/src/main.rs" <<'RUST'
use retry_core::driver::blocking::{Retry, Sleeper};
use retry_core::{classify, Category, Failure, RetryPolicy};

struct NoWait;
impl Sleeper for NoWait {
    fn sleep(&self, _: std::time::Duration) {}
}

fn main() {
    let f = Failure::http(429, "Rate limit reached").with_header("retry-after", "7");
    let c = classify(&f);
    assert_eq!((c.category, c.retry_after), (Category::RateLimited, Some(7.0)));
    let reply = Retry::new(RetryPolicy::forgeflare())
        .sleeper(&NoWait)
        .run(|n| if n < 3 { Err(Failure::http(503, "Service Unavailable")) } else { Ok(n) })
        .unwrap();
    assert_eq!(reply, 3);
    let history = vec![
        serde_json::json!({"role": "user", "content": "read it"}),
        serde_json::json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "Read", "arguments": "{}"}}]}),
        serde_json::json!({"role": "user", "content": "and?"}),
    ];
    let out = retry_core::orphan::prune_json(&history).unwrap();
    assert_eq!(out.messages.len(), 2);
    println!("smoke(rust): 429 -> {:?}, retried to attempt {reply}, pruned {}: ok", c.category, out.pruned.len());
}
RUST
# The repository's lock file pins the same dependency versions the workspace was tested with.
cp Cargo.lock "$work/user/Cargo.lock"
# target/dist: the dependencies `cargo package` verified the crate with are reused.
(cd "$work/user" && CARGO_TARGET_DIR="$root/target/dist/cargo" cargo run -q --offline)
passed=$((passed + 1))

# 5. The sdist (needs cargo; a release build from scratch, so only on request).
if [[ "${DIST_TEST_SDIST:-0}" == 1 ]]; then
    sdist="$dist/retry_core-$version.tar.gz"
    step "sdist: pip install $(basename "$sdist") (cargo on PATH) into a clean venv"
    clean "$python" -m venv "$work/venv-sdist"
    cargo_bin="$(dirname "$(command -v cargo)")"
    clean PATH="$cargo_bin:$clean_path" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" \
        "$work/venv-sdist/bin/python" -m pip install --quiet --disable-pip-version-check "$sdist" "openai>=1.40,<3"
    (cd "$work" && clean "$work/venv-sdist/bin/python" -I "$root/scripts/dist-smoke.py" "$version" "$lab")
    passed=$((passed + 1))
fi

step "all passed"
echo "test-dist: $passed passed, 0 failed"
