"""Rewrite the generated support-matrix block in README.md from the code.

    python scripts/write_matrix.py [--check]

With --check it rewrites nothing and exits 1 when the block has drifted.
"""

from __future__ import annotations

import sys
from pathlib import Path

from compat_adapter.host.surfaces import SURFACES
from compat_adapter.matrix import build_matrix, host_differences, to_markdown

BEGIN = "<!-- matrix:begin -->"
END = "<!-- matrix:end -->"
HOSTS_BEGIN = "<!-- hosts:begin -->"
HOSTS_END = "<!-- hosts:end -->"
README = Path(__file__).resolve().parents[1] / "README.md"


def _replace(text: str, begin: str, end: str, body: str) -> str:
    head, sep, rest = text.partition(begin)
    _, sep2, tail = rest.partition(end)
    if not sep or not sep2:
        raise SystemExit(f"README.md lacks the {begin} … {end} markers")
    return f"{head}{begin}\n{body}{end}{tail}"


def render(text: str) -> str:
    text = _replace(text, BEGIN, END, to_markdown(build_matrix()))
    hosts = host_differences(build_matrix(SURFACES["embedded"]), build_matrix(SURFACES["dsh"]))
    return _replace(text, HOSTS_BEGIN, HOSTS_END, hosts)


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
