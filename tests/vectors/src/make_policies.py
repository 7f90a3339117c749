"""Writes ../policies.json: decision sequences for every preset.

Expected values are worked out here by hand from the contract (CONTRACT §3-4), not by running
the engine; jittered delays come from an independent Python SplitMix64, so this file checks the
Rust generator too. Run: python3 tests/vectors/src/make_policies.py
"""
import json, os

MASK = (1 << 64) - 1

class SplitMix64:
    def __init__(self, seed): self.s = seed & MASK
    def next_u64(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)
    def next_f64(self): return (self.next_u64() >> 11) * (1.0 / (1 << 53))
    def between(self, lo, hi): return lo + (hi - lo) * self.next_f64()

def F(status=None, message="", headers=None, body=None, error_class=None, transport=None):
    f = {"message": message}
    if status is not None: f["status"] = status
    if headers: f["headers"] = headers
    if body is not None: f["body"] = body
    if error_class: f["error_class"] = error_class
    if transport: f["transport"] = transport
    return f

def base(kind, f, category, status):
    ec = f.get("error_class", [None])[0] if f.get("error_class") else None
    return {"type": kind, "category": category, "status_code": status, "error_class": ec,
            "error_message": f["message"]}

def attempt_ev(f, category, status, attempt, max_retries, delay, retry_after=None):
    e = base("llm_retry_attempt", f, category, status)
    e.update(attempt=attempt, max_retries=max_retries, retry_delay=float(delay), retry_after=retry_after)
    return e

def exhausted_ev(f, category, status, attempts, reason, retry_after=None):
    e = base("llm_retry_exhausted", f, category, status)
    e.update(attempts=attempts, reason=reason)
    if retry_after is not None: e["retry_after"] = float(retry_after)
    return e

def failed_ev(f, category, status, error_type):
    e = base("llm_request_failed", f, category, status)
    e.update(error_type=error_type, retryable=False)
    return e

def step(f, expect, elapsed=0.0):
    return {"failure": f, "elapsed": elapsed, "expect": expect}

def retry(delay, attempt, category, events): return {"action": "retry", "delay": float(delay), "attempt": attempt, "category": category, "events": events}
def give_up(reason, attempt, category, events): return {"action": "give_up", "reason": reason, "attempt": attempt, "category": category, "events": events}

S503 = F(503, "Service Unavailable", error_class=["openai.InternalServerError", "openai.APIStatusError", "openai.APIError", "Exception"])
S500 = F(500, "Internal server error", error_class=["RubyLLM::ServerError", "RubyLLM::Error", "StandardError", "Exception"])
R429 = lambda ra: F(429, "Rate limit reached", headers={"retry-after": ra}, error_class=["anthropic.RateLimitError", "anthropic.APIStatusError", "anthropic.APIError", "Exception"])
B400 = F(400, "Invalid request: messages.0.content is empty", error_class=["RubyLLM::BadRequestError", "RubyLLM::Error", "StandardError", "Exception"])
U401 = F(401, "Invalid API key sk-proj-abcdefghijklmnopqrstuvwx", error_class=["RubyLLM::UnauthorizedError", "RubyLLM::Error", "StandardError", "Exception"])
U401_SCRUBBED = "Invalid API key [REDACTED]"
ORPHAN = F(400, "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01", error_class=["RubyLLM::BadRequestError", "RubyLLM::Error", "StandardError", "Exception"])
OVERFLOW = F(400, "prompt is too long: 210000 tokens > 200000 maximum", error_class=["anthropic.BadRequestError", "anthropic.APIStatusError", "anthropic.APIError", "Exception"])
RUNTIME = F(None, "something odd happened", error_class=["RuntimeError", "StandardError", "Exception"])
API_NO_STATUS = F(None, "unexpected provider reply", error_class=["RubyLLM::Error", "StandardError", "Exception"])
CANCEL = F(None, "", error_class=["KeyboardInterrupt", "BaseException"])
TIMEOUT = F(None, "Net::ReadTimeout", error_class=["Net::ReadTimeout", "Timeout::Error", "RuntimeError", "StandardError", "Exception"])

cases = []
def case(name, policy, steps, seed=0, context_hook=False, note=""):
    c = {"name": name, "note": note, "policy": policy, "seed": seed, "steps": steps}
    if context_hook: c["context_hook"] = True
    cases.append(c)

