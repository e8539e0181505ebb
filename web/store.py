"""Things the server keeps in memory for a while (games, replay pages), under ids nobody can guess.

A store holds at most ``capacity`` entries; an entry not used for ``ttl_s`` seconds is dropped
(looked for whenever the store is used, so nothing runs in the background). A full store
refuses a new entry (503) rather than drop one in use. Ids are 128 random bits, so an id is
the key to its entry: pages and games of other people cannot be found by trying ids.
"""
import re
import secrets
import threading
import time
from typing import Callable, Dict, Generic, Optional, Tuple, TypeVar

from .refusals import RequestError, not_found

Value = TypeVar("Value")
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{22}")


class ExpiringStore(Generic[Value]):
    """At most ``capacity`` values under random ids, each dropped ``ttl_s`` seconds after its last
    use; ``what`` names them in messages (``"game"``), ``on_drop`` hears each dropped value."""

    def __init__(self, capacity: int, ttl_s: float, what: str, clock: Callable[[], float] = time.monotonic,
                 on_drop: Optional[Callable[[Value], None]] = None):
        self.capacity, self.ttl_s, self.what, self.clock = capacity, ttl_s, what, clock
        self.on_drop = on_drop
        self._entries: Dict[str, Tuple[Value, float]] = {}
        self._lock = threading.RLock()

    def __len__(self) -> int:
        with self._lock:
            self._sweep()
            return len(self._entries)

    def check_room(self) -> None:
        """503 when the store is full of entries still in use."""
        with self._lock:
            self._sweep()
            if len(self._entries) >= self.capacity:
                raise RequestError(503, f"the server already holds {self.capacity} {self.what}s, its limit; "
                                        f"close one (or wait {self.ttl_s:.0f} s for an idle one to expire)")

    def add(self, value: Value) -> str:
        """Keep ``value``; its new id. 503 when the store is full of entries still in use."""
        with self._lock:
            self.check_room()
            key = secrets.token_urlsafe(16)
            self._entries[key] = (value, self.clock())
            return key

    def get(self, key: str) -> Value:
        """The value under ``key``, now counted as used; 404 if there is none (or it expired)."""
        with self._lock:
            self._sweep()
            if not ID_PATTERN.fullmatch(key) or key not in self._entries:
                raise not_found(f"no such {self.what}: it never existed, was closed or expired after "
                                f"{self.ttl_s:.0f} s without use")
            value = self._entries[key][0]
            self._entries[key] = (value, self.clock())
            return value

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
