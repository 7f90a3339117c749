"""Fails when a crate's top-level modules depend on one another in a cycle (issue 21: the module
graphs of core, python-ext and ruby-ext have no cycles).

A module is a top-level file or folder of `src/` (`classify/` and everything under it is
`classify`); it depends on every `crate::<module>` its code names outside comments and
`#[cfg(test)]` modules. Run by `make test-rust`:

    python3 scripts/module_cycles.py core/src python-ext/src ruby-ext/src
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def graph(src: Path) -> dict[str, set[str]]:
    deps: dict[str, set[str]] = {}
    for path in src.rglob("*.rs"):
        top = path.relative_to(src).parts[0].removesuffix(".rs")
        if top in ("lib", "main"):
            continue
        code = path.read_text(encoding="utf-8").split("#[cfg(test)]")[0]
        code = "\n".join(line for line in code.splitlines() if not line.strip().startswith("//"))
        deps.setdefault(top, set()).update(m for m in re.findall(r"crate::(\w+)", code) if m != top)
    return deps


def cycles(deps: dict[str, set[str]]) -> list[tuple[str, str]]:
    def reaches(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in deps.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    return sorted({tuple(sorted((a, b))) for a in deps for b in deps[a] if b in deps and a in reaches(b)})


def main() -> int:
    failed = False
    for src in sys.argv[1:]:
        found = cycles(graph(Path(src)))
        print(f"{src}: {'no cycle' if not found else 'cycles ' + ', '.join(f'{a} <-> {b}' for a, b in found)}")
        failed |= bool(found)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
