"""Waiting out an endpoint that failed: exponential backoff with full jitter, honouring the server's
``Retry-After``, capped, over a bounded number of tries.

An endpoint failure (HTTP 5xx, 429 or 408, a body that is not a chat completion or is too large, a
timeout, a refused connection) says nothing about the model: the request is sent again after a
wait, and it is counted as an endpoint failure, never as one of the model's retries. The wait
before try ``k`` (counting from 1 after the first failure) is drawn uniformly from
``[0, min(cap_s, base_s * 2**(k-1))]`` ("full jitter", so that clients that failed together do not
come back together), or is the server's ``Retry-After`` where it names one, at most ``cap_s``.

The clock is injectable (``sleep``) and the jitter has its own seeded generator, apart from the
agent's: a failed request changes neither the game nor the moves a fallback would draw.
"""

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

MAX_FAILURES = 50  # tries of one request; more would wait for hours at the cap


@dataclass
class Backoff:
    """How long to wait after each of ``failures`` endpoint failures in a row, and the waiting."""

    failures: int = 5  # endpoint failures in a row after which the run stops (the request's tries)
    base_s: float = 1.0
    cap_s: float = 60.0
    seed: int = 0
    sleep: Callable[[float], None] | None = None  # None: :func:`pause`
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self):
        counted = isinstance(self.failures, int) and not isinstance(self.failures, bool)
        if not counted or not 1 <= self.failures <= MAX_FAILURES:
            raise ValueError(
                f"endpoint tries must be an integer from 1 to {MAX_FAILURES}, got {self.failures!r}"
            )
        if not (0 <= self.base_s <= self.cap_s):
            raise ValueError(f"the backoff needs 0 <= base ({self.base_s}) <= cap ({self.cap_s}) seconds")
        self.rng = random.Random(self.seed)

    def delay(self, failure: int, retry_after: float | None = None) -> float:
        """Seconds to wait after the ``failure``-th failure in a row (1 for the first)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.cap_s)
        return self.rng.uniform(0.0, min(self.cap_s, self.base_s * 2 ** (failure - 1)))

    def wait(self, failure: int, retry_after: float | None = None) -> float:
        """Wait (through ``sleep``) before the next try; the seconds waited."""
        seconds = self.delay(failure, retry_after)
        (self.sleep or pause)(seconds)
        return seconds


def pause(seconds: float) -> None:
    """The clock a backoff waits on unless given another (looked up when it waits, so a test can
    replace it for a whole run)."""
    time.sleep(seconds)
