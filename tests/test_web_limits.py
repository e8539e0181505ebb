"""The web app holds its limits for everyone: a client holding half-sent request heads cannot make
ordinary requests fail (the oldest waiting connection makes room, a client keeps to its share), a
request past every limit gets a JSON 503, games left by closed tabs are let go and listed for
closing, and ``--allowed-hosts '*'`` needs ``--allow-any-host``."""

import json
import socket
import threading
import time
import warnings

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install '.[web]'")
with warnings.catch_warnings():  # Starlette announces a successor of httpx for its test client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import uvicorn

from monster_zoo.cli.main import main
from monster_zoo.web import app as web_app
from monster_zoo.web import refusals, server
from monster_zoo.web.app import Settings, create_app
from monster_zoo.web.connections import BoundedH11Protocol

GAME = "monster_factory-v0"
NEW_GAME = {"game": GAME, "options": {"num_players": 2}, "seats": ["human", "random"], "seed": 1}
OWNER = "A" * 22


class SmallProtocol(BoundedH11Protocol):
    head_timeout_s = 30.0  # longer than any test: the deadline must not be what saves a request
    max_connections = 8
    client_share = 0.5


@pytest.fixture
def address(monkeypatch):
    """(host, port) of the app served by uvicorn in a thread, at most 8 connections, 4 per client."""
    monkeypatch.setattr(refusals, "BODY_TIMEOUT_S", 30.0)
    sock = server.bind("127.0.0.1", 0)
    config = server.uvicorn_config(create_app(Settings(allowed_hosts=["127.0.0.1"])))
    config.http = SmallProtocol
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not running.started:
        time.sleep(0.02)
    yield sock.getsockname()
    running.should_exit = True
    thread.join(timeout=10)


def connect(address, source: str = "127.0.0.1") -> socket.socket:
    return socket.create_connection(address, timeout=5, source_address=(source, 0))


def half_head(address, source: str = "127.0.0.1") -> socket.socket:
    conn = connect(address, source)
    conn.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    return conn


def answer(conn, timeout: float = 5.0) -> bytes | None:
    """What the server sends until it closes the connection; None if it stays silent ``timeout`` s."""
    conn.settimeout(timeout)
    got = b""
    while True:
        try:
            part = conn.recv(65536)
        except TimeoutError:
            return None
        except ConnectionResetError:
            return got
        if not part:
            return got
        got += part


def ordinary(address) -> bytes:
    conn = connect(address)
    conn.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    try:
        return answer(conn) or b"(no answer)"
    finally:
        conn.close()


def test_half_sent_heads_cannot_make_ordinary_requests_fail(address):
    """A client holding more half-sent heads than the server takes connections: each new ordinary
    request closes the oldest of them and is answered (it once failed 33 times in 34)."""
    held = [half_head(address) for _ in range(3 * SmallProtocol.max_connections)]
    answers = [ordinary(address) for _ in range(6)]
    assert all(a.startswith(b"HTTP/1.1 200") for a in answers), [a[:60] for a in answers]
    for conn in held:
        conn.close()


def test_the_oldest_waiting_connection_is_closed_first(address):
    """Two clients fill the server, each within its share: a third one's connection closes the
    oldest connection waiting for a head, whoever holds it, and nothing else."""
    share = int(SmallProtocol.max_connections * SmallProtocol.client_share)
    held = []
    for source in ("127.0.0.2", "127.0.0.3"):
        for _ in range(share):
            held.append(half_head(address, source))
            time.sleep(0.02)
    time.sleep(0.1)
    newest = half_head(address, "127.0.0.1")
    assert answer(held[0], 2) == b"", "the oldest waiting connection is closed to make room"
    assert all(answer(c, 0.2) is None for c in [*held[1:], newest]), "the others stay open"
    for conn in [*held, newest]:
        conn.close()


def test_a_client_keeps_to_its_share_of_connections(address):
    share = int(SmallProtocol.max_connections * SmallProtocol.client_share)
    greedy = [half_head(address, "127.0.0.2") for _ in range(share + 2)]
    time.sleep(0.1)
    assert [answer(c, 0.3) for c in greedy[:2]] == [b"", b""], "its own oldest made room"
    assert all(answer(c, 0.2) is None for c in greedy[2:])
    others = [half_head(address, "127.0.0.1") for _ in range(share)]
    time.sleep(0.1)
    assert all(answer(c, 0.2) is None for c in others), "another client's share is its own"
    for conn in [*greedy, *others]:
        conn.close()


