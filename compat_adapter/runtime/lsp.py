"""Language-server queries as a host service: a pygls client talking to a real server over stdio.

``async with LspService(root) as lsp:`` — the server (jedi-language-server by default) starts on
the first :meth:`LspService.query`, is initialized with ``root`` as its only workspace folder, and
is shut down when the service is left: ``didClose`` for open documents, ``shutdown`` + ``exit``,
then (within a bound, or at once if it already left) SIGKILL to its process group, which also
takes helpers it spawned. :attr:`LspService.exit_code` tells a clean exit (0) from a kill.

Each query syncs the file first: ``didOpen`` with its current text the first time, then
``didChange`` (whole text) + ``didSave`` whenever the text on disk differs from what the server
has. Positions are zero-based LSP positions (``line``, ``character`` in UTF-16 units).

Results are :class:`~compat_adapter.host.protocol.LspResult`:

* ``hover`` → ``kind="hover"``, ``data`` the hover text (markdown or plain, parts joined by a
  blank line) or ``None`` when the server has nothing there;
* ``goToDefinition`` / ``findReferences`` → ``kind="locations"``, ``data`` a tuple of
  ``{"uri", "range": {"start": {"line", "character"}, "end": {…}}}`` (references include the
  declaration);
* ``diagnostics`` → ``kind="diagnostics"``, ``data`` a tuple of ``{"message", "line",
  "severity"}`` (severity ``"error" | "warning" | "information" | "hint"`` or ``None``), taken from
  the server's ``publishDiagnostics`` for the file's current version (jedi-language-server
  publishes about one second after ``didOpen`` / ``didChange`` / ``didSave``).

Failures are not wrapped: a query (server start included) that takes longer than ``timeout_s``
raises the builtin ``TimeoutError``; a missing file raises ``FileNotFoundError``; a missing server
executable raises ``FileNotFoundError`` from the spawn; a server that dies mid-request raises
pygls' ``RuntimeError`` (the next query starts a fresh server). An operation this service does not
offer raises :class:`~compat_adapter.errors.HostSurfaceMismatch` before anything starts.

pygls and lsprotocol are imported inside the methods that use them (``import compat_adapter``
stays cheap); pygls is asyncio-only, so this service needs anyio's asyncio backend.
"""

from __future__ import annotations

import collections
import os
import shutil
import signal
import sys
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio

from compat_adapter.errors import HostSurfaceMismatch
from compat_adapter.host.protocol import LspResult

if TYPE_CHECKING:
    import asyncio

    from anyio.abc import TaskGroup
    from pygls.lsp.client import LanguageClient

__all__ = ("LSP_OPERATIONS", "LspService", "resolve_command")

#: The operations :meth:`LspService.query` answers (Claude Code's LSP tool spells them so).
LSP_OPERATIONS: tuple[str, ...] = ("hover", "goToDefinition", "findReferences", "diagnostics")

_LANGUAGE_IDS = {".py": "python", ".pyi": "python"}
_SEVERITIES = {1: "error", 2: "warning", 3: "information", 4: "hint"}
#: How long a polite shutdown may take before the server's process group is killed.
_SHUTDOWN_GRACE_S = 5.0
#: How much of the server's stderr is kept for :attr:`LspService.stderr_tail`.
_STDERR_TAIL_BYTES = 8192


def resolve_command(command: Sequence[str]) -> tuple[str, ...]:
    """Find a bare executable name next to this interpreter first (the venv's ``bin``), then on
    ``PATH``; anything else is returned as given."""
    executable, *args = command
    if os.sep not in executable:
        beside = Path(sys.executable).parent / executable
        if beside.is_file() and os.access(beside, os.X_OK):
            executable = str(beside)
        else:
            executable = shutil.which(executable) or executable
    return (executable, *args)


@dataclass(frozen=True, slots=True)
class _Document:
    version: int
    text: str
    #: How many publications for this uri had arrived when this version was sent; a server that
    #: publishes without a version is fresh only with a publication after that.
    seen_at_sync: int


@dataclass(frozen=True, slots=True)
class _Publication:
    version: int | None
    serial: int
    items: tuple[dict[str, Any], ...]


