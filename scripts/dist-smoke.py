"""`make test-dist`'s Python smoke program, run by scripts/dist-test.sh in a clean venv where the
wheel (or the sdist) was installed with no Rust toolchain on PATH.

    python scripts/dist-smoke.py VERSION RETRY_LAB_BINARY

It proves the installed package, not the source tree, answers: the version, a real openai
exception classified, a retry through the fault lab with the real openai client, a pruned history.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request

version, lab_bin = sys.argv[1], sys.argv[2]

import httpx  # noqa: E402
import openai  # noqa: E402
import retry_core  # noqa: E402
from retry_core import _native  # noqa: E402

venv = sys.prefix  # the clean venv this runs in
assert _native.__file__.startswith(venv), f"retry_core._native from {_native.__file__}, not from {venv}"
assert retry_core.__version__ == version, (retry_core.__version__, version)
print(f"smoke(python): retry_core {retry_core.__version__} from {os.path.dirname(retry_core.__file__)}")

# 1. A real openai exception: a 429 with its JSON body and a retry-after header.
request = httpx.Request("POST", "https://api.openai.com/v1/chat/completions")
body = {"error": {"message": "Rate limit reached for gpt-4o", "type": "requests", "code": "rate_limit_exceeded"}}
response = httpx.Response(429, headers={"retry-after": "7"}, json=body, request=request)
error = openai.RateLimitError("Rate limit reached for gpt-4o", response=response, body=body["error"])
c = retry_core.classify(error)
assert (c.category, c.transient, c.retry_after) == ("rate_limited", True, 7.0), c
quota = openai.RateLimitError(
    "You exceeded your current quota",
    response=httpx.Response(429, json={"error": {"type": "insufficient_quota", "code": "insufficient_quota"}}, request=request),
    body={"type": "insufficient_quota", "code": "insufficient_quota"},
)
assert retry_core.classify(quota).category == "payment_required"
print(f"smoke(python): openai.RateLimitError -> {c.category}, retry after {c.retry_after} s; insufficient_quota -> payment_required")

# 2. A retry through the fault lab with the real openai client: 429 (retry-after 0), 503, ok.
lab = subprocess.Popen(
    [lab_bin, "--port", "0", "--exit-on-stdin-close", "--quiet"],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
)
try:
    url = "http://" + lab.stdout.readline().split()[1]
    script = {"steps": [{"fault": "rate_limit", "retry_after": 0}, {"fault": "overloaded"}, {"fault": "ok"}]}
    urllib.request.urlopen(urllib.request.Request(url + "/_lab/script", data=json.dumps(script).encode(), method="POST"))
    client = openai.OpenAI(base_url=url + "/v1", api_key="sk-test-smoke-1234", max_retries=0,
                           http_client=httpx.Client(trust_env=False))
    events = []
    # The call itself: `delay` small so the smoke run stays fast (the 429 says 0 s).
    reply = retry_core.call_llm_with_retry(
        lambda: client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}]),
        max_retries=3,
        delay=0.05,
        on_event=events.append,
    )
    text = reply.choices[0].message.content
    assert text.startswith("Hello from retry-lab!"), text
    log = json.load(urllib.request.urlopen(url + "/_lab/log"))
    statuses = [r.get("status") for r in log]
    assert statuses == [429, 503, 200], statuses
    print(f"smoke(python): through the lab {statuses} -> {text!r}; events {[e['type'] if isinstance(e, dict) else getattr(e, 'type', e) for e in events]}")
finally:
    lab.stdin.close()
    lab.wait(timeout=10)

# 3. Prune a history: a tool call without its result.
history = [
    {"role": "user", "content": "read it"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "Read", "arguments": '{"file_path": "/a.rb"}'}}]},
    {"role": "user", "content": "and?"},
]
pruned = retry_core.prune_orphan_tool_calls(history)
assert len(pruned.messages) == 2 and pruned.pruned[0]["name"] == "Read", pruned
print(f"smoke(python): pruned {len(pruned.pruned)} orphan call(s); {len(history)} -> {len(pruned.messages)} messages")
print("smoke(python): ok")
