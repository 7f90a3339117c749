"""Typed names (issue 22): the preset and category ``Literal`` types match the core's lists, and
``mypy --strict`` rejects ``policy="defualt"`` while the right spellings and a decorated
function's kept signature pass."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import typing
from pathlib import Path

import pytest

import retry_core
from retry_core import _native

pytest.importorskip("mypy")


def test_the_literal_names_are_the_cores_lists():
    assert list(typing.get_args(retry_core.PresetName)) == list(_native.PRESETS)
    assert list(typing.get_args(retry_core.CategoryName)) == [name for name, _, _ in _native.CATEGORIES]


GOOD = """
    import asyncio
    import retry_core
    from retry_core import CategoryName, RetryPolicy

    def ask(question: str, *, temperature: float = 0.0) -> str:
        return question

    @retry_core.retry(policy="forgeflare")
    def decorated(question: str, *, temperature: float = 0.0) -> str:
        return question

    @retry_core.retry
    async def adecorated(question: str) -> int:
        return len(question)

    a: str = retry_core.call_llm_with_retry(lambda: ask("hi"), policy="default")
    b: str = decorated("hi", temperature=0.2)
    c: int = asyncio.run(adecorated("hi"))
    d = RetryPolicy.preset("swarm_sdk")
    e: CategoryName = retry_core.classify(TimeoutError()).category
"""

BAD = """
    import retry_core
    from retry_core import RetryPolicy

    @retry_core.retry(policy="default")
    def decorated(question: str) -> str:
        return question

    retry_core.call_llm_with_retry(lambda: 1, policy="defualt")
    RetryPolicy.preset("swarm-sdk")
    decorated(3)
    n: int = decorated("hi")
    retry_core.retry(policy="forgeflre")
"""


def mypy(tmp_path: Path, name: str, source: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / ".mypy"),
         "--python-version", "3.10", str(path)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )


def test_mypy_strict_accepts_the_right_names_and_rejects_a_misspelt_preset(tmp_path):
    good = mypy(tmp_path, "good", GOOD)
    assert good.returncode == 0, good.stdout + good.stderr
    bad = mypy(tmp_path, "bad", BAD)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    lines = {int(line.split(":")[1]) for line in bad.stdout.splitlines() if ": error:" in line}
    # The lines of the dedented source: each mistake is reported where it is.
    assert lines == {9, 10, 11, 12, 13}, bad.stdout
    assert "defualt" in bad.stdout
