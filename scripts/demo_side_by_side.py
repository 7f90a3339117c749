"""`make demo`, side by side: each scripted fault through the retry loops retry-core replaces, and
through retry-core, with the HTTP calls and the seconds each spent.

The originals are RE-IMPLEMENTATIONS, written here from their published sources (they are Ruby,
Python and Rust projects that cannot be installed here), each cited where it is written:

- SwarmSDK's old loop: /work/shared/seeds/004 (`call_llm_with_retry(max_retries: 10, delay: 10)`,
  `rescue StandardError`, raise when `attempts >= max_retries`). It ran over RubyLLM ~> 1.11,
  which never retried a POST (RubyLLM issue #417), so each attempt is one request.
- SwarmSDK's current loop: seed 000 (Decision 004) as implemented in `lib/swarm_sdk/agent/chat.rb`
  (3 calls in all, a fixed 15 s, the rescue order of /work/shared/research/anchors.md), over
  RubyLLM >= 1.13, whose Faraday retry resends a POST up to 3 times (`min(0.1·2^n, 30)` s plus up
  to 0.05 s of randomness; a Retry-After at least that long replaces it, one over 30 s fails).
- PlanExe's LLMExecutor: seed 002 with `RetryConfig()`'s defaults (2 retries per model, waits
  `min(1·2^n, 30)` s) and `is_transient_error`'s substring list (anchors.md); one model, the
  SDK's own retries off.
- Forgeflare: seed 001 (429, 503, 529 and other 5xx transient; waits 2, 4, 8, 16 s; 4 retries;
  `retry-after` in whole seconds replaces the wait, capped at 60 s).

retry-core runs as users run it: Python's `call_llm_with_retry` with the `default` policy (and
the `swarm_sdk` preset, what `RetryCore::SwarmSDK.install!` gives, RubyLLM's retries off).

Every call is a real HTTP request to the fault lab (target/debug/retry-lab), and "calls" is what
the lab's log counts. The waits run on a virtual clock: each loop's sleep advances it instead of
sleeping (the old loop's 90 s would not fit in a demo), and the fault a request gets is the one
in force at its virtual instant (sent as the lab's `x-lab-fault` header). "seconds" is the
virtual waits plus the real time of the calls.

    python scripts/demo_side_by_side.py --lab target/debug/retry-lab [--json]
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lab"))
from retry_lab import LabProcess  # noqa: E402  (the lab's own driver)

KEY = "sk-ant-demo-side-by-side-0000"


# --- the faults, on the virtual clock ---------------------------------------------------------

@dataclass
class Fault:
    name: str
    title: str
    # (until_s, lab fault): the first whose until_s is past the request's virtual instant; the
    # last entry (until_s None) holds for ever.
    timeline: List[Tuple[Optional[float], Dict[str, Any]]]

    def at(self, t: float) -> Dict[str, Any]:
        for until, fault in self.timeline:
            if until is None or t < until:
                return fault
        return {"fault": "ok"}


FAULTS = [
    Fault("unauthorized", "401 Unauthorized: a revoked key (every call)",
          [(None, {"fault": "unauthorized"})]),
    Fault("max_tokens", "400 'max_tokens: 1500 > 1024' (every call; the text holds '500')",
          [(None, {"fault": "bad_request",
                   "message": "max_tokens: 1500 > 1024, which is the maximum allowed number of output tokens for claude-demo"})]),
    Fault("blip", "503 for 1 s, then ok (a blip)",
          [(1.0, {"fault": "unavailable"}), (None, {"fault": "ok"})]),
    Fault("rate_limit", "429 retry-after 7 for 7 s, then ok",
          [(7.0, {"fault": "rate_limit", "retry_after": 7}), (None, {"fault": "ok"})]),
    Fault("overload", "529 overloaded for 20 s, then ok",
          [(20.0, {"fault": "overloaded"}), (None, {"fault": "ok"})]),
    Fault("outage", "503 for 10 minutes (an outage longer than any loop's patience)",
          [(600.0, {"fault": "unavailable"}), (None, {"fault": "ok"})]),
]


# --- the lab and one HTTP call -----------------------------------------------------------------

class Lab(LabProcess):
    """The lab (lab/retry_lab.py); a missing binary or a failed start ends the demo."""

    def __init__(self, binary: Path) -> None:
        try:
            super().__init__(binary)
        except RuntimeError as e:
            sys.exit(str(e))


class Response:
    def __init__(self, headers: Dict[str, str], text: str) -> None:
        self.headers = headers
        self.text = text


class HTTPStatusError(Exception):
    """A non-2xx answer, shaped as the openai / anthropic SDKs shape theirs: `status_code`,
    `response.headers`, `response.text`, and `str()` "Error code: 429 - {...}"."""

    def __init__(self, status: int, headers: Dict[str, str], text: str) -> None:
        self.status_code = status
        self.response = Response(headers, text)
        self.body: Any
        try:
            self.body = json.loads(text)
        except ValueError:
            self.body = text
        super().__init__(f"Error code: {status} - {self.body!r}")


class Clock:
    """The virtual clock: sleeps advance it; a call's real duration advances it too."""

    def __init__(self) -> None:
        self.t = 0.0

    def sleep(self, seconds: float) -> None:
        self.t += max(0.0, float(seconds))


