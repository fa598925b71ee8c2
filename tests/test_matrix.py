"""The support matrix: the reference figures, JSON/Markdown from one source, and no README drift."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

from compat_adapter.catalog import resolve_vendor, vendors
from compat_adapter.cli import main
from compat_adapter.host.surfaces import EMBEDDED_SURFACE, SURFACES
from compat_adapter.matrix import build_matrix, to_json
from compat_adapter.matrixdoc import host_differences, summary_markdown, to_markdown
from compat_adapter.model import Capability, DegradationCode, Route

ROOT = Path(__file__).resolve().parents[1]


def test_reference_figures() -> None:
    """The totals are what the registered tables make them; the figures themselves are pinned once,
    in the generated docs/support-matrix.md (drift-checked below), not here."""
    m = build_matrix()
    t = m.totals
    specs = vendors()
    rows = [(spec, row) for spec in specs for row in spec.events]
    assert t.events == len(rows) == len(m.hooks)
    assert {c.vendor: c.events for c in m.counts} == {s.id: len(s.events) for s in specs}
    # Fidelity first: the rows the host's official bridge carries are translated natively by default ...
    routes = Counter(str(row.route) for _, row in rows)
    assert {k: v for k, v in t.routes.items() if v} == routes and not t.routes["official-bridge"]
    # ... and prefer="official" takes the official bridge for every row that has it.
    official = Counter(str((row.official or row).route) for _, row in rows)
    assert {k: v for k, v in build_matrix(prefer="official").totals.routes.items() if v} == official
    assert official["official-bridge"] == sum(row.official is not None for _, row in rows) > 0
    assert t.direct == 0 and t.unsupported == 0 and t.adapted == len(rows)
    assert t.approximate == sum(any(d.code is DegradationCode.APPROXIMATE for d in s.losses_for(r)) for s, r in rows)
    assert all(h.degradations for h in m.hooks if h.capability is Capability.ADAPTED)
    assert [r.capability for r in m.rules] == [Capability.CARRY] * len(specs)
    assert [r.capability for r in m.runtimes] == [Capability.UNSUPPORTED] * len(specs)
    assert len(m.native_points) == len({r.point for _, r in rows if r.route is Route.NATIVE_TRANSLATE})
    assert len(m.observation_points) == len({r.point for _, r in rows if r.route is Route.NATIVE_SEAM})


def test_grading_depends_on_the_surface() -> None:
    small = EMBEDDED_SURFACE.without(services=["shell"])
    m = build_matrix(small)
    assert m.totals.unsupported == len(m.hooks) == sum(len(s.events) for s in vendors())
    assert all(r.capability is Capability.CARRY for r in m.rules)


def test_json_and_markdown_come_from_the_same_data(capsys) -> None:
    m = build_matrix(vendor="copilot")
    data = json.loads(to_json(m))
    copilot_rows = len(resolve_vendor("copilot").events)
    assert len(data["hooks"]) == copilot_rows
    md = to_markdown(m)
    for h in m.hooks:
        assert f"`{h.event}`" in md
    assert main(["matrix", "--format", "json", "--vendor", "github-copilot"]) == 0
    assert json.loads(capsys.readouterr().out)["totals"]["events"] == copilot_rows


def test_cli_matrix_json_in_a_real_process() -> None:
    out = subprocess.run([sys.executable, "-m", "compat_adapter.cli", "matrix", "--format", "json"],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    data = json.loads(out.stdout)
    # The same figures the registered tables make (each vendor's rows are pinned in tests/test_vendors.py).
    assert data["totals"]["routes"] == json.loads(to_json(build_matrix()))["totals"]["routes"]
    assert data["totals"]["routes"]["native-translate"] == sum(
        row.route is Route.NATIVE_TRANSLATE for spec in vendors() for row in spec.events)
    # Every event each vendor documents is listed (issue 25): a served one as a row, one that no seam
    # here serves in "unserved", UNSUPPORTED with its reason; each vendor's count says how many.
    counts = {c["vendor"]: c for c in data["counts"]}
    assert list(counts) == [spec.id for spec in vendors()]
    for spec in vendors():
        served = [h["event"] for h in data["hooks"] if h["vendor"] == spec.id]
        unserved = [h for h in data["unserved"] if h["vendor"] == spec.id]
        assert served == [row.event for row in spec.events], spec.id
        assert [h["event"] for h in unserved] == [name for name, _ in spec.unserved], spec.id
        assert all(h["capability"] == "UNSUPPORTED" and why in h["reason"]
                   for h, (_, why) in zip(unserved, spec.unserved, strict=True)), spec.id
        assert (counts[spec.id]["events"], counts[spec.id]["unserved"]) == (len(served), len(unserved))
    assert data["totals"]["unserved"] == len(data["unserved"])


def _write_matrix(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "write_matrix.py"), *args],
                          capture_output=True, text=True, cwd=ROOT)


def test_readme_and_docs_have_not_drifted() -> None:
    out = _write_matrix("--check")
    assert out.returncode == 0, out.stdout + out.stderr
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert summary_markdown(build_matrix()) in readme
    assert to_markdown(build_matrix()) in (ROOT / "docs" / "support-matrix.md").read_text(encoding="utf-8")
    for link in ("docs/support-matrix.md", "docs/host-differences.md"):
        assert f"]({link})" in readme


def test_the_check_sees_a_drifted_file(tmp_path: Path) -> None:
    """--check fails on a doc that no longer matches the code (a copy of the repo's scripts and docs)."""
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "write_matrix.py", repo / "scripts")
    shutil.copytree(ROOT / "docs", repo / "docs")
    shutil.copy(ROOT / "README.md", repo)
    check = [sys.executable, str(repo / "scripts" / "write_matrix.py"), "--check"]
    assert subprocess.run(check, capture_output=True, cwd=repo).returncode == 0
    page = repo / "docs" / "support-matrix.md"
    page.write_text(page.read_text(encoding="utf-8").replace("observe-only", "observes"), encoding="utf-8")
    done = subprocess.run(check, capture_output=True, text=True, cwd=repo)
    assert done.returncode == 1 and "support-matrix.md is out of date" in done.stdout


