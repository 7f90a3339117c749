"""Writes tests/vectors/runs.json: whole runs of one logical call, for cargo, pytest and minitest.

Each run is a script of call outcomes and the steps the core's `Run` must answer, written here
by hand: they are the oracle. The events and the note of each run are then recorded from the
engine (`BLESS_RUNS=1 cargo test --test runs`, after review) and pin the three languages to one
another. Run from the repository root:

    python3 tests/vectors/src/make_runs.py && (cd core && BLESS_RUNS=1 cargo test -q --test runs)

Seconds are virtual: a wait advances the clock by its length, a call by its `takes`.
"""

import json
import pathlib

OUT = pathlib.Path(__file__).resolve().parents[1] / "runs.json"

# Policies (RetryPolicy configuration objects, as in policies.json). Jitter off where the
# steps are written by hand: the default preset's equal jitter is covered by policies.json.
DEFAULT = {"preset": "default", "jitter": "none"}
SWARM = {"preset": "swarm_sdk"}
FORGE = {"preset": "forgeflare"}
EXEC = {"preset": "llm_executor"}
EXEC0 = {"preset": "llm_executor", "max_retries": 0}
LEGACY = {"preset": "swarm_sdk_legacy"}


# Failures (Failure JSON). Facts from CONTRACT §2.
def http(status, message="error", **extra):
    f = {"status": status, "message": message}
    f.update(extra)
    return {"failure": f}


BUSY = http(503, "Service Unavailable")
OVERLOADED = http(529, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
                  error_class=["anthropic.InternalServerError", "anthropic.APIStatusError"])
BAD_KEY = http(401, "Incorrect API key provided", error_class=["openai.AuthenticationError"])
NOT_FOUND = http(404, "The model `gpt-9` does not exist", error_class=["openai.NotFoundError"])
QUOTA = http(429, "You exceeded your current quota",
             body='{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}')
ORPHAN = http(400, "messages.3: tool_use ids were found without tool_result blocks immediately after: toolu_01")
OVERFLOW = http(400, "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
                body='{"error":{"code":"context_length_exceeded","type":"invalid_request_error"}}')
VALIDATION = {"failure": {"message": "1 validation error for Plan\nsteps\n  Field required",
                          "error_class": ["pydantic_core._pydantic_core.ValidationError", "ValueError"]}}
CANCEL = {"failure": {"message": "", "error_class": ["KeyboardInterrupt", "BaseException"]}}
STOP = {"failure": {"message": "stop requested", "error_class": ["PipelineStopRequested", "RuntimeError"]}}
TYPE_ERROR = {"failure": {"message": "unsupported operand", "error_class": ["TypeError"]}}
TIMEOUT = {"failure": {"message": "Request timed out.", "error_class": ["openai.APITimeoutError", "openai.APIConnectionError"]}}
UNKNOWN = {"failure": {"message": "something odd", "error_class": ["RuntimeError"]}}
OK = {"ok": True}


def ra(seconds, status=429, message="Rate limit reached", **extra):
    """A failure whose server asked for `seconds` (retry-after header)."""
    return http(status, message, headers={"retry-after": str(seconds)}, **extra)


def slow(outcome, takes):
    return dict(outcome, takes=takes)


def stacked(outcome, n):
    o = json.loads(json.dumps(outcome))
    o["failure"]["client_retries"] = n
    return o


C = lambda m=0: ["call", m]  # noqa: E731
W = lambda s, r="backoff": ["wait", s, r]  # noqa: E731
RET = ["return"]
G = lambda r: ["give_up", r]  # noqa: E731
RERAISE = ["reraise"]
PRUNE = ["prune_orphans"]
COMPACT = ["compact_context"]

# A breaker that opens on the 3rd consecutive failure for 5 s; no budget.
BREAKER = {"budget": None, "breaker": {"consecutive_failures": 3, "failure_rate": 1.0, "min_calls": 1000,
                                       "window_s": 60.0, "open_s": 5.0, "probe_timeout_s": 30.0},
           "shared_pause": True, "max_pause_s": 300.0}
PAUSES = {"budget": None, "breaker": None, "shared_pause": True, "max_pause_s": 300.0}
TIGHT_BUDGET = {"budget": {"capacity": 10.0, "retry_cost": 5.0, "timeout_cost": 10.0, "success_refund": 1.0},
                "breaker": None, "shared_pause": False, "max_pause_s": 300.0}

