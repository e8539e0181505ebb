"""Things the server keeps in memory for a while (games, replay pages), under ids nobody can guess.

A store holds at most ``capacity`` live entries (a game still being played); an entry not used
for ``ttl_s`` seconds is dropped (looked for whenever the store is used, so nothing runs in the
background). A store full of live entries refuses a new one (429, saying what to do) rather than
drop one in use. Entries that are no longer live (a finished game, a replay page, which can be
built again from its record) never count against the limit: beyond ``capacity`` of them, the
least recently used is dropped. Ids are 128 random bits, so an id is the key to its entry: pages
and games of other people cannot be found by trying ids.
"""

import re
import secrets
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from .refusals import not_found, too_many

Value = TypeVar("Value")
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{22}")


class ExpiringStore(Generic[Value]):
    """At most ``capacity`` live values (and ``capacity`` others) under random ids, each dropped
    ``ttl_s`` seconds after its last use; ``what`` names them in messages (``"game"``), ``on_drop``
    hears each dropped value, ``is_live`` says whether a value counts against the limit (every
    value, by default), ``full`` is the refusal's advice when the live ones fill the store."""

    def __init__(
        self,
        capacity: int,
        ttl_s: float,
        what: str,
        clock: Callable[[], float] = time.monotonic,
        on_drop: Callable[[Value], None] | None = None,
        is_live: Callable[[Value], bool] = lambda value: True,
        full: str = "close one",
    ):
        self.capacity, self.ttl_s, self.what, self.clock = capacity, ttl_s, what, clock
        self.on_drop, self.is_live, self.full = on_drop, is_live, full
        self._entries: dict[str, tuple[Value, float]] = {}
        self._lock = threading.RLock()

    def __len__(self) -> int:
        with self._lock:
            self._sweep()
            return len(self._entries)

    def check_room(self) -> None:
        """429 when the store is full of live entries."""
        with self._lock:
            self._sweep()
            if sum(self.is_live(value) for value, _ in self._entries.values()) >= self.capacity:
                raise too_many(
                    f"this server already holds {self.capacity} {self.what}s in progress, its limit: "
                    f"{self.full}, or wait for one left idle {self.ttl_s / 60:.0f} minutes to expire"
                )

    def add(self, value: Value) -> str:
        """Keep ``value``; its new id. 429 when the store is full of live entries; the least recently
        used of the others is dropped when there are more than ``capacity`` of them."""
        with self._lock:
            self.check_room()
            key = secrets.token_urlsafe(16)
            self._entries[key] = (value, self.clock())
            others = sorted((used, k) for k, (v, used) in self._entries.items() if not self.is_live(v))
            for _, old in others[: max(0, len(others) - self.capacity)]:
                self._dropped(self._entries.pop(old)[0])
            return key

    def get(self, key: str) -> Value:
        """The value under ``key``, now counted as used; 404 if there is none (or it expired)."""
        with self._lock:
            self._sweep()
            if not ID_PATTERN.fullmatch(key) or key not in self._entries:
                raise not_found(
                    f"no such {self.what}: it never existed, was closed or expired after "
                    f"{self.ttl_s:.0f} s without use"
                )
            value = self._entries[key][0]
            self._entries[key] = (value, self.clock())
            return value

    def leave(self, key: str, grace_s: float) -> None:
        """Let the value under ``key`` expire ``grace_s`` seconds from now unless it is used again
        by then (its page said goodbye; a reload of that page uses it again at once); 404 if there
        is none."""
        with self._lock:
            value = self.get(key)
            self._entries[key] = (value, self.clock() - max(0.0, self.ttl_s - grace_s))

    def entries(self) -> list[tuple[str, Value, float]]:
        """Every ``(id, value, seconds since its last use)``, oldest use first, none counted as used."""
        with self._lock:
            self._sweep()
            now = self.clock()
            listed = [(key, value, now - used) for key, (value, used) in self._entries.items()]
        return sorted(listed, key=lambda entry: -entry[2])

    def remove(self, key: str) -> None:
        """Drop the value under ``key``; 404 if there is none."""
        value = self.get(key)
        with self._lock:
            self._entries.pop(key, None)
        self._dropped(value)

    def _sweep(self) -> None:
        """Drop the entries unused for ``ttl_s`` (the caller holds the lock)."""
        now = self.clock()
        for key in [k for k, (_, used) in self._entries.items() if now - used > self.ttl_s]:
            self._dropped(self._entries.pop(key)[0])

    def _dropped(self, value: Value) -> None:
        if self.on_drop is not None:
            self.on_drop(value)
