"""The server's connections, bounded: uvicorn's HTTP protocol with what uvicorn itself lacks.

uvicorn closes a connection left idle between requests (``timeout_keep_alive``) and answers a
plain-text 503 once ``limit_concurrency`` connections are open, but it waits for a request's head
for ever: 110 connections each holding half a request head made nearly every ordinary request
fail. :class:`BoundedH11Protocol` instead

- closes a connection whose request head has not fully arrived :data:`HEAD_TIMEOUT_S` seconds
  after it started;
- keeps at most :data:`MAX_CONNECTIONS` open, and a client (an address) at most
  :data:`CLIENT_SHARE` of them: when a new connection goes past either, the oldest connection
  that is only waiting for a request head (part of one, or the next on a kept-alive connection)
  is closed to make room, that client's own first; it has nothing in progress to lose, and the
  new connection, whose request is about to come, is served;
- answers a JSON 503 (``{"error": ...}``, ``Retry-After``) on a new connection only when every
  open one has a request in progress, and closes it.

Each of these is one line of the server's log at most. The request body has its own deadline
(:data:`~monster_zoo.web.refusals.BODY_TIMEOUT_S`, a 408 from the app).
"""

import asyncio
import itertools
import json
import logging

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEAD_TIMEOUT_S = 10.0
MAX_CONNECTIONS = 100
CLIENT_SHARE = 0.5  # of MAX_CONNECTIONS, for one client address
RETRY_AFTER_S = 1
LOG = logging.getLogger("monster_zoo.web")
_OPENED = itertools.count()  # the order connections were opened in


def busy_answer(message: str) -> bytes:
    """A whole HTTP/1.1 503 response with the JSON body ``{"error": message}``, closing the connection."""
    body = json.dumps({"error": message}).encode("utf-8")
    head = (
        "HTTP/1.1 503 Service Unavailable\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        f"retry-after: {RETRY_AFTER_S}\r\n"
        "cache-control: no-store\r\n"
        "x-content-type-options: nosniff\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's head and a cap on connections,
    overall and per client (``head_timeout_s``, ``max_connections`` and ``client_share`` as class
    attributes, for tests to lower)."""

    head_timeout_s = HEAD_TIMEOUT_S
    max_connections = MAX_CONNECTIONS
    client_share = CLIENT_SHARE

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._head_deadline: asyncio.TimerHandle | None = None
        self._opened = next(_OPENED)
        super().connection_made(transport)
        if not self._make_room():
            LOG.warning(
                "monster-zoo serve: %d connections open, each with a request in progress; answered 503",
                len(self.connections) - 1,
            )
            transport.write(busy_answer("the server is busy with other requests; try again in a moment"))
            transport.close()
            return
        self._wait_for_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self._wait_for_head()  # part of a head (or of the next one) came: its deadline runs
        else:
            self._head_arrived()

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_arrived()
        super().connection_lost(exc)

    @property
    def waiting_for_head(self) -> bool:
        """Whether this connection has no request in progress: its next request's head (or part
        of it) is all it may have sent."""
        return self.conn.their_state is h11.IDLE and not self.transport.is_closing()

    def _make_room(self) -> bool:
        """Close the oldest connections waiting for a head until this client holds its share at
        most and the server its cap; False when none can be closed."""
        share = max(1, int(self.max_connections * self.client_share))
        address = self.client[0] if self.client else None
        for mine_only, most in ((True, share), (False, self.max_connections)):
            while True:
                open_now = [
                    c
                    for c in self.connections
                    if not c.transport.is_closing()
                    and (not mine_only or (c.client[0] if c.client else None) == address)
                ]
                if len(open_now) <= most:
                    break
                idle = [c for c in open_now if c is not self and c.waiting_for_head]
                if not idle:
                    return False
                oldest = min(idle, key=lambda c: c._opened)
                LOG.debug("monster-zoo serve: closed the oldest connection waiting for a request head")
                oldest._head_arrived()
                oldest.transport.close()
        return True

    def _wait_for_head(self) -> None:
        if self._head_deadline is None:
            self._head_deadline = self.loop.call_later(self.head_timeout_s, self._head_late)

    def _head_arrived(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_late(self) -> None:
        self._head_deadline = None
        if self.waiting_for_head:
            LOG.warning(
                "monster-zoo serve: closed a connection whose request head did not arrive within %g s",
                self.head_timeout_s,
            )
            self.transport.close()