MODELS2 = [{"name": "gpt-4o-mini"}, {"name": "claude-haiku"}]
MODELS3 = [{"name": "small", "context_window": 8000}, {"name": "same", "context_window": 8000},
           {"name": "large", "context_window": 200000}]

RUNS = []


def run(name, covers, policy, script, steps, **kw):
    r = {"name": name, "covers": covers, "policy": policy}
    for k in ("config", "fleet", "keys", "clock_start", "pruned", "compacted"):
        if k in kw:
            r[k] = kw.pop(k)
    assert not kw, kw
    r["script"] = script
    r["expect"] = {"steps": steps, "events": [], "note": None}
    RUNS.append(r)


# --- single model, no fleet -------------------------------------------------------------------
run("success_first_call", "the success path: one call, no events", DEFAULT, [OK], [C(), RET])
run("default_503_then_ok", "default preset backs off 1 s", DEFAULT, [BUSY, OK], [C(), W(1.0), C(), RET])
run("no_policy_default_honours_retry_after_1s", "drift: no policy means the default preset; a 429 asking 1 s waits 1 s",
    {"preset": "default"}, [ra(1), OK], [C(), W(1.0, "retry_after"), C(), RET])
run("default_401_not_retried", "permanent: one call", DEFAULT, [BAD_KEY], [C(), G("permanent")])
run("default_404_not_retried", "permanent not_found", DEFAULT, [NOT_FOUND], [C(), G("permanent")])
run("default_quota_429_not_retried", "a 429 insufficient_quota is payment_required", DEFAULT, [QUOTA], [C(), G("permanent")])
run("default_backoff_grows", "exponential 1 s x1.25", DEFAULT, [BUSY, BUSY, BUSY, OK],
    [C(), W(1.0), C(), W(1.25), C(), W(1.5625), C(), RET])
run("default_retry_after_over_cap_gives_up", "a 120 s retry-after over the 60 s cap gives up and reports it",
    DEFAULT, [ra(120)], [C(), G("retry_after_too_long")])
run("default_retry_after_0_at_once", "retry-after 0 retries at once", DEFAULT, [ra(0), OK], [C(), C(), RET])
run("default_deadline", "a 10 s deadline: two slow 4 s calls, then a wait that would pass it",
    dict(DEFAULT, deadline=10.0), [slow(BUSY, 4.0), slow(BUSY, 4.0)],
    [C(), W(1.0), C(), G("deadline")])
run("default_unknown_not_retried", "unknown non-API errors are not retried by default", DEFAULT, [UNKNOWN],
    [C(), G("permanent")])
run("default_timeout_retried", "client timeouts are transient", DEFAULT, [TIMEOUT, OK], [C(), W(1.0), C(), RET])
run("default_529_overloaded", "Anthropic 529", DEFAULT, [OVERLOADED, OK], [C(), W(1.0), C(), RET])
run("default_status_999", "drift: any status 100-999 is accepted by every front door (a 9xx is no 5xx)",
    DEFAULT, [http(999, "odd gateway")], [C(), G("permanent")])
run("default_status_599", "a 599 is a 5xx", DEFAULT, [http(599, "network connect timeout"), OK],
    [C(), W(1.0), C(), RET])
run("swarm_three_calls_fixed_15", "SwarmSDK: 3 calls, fixed 15 s", SWARM, [BUSY, BUSY, BUSY],
    [C(), W(15.0), C(), W(15.0), C(), G("exhausted")])
run("swarm_ignores_retry_after", "SwarmSDK ignores retry-after", SWARM, [ra(1), OK], [C(), W(15.0), C(), RET])
run("swarm_custom", "max_retries 2, delay 1.5", {"preset": "swarm_sdk", "max_retries": 2, "backoff": {"kind": "fixed", "delay": 1.5}},
    [BUSY, BUSY], [C(), W(1.5), C(), G("exhausted")])
run("swarm_delay_0_still_sleeps", "SwarmSDK with delay 0 calls sleep(0) before each retry, as its own loop does",
    {"preset": "swarm_sdk", "max_retries": 3, "backoff": {"kind": "fixed", "delay": 0}}, [BUSY, BUSY, OK],
    [C(), W(0.0), C(), W(0.0), C(), RET])
