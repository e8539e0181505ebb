"""The server's connections, bounded: uvicorn's HTTP protocol with what uvicorn itself lacks.

uvicorn closes a connection left idle between requests (``timeout_keep_alive``) and answers 503
once ``limit_concurrency`` requests run, but it waits for a request's head for ever and accepts
any number of connections: 300 clients sending half a request head each were held indefinitely.
:class:`BoundedH11Protocol` closes a connection whose request head has not fully arrived
:data:`HEAD_TIMEOUT_S` seconds after it started, and one opened while :data:`MAX_CONNECTIONS`
are open; each in one line of the server's log. The request body has its own deadline
(:data:`~monster_zoo.web.refusals.BODY_TIMEOUT_S`, a 408 from the app).
"""

import asyncio
import logging

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEAD_TIMEOUT_S = 10.0
MAX_CONNECTIONS = 100
LOG = logging.getLogger("monster_zoo.web")


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's head and a cap on connections
    (``head_timeout_s`` and ``max_connections`` as class attributes, for tests to lower)."""

    head_timeout_s = HEAD_TIMEOUT_S
    max_connections = MAX_CONNECTIONS

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._head_deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            LOG.warning(
                "monster-zoo serve: %d connections open, the most accepted; closed a new one",
                self.max_connections,
            )
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

    def _wait_for_head(self) -> None:
        if self._head_deadline is None:
            self._head_deadline = self.loop.call_later(self.head_timeout_s, self._head_late)

    def _head_arrived(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_late(self) -> None:
        self._head_deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            LOG.warning(
                "monster-zoo serve: closed a connection whose request head did not arrive within %g s",
                self.head_timeout_s,
            )
            self.transport.close()
