"""A client of an OpenAI-compatible chat endpoint (``POST <base-url>/chat/completions``), which
vLLM, llama.cpp's server, Ollama and the hosted APIs all speak, over the standard library's urllib.

The API key is read from the environment (``MONSTER_ZOO_LLM_API_KEY``, else ``OPENAI_API_KEY``),
never from a command line where other users of the machine could read it; a local server needs none.
"""

import json
import os
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

KEY_VARIABLES = ("MONSTER_ZOO_LLM_API_KEY", "OPENAI_API_KEY")
MAX_REPLY_BYTES = 1 << 20  # an answer is a few hundred bytes; a server sending more is cut off here


class ChatError(RuntimeError):
    """The endpoint could not be reached or answered something that is not a chat completion."""


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
            raise ChatError(
                f"{self.base_url} answered HTTP {err.code}: {err.read(300).decode(errors='replace')}"
            ) from None
        except (urllib.error.URLError, OSError) as err:
            raise ChatError(f"cannot reach {self.base_url}: {getattr(err, 'reason', err)}") from None
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


def _count(value) -> int | None:
    return value if isinstance(value, int) and value >= 0 else None