run("swarm_unknown_retried", "SwarmSDK retries unknown non-API errors", SWARM, [UNKNOWN, OK], [C(), W(15.0), C(), RET])
run("swarm_401_not_retried", "SwarmSDK: permanent at once", SWARM, [BAD_KEY], [C(), G("permanent")])
run("legacy_retries_everything", "SwarmSDK legacy: even a 401", LEGACY, [BAD_KEY, OK], [C(), W(10.0), C(), RET])
run("forgeflare_schedule", "2, 4, 8, 16 then give up", FORGE, [BUSY] * 5,
    [C(), W(2.0), C(), W(4.0), C(), W(8.0), C(), W(16.0), C(), G("exhausted")])
run("forgeflare_retry_after_clamped", "a 250 s retry-after clamped to 60", FORGE, [ra(250), OK],
    [C(), W(60.0, "retry_after"), C(), RET])
run("forgeflare_retry_after_then_schedule", "retry-after replaces the schedule; the position advances", FORGE,
    [ra(1), BUSY, OK], [C(), W(1.0, "retry_after"), C(), W(4.0), C(), RET])
run("executor_backoff", "PlanExe RetryConfig(): 1, 2 then give up", EXEC, [BUSY] * 3,
    [C(), W(1.0), C(), W(2.0), C(), G("exhausted")])
run("executor_no_retries", "an LLMExecutor without retry_config retries nothing", EXEC0, [BUSY], [C(), G("exhausted")])

# --- cancellation ------------------------------------------------------------------------------
run("cancel_first_call", "cancellation is re-raised untouched", DEFAULT, [CANCEL], [C(), RERAISE])
run("cancel_after_a_wait", "cancellation mid-run: after a wait, the next call is interrupted", DEFAULT,
    [BUSY, CANCEL], [C(), W(1.0), C(), RERAISE])
run("pipeline_stop", "PipelineStopRequested is a cancellation", EXEC, [STOP], [C(), RERAISE])

# --- recoveries --------------------------------------------------------------------------------
run("orphans_pruned_retry_at_once", "drift: the pruned count is reported; the retry is free and immediate",
    DEFAULT, [ORPHAN, OK], [C(), PRUNE, C(), RET], pruned=[2])
run("orphans_nothing_pruned", "nothing pruned: the 400 stands", DEFAULT, [ORPHAN], [C(), PRUNE, G("permanent")], pruned=[0])
run("orphans_once", "pruning is offered once", DEFAULT, [ORPHAN, ORPHAN], [C(), PRUNE, C(), G("permanent")], pruned=[1])
run("swarm_orphans", "SwarmSDK prunes once, free", SWARM, [ORPHAN, BUSY, OK], [C(), PRUNE, C(), W(15.0), C(), RET], pruned=[1])
run("forgeflare_no_orphan_recovery", "forgeflare does not prune", FORGE, [ORPHAN], [C(), G("permanent")])
run("context_no_hook", "context overflow without a compaction hook", DEFAULT, [OVERFLOW], [C(), G("permanent")])
run("context_compacted", "the hook compacted: retry at once", DEFAULT, [OVERFLOW, OK], [C(), COMPACT, C(), RET],
    config={"context_hook": True}, compacted=[True])
run("context_not_compacted", "the hook changed nothing", DEFAULT, [OVERFLOW], [C(), COMPACT, G("permanent")],
    config={"context_hook": True}, compacted=[False])
run("recoveries_chained", "drift: orphans pruned, then a context overflow compacted, then success", DEFAULT,
    [ORPHAN, OVERFLOW, OK], [C(), PRUNE, C(), COMPACT, C(), RET], config={"context_hook": True},
    pruned=[1], compacted=[True])
run("recovery_then_backoff", "a free recovery does not count as an attempt", DEFAULT, [ORPHAN, BUSY, OK],
    [C(), PRUNE, C(), W(1.0), C(), RET], pruned=[1])

# --- validation --------------------------------------------------------------------------------
run("validation_retries", "max_validation_retries 2: two retries of the same model", EXEC0,
    [VALIDATION, VALIDATION, OK], [C(), C(), C(), RET], config={"max_validation_retries": 2})