# --- forgeflare: 4 retries after the first call, 2/4/8/16 s, retry-after overrides (cap 60, clamp)
ff = {"preset": "forgeflare"}
case("forgeflare_429_retry_after_then_503", ff, [
    step(R429("1"), retry(1, 1, "rate_limited", [attempt_ev(R429("1"), "rate_limited", 429, 1, 4, 1, 1.0)])),
    step(S503, retry(4, 2, "server_error", [attempt_ev(S503, "server_error", 503, 2, 4, 4)])),
], note="Forgeflare R2: retry-after replaces the schedule; the schedule position still advances")
case("forgeflare_503_until_exhausted", ff,
     [step(S503, retry(d, i + 1, "server_error", [attempt_ev(S503, "server_error", 503, i + 1, 4, d)]))
      for i, d in enumerate([2, 4, 8, 16])] +
     [step(S503, give_up("exhausted", 5, "server_error", [exhausted_ev(S503, "server_error", 503, 5, "exhausted")]))],
     note="5 calls in all")
case("forgeflare_retry_after_clamped_to_60_and_zero_is_at_once", ff, [
    step(R429("120"), retry(60, 1, "rate_limited", [attempt_ev(R429("120"), "rate_limited", 429, 1, 4, 60, 60.0)])),
    step(R429("0"), retry(0, 2, "rate_limited", [attempt_ev(R429("0"), "rate_limited", 429, 2, 4, 0, 0.0)])),
])
case("forgeflare_400_is_permanent", ff, [
    step(B400, give_up("permanent", 1, "bad_request", [failed_ev(B400, "bad_request", 400, "BadRequest")])),
])
case("forgeflare_timeout_transport_retried", ff, [
    step(F(None, "operation timed out", transport="timeout"), retry(2, 1, "timeout", [attempt_ev(F(None, "operation timed out"), "timeout", None, 1, 4, 2)])),
])

# --- swarm_sdk: max_retries counts all calls, fixed delay, one free orphan recovery
sw = {"preset": "swarm_sdk"}
case("swarm_sdk_500_until_exhausted", sw, [
    step(S500, retry(15, 1, "server_error", [attempt_ev(S500, "server_error", 500, 1, 3, 15)])),
    step(S500, retry(15, 2, "server_error", [attempt_ev(S500, "server_error", 500, 2, 3, 15)])),
    step(S500, give_up("exhausted", 3, "server_error", [exhausted_ev(S500, "server_error", 500, 3, "exhausted")])),
], note="SwarmSDK test 6: 3 attempts in all")
case("swarm_sdk_orphans_pruned_once_for_free", sw, [
    step(ORPHAN, {"action": "prune_orphans", "attempt": 1, "category": "orphan_tool_calls", "events": []}),
    {"pruned": 2, "elapsed": 0.0, "expect": retry(0, 0, "orphan_tool_calls",
        [{"type": "orphan_tool_calls_pruned", "pruned_count": 2, "original_error": ORPHAN["message"]}])},
    step(ORPHAN, give_up("permanent", 1, "orphan_tool_calls", [failed_ev(ORPHAN, "orphan_tool_calls", 400, "OrphanToolCalls")])),
], note="the recovery does not count as an attempt and happens once")
case("swarm_sdk_orphans_nothing_to_prune", sw, [
    step(ORPHAN, {"action": "prune_orphans", "attempt": 1, "category": "orphan_tool_calls", "events": []}),
    {"pruned": 0, "elapsed": 0.0, "expect": give_up("permanent", 1, "orphan_tool_calls", [failed_ev(ORPHAN, "orphan_tool_calls", 400, "OrphanToolCalls")])},
])
case("swarm_sdk_401_fails_at_once_and_scrubs_the_key", sw, [
    step(U401, give_up("permanent", 1, "unauthorized",
        [dict(failed_ev(U401, "unauthorized", 401, "Unauthorized"), error_message=U401_SCRUBBED)])),
])
case("swarm_sdk_unknown_non_api_error_retried_api_error_not", sw, [
    step(RUNTIME, retry(15, 1, "unknown", [attempt_ev(RUNTIME, "unknown", None, 1, 3, 15)])),
    step(API_NO_STATUS, give_up("permanent", 2, "unknown", [failed_ev(API_NO_STATUS, "unknown", None, "UnknownAPIError")])),
])
case("swarm_sdk_network_timeout_retried", {"preset": "swarm_sdk", "max_retries": 2, "backoff": {"kind": "fixed", "delay": 1.5}}, [
    step(TIMEOUT, retry(1.5, 1, "timeout", [attempt_ev(TIMEOUT, "timeout", None, 1, 2, 1.5)])),
    step(TIMEOUT, give_up("exhausted", 2, "timeout", [exhausted_ev(TIMEOUT, "timeout", None, 2, "exhausted")])),
])
case("swarm_sdk_cancellation_is_reraised_untouched", sw, [
    step(CANCEL, {"action": "reraise", "attempt": 0, "category": "cancelled", "events": []}),
])

