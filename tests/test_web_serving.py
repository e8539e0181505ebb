"""Serving the web app (monster_zoo.web.server) safely, against a real uvicorn on a free port:
off loopback it needs the names it is reached by; a request head or body that does not arrive
in time is dropped or refused (how connections are capped: tests/test_web_limits.py); a client
leaving mid-body is one log line; agents are offered only at the player counts they play, and
made to move once before the server says it is ready.
"""

import logging
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

from monster_zoo.agents.ppo.champions import champion_player_counts
from monster_zoo.cli.main import main
from monster_zoo.web import refusals, server
from monster_zoo.web.app import Settings, create_app, for_the_page
from monster_zoo.web.catalogue import agent_player_counts
from monster_zoo.web.connections import BoundedH11Protocol

MTM = "marry_the_monster-v0"


class QuickProtocol(BoundedH11Protocol):
    head_timeout_s = 0.5
    max_connections = 4


@pytest.fixture
def address(monkeypatch):
    """(host, port) of the app served by uvicorn in a thread, with deadlines of half a second."""
    monkeypatch.setattr(refusals, "BODY_TIMEOUT_S", 0.5)
    sock = server.bind("127.0.0.1", 0)
    config = server.uvicorn_config(create_app(Settings(allowed_hosts=["127.0.0.1"])))
    config.http = QuickProtocol
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not running.started:
        time.sleep(0.02)
    # the games' catalogue is built on its first request (every agent kind at every player count),
    # as `monster-zoo serve` does before it listens; the tests time the requests after it
    with socket.create_connection(sock.getsockname(), timeout=300) as first:
        first.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        while first.recv(65536):
            pass
    yield sock.getsockname()
    running.should_exit = True
    thread.join(timeout=10)


def connect(address) -> socket.socket:
    return socket.create_connection(address, timeout=5)


def answer(conn):
    """What the server sends until it closes the connection; None if it stays silent for 5 s."""
    got = b""
    while True:
        try:
            part = conn.recv(65536)
        except TimeoutError:
            return None
        if not part:
            return got
        got += part


def test_a_server_off_loopback_needs_the_names_it_is_reached_by(capsys):
    for host in ("0.0.0.0", "::", "192.168.1.20"):
        with pytest.raises(ValueError, match="needs --allowed-hosts"):
            server.allowed_hosts(host)
    assert "*" not in server.allowed_hosts("0.0.0.0", ["box.local"])
    assert server.allowed_hosts("0.0.0.0", ["box.local"])[-1] == "box.local"
    assert "192.168.1.20" in server.allowed_hosts("192.168.1.20", ["box.local"])
    assert "*" not in server.allowed_hosts("127.0.0.1")
    with pytest.raises(SystemExit) as err:
        main(["serve", "--host", "0.0.0.0"])
    said = capsys.readouterr().err
    assert err.value.code == 2 and "--allowed-hosts" in said and "DNS rebinding" in said


