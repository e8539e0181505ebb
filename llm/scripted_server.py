"""A stand-in for a model: an OpenAI-compatible chat endpoint on 127.0.0.1 that answers from a
script, for the harness's tests, its example and its documentation's table (no model is needed).

A script is a function of the request's messages that returns the answer's text. :func:`first_legal`
answers the first legal move of the view it is shown, :func:`sampled` a random one; :func:`stubborn` answers a given text a given
number of times before that. Each answered request's body is kept (``requests``) for the tests to
read.

``faults`` makes it a flaky endpoint: a function of the request's number (1 for the first request
received, answered or not) naming the failure to give it instead of an answer, or None. The
failures are those a real endpoint gives: ``"500"`` and ``"503"`` (an HTTP error; ``"503"`` with
``Retry-After: 1``), ``"429"`` (rate limited, ``Retry-After: 2``), ``"not-json"`` (a body that is
not JSON), ``"oversized"`` (a body over the client's limit), ``"drop"`` (the connection closed
without an answer) and ``"stall"`` (no answer until the client's timeout, at most
:data:`STALL_S`). :func:`on_requests` and :func:`every` build such schedules.
"""

import json
import random
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Script = Callable[[list[dict[str, str]]], str]
Faults = Callable[[int], "str | None"]
MAX_BODY_BYTES = 1 << 22
STALL_S = 5.0  # how long a stalled request is held: longer than the timeouts the tests give
FAULTS = ("500", "503", "429", "not-json", "oversized", "drop", "stall")
OVERSIZED_BYTES = (1 << 20) + 1024  # past the client's limit on a reply (agents/llm/chat.py)


def shown_moves(messages: list[dict[str, str]]) -> list[dict]:
    """The legal moves of the last view in ``messages`` (empty where the prompt lists none)."""
    for message in reversed(messages):
        found = re.search(r"Your view:\n(\{.*\})\n\nIt is your turn", message["content"], re.S)
        if found:
            return json.loads(found.group(1)).get("legal_moves", [])
    return []


def first_legal(messages: list[dict[str, str]]) -> str:
    """Names the first listed legal move, by name, as a model would end its answer."""
    moves = shown_moves(messages)
    return f"I will play the first move.\nmove: {moves[0]['name']}" if moves else "move: pass"


def sampled(seed: int = 0) -> Script:
    """Names a uniformly random legal move of the view it is shown (its own seeded generator), as a
    model sampling at a temperature would: a group of games from one deal differ."""
    rng = random.Random(seed)
    lock = threading.Lock()

    def answer(messages: list[dict[str, str]]) -> str:
        moves = shown_moves(messages)
        with lock:
            return f"move: {rng.choice(moves)['name']}" if moves else "move: pass"

    return answer


def stubborn(wrong: str, times: int, then: Script = first_legal) -> Script:
    """Answers ``wrong`` for the first ``times`` requests of each turn (a turn starts with its system
    message), then as ``then``."""

    def answer(messages: list[dict[str, str]]) -> str:
        asked = sum(1 for m in messages if m["role"] == "assistant")
        return wrong if asked < times else then(messages)

    return answer


def on_requests(faults: Mapping[int, str]) -> Faults:
    """A schedule failing the requests numbered in ``faults`` (number -> failure)."""
    unknown = sorted(set(faults.values()) - set(FAULTS))
    if unknown:
        raise ValueError(f"unknown failures {unknown}; choose from {', '.join(FAULTS)}")
    return lambda number: faults.get(number)


def every(period: int, kinds: Sequence[str]) -> Faults:
    """A schedule failing every ``period``-th request, with each of ``kinds`` in turn."""
    if period < 2 or not kinds or set(kinds) - set(FAULTS):
        raise ValueError(f"every second request or fewer, with failures from {', '.join(FAULTS)}")
    return lambda number: kinds[(number // period - 1) % len(kinds)] if number % period == 0 else None


class ScriptedServer:
    """The endpoint, serving ``script`` at ``base_url`` (``http://127.0.0.1:<port>/v1``) while open,
    failing as ``faults`` says; use as a context manager. ``attempts`` counts every request, ``failed``
    the failures given."""

    def __init__(self, script: Script = first_legal, faults: Faults | None = None):
        self.script = script
        self.faults = faults
        self.requests: list[dict] = []
        self.attempts = 0
        self.failed: list[str] = []
        self.lock = threading.Lock()
        self.closing = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                if self.path != "/v1/chat/completions" or not 0 < length <= MAX_BODY_BYTES:
                    self.send_error(404 if self.path != "/v1/chat/completions" else 400)
                    return
                body = json.loads(self.rfile.read(length))
                with server.lock:
                    server.attempts += 1
                    fault = server.faults(server.attempts) if server.faults else None
                    if fault:
                        server.failed.append(fault)
                    else:
                        server.requests.append(body)
                if fault:
                    self.fail(fault)
                    return
                text = server.script(body["messages"])
                prompt = sum(len(m["content"].split()) for m in body["messages"])
                reply = json.dumps(
                    {
                        "id": f"scripted-{len(server.requests)}",
                        "object": "chat.completion",
                        "model": body.get("model"),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": text},
                            }
                        ],
                        "usage": {
                            "prompt_tokens": prompt,
                            "completion_tokens": len(text.split()),
                            "total_tokens": prompt + len(text.split()),
                        },
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def fail(self, fault: str) -> None:
                """Answer as a failing endpoint would (see the module doc)."""
                if fault == "drop":
                    self.close_connection = True
                    return
                if fault == "stall":
                    server.closing.wait(STALL_S)  # the client's timeout ends it first
                    self.close_connection = True
                    return
                status, body, headers = 200, b"<html>bad gateway</html>", {}
                if fault in ("500", "503", "429"):
                    status = int(fault)
                    body = json.dumps({"error": {"message": "scripted failure"}}).encode()
                    headers = {"Retry-After": "2" if fault == "429" else "1"} if fault != "500" else {}
                elif fault == "oversized":
                    body = b"{" + b" " * OVERSIZED_BYTES + b"}"
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):  # quiet: the tests read the requests instead
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "ScriptedServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()
