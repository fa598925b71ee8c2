"""Which C library the compiled shim client is built with (issue 38's speed line): musl where the
machine has ``musl-gcc`` (its static programs start without glibc's CPU probing, a trap to the
hypervisor on a VM), else ``cc``; ``$CC`` when the person set it. Each build here is real, into a
folder of its own, and the built client is started."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from compat_adapter.port.fastclient import build_client

#: Words only glibc's static C library carries (its fatal-error texts); musl's has none of them.
GLIBC_MARK = b"glibc"


def _started(client: Path) -> subprocess.CompletedProcess[str]:
    """The client started with arguments it refuses: it runs, says how it is used, exits 2."""
    return subprocess.run([str(client)], capture_output=True, text=True, timeout=30)


def _usage_said(done: subprocess.CompletedProcess[str]) -> bool:
    return done.returncode == 2 and "usage:" in done.stderr


def test_the_client_is_built_with_musl_where_the_machine_has_it(
        tmp_path: Path, toolchain: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CC", raising=False)
    assert shutil.which("musl-gcc"), "musl-gcc is missing: scripts/toolchain_lane.sh installs musl-tools"
    client = build_client(tmp_path / "bin")
    assert GLIBC_MARK not in client.read_bytes()
    assert _usage_said(_started(client))


def test_a_musl_build_that_fails_falls_back_to_cc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A musl-gcc that cannot build (a broken install): the client is still built, by cc, and runs.
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "musl-gcc").write_text("#!/bin/sh\necho 'musl-gcc: broken' >&2\nexit 1\n")
    (broken / "musl-gcc").chmod(0o755)
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", f"{broken}{os.pathsep}{os.environ['PATH']}")
    client = build_client(tmp_path / "bin")
    assert GLIBC_MARK in client.read_bytes()
    assert _usage_said(_started(client))


def test_cc_set_by_the_person_is_the_one_used(tmp_path: Path, toolchain: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    assert shutil.which("musl-gcc"), "musl-gcc is missing: scripts/toolchain_lane.sh installs musl-tools"
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc is not None
    monkeypatch.setenv("CC", cc)
    client = build_client(tmp_path / "bin")
    assert GLIBC_MARK in client.read_bytes()
    assert _usage_said(_started(client))


def test_a_cc_that_cannot_build_is_a_clear_error_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compat_adapter.errors import BadArgument

    bad = tmp_path / "bad-cc"
    bad.write_text("#!/bin/sh\necho 'bad-cc: cannot' >&2\nexit 3\n")
    bad.chmod(0o755)
    monkeypatch.setenv("CC", str(bad))
    with pytest.raises(BadArgument) as raised:
        build_client(tmp_path / "bin")
    assert f"{bad} exited 3" in str(raised.value) and "bad-cc: cannot" in str(raised.value)
    assert not list((tmp_path / "bin").glob("*"))