def caller(lab: Lab, fault: Fault, clock: Clock) -> Callable[[], str]:
    """One LLM call: a POST to the lab's Anthropic endpoint with the fault in force now."""

    def call() -> str:
        req = urllib.request.Request(lab.url + "/v1/messages", method="POST", data=json.dumps({
            "model": "claude-demo", "max_tokens": 1500, "messages": [{"role": "user", "content": "hi"}]}).encode())
        req.add_header("content-type", "application/json")
        req.add_header("x-api-key", KEY)
        req.add_header("anthropic-version", "2023-06-01")
        req.add_header("x-lab-fault", json.dumps(fault.at(clock.t)))
        t0 = time.monotonic()
        try:
            with lab.http.open(req, timeout=10) as r:
                text = r.read().decode()
            return str(json.loads(text)["content"][0]["text"])
        except urllib.error.HTTPError as e:
            raise HTTPStatusError(e.code, {k.lower(): v for k, v in e.headers.items()}, e.read().decode()) from None
        finally:
            clock.t += time.monotonic() - t0

    return call


# --- the originals, re-implemented from their sources ----------------------------------------

class GaveUp(Exception):
    pass


def ruby_llm_class(e: Exception) -> str:
    """RubyLLM's ErrorMiddleware#parse_error: the class a status becomes (anchors.md, RubyLLM)."""
    s = getattr(e, "status_code", None)
    return {400: "BadRequestError", 401: "UnauthorizedError", 402: "PaymentRequiredError",
            403: "ForbiddenError", 429: "RateLimitError", 500: "ServerError", 502: "ServiceUnavailableError",
            503: "ServiceUnavailableError", 504: "ServiceUnavailableError", 529: "OverloadedError"}.get(s or 0, "Error")


def ruby_llm_1_13(call: Callable[[], str], clock: Clock, rng: random.Random) -> Callable[[], str]:
    """RubyLLM >= 1.13's Faraday retry around one request: max 3, interval 0.1, backoff 2,
    randomness 0.5, max_interval 30; RateLimit, Server, ServiceUnavailable and Overloaded errors."""

    def attempt() -> str:
        retries = 0
        while True:
            try:
                return call()
            except HTTPStatusError as e:
                if ruby_llm_class(e) not in ("RateLimitError", "ServerError", "ServiceUnavailableError",
                                             "OverloadedError") or retries >= 3:
                    raise
                interval = min(0.1 * 2 ** retries, 30.0) + rng.random() * 0.5 * 0.1
                ra = e.response.headers.get("retry-after")
                ra_s = float(ra) if ra and ra.replace(".", "", 1).isdigit() else None
                if ra_s is not None and ra_s > 30.0:
                    raise
                clock.sleep(ra_s if ra_s is not None and ra_s >= interval else interval)
                retries += 1

    return attempt


def swarm_sdk_old(call: Callable[[], str], clock: Clock) -> str:
    """Seed 004: `call_llm_with_retry(max_retries: 10, delay: 10)`, `rescue StandardError`."""
    attempts = 0
    while True:
        attempts += 1
        try:
            return call()
        except Exception:
            if attempts >= 10:
                raise
            clock.sleep(10)


def swarm_sdk_current(call: Callable[[], str], clock: Clock) -> str:
    """Decision 004 as implemented: 3 calls in all, 15 s apart; by RubyLLM class, 400/401/402/403
    and other API errors come back as an error message at once; rate limits and 5xx are retried."""
    attempts = 0
    while True:
        attempts += 1
        try:
            return call()
        except HTTPStatusError as e:
            if ruby_llm_class(e) not in ("RateLimitError", "ServerError", "ServiceUnavailableError", "OverloadedError"):
                return f"error message: {ruby_llm_class(e)}"  # returned to the parent as a message
            if attempts >= 3:
                raise
            clock.sleep(15)


PLANEXE_TRANSIENT = ("rate limit", "rate_limit", "ratelimit", "429", "timeout", "timed out", "connection",
                     "connect", "temporarily unavailable", "503", "502", "500", "overloaded", "capacity",
                     "try again", "server error", "internal error")


def planexe(call: Callable[[], str], clock: Clock) -> str:
    """Seed 002, RetryConfig() (2 retries, 1 s x2 up to 30 s), `is_transient_error` a substring
    match on str(e).lower(); one model, so a give-up is 'Exhausted all LLMs'."""
    retries = 0
    while True:
        try:
            return call()
        except Exception as e:
            transient = any(p in str(e).lower() for p in PLANEXE_TRANSIENT)
            if not transient or retries >= 2:
                raise GaveUp("Failed to run. Exhausted all LLMs.") from e
            clock.sleep(min(1.0 * 2.0 ** retries, 30.0))
            retries += 1


