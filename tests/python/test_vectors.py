"""Every shared vector in tests/vectors/ through the Python binding: the three languages must
decide identically on the same input."""

from __future__ import annotations

import json
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Dict, List

import pytest

import retry_core
from retry_core import Failure, classify, prune_orphan_tool_calls

from conftest import VECTORS, RunMachine, assert_matches


def _failure(d: Dict[str, Any]) -> Failure:
    return Failure(**d)


def run_classify(case: Dict[str, Any], data: Dict[str, Any]) -> None:
    c = classify(_failure(case["failure"]))
    expect = case["expect"]
    if "category" in expect:
        assert c.category == expect["category"]
    if "transient" in expect:
        assert c.transient is expect["transient"]
    if "retry_after" in expect:
        assert_matches(c.retry_after, expect["retry_after"])
    for key in ("error_type", "status"):
        if key in expect:
            assert getattr(c, key) == expect[key]


def run_retry_after(case: Dict[str, Any], data: Dict[str, Any]) -> None:
    now = parsedate_to_datetime(data["now"])
    assert_matches(retry_core.retry_after(case["headers"], now=now), case["expect"])


def _step_matches(d: Any, step: Any) -> bool:
    """The run's step on decision ``d``: a retry waits (one of 0 s with a server's wait of 0 or
    after a recovery may call at once); a recovery or an end is the step of the same name."""
    if d.action == "retry":
        return (step[0] == "wait" and step[1] == d.delay) or (step[0] == "call" and d.delay == 0)
    if d.action == "give_up":
        return tuple(step) == ("give_up", d.reason)
    return tuple(step) == (d.action,)


def run_policy(case: Dict[str, Any], data: Dict[str, Any]) -> None:
    """Through the engine's Run, as Rust's and Ruby's runners do."""
    r = RunMachine(case["policy"], seed=case.get("seed"), context_hook=bool(case.get("context_hook", False)))
    for i, step in enumerate(case["steps"]):
        elapsed = step.get("elapsed", 0.0)
        if "failure" in step:
            d = r.on_failure(_failure(step["failure"]), elapsed)
        elif "pruned" in step:
            d = r.on_orphans_pruned(step["pruned"], elapsed)
        elif "compacted" in step:
            d = r.on_context_compacted(step["compacted"], elapsed)
        else:
            raise AssertionError(f"step {i}: unknown step shape {sorted(step)}")
        assert _step_matches(d, r.step), f"step {i}: step {r.step} for {d!r}"
        expect = step["expect"]
        got = {
            "action": d.action,
            "delay": d.delay,
            "reason": d.reason,
            "attempt": d.attempt,
            "category": d.classification.category,
            "events": d.events,
            "max_retries": d.max_retries,
            "retry_after_used": d.retry_after_used,
        }
        for key, value in expect.items():
            assert key in got, f"step {i}: no Python runner for expect key {key!r}"
            assert_matches(got[key], value, f"step {i}.{key}")


def run_orphans(case: Dict[str, Any], data: Dict[str, Any]) -> None:
    result = prune_orphan_tool_calls(case["messages"])
    got = {
        "messages": result.messages,
        "pruned": result.pruned,
        "dangling_results": result.dangling_results,
        "reminder": result.reminder,
    }
    for key, value in case["expect"].items():
        assert key in got, f"no Python runner for expect key {key!r}"
        assert_matches(got[key], value, key)


RUNNERS: Dict[str, Callable[[Dict[str, Any], Dict[str, Any]], None]] = {
    "classify.json": run_classify,
    "should_retry.json": run_classify,
    "retry_after.json": run_retry_after,
    "policies.json": run_policy,
    "orphans.json": run_orphans,
}


#: Vector files replayed by a suite of their own.
ELSEWHERE = {"runs.json": "tests/python/test_runs.py", "chains.json": "tests/python/test_chain_vectors.py",
             "hook_answers.json": "tests/python/test_hook_answers.py",
             "stream_watch.json": "tests/python/test_streams.py",
             "estimates.json": "tests/python/test_estimate_vectors.py"}


def _no_runner(case: Dict[str, Any], data: Dict[str, Any]) -> None:
    pytest.fail(f"no Python runner for {case['name']}: add one to RUNNERS or ELSEWHERE")


def _params() -> List[Any]:
    params = []
    for path in sorted(VECTORS.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if path.name in ELSEWHERE:
            continue
        runner = RUNNERS.get(path.name)
        if runner is None:
            # A vector file nobody replays is a hole in the three-language promise: it fails.
            params.append(pytest.param(_no_runner, {"name": path.name}, data, id=path.stem))
            continue
        for case in data.get("cases", []):
            params.append(pytest.param(runner, case, data, id=f"{path.stem}:{case['name']}"))
    return params


def test_vectors_are_there() -> None:
    files = sorted(p.name for p in VECTORS.glob("*.json"))
    assert files, f"no shared vectors in {VECTORS}"
    assert any(name in RUNNERS for name in files), f"no vector file this suite can replay: {files}"


@pytest.mark.parametrize("runner,case,data", _params())
def test_vector(runner: Any, case: Dict[str, Any], data: Dict[str, Any]) -> None:
    runner(case, data)
