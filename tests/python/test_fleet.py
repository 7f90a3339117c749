"""A Fleet shared by many Python threads: one pause for every caller of a key, a breaker that
opens and is closed by one probe, a budget that stops retry storms, metrics that add up; plus
the configuration front door (keyword arguments, YAML and JSON files) and LLMExecutor's fleet.
Waits are real and short (well under a second each)."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import retry_core
from conftest import RunMachine, without_waits
from retry_core import Fleet, acall_llm_with_retry, call_llm_with_retry
from retry_core.llm_executor import LLMExecutor, LLMModelWithInstance, ModelUnavailable, RetryConfig

FAST = {"preset": "default", "backoff": {"kind": "fixed", "delay": 0.01}, "jitter": "none"}


class StatusError(Exception):
    def __init__(self, status, headers=None, msg=None):
        super().__init__(msg or f"HTTP {status}")
        self.status_code = status
        self.headers = headers or {}


def kinds(events):
    return [e["type"] for e in events]


def test_a_retry_after_pauses_every_thread_of_the_key():
    fleet = Fleet(breaker=False)
    told = []

    def first():
        told.append(time.monotonic())
        if len(told) == 1:
            raise StatusError(429, {"retry-after": "0.5"})
        return "ok"

    events = []
    t0 = time.monotonic()
    a = threading.Thread(target=lambda: call_llm_with_retry(first, policy=FAST, fleet=fleet, key="anthropic:sonnet",
                                                             on_event=events.append))
    a.start()
    while not told:
        time.sleep(0.001)
    time.sleep(0.05)  # the 429 has been recorded: every caller of the key is paused now
    starts = []
    lock = threading.Lock()

    def other():
        with lock:
            starts.append(time.monotonic())
        return "ok"

    other_key = call_llm_with_retry(lambda: time.monotonic(), fleet=fleet, key="openai:gpt-4o")
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: call_llm_with_retry(other, fleet=fleet, key="anthropic:sonnet"), range(8)))
    a.join()
    assert results == ["ok"] * 8
    assert min(starts) >= told[0] + 0.45, "no caller of the key went before the pause ended"
    assert other_key < told[0] + 0.3, "another key is not paused"
    assert "rate_limit_pause" in kinds(events)
    pause = next(e for e in events if e["type"] == "rate_limit_pause")
    assert pause == {"type": "rate_limit_pause", "key": "anthropic:sonnet", "seconds": 0.5, "category": "rate_limited"}
    assert time.monotonic() - t0 < 3


def test_the_breaker_opens_then_one_probe_closes_it():
    fleet = Fleet(breaker={"consecutive_failures": 3, "open_s": 0.3}, budget=False)
    lock = threading.Lock()
    calls = []
    state = {"down": True}

    def provider():
        with lock:
            calls.append(time.monotonic())
            down = state["down"]
        if down:
            raise StatusError(503)
        return "ok"

    events = []
    ev_lock = threading.Lock()

    def on_event(e):
        with ev_lock:
            events.append((time.monotonic(), e))

    # Three callers fail at once: the circuit opens; every retry waits for it.
    def caller(_):
        return call_llm_with_retry(provider, policy=FAST, fleet=fleet, key="p:m", on_event=on_event)

    with ThreadPoolExecutor(6) as pool:
        futures = [pool.submit(caller, i) for i in range(6)]
        deadline = time.monotonic() + 2
        while not any(e["type"] == "circuit_opened" for _, e in events) and time.monotonic() < deadline:
            time.sleep(0.005)
        opened_at = next(t for t, e in events if e["type"] == "circuit_opened")
        with lock:
            state["down"] = False  # the provider recovers while the circuit is open
        results = [f.result(timeout=5) for f in futures]
    assert results == ["ok"] * 6
    opened = [e for _, e in events if e["type"] == "circuit_opened"]
    closed = [e for _, e in events if e["type"] == "circuit_closed"]
    assert len(opened) == 1 and opened[0]["reason"] == "consecutive_failures" and opened[0]["key"] == "p:m"
    assert len(closed) == 1 and closed[0] == {"type": "circuit_closed", "key": "p:m"}
    during = [t for t in calls if opened_at + 0.01 < t < opened_at + 0.28]
    assert during == [], "nobody called while the circuit was open"
    probe_and_after = [t for t in calls if t >= opened_at + 0.28]
    assert len(probe_and_after) >= 6, "one probe, then everyone"


def test_the_budget_stops_a_retry_storm_across_threads():
    fleet = Fleet(budget={"capacity": 10, "retry_cost": 5}, breaker=False)
    lock = threading.Lock()
    events = []

    def on_event(e):
        with lock:
            events.append(e)

    def always_down():
        raise StatusError(503)

    def caller(_):
        with pytest.raises(StatusError) as info:
            call_llm_with_retry(always_down, policy=FAST, fleet=fleet, key="k", on_event=on_event)
        return info.value.retry_decision.reason

    with ThreadPoolExecutor(16) as pool:
        reasons = list(pool.map(caller, range(16)))
    assert reasons == ["budget_exhausted"] * 16
    assert kinds(events).count("llm_retry_attempt") == 2, "10 tokens pay for two retries in all"
    exhausted = [e for e in events if e["type"] == "retry_budget_exhausted"]
    assert len(exhausted) == 16
    assert exhausted[0]["key"] == "k" and exhausted[0]["cost"] == 5.0 and exhausted[0]["tokens"] == 0.0
    total = fleet.metrics()["k"]["total"]
    assert (total["calls"], total["retries"], total["gave_up"], total["wasted_calls"]) == (18, 2, 16, 18)
    assert fleet.tokens("k") == 0.0


def test_metrics_add_up_across_threads():
    fleet = Fleet(breaker=False)

    def worker(i):
        for j in range(200):
            flaky = iter([StatusError(500)])

            def fn():
                e = next(flaky, None)
                if e is not None:
                    raise e
                return j

            assert call_llm_with_retry(fn, policy=FAST, seed=j, fleet=fleet, key=f"k{i % 4}") == j
        return True

    with ThreadPoolExecutor(16) as pool:
        assert all(pool.map(worker, range(16)))
    m = fleet.metrics()
    assert sorted(m) == ["k0", "k1", "k2", "k3"]
    for k in m:
        assert m[k]["total"]["calls"] == 4 * 200 * 2
        assert m[k]["success"]["successes"] == 800
        assert m[k]["server_error"]["retries"] == 800
        assert m[k]["server_error"]["waited_s"] == pytest.approx(800 * 0.01)
        assert m[k]["total"]["gave_up"] == 0
        # Every retry's cost came back with its success.
        assert fleet.tokens(k) == 500.0
    fleet.reset_metrics()
    assert fleet.metrics() == {}


def test_without_a_fleet_nothing_changes_and_permanent_errors_never_open_the_circuit():
    fleet = Fleet(breaker={"consecutive_failures": 2})
    for _ in range(10):
        with pytest.raises(StatusError):
            call_llm_with_retry(lambda: (_ for _ in ()).throw(StatusError(401)), fleet=fleet, key="k")
    run = RunMachine(fleet=fleet, key="k")
    assert run.start() == ("call", 0) and run.events == [], "the circuit stayed closed"
    assert fleet.metrics()["k"]["unauthorized"]["gave_up"] == 10


def test_a_gate_past_the_deadline_gives_up_with_the_last_error():
    fleet = Fleet(breaker={"consecutive_failures": 1, "open_s": 30}, budget=False)
    policy = dict(FAST, deadline=1.0)

    def down():
        raise StatusError(503)

    events = []
    t0 = time.monotonic()
    with pytest.raises(StatusError) as info:
        call_llm_with_retry(down, policy=policy, fleet=fleet, key="k", on_event=events.append)
    assert time.monotonic() - t0 < 0.5, "a 30 s open circuit past a 1 s deadline is not waited out"
    d = info.value.retry_decision
    assert (d.action, d.reason) == ("give_up", "circuit_open")
    assert "past the deadline" in d.note
    # The run gives up at the gate with the exhaustion event, as every front door does.
    assert kinds(without_waits(events)) == ["circuit_opened", "llm_retry_attempt", "llm_retry_exhausted"]


@pytest.fixture
def real_sleep(monkeypatch):
    """Records the waits and really waits: a fleet's pauses run on the wall clock, so a patched
    sleep that returns at once would only ask the fleet again and again."""
    import asyncio

    slept = []
    sleep, asleep = time.sleep, asyncio.sleep

    def rec(d):
        slept.append(d)
        sleep(d)

    async def arec(d, result=None):
        slept.append(d)
        return await asleep(d, result)

    monkeypatch.setattr(time, "sleep", rec)
    monkeypatch.setattr(asyncio, "sleep", arec)
    return slept


def test_async_twin_shares_the_pause(real_sleep):
    import asyncio

    fleet = Fleet()
    r = RunMachine("default", fleet=fleet, key="k")
    d = r.on_failure(StatusError(429, {"retry-after": "0.3"}))
    assert "rate_limit_pause" in kinds(d.events)

    async def ok():
        return "ok"

    t0 = time.monotonic()
    assert asyncio.run(acall_llm_with_retry(ok, fleet=fleet, key="k")) == "ok"
    assert time.monotonic() - t0 >= 0.25
    assert 0.2 < real_sleep[0] <= 0.3


def test_sync_and_async_decide_identically_with_a_fleet(real_sleep):
    import asyncio

    def run(async_):
        fleet = Fleet(budget={"capacity": 12}, breaker={"consecutive_failures": 3, "open_s": 0.1})
        errors = [StatusError(503), StatusError(429, {"retry-after": "0.1"}), StatusError(500), StatusError(502)]
        events = []

        def fn():
            if errors:
                raise errors.pop(0)
            return "ok"

        async def afn():
            return fn()

        real_sleep.clear()
        try:
            if async_:
                out = asyncio.run(acall_llm_with_retry(afn, policy=FAST, seed=3, fleet=fleet, key="k", on_event=events.append))
            else:
                out = call_llm_with_retry(fn, policy=FAST, seed=3, fleet=fleet, key="k", on_event=events.append)
        except StatusError as e:
            out = e.retry_decision.reason
        return out, kinds(without_waits(events)), fleet.metrics()["k"]["total"]["calls"]

    sync = run(False)
    assert sync == run(True)
    assert sync == ("budget_exhausted", ["llm_retry_attempt", "rate_limit_pause", "llm_retry_attempt", "circuit_opened",
                                         "retry_budget_exhausted", "llm_retry_exhausted"], 3)


def test_llm_executor_with_a_fleet_moves_on_from_an_open_circuit():
    fleet = Fleet(breaker={"consecutive_failures": 2, "open_s": 60}, budget=False)

    class LLM:
        def __init__(self, model, fail):
            self.model, self.fail, self.calls = model, fail, 0

        def complete(self):
            self.calls += 1
            if self.fail:
                raise StatusError(503)
            return f"from {self.model}"

    a, b = LLM("model-a", True), LLM("model-b", False)
    events = []
    ex = LLMExecutor(LLMModelWithInstance.from_instances([a, b]), retry_config=RetryConfig(max_retries=3, base_delay=0.01),
                     fleet=fleet, on_event=events.append)
    assert ex.run(lambda llm: llm.complete()) == "from model-b"
    assert a.calls == 2, "the circuit opened after two failures; the third call never went"
    assert [x.stage for x in ex.attempts] == ["execute", "execute", "fleet", "execute"]
    assert isinstance(ex.attempts[2].exception, ModelUnavailable)
    assert "circuit_opened" in kinds(events)
    # The next run skips model-a at once: its circuit is still open.
    a.calls = 0
    assert ex.run(lambda llm: llm.complete()) == "from model-b"
    assert a.calls == 0 and [x.stage for x in ex.attempts] == ["fleet", "execute"]
    assert sorted(fleet.metrics()) == ["model-a", "model-b"]


def test_llm_executor_fleet_key_is_configurable():
    fleet = Fleet()

    class LLM:
        def complete(self):
            return "ok"

    ex = LLMExecutor(LLMModelWithInstance.from_instances([LLM()]), fleet=fleet, fleet_key=lambda m: "custom:key")
    assert ex.run(lambda llm: llm.complete()) == "ok"
    assert list(fleet.metrics()) == ["custom:key"]
    with pytest.raises(TypeError):
        LLMExecutor(LLMModelWithInstance.from_instances([LLM()]), fleet="not a fleet")  # type: ignore[arg-type]


# --- configuration -----------------------------------------------------------------------------


def test_keyword_configuration_and_defaults():
    f = Fleet()
    assert f.backend == "in_process"
    cfg = f.config
    assert cfg["budget"]["capacity"] == 500.0 and cfg["breaker"]["consecutive_failures"] == 5
    assert cfg["shared_pause"] is True and cfg["redis_url"] is None
    f = Fleet(budget=False, breaker=True, shared_pause=False, max_pause_s=60)
    assert f.config["budget"] is None and f.config["breaker"]["open_s"] == 0.5 and f.config["breaker"]["max_open_s"] == 30.0 and f.tokens("k") is None
    assert repr(f) == "Fleet(backend='in_process')"


@pytest.mark.parametrize("kwargs,error", [
    ({"budgett": {}}, ValueError),
    ({"budget": {"capacity": -1}}, ValueError),
    ({"budget": {"capacity": float("nan")}}, TypeError),
    ({"breaker": {"failure_rate": 2}}, ValueError),
    ({"budget": "lots"}, TypeError),
    ({"max_pause_s": "x"}, ValueError),
    ({"redis_url": "not a url"}, ValueError),
    ({"shared_pause": object()}, TypeError),
])
def test_bad_configuration_is_a_clear_error(kwargs, error):
    with pytest.raises(error):
        Fleet(**kwargs)


def test_from_file_yaml_and_json(tmp_path):
    pytest.importorskip("yaml")
    y = tmp_path / "fleet.yaml"
    y.write_text("fleet:\n  budget:\n    capacity: 42\n  breaker: null\n  max_pause_s: 30\n")
    f = Fleet.from_file(y)
    assert f.config["budget"]["capacity"] == 42.0 and f.config["breaker"] is None and f.config["max_pause_s"] == 30.0
    j = tmp_path / "fleet.json"
    j.write_text(json.dumps({"budget": {"capacity": 7}}))
    assert Fleet.from_file(str(j)).tokens("k") == 7.0
    bad = tmp_path / "bad.yaml"
    bad.write_text("- a list\n")
    with pytest.raises(ValueError, match="mapping"):
        Fleet.from_file(bad)
    with pytest.raises(FileNotFoundError):
        Fleet.from_file(tmp_path / "missing.yaml")


def test_from_file_without_pyyaml_reads_json_and_says_what_to_install(tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_yaml(name, *args, **kwargs):
        if name == "yaml":
            raise ImportError("no yaml")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_yaml)
    j = tmp_path / "fleet.json"
    j.write_text('{"budget": {"capacity": 9}}')
    assert Fleet.from_file(j).tokens("k") == 9.0
    y = tmp_path / "fleet.yaml"
    y.write_text("budget:\n  capacity: 9\n")
    with pytest.raises(ValueError, match="pip install pyyaml"):
        Fleet.from_file(y)


def test_fleet_and_key_go_together():
    f = Fleet()
    with pytest.raises(TypeError, match="needs key="):
        call_llm_with_retry(lambda: 1, fleet=f)
    with pytest.raises(TypeError, match="retry_core.Fleet"):
        call_llm_with_retry(lambda: 1, fleet={"budget": {}}, key="k")
    with pytest.raises(ValueError):
        call_llm_with_retry(lambda: 1, fleet=f, key="")
    with pytest.raises(TypeError, match="needs fleet="):
        call_llm_with_retry(lambda: 1, key="k")
    assert call_llm_with_retry(lambda: 1, fleet=None, key=None) == 1


# The success path (an in-process fleet, a key with no pause and a closed circuit: the call goes
# at once, without the engine's run) must keep every promise of the whole run. A paused key's callers
# leave it for the gate: test_a_retry_after_pauses_every_thread_of_the_key.

def test_the_success_path_counts_successes_and_earns_the_budget_back():
    fleet = Fleet(budget={"capacity": 10, "retry_cost": 5, "success_refund": 1})
    calls = []

    def down():
        calls.append(1)
        raise StatusError(503)

    # The first call fails on the success path: the run starts at that failure (one retry, not
    # a second call of the gate's), spends 5 tokens on it and gives up.
    events = []
    with pytest.raises(StatusError):
        call_llm_with_retry(down, policy=dict(FAST, max_retries=2), on_event=events.append, fleet=fleet, key="k")
    assert len(calls) == 2 and kinds(events).count("llm_retry_attempt") == 1
    assert fleet.tokens("k") == 5.0
    # Three successes on the success path: counted, and each earns a token back.
    for _ in range(3):
        assert call_llm_with_retry(lambda: "ok", fleet=fleet, key="k") == "ok"
    assert fleet.tokens("k") == 8.0
    m = fleet.metrics()["k"]
    assert m["success"]["successes"] == 3 and m["total"]["calls"] == 5


def test_the_success_path_passes_the_users_error_and_interrupts_through_untouched():
    fleet = Fleet()
    err = StatusError(401, msg="bad key")

    def fn():
        raise err

    with pytest.raises(StatusError) as got:
        call_llm_with_retry(fn, fleet=fleet, key="k")
    assert got.value is err and got.value.__context__ is None

    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        call_llm_with_retry(interrupted, fleet=fleet, key="k")
    assert fleet.metrics()["k"]["total"]["calls"] == 1  # the interrupt recorded nothing


@pytest.mark.parametrize("options, error", [
    ({"policy": "defualt"}, retry_core.InvalidPolicyError),
    ({"on_event": "print"}, TypeError),
    ({"key": 5}, TypeError),
])
def test_bad_options_with_a_fleet_fail_before_the_first_call(options, error):
    called = []
    with pytest.raises(error):
        call_llm_with_retry(lambda: called.append(1), **dict({"fleet": Fleet(), "key": "k"}, **options))
    assert called == []


def test_odd_but_valid_options_decide_the_same():
    class Key(str):
        pass

    fleet = Fleet()
    name = "".join(["po", "licy"])  # a keyword name that is not interned
    assert call_llm_with_retry(lambda: 1, fleet=fleet, key=Key("k"), **{name: "default"}) == 1
    assert call_llm_with_retry(lambda: 2, fleet=fleet, key="k", seed=3) == 2
    assert fleet.metrics()["k"]["success"]["successes"] == 2


def test_call_options_are_declared_once():
    from retry_core._retry import _CallOptions, _Options

    declared = {name for name in vars(_Options) if not name.startswith("_")} - {"run", "native"}
    assert set(_CallOptions.__annotations__) == declared
