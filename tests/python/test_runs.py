"""Every run of tests/vectors/runs.json through `_native.Run`, replayed on virtual time exactly
as tests/vectors/README.md says (and as cargo and minitest replay them): the three languages'
front doors interpret the same step machine."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

import pytest

from retry_core import Failure, _native
from retry_core._policy import resolve_policy

from conftest import VECTORS

RUNS: List[Dict[str, Any]] = json.loads((VECTORS / "runs.json").read_text())["runs"]


def _record(d: Dict[str, Any]) -> "_native.FailureRecord":
    """The record of a vector's failure, built as the other vector tests build it
    (``Failure(**d)``); ``client_retries``, which ``Failure`` does not take, goes to the record."""
    fields = {k: v for k, v in d.items() if k != "client_retries"}
    f = Failure(**fields)
    if d.get("client_retries") is None:
        return f._record
    return _native.FailureRecord(f.status, list(f.headers.items()), f.body, list(f.error_class), f.message,
                                 f.transport, d["client_retries"])


def _run(case: Dict[str, Any]) -> Tuple["_native.Run", Optional["_native._ManualClock"]]:
    policy = resolve_policy(case["policy"])
    config = json.dumps(case["config"]) if "config" in case else None
    if "fleet" not in case:
        return _native.Run(policy, config), None
    fleet, clock = _native.Fleet._with_manual_clock(json.dumps(case["fleet"]), float(case.get("clock_start", 1000000.0)))
    return _native.Run(policy, config, fleet, case["keys"]), clock


def _step(step: Tuple[Any, ...]) -> List[Any]:
    return list(step)


def replay(case: Dict[str, Any]) -> Tuple[List[List[Any]], List[Dict[str, Any]], Optional[str], int]:
    run, clock = _run(case)
    clock_start = float(case.get("clock_start", 1000000.0))
    script = list(case["script"])
    pruned = list(case.get("pruned", []))
    compacted = list(case.get("compacted", []))
    steps: List[List[Any]] = []
    events: List[Dict[str, Any]] = []
    t = 0.0
    used = 0

    def advance(result: Any) -> Tuple[Any, ...]:
        step, pending = result
        events.extend(e for e, _, _ in pending or ())
        return tuple(step)

    step = advance(run._start(t))
    while True:
        steps.append(_step(step))
        kind = step[0]
        if kind in ("return", "give_up", "reraise"):
            break
        if kind == "call":
            assert used < len(script), f"{case['name']}: the run asked for call {used + 1} of a {len(script)}-call script"
            outcome = script[used]
            used += 1
            t += outcome.get("takes", 0.0) or 0.0
            if clock is not None:
                clock._set(clock_start + t)
            if outcome.get("ok"):
                step = advance(run._succeeded(t))
            else:
                step = advance(run._failed(_record(outcome["failure"]), t))
        elif kind == "wait":
            t += step[1]
            if clock is not None:
                clock._set(clock_start + t)
            step = advance(run._resume(t))
        elif kind == "skip":
            step = advance(run._resume(t))
        elif kind == "prune_orphans":
            step = advance(run._pruned(pruned.pop(0) if pruned else 0, t))
        elif kind == "compact_context":
            step = advance(run._compacted(compacted.pop(0) if compacted else False, t))
        else:
            raise AssertionError(f"unknown step {step!r}")
    events.extend(e for e, _, _ in run._take_events())
    return steps, events, run.note, used


@pytest.mark.parametrize("case", RUNS, ids=[r["name"] for r in RUNS])
def test_run_vector(case: Dict[str, Any]) -> None:
    steps, events, note, used = replay(case)
    expect = case["expect"]
    assert steps == expect["steps"]
    assert events == expect["events"]
    assert note == expect.get("note")
    assert used == len(case["script"]), "every outcome of the script must have been asked for"


def test_every_event_of_the_vectors_has_at_most_one_log_line_with_one_prefix() -> None:
    for case in RUNS:
        run, _ = _run(case)
        for e in case["expect"]["events"]:
            assert set(e) >= {"type"}
        # The log lines come with the events; their texts are the core's.
        step, pending = run._start(0.0)
        for _, level, line in pending or ():
            assert line is None or (line.startswith("retry-core: ") and "retry-core: retry-core:" not in line)
            assert level in (0, 20, 30)


def test_a_run_misused_gives_up_instead_of_panicking() -> None:
    run = _native.Run(resolve_policy("default"))
    step, _ = run._resume(0.0)
    assert step[0] == "give_up"
    assert run.decision is None and run.note is None


def test_run_config_errors_raise_before_any_call() -> None:
    from retry_core import InvalidPolicyError

    with pytest.raises(InvalidPolicyError):
        _native.Run(resolve_policy("default"), json.dumps({"no_such_key": 1}))
    with pytest.raises(ValueError):
        _native.Run(resolve_policy("default"), None, _native.Fleet._from_json("{}"), [])
