"""Success-path overhead of call_llm_with_retry (with and without a Fleet) vs a plain call,
tenacity's @retry and backoff's @on_exception (the fastest peer decorator), and the cost of classify(exc) on real SDK exceptions, beside what the old
Python exception reader (tests/python/reference_reader.py) cost for the same exceptions in the
same run. Prints a table; asserts nothing.

    .venv/bin/python bench/python/bench_overhead.py            # after scripts/python.sh
    .venv/bin/python bench/python/bench_overhead.py --quick    # fewer rounds

Timings are the best of several rounds (min is the least noisy estimate of the cost on a shared
machine), per call, in nanoseconds or microseconds.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import threading
import timeit
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import retry_core
from retry_core import Failure, Fleet, call_llm_with_retry, classify

# The Python exception reader the binding had before the reader moved into Rust.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "python"))
import reference_reader  # noqa: E402


def best_ns(stmt, number, repeat):
    timer = timeit.Timer(stmt)
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e9


def success_path(number, repeat):
    import tenacity

    def fn():
        return 1

    @tenacity.retry(stop=tenacity.stop_after_attempt(3), wait=tenacity.wait_fixed(15))
    def fn_tenacity():
        return 1

    rows = []
    plain = best_ns(fn, number, repeat)
    rows.append(("plain fn()", plain, 0.0))
    ours = best_ns(lambda: call_llm_with_retry(fn), number, repeat)
    lam = best_ns(lambda: fn(), number, repeat)  # the lambda wrapper timeit adds to ours
    rows.append(("call_llm_with_retry(fn)", ours, ours - lam))
    ours_kw = best_ns(lambda: call_llm_with_retry(fn, policy="default", on_event=print), number, repeat)
    rows.append(("call_llm_with_retry(fn, policy=, on_event=)", ours_kw, ours_kw - lam))
    fleet = Fleet()
    ours_fleet = best_ns(lambda: call_llm_with_retry(fn, fleet=fleet, key="openai:gpt-4o"), number // 4, repeat)
    rows.append(("call_llm_with_retry(fn, fleet=, key=)", ours_fleet, ours_fleet - lam))
    # Admission on, no contention (limits no call reaches): the answer reports its usage, which
    # settles the call's slot; with an estimate, the core computes the cost from the messages.
    limits = {"requests": 1e12, "tokens": 1e12}
    admitted = Fleet(admission={"mode": "static", "limits": limits})
    answer = {"usage": {"prompt_tokens": 120, "completion_tokens": 40}}

    def fn_usage():
        return answer

    lam_u = best_ns(lambda: fn_usage(), number, repeat)
    ours_adm = best_ns(lambda: call_llm_with_retry(fn_usage, fleet=admitted, key="openai:gpt-4o"),
                       number // 4, repeat)
    rows.append(("call_llm_with_retry(fn, fleet=, key=) admission on", ours_adm, ours_adm - lam_u))
    estimate = {"messages": [{"role": "system", "content": "You are terse."},
                             {"role": "user", "content": "Say hello in five words."}], "max_tokens": 64}
    ours_est = best_ns(lambda: call_llm_with_retry(fn_usage, fleet=admitted, key="openai:gpt-4o",
                                                   estimate=estimate), number // 4, repeat)
    rows.append(("call_llm_with_retry(fn, fleet=, key=, estimate=) admission on", ours_est, ours_est - lam_u))
    ten = best_ns(fn_tenacity, number, repeat)
    rows.append(("tenacity @retry", ten, ten - plain))
    try:
        import backoff
    except ImportError:  # the fair denominator (STYLE §16); scripts/python.sh installs it
        return rows

    @backoff.on_exception(backoff.constant, Exception, max_tries=3, interval=15, jitter=None)
    def fn_backoff():
        return 1

    off = best_ns(fn_backoff, number, repeat)
    rows.append(("backoff @on_exception (the fastest peer)", off, off - plain))
    return rows


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    replies = {
        "/openai/v1/chat/completions": (429, {"retry-after": "7", "x-ratelimit-reset-tokens": "6m0s"},
                                        {"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
                                                   "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}}),
        "/anthropic/v1/messages": (529, {}, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    }

    def log_message(self, *a):
        pass

    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        self.rfile.read(n)
        status, headers, body = self.replies[self.path]
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)


def real_exceptions():
    """Exceptions raised by the real SDKs from real HTTP responses on loopback."""
    import anthropic
    import httpx
    import openai

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    out = {}
    try:
        try:
            openai.OpenAI(api_key="sk-bench", base_url=url + "/openai/v1", max_retries=0).chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
        except openai.APIError as e:
            out["openai 429 insufficient_quota"] = e

            class LLMChatError(Exception):
                pass

            try:
                raise LLMChatError(f"LLM chat failed: {e}") from e
            except LLMChatError as w:
                out["wrapped (PlanExe LLMChatError)"] = w
        try:
            anthropic.Anthropic(api_key="sk-ant-bench", base_url=url + "/anthropic", max_retries=0).messages.create(
                model="claude-x", max_tokens=8, messages=[{"role": "user", "content": "hi"}])
        except anthropic.APIError as e:
            out["anthropic 529 overloaded"] = e
        try:
            httpx.Client(trust_env=False).get("http://127.0.0.1:9/")
        except httpx.HTTPError as e:
            out["httpx ConnectError"] = e
    finally:
        server.shutdown()
        server.server_close()
    return out


def classification(number, repeat):
    rows = []
    native_classify = retry_core._native._classify
    for name, exc in real_exceptions().items():
        c = classify(exc)
        total = best_ns(lambda: classify(exc), number, repeat)
        record = Failure.from_exception(exc)._record
        native = best_ns(lambda: native_classify(record, None), number, repeat)
        before = best_ns(lambda: native_classify(reference_reader.record(exc), None), number, repeat)
        assert native_classify(reference_reader.record(exc), None) == c
        rows.append((name, c.category, total, native, before))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--doors", action="store_true", help="the success path only (bench/doors.sh)")
    ap.add_argument("--json", metavar="PATH", help="also write the success path's overheads there")
    args = ap.parse_args()
    number, repeat = (20_000, 5) if args.quick else (200_000, 7)
    print(f"retry-core {retry_core.__version__}, Python {platform.python_version()} ({sys.implementation.name}), {platform.machine()}")
    print()
    print("Success path (per call; overhead = extra over calling fn() directly):")
    print(f"  {'':44} {'time':>10} {'overhead':>10}")
    rows = success_path(number, repeat)
    for name, t, over in rows:
        print(f"  {name:44} {t:8.0f} ns {over:8.0f} ns")
    print()
    if args.json:
        Path(args.json).write_text(json.dumps({name: over for name, _, over in rows}))
    if args.doors:
        return
    n2 = max(number // 20, 1000)
    print("classify(exc) on real SDK exceptions (per call; 'Python reader' is the reader this")
    print("package had before it moved into Rust, timed in the same run):")
    print(f"  {'':34} {'category':18} {'classify(exc)':>14} {'of which engine':>16} {'Python reader':>14}")
    for name, cat, total, native, before in classification(n2, repeat):
        print(f"  {name:34} {cat:18} {total / 1000:11.2f} µs {native / 1000:13.2f} µs {before / 1000:11.2f} µs")


if __name__ == "__main__":
    main()
