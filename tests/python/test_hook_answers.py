"""tests/vectors/hook_answers.json through the Python front door: an ``on_orphans`` hook given no
history answers each value; the core reads it (``run::HookAnswer``). cargo and minitest replay
the same file."""

from __future__ import annotations

import json

import pytest

from conftest import VECTORS
from retry_core import call_llm_with_retry

CASES = json.loads((VECTORS / "hook_answers.json").read_text(encoding="utf-8"))["cases"]


class PairingError(Exception):
    def __init__(self) -> None:
        super().__init__("tool_use ids were found without tool_result blocks immediately after")
        self.status_code = 400


@pytest.mark.parametrize("case", CASES, ids=[repr(c["answer"])[:24] for c in CASES])
def test_a_hooks_answer_means_what_the_core_says(case, no_sleep):
    calls, events = [], []

    def fn():
        calls.append(1)
        if len(calls) == 1:
            raise PairingError()
        return "ok"

    def run():
        return call_llm_with_retry(fn, on_orphans=lambda _: case["answer"], on_event=events.append)

    if case["pruned"] == 0:
        with pytest.raises(PairingError):
            run()
        assert len(calls) == 1
    else:
        assert run() == "ok"
    pruned = [e["pruned_count"] for e in events if e["type"] == "orphan_tool_calls_pruned"]
    assert pruned == ([case["pruned"]] if case["pruned"] else [])
