"""A client of an OpenAI-compatible chat endpoint (``POST <base-url>/chat/completions``), which
vLLM, llama.cpp's server, Ollama and the hosted APIs all speak, over the standard library's urllib.

A failure of the endpoint is a :class:`ChatError` that says whether sending the request again may
help (``retryable``: HTTP 5xx, 429 and 408, a timeout, a refused connection, a body that is not a
chat completion or is too large) and how long the server asked to wait (``Retry-After``);
:func:`ask` sends a request again after the waits of a
:class:`~monster_zoo.agents.llm.backoff.Backoff`, and gives up on a failure that will not pass (a
wrong key, a wrong URL) or after the backoff's tries.

The API key is read from the environment (``MONSTER_ZOO_LLM_API_KEY``, else ``OPENAI_API_KEY``),
never from a command line where other users of the machine could read it; a local server needs none.
"""

import email.utils
import http.client
import json
import os
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from .backoff import Backoff

KEY_VARIABLES = ("MONSTER_ZOO_LLM_API_KEY", "OPENAI_API_KEY")
MAX_REPLY_BYTES = 1 << 20  # an answer is a few hundred bytes; a server sending more is cut off here


RETRYABLE_STATUS = (408, 429)  # with every 5xx: the server is busy or failed, the request was fine


class ChatError(RuntimeError):
    """The endpoint could not be reached or answered something that is not a chat completion;
    ``retryable`` where the same request may succeed later, ``retry_after`` the seconds the server
    asked to wait (None where it did not say)."""

    def __init__(self, message: str, retryable: bool = True, retry_after: float | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after


@dataclass(frozen=True)
class ChatReply:
    """What the model said, the tokens the server counted (None where it does not say) and how
    long the request took."""

    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float


@dataclass(frozen=True)
class ChatEndpoint:
    """``model`` at the OpenAI-compatible ``base_url`` (e.g. ``http://127.0.0.1:8000/v1``)."""

    base_url: str
    model: str
    temperature: float = 0.0
    max_tokens: int = 256
    timeout_s: float = 120.0

    def __post_init__(self):
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(
                f"the base URL must start with http:// or https://, got {self.base_url!r} "
                "(e.g. http://127.0.0.1:8000/v1 for vLLM, http://127.0.0.1:11434/v1 for Ollama)"
            )
        if not self.model:
            raise ValueError("name the model the endpoint serves: llm:<model>")

    def complete(self, messages: list[dict[str, str]]) -> ChatReply:
        """The model's answer to ``messages`` (``[{"role", "content"}, ...]``); ChatError if none came."""
        body = json.dumps(
            {
                "model": self.model,
                "messages": messages,
                "temperature": self.temperature,
                "max_tokens": self.max_tokens,
            }
        ).encode()
        headers = {"Content-Type": "application/json"}
        key = next((os.environ[name] for name in KEY_VARIABLES if os.environ.get(name)), None)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        request = urllib.request.Request(self.base_url.rstrip("/") + "/chat/completions", body, headers)
        start = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                raw = response.read(MAX_REPLY_BYTES + 1)
        except urllib.error.HTTPError as err:
            retryable = err.code >= 500 or err.code in RETRYABLE_STATUS
            raise ChatError(
                f"{self.base_url} answered HTTP {err.code}: {err.read(300).decode(errors='replace')}",
                retryable,
                retry_after_s(err.headers.get("Retry-After") if err.headers else None),
            ) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as err:
            # refused, timed out, or cut off mid-answer (http.client's errors are not OSErrors)
            raise ChatError(f"cannot reach {self.base_url}: {getattr(err, 'reason', err)!s}") from None
        latency = time.perf_counter() - start
        if len(raw) > MAX_REPLY_BYTES:
            raise ChatError(f"{self.base_url} answered more than {MAX_REPLY_BYTES} bytes")
        try:
            data = json.loads(raw)
            text = data["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError):
            raise ChatError(f"{self.base_url} did not answer a chat completion: {raw[:200]!r}") from None
        usage = data.get("usage") or {}
        return ChatReply(
            str(text), _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")), latency
        )


def retry_after_s(value: str | None, now: float | None = None) -> float | None:
    """The seconds a ``Retry-After`` header asks to wait (a number of seconds or an HTTP date);
    None where it is missing or says neither."""
    if not value:
        return None
    try:
        return max(float(value.strip()), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def ask(
    endpoint: ChatEndpoint, messages: list[dict[str, str]], backoff: Backoff, on_failure=None
) -> ChatReply:
    """``endpoint``'s answer to ``messages``, sent again after each retryable failure (waiting as
    ``backoff`` says) up to ``backoff.failures`` failures in a row; ``on_failure(error)`` hears each
    failure. The last ChatError is raised when no answer came, at once for one that will not pass."""
    failure = 0
    while True:
        try:
            return endpoint.complete(messages)
        except ChatError as err:
            failure += 1
            if on_failure is not None:
                on_failure(err)
            if not err.retryable:
                raise
            if failure >= backoff.failures:
                raise ChatError(
                    f"no answer after {failure} tries (endpoint failures in a row); the last: {err}",
                    retryable=False,
                ) from None
            backoff.wait(failure, err.retry_after)


def _count(value) -> int | None:
    return value if isinstance(value, int) and value >= 0 else None
