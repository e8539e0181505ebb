"""``monster-zoo mcp`` (llm/mcp_server.py, llm/table.py): the SDK's own stdio client plays a whole
game of every game against greedy; refusals say why and change nothing; limits and expiry are the
web app's."""

import random
import socket
import subprocess
import sys
import time

import httpx
import pytest

pytest.importorskip("mcp", reason="the MCP server needs the llm extra: pip install -e '.[llm]'")

import anyio

from monster_zoo import envs
from monster_zoo.cli.main import main
from monster_zoo.envs.core.json_view import rules_summary
from monster_zoo.envs.registry import declaration
from monster_zoo.llm.mcp_server import build_parser, settings_of
from monster_zoo.llm.stdio_client import ToolRefused, call, connected, play_game
from monster_zoo.llm.table import ClientTable
from monster_zoo.web.app import Settings
from monster_zoo.web.refusals import RequestError


def test_an_mcp_client_plays_a_whole_game_of_every_game_against_greedy_over_stdio():
    """One server, five games at their smallest table, the client moving at random by id or by name
    (alternately); then each game's record matches what the client saw, and it is closed."""
    rng = random.Random(0)

    def choose(view):
        move = rng.choice(view["legal_moves"])
        return move["id"] if view["step"] % 2 else move["name"]

    async def session():
        finished = {}
        async with connected() as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            assert tools == {"list_games", "new_game", "observe", "act", "get_record", "close_game"}
            listed = await call(client, "list_games")
            assert [g["game"] for g in listed["games"]] == envs.available()
            rules = await client.read_resource("monster-zoo://rules/monstargh-v0")
            assert rules.contents[0].text == rules_summary("monstargh")
            for game in envs.available():
                players = declaration(game).min_players
                seats = ["client"] + ["greedy"] * (players - 1)
                view = await play_game(client, game, choose, seats, {"num_players": players}, seed=1)
                finished[game] = view
                with pytest.raises(ToolRefused, match="no such game"):  # closed by play_game
                    await call(client, "observe", game_id="x" * 22)
        return finished

    finished = anyio.run(session)
    for game, view in finished.items():
        assert view["over"] and view["legal_moves"] == [] and view["game"] == game
        assert view["result"]["outcomes"][0] in ("win", "draw", "loss")


def test_a_refused_move_says_the_rules_reason_and_changes_nothing():
    table = ClientTable()
    try:
        started = table.new_game("monstargh-v0", {"num_players": 2}, ["client", "greedy"], seed=3)
        game_id, view = started["game_id"], started["view"]
        while not view["your_turn"]:
            view = table.observe(game_id)
        legal = {m["id"] for m in view["legal_moves"]}
        illegal = next(a for a in range(envs.spec("monstargh-v0").num_actions) if a not in legal)
        with pytest.raises(RequestError) as refused:
            table.act(game_id, illegal)
        assert refused.value.status == 422 and refused.value.message
        with pytest.raises(RequestError, match="names no move; your legal moves: "):
            table.act(game_id, "dance a jig")
        with pytest.raises(RequestError, match="an id or a move's name"):
            table.act(game_id, [1])
        with pytest.raises(RequestError, match="the record is given once the game is over"):
            table.get_record(game_id)
        assert table.observe(game_id) == view
        named = table.act(game_id, view["legal_moves"][0]["name"].upper())
        assert named["step"] > view["step"]
    finally:
        table.close()


def test_seats_must_name_the_client_once_and_only_known_agents():
    table = ClientTable()
    try:
        for seats, message in (
            (["greedy", "greedy"], "one seat 'client'"),
            (["client", "client"], "one seat 'client'"),
            (["client", "human"], "not 'human'"),
            (["client", "wizard"], "unknown agent 'wizard'"),
        ):
            with pytest.raises(RequestError, match=message):
                table.new_game("monster_factory-v0", {"num_players": 2}, seats)
        with pytest.raises(RequestError, match="unknown game"):
            table.new_game("chess-v0")
        with pytest.raises(RequestError, match="num_players"):
            table.new_game("monster_factory-v0", {"num_players": 9})
        assert len(table.games) == 0
        default = table.new_game("monster_factory-v0", {"num_players": 2})
        assert default["seat"] == 0 and default["view"]["num_players"] == 2
    finally:
        table.close()


def test_the_table_keeps_the_web_apps_limit_and_expiry():
    now = [0.0]
    table = ClientTable(Settings(max_sessions=1, session_ttl_s=10.0))
    table.games.clock = lambda: now[0]
    try:
        first = table.new_game("monster_factory-v0", {"num_players": 2})["game_id"]
        with pytest.raises(RequestError, match="already holds 1 games in progress"):
            table.new_game("monster_factory-v0", {"num_players": 2})
        now[0] = 11.0
        with pytest.raises(RequestError, match="no such game"):
            table.observe(first)
        second = table.new_game("monster_factory-v0", {"num_players": 2})["game_id"]
        assert table.close_game(second) == {"closed": second}
        with pytest.raises(RequestError, match="no such game"):
            table.close_game(second)
    finally:
        table.close()


def test_bad_server_options_are_refused_with_their_valid_values(capsys):
    parser = build_parser()
    for argv, message in (
        (["--port", "70000"], "--port must be a port from 0 to 65535"),
        (["--max-games", "0"], "--max-games must be at least 1"),
        (["--game-ttl", "0"], "--game-ttl must be more than 0 seconds"),
    ):
        with pytest.raises(SystemExit):
            settings_of(parser.parse_args(argv), parser)
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["mcp", "--port", "-1"])
    assert "--port must be a port" in capsys.readouterr().err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_over_http_the_server_listens_on_loopback_and_refuses_a_foreign_host_header():
    """``--http``: the SDK's streamable HTTP client plays on 127.0.0.1; a request naming another host
    (DNS rebinding) is refused before any tool runs."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "monster_zoo.llm.mcp_server", "--http", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None and time.monotonic() < deadline, server.stderr.read().decode()[
                -2000:
            ]
            time.sleep(0.2)
        url = f"http://127.0.0.1:{port}/mcp"

        async def over_http():
            async with streamable_http_client(url) as (read, write, *_):
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    return await call(
                        client,
                        "new_game",
                        game="monster_factory-v0",
                        options={"num_players": 2},
                        seats=["client", "random"],
                    )

        started = anyio.run(over_http)
        assert started["view"]["game"] == "monster_factory-v0"
        foreign = httpx.post(
            url,
            headers={
                "Host": "evil.example",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
            content=b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
            timeout=10,
        )
        assert foreign.status_code in (400, 403, 421)
    finally:
        server.terminate()
        server.wait(timeout=30)