def test_a_request_head_that_does_not_arrive_is_dropped(address):
    conn = connect(address)
    conn.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    started = time.monotonic()
    assert answer(conn) == b"" and time.monotonic() - started < 3, "closed at the head's deadline"
    whole = connect(address)  # a whole request is answered as ever
    whole.sendall(b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    assert answer(whole).startswith(b"HTTP/1.1 200")


def test_a_request_body_that_does_not_arrive_is_refused_in_time(address):
    conn = connect(address)
    conn.sendall(
        b"POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"game"'
    )
    got = answer(conn)  # was None under load: the connection was held until the keep-alive timeout (5 s)
    assert got is not None, "the connection is closed after the 408, not held open"
    assert got.startswith(b"HTTP/1.1 408") and b"did not arrive within 0.5 s" in got
    assert b"connection: close" in got.lower()


def test_a_client_leaving_mid_body_is_one_log_line(address, caplog):
    caplog.set_level(logging.WARNING)
    conn = connect(address)
    conn.sendall(
        b"POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"game"'
    )
    time.sleep(0.1)
    conn.close()
    time.sleep(0.3)
    lines = [r for r in caplog.records if "went away" in r.getMessage()]
    assert len(lines) == 1 and "\n" not in lines[0].getMessage()
    assert not any(r.exc_info or r.levelno >= logging.ERROR for r in caplog.records), "no traceback"


def test_each_agent_is_offered_only_at_the_player_counts_it_plays():
    counts = agent_player_counts(MTM)
    assert counts["champion"] == champion_player_counts("marry_the_monster") == [2, 4]
    assert counts["random"] == [2, 3, 4, 5]
    with TestClient(create_app(Settings(allowed_hosts=["testserver"]))) as client:
        game = next(g for g in client.get("/api/games").json()["games"] if g["id"] == MTM)
        assert game["agent_players"]["champion"] == [2, 4]
        refusal = client.post(
            "/api/sessions",
            json={"game": MTM, "options": {"num_players": 3}, "seats": ["human", "random", "champion"]},
        )
        assert refusal.status_code == 422
        message = refusal.json()["error"]
        assert "player_2: champion plays this game with 2 or 4 players only, not 3" in message
        assert "make_agent" not in message


def test_each_agent_is_offered_only_with_the_options_it_plays():
    """A trained agent plays the options it was trained with: Monster Factory's champion is not
    offered for random start tiles, and a game asking for it is refused in the page's words."""
    factory = "monster_factory-v0"
    with TestClient(create_app(Settings(allowed_hosts=["testserver"]))) as client:
        game = next(g for g in client.get("/api/games").json()["games"] if g["id"] == factory)
        assert game["agent_options"]["champion"]["start_tiles"] == ["choose"]
        assert game["agent_options"]["random"]["start_tiles"] == ["choose", "random"]
        refusal = client.post(
            "/api/sessions",
            json={
                "game": factory,
                "options": {"num_players": 2, "start_tiles": "random"},
                "seats": ["human", "champion"],
            },
        )
        assert refusal.status_code == 422
        assert (
            "player_1: champion does not play this game with start_tiles 'random'" in refusal.json()["error"]
        )


def test_registry_messages_reach_the_page_in_a_browser_users_words():
    python = (
        "marry_the_monster-champion-v1 has no champion for 3 players (marry_the_monster-v0's champions ship "
        'for 2 and 4 players). Ask for one by its player count: make_agent("champion", "x", options={}), or so'
    )
    said = for_the_page(python)
    assert "make_agent" not in said and said.startswith("marry_the_monster-champion-v1 has no champion for 3")
    assert "Choose another player for that seat" in said
    assert for_the_page("plain words.") == "plain words."
    assert (
        for_the_page("model '/srv/x/agents/champions/m-2p.npz' was trained for m")
        == "model 'm-2p.npz' was trained for m"
    ), "the server's folders are not shown"
    assert (
        for_the_page("the az agent needs a network: make_agent('az:<network.npz>', ...) or network=")
        == "the az agent needs a network. Choose another player for that seat, or other options."
    )


def test_every_kind_of_agent_moves_once_before_the_server_is_ready(monkeypatch):
    moved = []

    class Recorder:
        def __init__(self, name):
            self.name = name

        def act(self, observation, mask, *state):
            moved.append(self.name)
            return 0

    monkeypatch.setattr(server, "make_agent", lambda name, game_id, seed, options: Recorder(name))
    said = []
    server.warm_agents(MTM, said.append)
    kinds = [name for name, players in agent_player_counts(MTM).items() if players and "-v" not in name]
    assert moved == kinds and {"random", "greedy", "mcts", "champion"} <= set(moved) and said == []

    def broken(name, game_id, seed, options):
        raise RuntimeError("no weights")

    monkeypatch.setattr(server, "make_agent", broken)
    server.warm_agents(MTM, said.append)
    assert len(said) == len(kinds) and "agent random of marry_the_monster-v0 failed" in said[-1], said
