#!/usr/bin/env bash
# Installs what the project needs beyond Rust and Python, on Debian: Ruby and its headers,
# libclang (rb-sys' bindgen), rake and minitest; ruby-faraday (1.x: the Ruby suite tests against the
# real Faraday); redis-server for the fleet tests.
# As root it installs them; otherwise it prints the exact command and fails.
set -euo pipefail

# openssl, libssl-dev and pkg-config: the transport tests build reqwest with native-tls and make a
# self-signed certificate per run (core/tests/transport_faults.rs).
packages=(ruby ruby-dev libclang-dev rake ruby-minitest ruby-faraday redis-server openssl libssl-dev pkg-config ruby-activesupport)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  cmd="apt-get install -y ${missing[*]}"
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $cmd -qq >/dev/null
  else
    echo "setup: missing Debian packages. Run as root:" >&2
    echo "    sudo apt-get update && sudo $cmd" >&2
    exit 1
  fi
fi
echo "setup: system packages present (${packages[*]})"