def test_a_request_past_every_limit_gets_a_json_503(address):
    """Every connection with a request in progress (a body still arriving): a new one is answered
    503 in JSON, with Retry-After, not in plain text."""
    busy = []
    for source in ("127.0.0.2", "127.0.0.3"):
        for _ in range(int(SmallProtocol.max_connections * SmallProtocol.client_share)):
            conn = connect(address, source)
            conn.sendall(
                b"POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b'Content-Length: 100\r\n\r\n{"game"'
            )
            busy.append(conn)
    time.sleep(0.2)
    got = answer(connect(address))
    head, _, body = got.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503"), got[:200]
    assert b"content-type: application/json" in head.lower() and b"retry-after: 1" in head.lower()
    assert "busy" in json.loads(body)["error"]
    for conn in busy:
        conn.close()


@pytest.fixture
def client():
    with TestClient(create_app(Settings(max_sessions=2, allowed_hosts=["testserver"]))) as client:
        yield client


def test_a_page_that_says_goodbye_lets_its_game_go_after_a_grace(client, monkeypatch):
    monkeypatch.setattr(web_app, "GOODBYE_GRACE_S", 0.3)
    first = client.post("/api/sessions", json=NEW_GAME).json()["session"]
    second = client.post("/api/sessions", json=NEW_GAME).json()["session"]
    assert client.post("/api/sessions", json=NEW_GAME).status_code == 429
    assert client.post(f"/api/sessions/{first}/goodbye").status_code == 204
    assert client.get(f"/api/sessions/{first}?viewer=0").status_code == 200, "a reload opens it again"
    for key in (first, second):
        assert client.post(f"/api/sessions/{key}/goodbye").status_code == 204
    time.sleep(0.5)
    assert client.get(f"/api/sessions/{first}?viewer=0").status_code == 404
    assert client.post("/api/sessions", json=NEW_GAME).status_code == 201, "their places are free again"
    assert client.post("/api/sessions/x/goodbye").status_code == 404


def test_games_on_this_server_lists_yours_to_close_and_only_counts_the_others(client):
    mine = {"X-Monster-Zoo-Owner": OWNER}
    made = client.post("/api/sessions", json=NEW_GAME, headers=mine).json()["session"]
    client.post("/api/sessions", json=NEW_GAME, headers={"X-Monster-Zoo-Owner": "B" * 22})
    listed = client.get("/api/sessions", headers=mine).json()
    assert [g["session"] for g in listed["yours"]] == [made] and listed["others_in_progress"] == 1
    entry = listed["yours"][0]
    assert entry["game"] == GAME and entry["seats"] == ["human", "random"] and not entry["finished"]
    assert 3500 < entry["expires_in_s"] <= 3600 and "seed" not in json.dumps(listed)
    anonymous = client.get("/api/sessions").json()
    assert anonymous == {"yours": [], "others_in_progress": 2}
    assert client.get("/api/sessions", headers={"X-Monster-Zoo-Owner": "short"}).json()["yours"] == []
    assert client.delete(f"/api/sessions/{made}").status_code == 204
    assert client.get("/api/sessions", headers=mine).json()["yours"] == []
    refused = client.post("/api/sessions", json=NEW_GAME)
    refused = client.post("/api/sessions", json=NEW_GAME)
    assert refused.status_code == 429 and "games on this server" in refused.json()["error"]


def test_any_host_needs_allow_any_host_and_then_warns(capsys, monkeypatch):
    for host in ("127.0.0.1", "0.0.0.0"):
        with pytest.raises(ValueError, match="--allow-any-host"):
            server.allowed_hosts(host, ["*"])
    assert "*" in server.allowed_hosts("0.0.0.0", ["*"], allow_any_host=True)
    with pytest.raises(SystemExit) as err:
        main(["serve", "--allowed-hosts", "*"])
    said = capsys.readouterr().err
    assert err.value.code == 2 and "--allow-any-host" in said and "DNS rebinding" in said
    monkeypatch.setattr(server, "warm", lambda settings, say: None)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: None)
    # uvicorn's Config points its log handlers at the stderr of the moment, which is this test's
    # capture: left there, they would write to a closed file in every later test of the process
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda self: None)
    server.serve(Settings(), "127.0.0.1", 0, say=lambda line: None, named_hosts=["*"], allow_any_host=True)
    assert "warning: --allow-any-host" in capsys.readouterr().err
