"""The size of each binding against the core's, in non-test code lines (issue 21: at most 0.3x).

A code line is a line that is neither blank nor only a comment (`//`, `///`, `//!` in Rust, `#`
in Python and Ruby). Rust `#[cfg(test)] mod ... { }` blocks are test code and not counted.
Counted: the core's `core/src`; Python's `python-ext/src` and `python-ext/python` (`.rs`, `.py`;
the `.pyi` stubs are declarations and shown apart); Ruby's `ruby-ext/src` and
`gems/retry_core/lib` (`.rs`, `.rb`).

    python3 bench/binding_size.py [--files]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def rust_lines(path: Path) -> int:
    n, depth, skip_from, test_attr = 0, 0, None, False
    for line in path.read_text(encoding="utf-8").split("\n"):
        s = line.strip()
        opens, closes = line.count("{"), line.count("}")
        if skip_from is not None:
            depth += opens - closes
            if depth <= skip_from:
                skip_from = None
            continue
        if s.startswith("#[cfg(test)]"):
            test_attr = True
            continue
        if test_attr and s.startswith("mod "):
            test_attr = False
            skip_from = depth
            depth += opens - closes
            if depth <= skip_from:
                skip_from = None
            continue
        test_attr = False
        depth += opens - closes
        if s and not s.startswith("//"):
            n += 1
    return n


def script_lines(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.strip().startswith("#"))


def count(roots: list[str], exts: tuple[str, ...]) -> dict[str, int]:
    out = {}
    for root in roots:
        for dirpath, _, files in os.walk(ROOT / root):
            if "target" in dirpath or "__pycache__" in dirpath:
                continue
            for name in files:
                if name.endswith(exts):
                    p = Path(dirpath) / name
                    out[str(p.relative_to(ROOT))] = rust_lines(p) if name.endswith(".rs") else script_lines(p)
    return out


def main() -> None:
    core = count(["core/src"], (".rs",))
    python = count(["python-ext/src", "python-ext/python"], (".rs", ".py"))
    stubs = count(["python-ext/python"], (".pyi",))
    ruby = count(["ruby-ext/src", "gems/retry_core/lib"], (".rs", ".rb"))
    c = sum(core.values())
    print(f"core      {c:6d} lines")
    for name, files in (("python", python), ("ruby", ruby)):
        n = sum(files.values())
        print(f"{name:9} {n:6d} lines  {n / c:.3f}x the core")
    print(f"(python .pyi stubs: {sum(stubs.values())} lines, not counted)")
    if "--files" in sys.argv:
        for path, n in sorted({**python, **ruby}.items(), key=lambda kv: -kv[1]):
            print(f"  {n:5d} {path}")


if __name__ == "__main__":
    main()
