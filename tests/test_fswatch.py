"""FsWatchService against the real filesystem (inotify through watchfiles): no fakes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from compat_adapter.runtime.fswatch import FsWatchService


class Recorder:
    """Collects callbacks; `wait_for(path)` returns once a callback has named that path."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []
        self._arrived = anyio.Event()

    async def __call__(self, paths: tuple[str, ...]) -> None:
        self.calls.append(paths)
        self._arrived.set()
        self._arrived = anyio.Event()

    def seen(self, path: Path) -> bool:
        return any(str(path) in call for call in self.calls)

    async def wait_for(self, path: Path) -> None:
        with anyio.fail_after(15):
            while not self.seen(path):
                await self._arrived.wait()


async def test_write_right_after_watch_returns_is_reported(tmp_path: Path) -> None:
    recorder = Recorder()
    async with FsWatchService() as fs:
        await fs.watch(tmp_path, recorder, debounce_ms=50)
        target = tmp_path / "hooks.json"
        target.write_text("{}")
        await recorder.wait_for(target)
    assert all(Path(p).is_absolute() for call in recorder.calls for p in call)
    assert recorder.calls[0] == (str(target),)


async def test_write_from_another_process_in_a_subdirectory_is_reported(tmp_path: Path) -> None:
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    recorder = Recorder()
    target = nested / "settings.json"
    async with FsWatchService() as fs:
        await fs.watch(tmp_path, recorder, debounce_ms=50)
        subprocess.run([sys.executable, "-c",
                        "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text('{}')",
                        str(target)], check=True)
        await recorder.wait_for(target)


async def test_a_burst_arrives_as_one_callback(tmp_path: Path) -> None:
    recorder = Recorder()
    burst = [tmp_path / f"f{i}.txt" for i in range(5)]
    sentinel = tmp_path / "sentinel.txt"
    async with FsWatchService() as fs:
        await fs.watch(tmp_path, recorder, debounce_ms=1000)
        for path in burst:
            path.write_text("x")
            # Far apart for watchfiles (it would report each write on its own), well inside
            # our debounce, which is what has to merge them.
            await anyio.sleep(0.1)
        await recorder.wait_for(burst[0])
        # Callbacks are delivered in order, so once a later write is reported every piece of
        # the burst has been reported too: if the burst had been split, a second callback
        # naming one of its files would be in the list by then.
        sentinel.write_text("later")
        await recorder.wait_for(sentinel)
    with_burst = [call for call in recorder.calls if set(call) & {str(p) for p in burst}]
    assert len(with_burst) == 1
    assert {str(p) for p in burst} <= set(with_burst[0])


async def test_closing_stops_callbacks(tmp_path: Path) -> None:
    closed, witness = Recorder(), Recorder()
    async with FsWatchService() as fs:
        close = await fs.watch(tmp_path, closed, debounce_ms=50)
        await fs.watch(tmp_path, witness, debounce_ms=300)
        first = tmp_path / "before.txt"
        first.write_text("1")
        await closed.wait_for(first)
        await close()
        await close()  # idempotent
        after = tmp_path / "after.txt"
        after.write_text("2")
        # The witness watches the same directory with a longer debounce: once it has reported
        # the write, a still-open watcher would have reported it well before.
        await witness.wait_for(after)
    assert not closed.seen(after)
    assert closed.seen(first)


async def test_leaving_the_service_closes_every_watcher(tmp_path: Path) -> None:
    recorder = Recorder()
    with anyio.fail_after(10):  # a hang guard, not a timing assertion
        async with FsWatchService() as fs:
            for name in ("a", "b", "c"):
                (tmp_path / name).mkdir()
                await fs.watch(tmp_path / name, recorder)
    with pytest.raises(anyio.ClosedResourceError):
        await fs.watch(tmp_path, recorder)


async def test_a_failing_callback_does_not_end_the_watcher(tmp_path: Path,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    recorder = Recorder()

    async def flaky(paths: tuple[str, ...]) -> None:
        await recorder(paths)
        if len(recorder.calls) == 1:
            raise ValueError("hook blew up")

    async with FsWatchService() as fs:
        await fs.watch(tmp_path, flaky, debounce_ms=50)
        first, second = tmp_path / "one.txt", tmp_path / "two.txt"
        first.write_text("1")
        await recorder.wait_for(first)
        second.write_text("2")
        await recorder.wait_for(second)
    assert "hook blew up" in caplog.text


async def test_watch_refuses_missing_paths_and_files(tmp_path: Path) -> None:
    recorder = Recorder()
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    async with FsWatchService() as fs:
        with pytest.raises(FileNotFoundError):
            await fs.watch(tmp_path / "missing", recorder)
        with pytest.raises(NotADirectoryError):
            await fs.watch(a_file, recorder)