run("validation_spent", "validation retries spent: the policy decides (not retried)", EXEC0,
    [VALIDATION, VALIDATION], [C(), C(), G("permanent")], config={"max_validation_retries": 1})
run("validation_off", "no validation retries: permanent", DEFAULT, [VALIDATION], [C(), G("permanent")])
run("validation_then_transient", "validation retry, then a 503 backs off as usual", EXEC,
    [VALIDATION, BUSY, OK], [C(), C(), W(1.0), C(), RET], config={"max_validation_retries": 1})

# --- stacked retry layers ----------------------------------------------------------------------
run("stacked_observed", "the client retried twice itself: reported once, 3 x 30 requests", DEFAULT,
    [stacked(BUSY, 2), stacked(BUSY, 2), OK], [C(), W(1.0), C(), W(1.25), C(), RET])
run("stacked_configured", "RubyLLM's retries known from its configuration", SWARM, [BUSY, OK],
    [C(), W(15.0), C(), RET], config={"client_max_retries": 3})
run("stacked_success_silent", "a success says nothing about layers", DEFAULT, [OK], [C(), RET],
    config={"client_max_retries": 3})

# --- visible waits -----------------------------------------------------------------------------
run("wait_events_with_end_time", "each wait announced with its length, reason and end time", DEFAULT,
    [ra(30), OK], [C(), W(30.0, "retry_after"), C(), RET], config={"started_at": 1700000000.0})
run("wait_events_backoff", "backoff waits announced and finished", FORGE, [BUSY, BUSY, OK],
    [C(), W(2.0), C(), W(4.0), C(), RET], config={"started_at": 1700000000.5})

# --- model fallback ----------------------------------------------------------------------------
run("fallback_on_permanent", "drift: the model chain is the core's; a 401 moves on", EXEC0, [BAD_KEY, OK],
    [C(0), C(1), RET], config={"models": MODELS2})
run("fallback_after_exhaustion", "transient retries per model, then the next", EXEC, [BUSY, BUSY, BUSY, OK],
    [C(0), W(1.0), C(0), W(2.0), C(0), C(1), RET], config={"models": MODELS2})
run("fallback_all_fail", "every model fails: give up with the last reason", EXEC0, [BAD_KEY, BUSY],
    [C(0), C(1), G("exhausted")], config={"models": MODELS2})
run("fallback_stops_on_cancel", "a cancellation stops the chain", EXEC0, [CANCEL], [C(0), RERAISE],
    config={"models": MODELS2})
run("fallback_stops_on_programming", "a programming error stops the chain", EXEC0, [TYPE_ERROR],
    [C(0), G("permanent")], config={"models": MODELS2})
run("fallback_programming_moves_on_for_planexe", "PlanExe moves on after any error but a stop request",
    EXEC0, [TYPE_ERROR, OK], [C(0), C(1), RET], config={"models": MODELS2, "move_on_programming_errors": True})
run("fallback_larger_window", "a context overflow skips to a larger window", EXEC0, [OVERFLOW, OK],
    [C(0), C(2), RET], config={"models": MODELS3, "larger_window_on_overflow": True})
run("fallback_next_window", "without the preference, the next model", EXEC0, [OVERFLOW, OVERFLOW, OK],
    [C(0), C(1), C(2), RET], config={"models": MODELS3})
run("fallback_validation_per_model", "validation retries start again on each model", EXEC0,
    [VALIDATION, VALIDATION, VALIDATION, OK], [C(0), C(0), C(1), C(1), RET],
    config={"models": MODELS2, "max_validation_retries": 1})
run("fallback_quota_moves_on", "a quota 429 moves on instead of retrying", EXEC, [QUOTA, OK], [C(0), C(1), RET],
    config={"models": MODELS2})
run("fallback_retry_after_too_long", "a retry-after over max_delay moves on", EXEC, [ra(45), OK], [C(0), C(1), RET],
    config={"models": MODELS2})

# --- fleet -------------------------------------------------------------------------------------
run("fleet_success", "a fleet call that succeeds", DEFAULT, [OK], [C(), RET], fleet=BREAKER, keys=["p:m"])
run("fleet_breaker_opens_waits_probes", "gate: the breaker opens on the 3rd failure, the call waits it out, "
    "the probe succeeds", DEFAULT, [BUSY, BUSY, BUSY, OK],
    [C(), W(1.0), C(), W(1.25), C(), W(1.5625), W(3.4375, "circuit_open"), C(), RET], fleet=BREAKER, keys=["p:m"])
