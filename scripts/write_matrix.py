"""Write the generated documentation from the code: the README's summary block and docs/.

    python scripts/write_matrix.py [--check]

It writes the summary matrix between the README markers, the full support matrix to
docs/support-matrix.md and the per-host differences to docs/host-differences.md. With --check it
writes nothing and exits 1 when any of them has drifted from what the code grades.
"""

from __future__ import annotations

import sys
from pathlib import Path

from compat_adapter.host.surfaces import SURFACES
from compat_adapter.matrix import build_matrix
from compat_adapter.matrixdoc import host_differences, summary_markdown, to_markdown

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
SUPPORT_MATRIX = ROOT / "docs" / "support-matrix.md"
HOST_DIFFERENCES = ROOT / "docs" / "host-differences.md"
BEGIN = "<!-- matrix:begin -->"
END = "<!-- matrix:end -->"


def _replace(text: str, body: str) -> str:
    head, sep, rest = text.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise SystemExit(f"README.md lacks the {BEGIN} … {END} markers")
    return f"{head}{BEGIN}\n{body}{END}{tail}"


def support_matrix() -> str:
    return ("# Support matrix\n\nEvery vendor row graded on the default host, with each loss in full. "
            "The README's summary and `compat-adapter matrix` come from the same data.\n\n"
            + to_markdown(build_matrix()))


def host_page() -> str:
    embedded, dsh = SURFACES["embedded"], SURFACES["dsh"]
    return (
        "# Per-host differences\n\n"
        f"The same vendor tables, grader and routes run on two hosts: the embedded host (a Python "
        f"model of the DeepSeek Harness {embedded.version} seams, the default) and the real DeepSeek "
        f"Harness {dsh.version} from npm, reached through `compat-adapter serve --stdio` and a thin "
        "Cordis plugin (`bash scripts/dsh_lane.sh` installs it into `.cache/dsh/`). A row the real "
        "host cannot serve is refused through its surface, with the reason.\n\n"
        + host_differences(build_matrix(embedded), build_matrix(dsh))
    )


def wanted() -> dict[Path, str]:
    """Each generated file with the text the code gives it now."""
    return {
        README: _replace(README.read_text(encoding="utf-8"), summary_markdown(build_matrix())),
        SUPPORT_MATRIX: support_matrix(),
        HOST_DIFFERENCES: host_page(),
    }


def main(argv: list[str]) -> int:
    files = wanted()
    if "--check" in argv:
        stale = [path.relative_to(ROOT) for path, text in files.items()
                 if not path.exists() or path.read_text(encoding="utf-8") != text]
        for path in stale:
            print(f"{path} is out of date: run python scripts/write_matrix.py")
        return 1 if stale else 0
    for path, text in files.items():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
