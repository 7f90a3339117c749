"""tests/vectors/estimates.json through the Python front door: the request bytes counted from a
call's messages (natively, without writing them) and the fleet's estimate from them and its
``max_tokens``. cargo and minitest replay the same file, so the two bindings give the same
estimate for the same messages."""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest

from conftest import VECTORS
from retry_core import Fleet

CASES = json.loads((VECTORS / "estimates.json").read_text(encoding="utf-8"))["cases"]


def fleet() -> Fleet:
    return Fleet(admission={"mode": "static", "limits": {"requests": 1e12, "tokens": 1e12}})


def given(case: Dict[str, Any]) -> Dict[str, Any]:
    return {"messages": case["messages"], "max_tokens": case["max_tokens"]}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_request_bytes_and_the_estimate_are_the_vectors(case: Dict[str, Any]) -> None:
    f = fleet()
    if case["messages"] is not None:
        assert f._inner._json_size(case["messages"]) == case["request_bytes"]
    assert f._inner._cost(given(case)) == (case["input_tokens"], case["output_tokens"])