class LspService:
    """A lazily started language server for one workspace root; see the module docstring."""

    def __init__(self, root: Path, command: Sequence[str] = ("jedi-language-server",),
                 timeout_s: float = 20.0) -> None:
        self._root = Path(root).resolve()
        self._command = tuple(command)
        self._timeout_s = timeout_s
        self._task_group: TaskGroup | None = None
        self._lock = anyio.Lock()
        self._client: LanguageClient | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._documents: dict[str, _Document] = {}
        self._published: dict[str, _Publication] = {}
        self._publication = anyio.Event()
        self._stderr: collections.deque[bytes] = collections.deque()
        self._stderr_size = 0
        self._exit_code: int | None = None

    @property
    def pid(self) -> int | None:
        """The server's process id (also its process group id) while one runs."""
        return self._process.pid if self._process is not None else None

    @property
    def exit_code(self) -> int | None:
        """How the last stopped server ended: 0 after a clean ``shutdown`` + ``exit``, negative
        for a signal (``-9`` when it had to be killed), ``None`` if none has stopped yet."""
        return self._exit_code

    @property
    def stderr_tail(self) -> str:
        """The last few KiB the server wrote to stderr (for operator logs)."""
        return b"".join(self._stderr).decode("utf-8", errors="replace")

    async def __aenter__(self) -> LspService:
        task_group = anyio.create_task_group()
        await task_group.__aenter__()
        self._task_group = task_group
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        task_group, self._task_group = self._task_group, None
        assert task_group is not None
        try:
            with anyio.CancelScope(shield=True):
                await self._stop()
        finally:
            # Our own tasks are done or expendable by now. The body's exception is not handed to
            # the task group, so it propagates as itself instead of inside an ExceptionGroup.
            task_group.cancel_scope.cancel()
            await task_group.__aexit__(None, None, None)
        return None

    async def query(self, operation: str, file_path: Path, line: int = 0,
                    character: int = 0) -> LspResult:
        """Answer one LSP ``operation`` on ``file_path`` (absolute, or relative to the root)."""
        if operation not in LSP_OPERATIONS:
            raise HostSurfaceMismatch(f"the lsp service does not offer {operation!r}",
                                      operation=operation, offered=", ".join(LSP_OPERATIONS))
        if self._task_group is None:
            raise anyio.ClosedResourceError
        from lsprotocol import types

        path = (self._root / file_path).resolve()
        uri = path.as_uri()
        text = await anyio.Path(path).read_text(encoding="utf-8", errors="replace")
        with anyio.fail_after(self._timeout_s):
            async with self._lock:
                client = await self._started()
                document = self._sync(client, path, uri, text)
            document_id = types.TextDocumentIdentifier(uri=uri)
            position = types.Position(line=line, character=character)
            if operation == "hover":
                hover = await client.text_document_hover_async(
                    types.HoverParams(text_document=document_id, position=position))
                return LspResult(kind="hover", data=_hover_text(hover))
            if operation == "goToDefinition":
                found = await client.text_document_definition_async(
                    types.DefinitionParams(text_document=document_id, position=position))
                return LspResult(kind="locations", data=_locations(found))
            if operation == "findReferences":
                found = await client.text_document_references_async(types.ReferenceParams(
                    text_document=document_id, position=position,
                    context=types.ReferenceContext(include_declaration=True)))
                return LspResult(kind="locations", data=_locations(found))
            return LspResult(kind="diagnostics", data=await self._diagnostics(uri, document))

    # ── server lifecycle ──

    async def _started(self) -> LanguageClient:
        if self._client is not None and self._process is not None:
            if self._process.returncode is None:
                return self._client
            await self._stop()  # it died: start afresh, every document reopened
        try:
            return await self._start()
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self._stop()
            raise

    async def _start(self) -> LanguageClient:
        from lsprotocol import types
        from pygls.lsp.client import LanguageClient

        assert self._task_group is not None
        client = LanguageClient("compat-adapter", "0.1")
        service = self

        # pygls sets attributes on the handler, so it must be a plain function, not a method.
        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            service._on_diagnostics(params)

        executable, *args = resolve_command(self._command)
        # Own session: the kill fallback takes the server's whole process group.
        await client.start_io(executable, *args, cwd=str(self._root), start_new_session=True)
        self._client, self._process = client, client._server
        assert self._process is not None and self._process.stderr is not None
        # pygls pipes the server's stderr but never reads it; a chatty server would fill the
        # pipe and hang, and stop() would then never see EOF.
        self._task_group.start_soon(self._drain, self._process.stderr)
        root_uri = self._root.as_uri()
        await client.initialize_async(types.InitializeParams(
            process_id=os.getpid(), root_uri=root_uri, root_path=str(self._root),
            client_info=types.ClientInfo(name="compat-adapter"),
            workspace_folders=[types.WorkspaceFolder(uri=root_uri, name=self._root.name)],
            capabilities=types.ClientCapabilities(
                text_document=types.TextDocumentClientCapabilities(
                    synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
                    hover=types.HoverClientCapabilities(
                        content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]),
                    definition=types.DefinitionClientCapabilities(link_support=False),
                    references=types.ReferenceClientCapabilities(),
                    publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                        version_support=True)))))
        client.initialized(types.InitializedParams())
        return client

    async def _stop(self) -> None:
        from lsprotocol import types

        client, process = self._client, self._process
        open_uris = tuple(self._documents)
        self._client = self._process = None
        self._documents.clear()
        self._published.clear()
        if client is None or process is None:
            return
        with anyio.move_on_after(_SHUTDOWN_GRACE_S):
            if process.returncode is None:
                with suppress(Exception):
                    # Closing the documents first makes jedi-language-server drop its pending
                    # (debounced) diagnostics runs, which would otherwise delay its exit by
                    # seconds while it spawns an inference subprocess.
                    for uri in open_uris:
                        client.text_document_did_close(types.DidCloseTextDocumentParams(
                            text_document=types.TextDocumentIdentifier(uri=uri)))
                    await client.shutdown_async(None)
                    client.exit(None)
            await client.stop()  # waits for the process to exit, then for pygls' reader tasks
        # Right away, whether the leader left politely or not: a server ignoring `exit` (or hung)
        # dies here, and so do helpers it leaves behind (jedi's inference subprocess). Done at
        # once, so the group id cannot have been recycled in between.
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        if process.returncode is None:
            with anyio.move_on_after(_SHUTDOWN_GRACE_S):
                await client.stop()
        self._exit_code = process.returncode

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65536):
            self._stderr.append(chunk)
            self._stderr_size += len(chunk)
            while self._stderr_size > _STDERR_TAIL_BYTES and len(self._stderr) > 1:
                self._stderr_size -= len(self._stderr.popleft())

    # ── documents and diagnostics ──

    def _sync(self, client: LanguageClient, path: Path, uri: str, text: str) -> _Document:
        from lsprotocol import types

        document = self._documents.get(uri)
        seen = self._published[uri].serial if uri in self._published else 0
        if document is None:
            document = _Document(version=1, text=text, seen_at_sync=seen)
            client.text_document_did_open(types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=_LANGUAGE_IDS.get(path.suffix, "plaintext"),
                    version=document.version, text=text)))
        elif document.text != text:
            document = _Document(version=document.version + 1, text=text, seen_at_sync=seen)
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=document.version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
            client.text_document_did_save(types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=uri)))
        self._documents[uri] = document
        return document

    def _on_diagnostics(self, params: Any) -> None:
        previous = self._published.get(params.uri)
        self._published[params.uri] = _Publication(
            version=params.version, serial=(previous.serial if previous else 0) + 1,
            items=tuple({"message": item.message, "line": item.range.start.line,
                         "severity": _SEVERITIES.get(item.severity) if item.severity else None}
                        for item in params.diagnostics))
        # Wake every waiter, then arm a fresh event for the next publication.
        self._publication.set()
        self._publication = anyio.Event()

    async def _diagnostics(self, uri: str, document: _Document) -> tuple[dict[str, Any], ...]:
        while True:
            published = self._published.get(uri)
            if published is not None and (
                    published.version >= document.version if published.version is not None
                    else published.serial > document.seen_at_sync):
                return published.items
            await self._publication.wait()


def _hover_text(hover: Any) -> str | None:
    if hover is None:
        return None
    contents = hover.contents
    parts = contents if isinstance(contents, list) else [contents]
    return "\n\n".join(part if isinstance(part, str) else part.value for part in parts)


def _locations(found: Any) -> tuple[dict[str, Any], ...]:
    from lsprotocol import types

    if found is None:
        return ()
    items = found if isinstance(found, (list, tuple)) else (found,)
    result = []
    for item in items:
        if isinstance(item, types.LocationLink):
            uri, span = item.target_uri, item.target_selection_range
        else:
            uri, span = item.uri, item.range
        result.append({"uri": uri, "range": {
            "start": {"line": span.start.line, "character": span.start.character},
            "end": {"line": span.end.line, "character": span.end.character}}})
    return tuple(result)
