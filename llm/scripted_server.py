"""A stand-in for a model: an OpenAI-compatible chat endpoint on 127.0.0.1 that answers from a
script, for the harness's tests, its example and its documentation's table (no model is needed).

A script is a function of the request's messages that returns the answer's text. :func:`first_legal`
answers the first legal move of the view it is shown; :func:`stubborn` answers a given text a given
number of times before that. Each request's body is kept (``requests``) for the tests to read.
"""

import json
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Script = Callable[[list[dict[str, str]]], str]
MAX_BODY_BYTES = 1 << 22


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


def stubborn(wrong: str, times: int, then: Script = first_legal) -> Script:
    """Answers ``wrong`` for the first ``times`` requests of each turn (a turn starts with its system
    message), then as ``then``."""

    def answer(messages: list[dict[str, str]]) -> str:
        asked = sum(1 for m in messages if m["role"] == "assistant")
        return wrong if asked < times else then(messages)

    return answer


class ScriptedServer:
    """The endpoint, serving ``script`` at ``base_url`` (``http://127.0.0.1:<port>/v1``) while open;
    use as a context manager."""

    def __init__(self, script: Script = first_legal):
        self.script = script
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                if self.path != "/v1/chat/completions" or not 0 < length <= MAX_BODY_BYTES:
                    self.send_error(404 if self.path != "/v1/chat/completions" else 400)
                    return
                body = json.loads(self.rfile.read(length))
                server.requests.append(body)
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

            def log_message(self, *args):  # quiet: the tests read the requests instead
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "ScriptedServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
