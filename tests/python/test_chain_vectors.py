"""tests/vectors/chains.json through the Python front door: each chain raised for real, as the
SDKs raise them (the innermost first, each outer exception `raise ... from` the one it wraps;
a link with a status carries an httpx.Response as openai's and anthropic's errors do), then
classified. cargo and minitest replay the same file: one merge rule, in the core, for all."""

from __future__ import annotations

import json
import types
from typing import Any, Dict, List

import httpx
import pytest

import retry_core
from conftest import VECTORS, assert_matches

CASES = json.loads((VECTORS / "chains.json").read_text(encoding="utf-8"))["cases"]

_CLASSES: Dict[str, type] = {}


def _class(name: str) -> type:
    # Neutral names in a module of their own: the class chain carries no evidence here.
    if name not in _CLASSES:
        _CLASSES[name] = type(name, (Exception,), {"__module__": "chain_vectors"})
    return _CLASSES[name]


def _exception(link: Dict[str, Any]) -> BaseException:
    e = _class(link["class"])(link["message"])
    headers = link.get("headers") or {}
    body = link.get("body")
    if "status" in link:
        e.status_code = link["status"]  # type: ignore[attr-defined]
        e.response = httpx.Response(link["status"], headers=headers, content=(body or "").encode())  # type: ignore[attr-defined]
    elif headers or body is not None:
        e.response = types.SimpleNamespace(headers=headers, text=body)  # type: ignore[attr-defined]
    return e


def raised_chain(links: List[Dict[str, Any]]) -> BaseException:
    """The chain raised innermost first, each outer exception `from` the one before."""
    caught: BaseException | None = None
    for link in reversed(links):
        e = _exception(link)
        try:
            if caught is None:
                raise e
            raise e from caught
        except Exception as now:  # noqa: BLE001 - building the chain
            caught = now
    assert caught is not None
    return caught


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_chain_vector(case: Dict[str, Any]) -> None:
    exc = raised_chain(case["links"])
    assert exc.__cause__ is not None or len(case["links"]) == 1
    c = retry_core.classify(exc)
    got = {"category": c.category, "transient": c.transient, "retry_after": c.retry_after, "status": c.status}
    assert_matches(got, case["expect"])


def test_the_reference_reader_hands_its_links_to_the_same_rule() -> None:
    # The merge is not Python's to make: a record from links equals the record from the chain.
    from retry_core import _native

    for case in CASES:
        exc = raised_chain(case["links"])
        native = json.loads(_native.FailureRecord._from_exception(exc)._to_json())
        assert native["status"] == case["expect"]["status"], case["name"]