# --- swarm_sdk_legacy: every error retried, 10 x 10 s
case("swarm_sdk_legacy_retries_even_401", {"preset": "swarm_sdk_legacy"}, [
    step(U401, retry(10, 1, "unauthorized", [dict(attempt_ev(U401, "unauthorized", 401, 1, 10, 10), error_message=U401_SCRUBBED)])),
])

# --- llm_executor: RetryConfig() = 2 retries, 1 s x2 capped 30 s
le = {"preset": "llm_executor"}
case("llm_executor_503_twice_then_exhausted", le, [
    step(S503, retry(1, 1, "server_error", [attempt_ev(S503, "server_error", 503, 1, 2, 1)])),
    step(S503, retry(2, 2, "server_error", [attempt_ev(S503, "server_error", 503, 2, 2, 2)])),
    step(S503, give_up("exhausted", 3, "server_error", [exhausted_ev(S503, "server_error", 503, 3, "exhausted")])),
])
case("llm_executor_retry_after_over_max_delay_moves_on", le, [
    step(R429("45"), give_up("retry_after_too_long", 1, "rate_limited",
        [exhausted_ev(R429("45"), "rate_limited", 429, 1, "retry_after_too_long", 45)])),
])
INSUFF = F(429, "You exceeded your current quota, please check your plan and billing details.",
           body=json.dumps({"error": {"message": "You exceeded your current quota, please check your plan and billing details.", "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}}),
           error_class=["openai.RateLimitError", "openai.APIStatusError", "openai.APIError", "Exception"])
case("llm_executor_insufficient_quota_not_retried", le, [
    step(INSUFF, give_up("permanent", 1, "payment_required", [failed_ev(INSUFF, "payment_required", 429, "PaymentRequired")])),
])

# --- default: 30 calls, 1 s x1.25 capped at 30 s, equal jitter, 180 s deadline
rng = SplitMix64(42)
DEF_MAX = 30
def equal(n):  # d/2 + U(0, d/2), d = min(1 * 1.25^n, 30)
    d = min(1.0 * 1.25 ** n, 30.0)
    return d / 2 + rng.between(0.0, d / 2)
ds = [equal(n) for n in range(4)]
dflt = {"preset": "default"}
case("default_equal_jitter_seed_42", dflt,
     [step(S503, retry(d, i + 1, "server_error", [attempt_ev(S503, "server_error", 503, i + 1, DEF_MAX, d)]))
      for i, d in enumerate(ds)],
     seed=42, note="equal jitter: d/2 + uniform in [0, d/2), d = min(1 * 1.25^n, 30)")
case("default_exhausted_after_30_calls", {"preset": "default", "jitter": "none", "deadline": None},
     [step(S503, retry(min(1.25 ** i, 30.0), i + 1, "server_error", [attempt_ev(S503, "server_error", 503, i + 1, DEF_MAX, min(1.25 ** i, 30.0))]))
      for i in range(29)] +
     [step(S503, give_up("exhausted", 30, "server_error", [exhausted_ev(S503, "server_error", 503, 30, "exhausted")]))],
     note="without jitter the waits are exactly min(1.25^n, 30)")
case("default_retry_after_honoured_then_too_long", dflt, [
    step(R429("7"), retry(7, 1, "rate_limited", [attempt_ev(R429("7"), "rate_limited", 429, 1, DEF_MAX, 7, 7.0)])),
    step(R429("90"), give_up("retry_after_too_long", 2, "rate_limited",
        [exhausted_ev(R429("90"), "rate_limited", 429, 2, "retry_after_too_long", 90)])),
], seed=1)
case("default_deadline", dflt, [
    step(R429("5"), give_up("deadline", 1, "rate_limited", [dict(exhausted_ev(R429("5"), "rate_limited", 429, 1, "deadline", 5))]), elapsed=178.0),
], seed=1, note="a wait that would end past 180 s is not started")
case("default_context_overflow_compacted_once", dflt, [
    step(OVERFLOW, {"action": "compact_context", "attempt": 1, "category": "context_overflow", "events": []}),
    {"compacted": True, "elapsed": 0.0, "expect": retry(0, 0, "context_overflow", [{"type": "context_compacted", "original_error": OVERFLOW["message"]}])},
    step(OVERFLOW, give_up("permanent", 1, "context_overflow", [failed_ev(OVERFLOW, "context_overflow", 400, "ContextOverflow")])),
], context_hook=True)
case("default_context_overflow_without_hook_fails_at_once", dflt, [
    step(OVERFLOW, give_up("permanent", 1, "context_overflow", [failed_ev(OVERFLOW, "context_overflow", 400, "ContextOverflow")])),
])
NO_RETRY_500 = F(500, "Internal error", headers={"x-should-retry": "false"})
case("default_x_should_retry_false_wins", dflt, [
    step(NO_RETRY_500, give_up("permanent", 1, "server_error", [failed_ev(NO_RETRY_500, "server_error", 500, "ServerError")])),
])

# --- custom policies: overrides, equal and decorrelated jitter
VALID = F(None, "1 validation error for Plan\nname\n  Field required", error_class=["pydantic_core._pydantic_core.ValidationError", "ValueError", "Exception"])
case("override_validation_retried_twice", {"preset": "default", "jitter": "none", "overrides": {"validation": {"retry": True, "max_attempts": 2, "backoff": {"kind": "fixed", "delay": 0}}}}, [
    step(VALID, retry(0, 1, "validation", [attempt_ev(VALID, "validation", None, 1, DEF_MAX, 0)])),
    step(VALID, give_up("exhausted", 2, "validation", [exhausted_ev(VALID, "validation", None, 2, "exhausted")])),
])
rng = SplitMix64(7)
e1 = 1.0 + rng.between(0.0, 1.0)       # equal: d/2 + U(0, d/2), d = 2
e2 = 2.0 + rng.between(0.0, 2.0)       # d = 4
case("equal_jitter_seed_7", {"preset": "default", "jitter": "equal", "backoff": {"kind": "exponential", "base": 2, "multiplier": 2, "cap": 30}}, [
    step(S503, retry(e1, 1, "server_error", [attempt_ev(S503, "server_error", 503, 1, DEF_MAX, e1)])),
    step(S503, retry(e2, 2, "server_error", [attempt_ev(S503, "server_error", 503, 2, DEF_MAX, e2)])),
], seed=7)
rng = SplitMix64(9)
x1 = min(rng.between(1.0, 3.0), 10.0)          # floor 1, prev = floor
x2 = min(rng.between(1.0, x1 * 3.0), 10.0)
x3 = min(rng.between(1.0, x2 * 3.0), 10.0)
case("decorrelated_jitter_seed_9", {"preset": "default", "jitter": "decorrelated", "deadline": None, "backoff": {"kind": "exponential", "base": 1, "multiplier": 2, "cap": 10}}, [
    step(S503, retry(x1, 1, "server_error", [attempt_ev(S503, "server_error", 503, 1, DEF_MAX, x1)])),
    step(S503, retry(x2, 2, "server_error", [attempt_ev(S503, "server_error", 503, 2, DEF_MAX, x2)])),
    step(S503, retry(x3, 3, "server_error", [attempt_ev(S503, "server_error", 503, 3, DEF_MAX, x3)])),
], seed=9)

out = {"description": "Decision sequences per policy. Each case is replayed through a fresh Run (one model, no fleet) built from `policy` with jitter seed `seed` and, when `context_hook` is set, a compaction hook: a step feeds a failure (resuming first after a wait) or reports a recovery (`pruned`, `compacted`); `expect` holds the decision of that failure (Run's `decision`): the action (`retry`, `prune_orphans`, `compact_context`, `give_up`, `reraise`: the recoveries named as the run's steps), delay, reason, 1-based attempt, category and the exact events.", "cases": cases}
path = os.path.join(os.path.dirname(__file__), "..", "policies.json")
with open(path, "w") as fh:
    json.dump(out, fh, indent=1)
    fh.write("\n")
print(f"{len(cases)} policy cases -> {os.path.normpath(path)}")
