"""Every ```python block of the user docs runs: README.md, python-ext/README.md and
python-ext/docs/*.md. Each block runs alone, in a fresh interpreter (this venv's) with a
timeout, against the fault lab (target/debug/retry-lab) started for this module, with
OPENAI_BASE_URL, OPENAI_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY and RETRY_CORE_LAB_URL
pointing at it, so that an example can build `openai.OpenAI()` unchanged. The lab's script is
reset to `{}` (every request answered `ok`) before each block; a block that wants faults loads
its own through RETRY_CORE_LAB_URL.

A block that defines `test_` functions runs under pytest (its tests must pass). A block preceded
by the line `<!-- no-run: <reason> -->` is skipped with that reason, and pytest
lists each skip (`-rs`). The policy-key table of python-ext/README.md is checked against the
keys the core accepts and reports, and its preset list against `retry_core.PRESETS`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, NamedTuple, Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAB_BIN = Path(os.environ.get("RETRY_LAB", ROOT / "target" / "debug" / "retry-lab"))
sys.path.insert(0, str(ROOT / "lab"))
from retry_lab import LabProcess  # noqa: E402  (the lab's own driver)
TIMEOUT_S = 60
NO_RUN = re.compile(r"^<!--\s*no-run:\s*(?P<reason>.*?)\s*-->$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<info>[^`]*)$")


class Block(NamedTuple):
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    skip: Optional[str]  # the no-run reason, if any

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def fenced_blocks(path: Path) -> Iterator[Block]:
    """The fenced blocks of a Markdown file, with the no-run marker on the line before each
    (blank lines between the marker and the fence are allowed)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    last_text: Optional[str] = None
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if lines[i].strip():
                last_text = lines[i].strip()
            i += 1
            continue
        fence, indent = m.group("fence"), len(m.group("indent"))
        lang = (m.group("info").split() or [""])[0].split(",")[0]
        start = i
        body: List[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        i += 1
        marker = NO_RUN.match(last_text or "")
        skip = marker.group("reason") if marker else None
        yield Block(path, start + 1, lang, "\n".join(body) + "\n", skip)
        last_text = None


def doc_files(*patterns: str) -> List[Path]:
    out: List[Path] = []
    for p in patterns:
        out.extend(sorted(ROOT.glob(p)))
    return out


DOCS = doc_files("README.md", "python-ext/README.md", "python-ext/docs/*.md")
BLOCKS = [b for f in DOCS for b in fenced_blocks(f) if b.lang == "python"]


class Lab(LabProcess):
    """The fault lab on a free loopback port (lab/retry_lab.py); a failed start fails the test."""

    def __init__(self) -> None:
        try:
            super().__init__(LAB_BIN)
        except RuntimeError as e:
            pytest.fail(str(e))


@pytest.fixture(scope="module")
def lab() -> Iterator[Lab]:
    lab = Lab()
    yield lab
    lab.stop()


def example_env(lab: Lab) -> Dict[str, str]:
    env = dict(os.environ)
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        env.pop(k, None)
    env.update({
        "OPENAI_BASE_URL": lab.url + "/v1",
        "OPENAI_API_KEY": "sk-readme-example-0000aaaa",
        "ANTHROPIC_BASE_URL": lab.url,
        "ANTHROPIC_API_KEY": "sk-ant-readme-example-0000bbbb",
        "RETRY_CORE_LAB_URL": lab.url,
        "NO_PROXY": "127.0.0.1,localhost",
        "PYTHONDONTWRITEBYTECODE": "1",
    })
    return env


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_the_example_runs(block: Block, lab: Lab, tmp_path: Path) -> None:
    if block.skip is not None:
        pytest.skip(f"no-run: {block.skip}")
    lab.script({})
    # A block that defines pytest tests (a guide to testing your code) runs under pytest, so
    # that its tests run rather than only their definitions.
    as_tests = re.search(r"^(async )?def test_", block.code, re.M) is not None
    script = tmp_path / ("test_example.py" if as_tests else "example.py")
    script.write_text(block.code, encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(script)] if as_tests \
        else [sys.executable, str(script)]
    try:
        done = subprocess.run(command, cwd=tmp_path, env=example_env(lab),
                              capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired as e:
        said = b"".join(x if isinstance(x, bytes) else (x or "").encode() for x in (e.stdout, e.stderr))
        pytest.fail(f"{block.id} ran past {TIMEOUT_S} s:\n{said.decode(errors='replace')}")
    assert done.returncode == 0, f"{block.id} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}\n--- the block:\n{block.code}"


def test_every_skip_says_why() -> None:
    for f in DOCS:
        for b in fenced_blocks(f):
            if b.skip is not None:
                assert b.skip.strip(), f"{b.id}: a no-run marker needs a reason"
            # A marker that matches nothing (a typo such as `no run`) would silently run.
        text = f.read_text(encoding="utf-8")
        for m in re.finditer(r"<!--\s*no[ _]?run\b[^>]*-->", text):
            assert NO_RUN.match(m.group(0)), f"{f}: malformed marker {m.group(0)!r}"


def test_the_python_readme_has_runnable_examples() -> None:
    """The runner cannot pass by finding nothing: the package README opens with runnable code."""
    runnable = [b for b in BLOCKS if b.path == ROOT / "python-ext" / "README.md" and b.skip is None]
    assert len(runnable) >= 3, [b.id for b in runnable]


def test_a_block_of_pytest_tests_runs_its_tests(lab: Lab, tmp_path: Path) -> None:
    """A guide's pytest example is run as tests: a failing assertion in it fails the runner."""
    md = tmp_path / "guide.md"
    md.write_text("```python\ndef test_it():\n    assert 1 == 2\n```\n", encoding="utf-8")
    (block,) = fenced_blocks(md)
    with pytest.raises(AssertionError, match="1 failed"):
        test_the_example_runs(block._replace(path=ROOT / "guide.md"), lab, tmp_path)


def test_the_block_parser_reads_markers_and_fences(tmp_path: Path) -> None:
    md = tmp_path / "x.md"
    md.write_text("text\n\n<!-- no-run: needs a key -->\n\n```python\nprint(1)\n```\n\n"
                  "```python\nprint(2)\n```\n  ```ruby\n  puts 3\n  ```\n", encoding="utf-8")
    got = [(b.lang, b.code, b.skip) for b in fenced_blocks(md)]
    assert got == [("python", "print(1)\n", "needs a key"), ("python", "print(2)\n", None),
                   ("ruby", "puts 3\n", None)]


# --- the policy keys and presets the README documents ------------------------------------------

PY_README = ROOT / "python-ext" / "README.md"


def readme_table(heading: str) -> List[List[str]]:
    """The rows (cells stripped of backticks) of the first table after `heading`."""
    lines = PY_README.read_text(encoding="utf-8").splitlines()
    at = next(i for i, l in enumerate(lines) if l.strip().lstrip("#").strip() == heading)
    rows: List[List[str]] = []
    for l in lines[at + 1:]:
        if l.startswith("|"):
            cells = [c.strip().strip("`") for c in l.strip().strip("|").split("|")]
            if not set("".join(cells)) <= set("-: "):
                rows.append(cells)
        elif rows:
            break
    return rows[1:]  # without the header


def test_the_policy_key_table_is_the_cores() -> None:
    import retry_core

    rows = readme_table("Policy keys")
    documented = {r[0]: r for r in rows}
    # Every field the core reports is documented, and nothing else but the two inputs that are
    # not fields (`preset` picks the start, `max_retries` is counted the preset's way).
    reported = set(retry_core.RetryPolicy("default").to_config()) - {"name"}
    assert set(documented) == reported | {"preset", "max_retries"}
    # The default the table gives is the `default` preset's, where it is a plain value.
    config = retry_core.RetryPolicy("default").to_config()
    for key, row in documented.items():
        if key in config and not isinstance(config[key], (dict, list)):
            shown = row[1]
            value = config[key]
            want = "null" if value is None else json.dumps(value).strip('"')
            assert shown == want, f"{key}: the README says {shown!r}, the core {want!r}"
    # Each documented key is accepted by the core; a key it does not know is refused.
    for key in documented:
        if key in ("preset", "max_retries", "max_attempts"):
            continue
        retry_core.RetryPolicy.from_config({key: config[key]})
    with pytest.raises(ValueError):
        retry_core.RetryPolicy.from_config({"max_retry": 3})


def test_the_preset_table_is_the_cores() -> None:
    import retry_core

    rows = readme_table("Presets")
    assert [r[0] for r in rows] == list(retry_core.PRESETS)
    for name, calls, *_ in rows:
        assert calls == str(retry_core.RetryPolicy(name).max_attempts), name