def forgeflare(call: Callable[[], str], clock: Clock) -> str:
    """Seed 001: 429, 503, 529 and unknown >= 500 transient; 2, 4, 8, 16 s; retry-after (u64
    seconds, capped at 60) replaces the wait; 4 retries, then the error path."""
    schedule = [2, 4, 8, 16]
    for attempt in range(5):
        try:
            return call()
        except HTTPStatusError as e:
            transient = e.status_code == 429 or e.status_code >= 500  # 503, 529 and unknown >= 500
            if not transient or attempt == 4:
                raise
            ra = e.response.headers.get("retry-after")
            delay = min(int(ra), 60) if ra and ra.isdigit() else schedule[attempt]
            clock.sleep(delay)
    raise AssertionError("unreachable")


# --- retry-core, as users call it --------------------------------------------------------------

def retry_core_loop(preset: str) -> Callable[[Callable[[], str], Clock], str]:
    def run(call: Callable[[], str], clock: Clock) -> str:
        import retry_core
        from retry_core import _retry

        # retry_core looks time.sleep up at every wait; its deadline reads _retry._monotonic.
        real_sleep, real_now = time.sleep, getattr(_retry, "_monotonic", None)
        time.sleep = clock.sleep  # type: ignore[assignment]
        if real_now is not None:
            _retry._monotonic = lambda: clock.t
        try:
            return retry_core.call_llm_with_retry(call, policy=preset, seed=7)
        finally:
            time.sleep = real_sleep
            if real_now is not None:
                _retry._monotonic = real_now

    return run


@dataclass
class Loop:
    id: str
    label: str
    run: Callable[[Callable[[], str], Clock], str]
    source: str


def loops(seed: int) -> List[Loop]:
    def over_ruby_llm(inner: Callable[[Callable[[], str], Clock], str]) -> Callable[[Callable[[], str], Clock], str]:
        return lambda call, clock: inner(ruby_llm_1_13(call, clock, random.Random(seed)), clock)

    return [
        Loop("swarm_sdk_old", "SwarmSDK, old loop (10 calls, 10 s, all errors)", swarm_sdk_old, "seed 004"),
        Loop("swarm_sdk_current", "SwarmSDK, current (3 x 15 s) over RubyLLM 1.13+", over_ruby_llm(swarm_sdk_current),
             "seed 000; anchors.md"),
        Loop("planexe", "PlanExe LLMExecutor, RetryConfig()", planexe, "seed 002; anchors.md"),
        Loop("forgeflare", "Forgeflare (2/4/8/16 s, retry-after)", forgeflare, "seed 001"),
        Loop("retry_core_swarm_sdk", "retry-core, swarm_sdk preset (RubyLLM's off)", retry_core_loop("swarm_sdk"),
             "RetryCore::SwarmSDK.install!"),
        Loop("retry_core_default", "retry-core, default policy", retry_core_loop("default"), "the core"),
    ]


@dataclass
class Row:
    loop: str
    label: str
    calls: int
    seconds: float
    outcome: str


def outcome_of(value: Optional[str], error: Optional[BaseException]) -> str:
    if error is None:
        return "returned an error message" if value and value.startswith("error message:") else "ok"
    cause = error.__cause__ if isinstance(error, GaveUp) else error
    status = getattr(cause, "status_code", None)
    return f"gave up ({status})" if status else f"gave up ({type(cause).__name__})"


def run_all(lab: Lab, seed: int) -> Dict[str, List[Row]]:
    out: Dict[str, List[Row]] = {}
    for fault in FAULTS:
        rows = []
        for loop in loops(seed):
            lab.reset()
            clock = Clock()
            value: Optional[str] = None
            error: Optional[BaseException] = None
            try:
                value = loop.run(caller(lab, fault, clock), clock)
            except Exception as e:  # the loop gave up: what the caller would see
                error = e
            rows.append(Row(loop.id, loop.label, lab.calls(), round(clock.t, 2), outcome_of(value, error)))
        out[fault.name] = rows
    return out


def print_tables(results: Dict[str, List[Row]]) -> None:
    print("   every call a real request to the lab; waits on a virtual clock (not slept);")
    print("   the originals are re-implementations from their sources (scripts/demo_side_by_side.py)")
    for fault in FAULTS:
        print(f"\n  {fault.title}")
        print(f"    {'loop':<48} {'calls':>5} {'seconds':>8}  outcome")
        for r in results[fault.name]:
            print(f"    {r.label:<48} {r.calls:>5} {r.seconds:>8.2f}  {r.outcome}")


def main() -> None:
    # retry-core logs each retry at WARNING; here the table says what happened.
    logging.getLogger("retry_core").setLevel(logging.ERROR)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lab", type=Path, default=ROOT / "target" / "debug" / "retry-lab")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--seed", type=int, default=7, help="RubyLLM's randomness")
    args = ap.parse_args()
    lab = Lab(args.lab)
    try:
        results = run_all(lab, args.seed)
    finally:
        lab.stop()
    if args.json:
        print(json.dumps({k: [r.__dict__ for r in v] for k, v in results.items()}, indent=1))
    else:
        print_tables(results)


if __name__ == "__main__":
    main()
