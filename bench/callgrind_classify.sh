#!/usr/bin/env bash
# Instructions per `classify` for the README's benchmark failures, counted by callgrind:
# (I(N=1001) - I(N=1)) / 1000, so one-time table building cancels out. Deterministic for a given
# binary, whatever else the machine is doing. Needs valgrind (apt-get install -y valgrind).
#
#   bench/callgrind_classify.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v valgrind >/dev/null || { echo "callgrind_classify: valgrind is missing (apt-get install -y valgrind)" >&2; exit 1; }
cargo build -q --release -p llm-retry-core --example classify_loop
bin="$root/target/release/examples/classify_loop"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for case in bare faraday anthropic openai; do
  for n in 1 1001; do
    valgrind --tool=callgrind --callgrind-out-file="$out/$case.$n" "$bin" "$n" "$case" >/dev/null 2>&1
  done
  a=$(grep '^summary:' "$out/$case.1" | awk '{print $2}')
  b=$(grep '^summary:' "$out/$case.1001" | awk '{print $2}')
  printf '%-10s %8d instructions per classify\n' "$case" $(( (b - a) / 1000 ))
done

# The same through the Python front door (a real openai.RateLimitError), when the venv exists.
py="$root/.venv/bin/python"
if [[ -x "$py" ]]; then
  for n in 1 201; do
    valgrind --tool=callgrind --callgrind-out-file="$out/py.$n" "$py" "$root/bench/python/callgrind_front_door.py" "$n" >/dev/null 2>&1
  done
  a=$(grep '^summary:' "$out/py.1" | awk '{print $2}')
  b=$(grep '^summary:' "$out/py.201" | awk '{print $2}')
  printf '%-10s %8d instructions per classify (Python, retry_core.classify(openai.RateLimitError))\n' "python" $(( (b - a) / 200 ))
fi