def test_readme_is_a_front_door() -> None:
    """Small enough to read in two minutes: the full texts live in docs/."""
    readme = (ROOT / "README.md").read_bytes()
    assert len(readme) <= 12 * 1024, len(readme)
    m = build_matrix()
    page = to_markdown(m)
    lines = summary_markdown(m).splitlines()
    for c in m.counts:  # one line per vendor in the README, after the release its rows follow (a
        # vendor no CLI measured says it is read from its docs); every event in the support matrix
        if c.measured_on:
            assert any(line.startswith(f"- **{c.vendor} {c.measured_on}** — ") for line in lines), c.vendor
        else:
            assert c.confidence == "documented", c.vendor
            assert any(line.startswith(f"- **{c.vendor}** — ") and "confidence: documented" in line
                       for line in lines), c.vendor
    for h in m.hooks:  # with no loss sentence in the README
        assert f"| `{h.event}` |" in page, h.event
        for d in h.degradations:
            assert d.text not in readme.decode()


def test_a_matrix_cell_holds_only_the_rows_own_losses() -> None:
    """Each loss a vendor or its bridge shares is written once in the vendor's section, never in a cell."""
    page = (ROOT / "docs" / "support-matrix.md").read_text(encoding="utf-8")
    m = build_matrix()
    for spec in vendors():
        section = page.split(f"\n## {spec.id}\n", 1)[1].split("\n## ", 1)[0]
        head, _, table = section.partition("| event |")
        shared = set(spec.losses)
        if spec.bridge:
            b = spec.bridge
            shared |= {*b.losses, *b.answer_losses, *b.block_losses, *b.tool_losses}
        for d in shared:
            assert head.count(d.text) == 1 and d.text not in table, (spec.id, d.text)
        for h in m.hooks:
            if h.vendor == spec.id:
                row = spec.row(h.event)
                assert row is not None
                for d in row.degradations:
                    assert d.text in table, (spec.id, h.event, d.text)


def test_the_per_host_page_names_every_difference_and_why() -> None:
    embedded, dsh = build_matrix(SURFACES["embedded"]), build_matrix(SURFACES["dsh"])
    block = host_differences(embedded, dsh)
    differing = [h for h, o in zip(embedded.hooks, dsh.hooks, strict=True) if h.capability != o.capability]
    assert differing
    for h in differing:
        assert f"| {h.vendor} | `{h.event}` |" in block
    for o in dsh.hooks:
        if o.capability is Capability.UNSUPPORTED:
            assert o.reason and o.reason in block
    assert block in (ROOT / "docs" / "host-differences.md").read_text(encoding="utf-8")


def _prose(readme: str) -> str:
    """README text a person wrote: without the generated block, code blocks and inline code."""
    text = re.sub(r"<!-- matrix:begin -->.*?<!-- matrix:end -->", " ", readme, flags=re.S)
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    return re.sub(r"`[^`]*`", " ", text)


def test_numbers_in_readme_prose_come_from_the_code(tmp_path: Path) -> None:
    """The figures live in the generated block; each number the prose states is checked here."""
    prose = " ".join(_prose((ROOT / "README.md").read_text(encoding="utf-8")).split())
    python = re.search(r'requires-python = ">=(\d+\.\d+)"', (ROOT / "pyproject.toml").read_text())
    assert python
    settings = tmp_path / "settings.json"  # an http handler is graded UNSUPPORTED, never run
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "http", "url": "http://x"}]}]}}))

    def grade(*args: str) -> int:
        return subprocess.run([sys.executable, "-m", "compat_adapter.cli", "grade", *args],
                              capture_output=True, cwd=ROOT).returncode

    claims = {
        r"Python (\d+\.\d+) or newer": python.group(1),
        r"exits (\d+) when anything is UNSUPPORTED": str(grade("--vendor", "claude", str(settings), "--strict")),
        r"stable error code \(exit (\d+)\)": str(grade("--vendor", "nobody", str(settings))),
    }
    stated = []
    for pattern, value in claims.items():
        found = re.findall(pattern, prose)
        assert found == [value], (pattern, found, value)
        stated += found
    assert sorted(re.findall(r"\d+(?:\.\d+)*", prose)) == sorted(stated)


def test_the_json_is_what_the_standard_encoder_writes_on_every_host() -> None:
    """``to_json`` is pydantic's serializer; byte for byte what ``json.dumps`` writes of the same
    data (two-space indent, text unescaped), so its speed changes no output."""
    for host in ("embedded", "dsh", "dsh-0.2"):
        m = build_matrix(SURFACES[host])
        assert to_json(m) == json.dumps(m.model_dump(mode="json"), indent=2, ensure_ascii=False), host
    one = build_matrix(vendor="copilot")
    assert to_json(one) == json.dumps(one.model_dump(mode="json"), indent=2, ensure_ascii=False)
