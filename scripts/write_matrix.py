"""Rewrite the generated support-matrix block in README.md from the code.

    python scripts/write_matrix.py [--check]

With --check it rewrites nothing and exits 1 when the block has drifted.
"""

from __future__ import annotations

import sys
from pathlib import Path

from compat_adapter.matrix import build_matrix, to_markdown

BEGIN = "<!-- matrix:begin -->"
END = "<!-- matrix:end -->"
README = Path(__file__).resolve().parents[1] / "README.md"


def render(text: str) -> str:
    head, sep, rest = text.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise SystemExit(f"README.md lacks the {BEGIN} … {END} markers")
    return f"{head}{BEGIN}\n{to_markdown(build_matrix())}{END}{tail}"


def main(argv: list[str]) -> int:
    current = README.read_text(encoding="utf-8")
    wanted = render(current)
    if "--check" in argv:
        if wanted != current:
            print("README.md matrix block is out of date: run python scripts/write_matrix.py")
            return 1
        return 0
    README.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