run("fleet_gate_refusal_gives_up", "drift: the gate refuses a retry past the deadline: circuit_open, with the "
    "last error and its event", dict(DEFAULT, deadline=6.0), [BUSY, BUSY, BUSY],
    [C(), W(1.0), C(), W(1.25), C(), W(1.5625), G("circuit_open")], fleet=BREAKER, keys=["p:m"])
run("fleet_own_pause", "a 429's retry-after becomes a shared pause; the retry waits it once", DEFAULT,
    [ra(5), OK], [C(), W(5.0, "retry_after"), C(), RET], fleet=PAUSES, keys=["p:m"])
run("fleet_pause_capped_by_policy", "a 250 s pause under a policy cap of 60: the retry waits 60, the gate no more",
    FORGE, [ra(250), OK], [C(), W(60.0, "retry_after"), C(), RET], fleet=PAUSES, keys=["p:m"])
run("fleet_budget_spent", "the budget pays for two retries", DEFAULT, [BUSY, BUSY, BUSY],
    [C(), W(1.0), C(), W(1.25), C(), G("budget_exhausted")], fleet=TIGHT_BUDGET, keys=["p:m"])
run("fleet_cancel_releases", "a cancelled call ends the run", DEFAULT, [BUSY, CANCEL], [C(), W(1.0), C(), RERAISE],
    fleet=BREAKER, keys=["p:m"])
run("fleet_fallback_keys_per_model", "retries on model a open a's circuit; model b has its own key",
    EXEC, [BUSY, BUSY, BUSY, OK], [C(0), W(1.0), C(0), W(2.0), C(0), C(1), RET],
    config={"models": MODELS2, "max_gate_wait": 1.0}, fleet=BREAKER, keys=["a", "b"])
run("fleet_keys_per_model", "each model its own key: the second model's circuit is closed", EXEC0,
    [BUSY, OK], [C(0), C(1), RET], config={"models": MODELS2}, fleet=BREAKER, keys=["a", "b"])
run("fleet_two_models_one_key", "two models on one key share its breaker: the second is held back", EXEC, [BUSY, BUSY, BUSY],
    [C(0), W(1.0), C(0), W(2.0), C(0), ["skip", 1, 5.0], G("circuit_open")],
    config={"models": MODELS2, "max_gate_wait": 1.0}, fleet=BREAKER, keys=["shared"])
run("fleet_skip_then_next", "drift: LLMExecutor moves on when the fleet holds a model back longer than it waits",
    EXEC, [BUSY, BUSY, BUSY, OK], [C(0), W(1.0), C(0), W(2.0), C(0), ["skip", 1, 5.0], C(2), RET],
    config={"models": MODELS3, "max_gate_wait": 1.0}, fleet=BREAKER, keys=["shared", "shared", "other"])
run("fleet_wait_within_max_gate_wait", "a fleet wait within max_gate_wait is waited out, not skipped",
    EXEC, [BUSY, BUSY, BUSY, OK], [C(0), W(1.0), C(0), W(2.0), C(0), W(5.0, "circuit_open"), C(1), RET],
    config={"models": MODELS2, "max_gate_wait": 30.0}, fleet=BREAKER, keys=["shared"])


def main() -> None:
    names = [r["name"] for r in RUNS]
    assert len(names) == len(set(names)), "run names must be unique"
    old = {}
    if OUT.exists():
        old = {r["name"]: r["expect"] for r in json.loads(OUT.read_text())["runs"]}
    for r in RUNS:
        # Keep recorded events where the steps did not change (re-bless after a review).
        prev = old.get(r["name"])
        if prev and prev["steps"] == r["expect"]["steps"]:
            r["expect"]["events"] = prev["events"]
            r["expect"]["note"] = prev["note"]
    doc = {
        "description": __doc__.strip().splitlines()[0] + " Steps are the hand-written oracle; events and "
        "note are recorded from the engine and reviewed. Format and replay: tests/vectors/README.md.",
        "runs": RUNS,
    }
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(RUNS)} runs -> {OUT}")


if __name__ == "__main__":
    main()
