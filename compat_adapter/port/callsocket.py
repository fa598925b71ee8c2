"""A ported call's socket, read and written by the warm server itself (non-blocking), waiting on
the event loop only when the bytes are not there yet or the socket is full.

A call's frames are small and mostly already there when they are read: the request is sent whole
before the server looks, the client's reports come in one write each. anyio's socket stream passes
a checkpoint (a whole loop iteration) on every send and receive, whether or not it had to wait:
about eight per call, which on a cold server (calls come tens of milliseconds apart) cost about as
much as the call's own work (measured with py-spy). Here a read or write that can be done at once
is done at once; a wait is :func:`anyio.wait_readable` (or writable), where a cancellation is
delivered as anywhere else.
"""

from __future__ import annotations

import socket

import anyio
import anyio.lowlevel

__all__ = ("CallSocket",)

_CHUNK = 65536


class CallSocket:
    """One accepted call connection (set non-blocking here) and the bytes read ahead of the frame
    being read."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        self.sock = sock
        self.buffer = bytearray()
        #: The caller has half-closed its end: nothing more comes.
        self.ended = False
        #: The last read filled a whole chunk without waiting (more is likely there at once): the
        #: next one yields first, so that a request of many megabytes does not hold the loop for
        #: all of its reading. A frame's read, which drains the socket, owes nothing.
        self.owed = False

    async def _more(self) -> None:
        """At least one more byte in :attr:`buffer`; :class:`anyio.EndOfStream` at the caller's
        half-close."""
        if self.owed:
            self.owed = False
            await anyio.lowlevel.checkpoint()
        while True:
            if self.ended:
                raise anyio.EndOfStream
            try:
                data = self.sock.recv(_CHUNK)
            except BlockingIOError:
                await anyio.wait_readable(self.sock)
                continue
            except OSError as exc:
                raise anyio.BrokenResourceError from exc
            if not data:
                self.ended = True
                raise anyio.EndOfStream
            self.buffer += data
            self.owed = len(data) == _CHUNK
            return

    async def receive_until(self, delimiter: bytes, max_bytes: int) -> bytes:
        """The bytes before the next ``delimiter`` (which is consumed); :class:`anyio.DelimiterNotFound`
        past ``max_bytes`` without it."""
        start = 0
        while (at := self.buffer.find(delimiter, start)) < 0:
            if len(self.buffer) >= max_bytes:
                raise anyio.DelimiterNotFound(max_bytes)
            start = max(0, len(self.buffer) - len(delimiter) + 1)
            await self._more()
        if at > max_bytes:
            raise anyio.DelimiterNotFound(max_bytes)
        found = bytes(self.buffer[:at])
        del self.buffer[:at + len(delimiter)]
        return found

    async def receive_exactly(self, count: int) -> bytes:
        """The next ``count`` bytes; :class:`anyio.IncompleteRead` when the caller ends first."""
        while len(self.buffer) < count:
            try:
                await self._more()
            except anyio.EndOfStream as exc:
                raise anyio.IncompleteRead from exc
        found = bytes(self.buffer[:count])
        del self.buffer[:count]
        return found

    async def receive_rest(self) -> bytes:
        """Every byte up to the caller's half-close."""
        try:
            while True:
                await self._more()
        except anyio.EndOfStream:
            pass
        found = bytes(self.buffer)
        self.buffer.clear()
        return found

    async def send(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[self.sock.send(view):]
            except BlockingIOError:
                await anyio.wait_writable(self.sock)
            except OSError as exc:
                raise anyio.BrokenResourceError from exc

    def close(self) -> None:
        anyio.notify_closing(self.sock)
        self.sock.close()
