"""What the web app refuses, and how: every bad request is answered with a 4xx JSON message
(``{"error": "..."}``) and changes nothing.

Request bodies are JSON objects read within a byte cap (the stream is read in chunks and
reading stops one chunk past the cap, whatever ``Content-Length`` claims) and a nesting cap
(:func:`~monster_zoo.envs.core.bounded_reading.parse_json` checks it before ``json.loads`` ever
recurses). Only ``application/json`` is accepted: a page on another site can submit a form to
this server but cannot send JSON to it without the browser asking first (CORS), which this
server never allows.
"""

import asyncio
import logging
import numbers
import re
from collections.abc import AsyncIterator, Sequence
from typing import Any

from starlette.requests import ClientDisconnect

from monster_zoo.envs.core.bounded_reading import parse_json

LOG = logging.getLogger("monster_zoo.web")

MAX_BODY_BYTES = 64 << 10  # a new game or a move; records have their own cap
MAX_BODY_DEPTH = 8
MAX_TEXT_CHARS = 200  # a typed move, an agent's name, an option's text
BODY_TIMEOUT_S = 30.0  # a request body still arriving after this long is refused (408)
ASCII_NUMBER = re.compile(
    r"[0-9]{1,9}"
)  # str.isdigit also takes "²" and Arabic-Indic digits, which int() refuses


class RequestError(Exception):
    """A request refused with HTTP ``status`` and ``message``; nothing was changed."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def bad_request(message: str) -> RequestError:
    """400: the request is malformed (not JSON, a field of the wrong type)."""
    return RequestError(400, message)


def not_found(message: str) -> RequestError:
    """404: no such game, session or page."""
    return RequestError(404, message)


def conflict(message: str) -> RequestError:
    """409: well-formed but not now (not this seat's turn, the game is over, it moved on)."""
    return RequestError(409, message)


def unprocessable(message: str) -> RequestError:
    """422: well-formed but refused by the rules or the registry (an illegal move, a bad option)."""
    return RequestError(422, message)


def too_many(message: str) -> RequestError:
    """429: a limit of the server is reached (games in progress, pages being built); the message
    says what to do."""
    return RequestError(429, message)


async def read_body(
    content_type: str | None,
    chunks: AsyncIterator[bytes],
    max_bytes: int = MAX_BODY_BYTES,
    max_depth: int = MAX_BODY_DEPTH,
) -> Any:
    """The JSON value of a request body streamed as ``chunks``, read within ``max_bytes``,
    :data:`BODY_TIMEOUT_S` and ``max_depth``; RequestError (413, 408, 415, 400) otherwise."""
    if (content_type or "").split(";")[0].strip().lower() != "application/json":
        raise RequestError(415, "send the request body as JSON (Content-Type: application/json)")
    parts: list = []

    async def collect() -> None:
        total = 0
        async for chunk in chunks:
            total += len(chunk)
            if total > max_bytes:
                raise RequestError(
                    413, f"the request body is larger than {max_bytes:,} bytes, the most accepted"
                )
            parts.append(chunk)

    try:
        await asyncio.wait_for(collect(), BODY_TIMEOUT_S)  # asyncio.timeout is Python 3.11+
    except asyncio.TimeoutError:
        LOG.warning(
            "monster-zoo serve: a request body took more than %g s (%d bytes read)",
            BODY_TIMEOUT_S,
            sum(map(len, parts)),
        )
        raise RequestError(408, f"the request body did not arrive within {BODY_TIMEOUT_S:g} s") from None
    except ClientDisconnect:  # nobody hears the answer: one line in the server's log, no traceback
        LOG.warning(
            "monster-zoo serve: a client went away while sending a request body (%d bytes read)",
            sum(map(len, parts)),
        )
        raise bad_request("the client went away before sending the whole request body") from None
    return parse_json(b"".join(parts), max_depth, "the request body", bad_request)


def json_object(value: Any, allowed: Sequence[str]) -> dict[str, Any]:
    """``value`` if it is a JSON object whose keys are among ``allowed``, else 400 naming them."""
    if not isinstance(value, dict):
        raise bad_request(f"the request body must be a JSON object, not {type(value).__name__}")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise bad_request(
            f"unknown field(s) {', '.join(shown(k) for k in unknown[:5])}; valid fields: {', '.join(allowed)}"
        )
    return value


def integer_field(
    body: dict[str, Any], name: str, low: int, high: int, default: int | None = None, required: bool = False
) -> int | None:
    """``body[name]`` as an integer from ``low`` to ``high`` (bools and floats refused), or 400."""
    if name not in body or body[name] is None:
        if required:
            raise bad_request(f"field {name!r} is missing: an integer from {low} to {high}")
        return default
    value = body[name]
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not low <= value <= high:
        raise bad_request(f"field {name!r} must be an integer from {low} to {high}, got {shown(value)}")
    return int(value)


def text_field(body: dict[str, Any], name: str, most: int = MAX_TEXT_CHARS) -> str | None:
    """``body[name]`` as a string of at most ``most`` characters (None when absent), or 400."""
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > most:
        raise bad_request(f"field {name!r} must be text of at most {most} characters, got {shown(value)}")
    return value


def query_number(text: str, name: str, what: str) -> int:
    """``text`` (a query parameter) as a number written in ASCII digits (at most 9), or 400 saying
    that ``name`` must be ``what``."""
    if not ASCII_NUMBER.fullmatch(text):
        raise bad_request(f"{name} must be {what}, got {shown(text[:20])}")
    return int(text)


def shown(value: Any, most: int = 60) -> str:
    """``repr(value)`` cut to ``most`` characters: a hostile field must not fill the message."""
    text = repr(value)
    return text if len(text) <= most else text[:most] + "..."
