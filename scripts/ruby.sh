#!/usr/bin/env bash
# The Ruby side of retry-core: system packages, the gem built (`rake gem`), installed with
# `gem install --local` into tmp/gem-home, required from there, and the minitest suite (and its
# GC.stress pass) run against the installed gem. Idempotent: the gem is reinstalled (a release
# build of the extension) only when its staged sources change.
#
#   scripts/ruby.sh            # everything
#   scripts/ruby.sh --no-tests # build and install only
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

run_tests=1
[[ "${1:-}" == "--no-tests" ]] && run_tests=0

# Ruby 3.1+, its headers, libclang (rb-sys runs bindgen), rake and minitest, ruby-faraday (the
# suite tests against the real Faraday 1.x) and redis-server for the fleet's Redis tests:
# Debian's packages.
packages=(ruby ruby-dev libclang-dev rake ruby-minitest ruby-faraday ruby-activesupport redis-server)
install_cmd="apt-get install -y ${packages[*]}"
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if (( ${#missing[@]} )); then
    if [[ "$(id -u)" == 0 ]]; then
        echo "ruby.sh: installing ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $install_cmd >/dev/null
    else
        echo "ruby.sh: missing ${missing[*]}; as root, run:" >&2
        echo "    $install_cmd" >&2
        exit 1
    fi
fi
ruby -e 'exit(Gem::Version.new(RUBY_VERSION) >= Gem::Version.new("3.1") ? 0 : 1)' || {
    echo "ruby.sh: Ruby 3.1 or newer is needed, found $(ruby -v)" >&2
    exit 1
}

echo "ruby.sh: rake gem"
SKIP_SMOKE=1 rake gem

version="$(ruby -e 'print File.read("gems/retry_core/lib/retry_core/version.rb")[/VERSION = "([^"]+)"/, 1]')"
gem_file="$root/tmp/pkg/retry_core-$version.gem"
home="$root/tmp/gem-home"
mkdir -p "$home"
stamp="$home/.retry-core-stage.sha256"
digest="$(cd tmp/gem-stage && find . -type f ! -name '*.gem' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
default_path="$(env -u GEM_HOME -u GEM_PATH gem env gempath)"
export GEM_HOME="$home" GEM_PATH="$home:$default_path"

if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$digest" ]] || ! gem list -i retry_core -v "$version" >/dev/null; then
    echo "ruby.sh: gem install --local $(basename "$gem_file") into tmp/gem-home (compiles the extension)"
    rm -f "$stamp"
    gem install --local --no-document "$gem_file"
    echo "$digest" > "$stamp"
else
    echo "ruby.sh: retry_core $version already installed in tmp/gem-home from these sources"
fi

rake smoke

if (( run_tests )); then
    echo "ruby.sh: minitest against the installed gem"
    RETRY_CORE_FROM=gem rake test:installed
    echo "ruby.sh: minitest under GC.stress (binding-heavy tests, sampled vectors)"
    RETRY_CORE_FROM=gem rake test:stress
fi
