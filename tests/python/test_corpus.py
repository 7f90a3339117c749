"""The public error corpus (tests/corpus/*.json) through the Python binding: the same real
error reports `cargo test` and minitest replay, held to the same labels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

from retry_core import Failure, classify

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def _cases() -> List[Tuple[str, Dict[str, Any]]]:
    out = []
    for path in sorted(CORPUS.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            out.append((path.name, case))
    return out


CASES = _cases()


def test_the_corpus_is_large_and_broad() -> None:
    assert len(CASES) >= 300
    assert len({file for file, _ in CASES}) >= 15


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[c["name"] for _, c in CASES])
def test_corpus_case(case: Dict[str, Any]) -> None:
    c = classify(Failure(**case["failure"]))
    want = case["expect"]
    assert c.transient is want["transient"], case["why"]
    # `also`: the other category a genuinely ambiguous case admits (tests/corpus/README.md).
    assert c.category in [want["category"], *case.get("also", [])], case["why"]
