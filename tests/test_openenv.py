"""The games as an OpenEnv environment (llm/openenv_server.py, the openenv extra): reset, step and
state; the MCP tools under monster-zoo's names and OpenSpiel's; refusals in our own words that change
nothing; and the HTTP server a GRPO trainer points at."""

import json
import logging

import pytest

pytest.importorskip("openenv", reason="the openenv extra is not installed")

from openenv.core.env_server.mcp_types import CallToolAction, ListToolsAction

from monster_zoo.envs.core.json_view import seat_view
from monster_zoo.llm.openenv_server import OPENSPIEL_NAMES, OUR_NAMES, GameEnvironment, MoveAction

GAME = "monster_factory-v0"
TWO = {"num_players": 2}


@pytest.fixture
def env():
    environment = GameEnvironment()
    yield environment
    environment.close()


def call(env, tool, **arguments):
    """A tool's answer through OpenEnv's step (CallToolAction); (data, error message or None). The
    time allowed is generous: OpenEnv's default of 30 s can end a first call that compiles a game's
    kernels on a busy machine, which is not what these tests are about."""
    observation = env.step(CallToolAction(tool_name=tool, arguments=arguments), timeout_s=600)
    if observation.error is not None:
        return None, observation.error.message
    return observation.result.data, None


def test_both_sets_of_tool_names_are_offered(env):
    names = {tool.name for tool in env.step(ListToolsAction()).tools}
    assert set(OPENSPIEL_NAMES) | set(OUR_NAMES) <= names
    assert not names & {"reset", "step", "state", "close"}  # OpenEnv's reserved names


def test_reset_step_and_state_play_a_whole_game_and_reward_the_clients_return(env):
    first = env.reset(seed=5, game=GAME, options=TWO, seats=["client", "random"], episode_id="e1")
    assert not first.done and first.reward == 0.0 and first.seat == 0
    assert env.state.episode_id == "e1" and env.state.game == GAME and env.state.step_count == 0
    observation, moves = first, 0
    while not observation.done:
        observation = env.step(MoveAction(move=observation.view["legal_moves"][-1]["id"]))
        moves += 1
    result = observation.view["result"]
    assert observation.reward == result["returns"][0] and observation.reward in (-1.0, 0.0, 1.0)
    assert env.state.step_count == moves and env.state.over
    assert call(env, "get_return") == ({"return": observation.reward, "over": True}, None)
    record, error = call(env, "get_record")
    assert error is None and record["game"] == GAME


def test_openspiel_names_answer_as_ours(env):
    """start_game/new_game, get_observation/observe, play_action/act give the same games."""
    ours, _ = call(env, "new_game", game=GAME, options=TWO, seats=["client", "greedy"], seed=3)
    move = ours["view"]["legal_moves"][0]["id"]
    after_ours, _ = call(env, "act", move=move)
    assert call(env, "observe")[0] == after_ours
    theirs, _ = call(env, "start_game", game=GAME, options=TWO, seats=["client", "greedy"], seed=3)
    assert theirs == ours and call(env, "legal_actions")[0] == ours["view"]["legal_moves"]
    after_theirs, _ = call(env, "play_action", action=move)
    assert after_theirs == after_ours == call(env, "get_observation")[0]
    info, _ = call(env, "game_info", game=GAME)
    assert info["game"] == GAME and "rules_summary" in info and info["min_players"] == 2


def test_a_refused_move_is_answered_in_our_words_and_changes_nothing(env):
    env.reset(seed=2, game=GAME, options=TWO, seats=["client", "random"])
    before = call(env, "observe")[0]
    for bad, said in (
        (True, "must be an id or a move's name"),
        (99999, "out of range"),
        ("fly", "names no move"),
    ):
        data, error = call(env, "play_action", action=bad)
        assert data is None and said in error, error
        assert "pydantic" not in error and "validation error" not in error
    assert call(env, "observe")[0] == before and env.state.step_count == 0
    with pytest.raises(ValueError):
        MoveAction(move=True)
    _, error = call(env, "game_info", game="chess")
    assert "unknown game 'chess'; available:" in error


def test_a_tool_before_any_game_says_what_to_do_first(env):
    _, error = call(env, "get_observation")
    assert "reset the environment or call new_game" in error


def test_the_view_is_the_seats_json_view(env):
    """Nothing beyond what the seat may know: the view equals the seat view built from the state."""
    env.reset(seed=4, game="monstargh-v0", options=TWO, seats=["client", "random"])
    view, _ = call(env, "observe")
    session = env.table.games.get(env.game_handle).session
    expected = seat_view(
        session.spec,
        session.raw.engine_state,
        0,
        session.legal_actions(),
        [(m.seat, m.names[0]) for m in session.moves],
        session.result(),
    )
    assert json.loads(json.dumps(expected)) == view


def test_the_http_server_resets_steps_and_tells_its_state():
    from starlette.testclient import TestClient

    from monster_zoo.llm.openenv_server import create_server

    with TestClient(create_server()) as client:
        reset = client.post(
            "/reset", json={"seed": 1, "game": GAME, "options": TWO, "seats": ["client", "random"]}
        )
        assert reset.status_code == 200, reset.text
        view = reset.json()["observation"]["view"]
        assert view["game"] == GAME and view["your_turn"]
        schema = client.get("/schema")
        assert schema.status_code == 200


def test_the_http_step_takes_a_move_or_an_mcp_call_as_openenv_action_models_do():
    """``{"action": {"move": ...}}`` is read as a move (strictly: a boolean is refused), ``"type":
    "call_tool"/"list_tools"`` as OpenEnv's MCP actions, and /schema describes both; an HTTP step meets
    a fresh environment, so a move there is refused saying where games are played."""
    from starlette.testclient import TestClient

    from monster_zoo.llm.openenv_server import create_server

    with TestClient(create_server()) as client:
        move = client.post("/step", json={"action": {"move": 0}})
        assert move.status_code == 200, move.text
        observation = move.json()["observation"]
        assert "no game yet" in observation["error"] and "/ws" in observation["error"]
        assert move.json()["done"] is False and observation["view"] == {}
        assert client.post("/step", json={"action": {"move": True}}).status_code == 422
        assert client.post("/step", json={"action": {"moves": 0}}).status_code == 422
        tools = client.post("/step", json={"action": {"type": "list_tools"}})
        assert tools.status_code == 200, tools.text
        assert set(OUR_NAMES) <= {tool["name"] for tool in tools.json()["observation"]["tools"]}
        called = client.post(
            "/step", json={"action": {"type": "call_tool", "tool_name": "list_games", "arguments": {}}}
        )
        assert called.status_code == 200 and called.json()["observation"]["error"] is None, called.text
        schema = json.dumps(client.get("/schema").json()["action"])
        assert '"move"' in schema and '"tool_name"' in schema


def test_a_websocket_session_plays_a_game_by_moves_and_refuses_a_bad_one():
    """Over /ws (the session OpenEnv's clients hold) reset deals, ``{"move": id}`` plays, and a refused
    move answers its sentence beside the unchanged view."""
    from starlette.testclient import TestClient

    from monster_zoo.llm.openenv_server import create_server

    with TestClient(create_server()) as client, client.websocket_connect("/ws") as ws:

        def send(kind, data=None):
            ws.send_json({"type": kind, **({} if data is None else {"data": data})})
            answer = ws.receive_json()
            assert answer["type"] != "error", answer
            return answer["data"]

        first = send("reset", {"seed": 3, "game": GAME, "options": TWO, "seats": ["client", "random"]})
        view = first["observation"]["view"]
        refused = send("step", {"move": 99999})
        assert "out of range" in refused["observation"]["error"]
        assert refused["observation"]["view"] == view and refused["done"] is False
        answer, moves = first, 0
        while not answer["done"]:
            legal = answer["observation"]["view"]["legal_moves"]
            answer = send("step", {"move": legal[0]["name"] if moves % 2 else legal[0]["id"]})
            assert answer["observation"]["error"] is None
            moves += 1
        assert answer["reward"] == answer["observation"]["view"]["result"]["returns"][0]
        assert send("state")["step_count"] == moves


def test_refused_calls_are_logged_once_at_debug_level_and_not_on_stderr(env, capfd, caplog):
    """FastMCP would write a line to stderr per refused call; each is one debug record of ours."""
    env.reset(seed=2, game=GAME, options=TWO, seats=["client", "random"])
    capfd.readouterr()
    with caplog.at_level(logging.DEBUG, logger="monster_zoo.openenv"):
        for bad in (True, 99999, "fly"):
            assert call(env, "play_action", action=bad)[1] is not None
        assert call(env, "game_info")[1] is not None  # its argument missing: FastMCP refuses it
        assert env.step(MoveAction(move=99999)).error is not None
    assert "Error calling tool" not in capfd.readouterr().err
    ours = [r for r in caplog.records if r.name == "monster_zoo.openenv"]
    assert len(ours) == 5 and all(r.levelno == logging.DEBUG for r in ours), [r.getMessage() for r in ours]
    assert "out of range" in ours[1].getMessage() and "game_info" in ours[3].getMessage()


def test_a_session_its_client_closed_ends_quietly_and_http_errors_pass(caplog):
    """The middleware ends a ``/ws`` session whose send meets a gone client at debug level, and lets
    any error of an HTTP request through."""
    import asyncio

    from starlette.websockets import WebSocketDisconnect

    from monster_zoo.llm.openenv_server import ClosedSessionsEndQuietly

    async def gone(scope, receive, send):
        raise WebSocketDisconnect(code=1006)

    quiet = ClosedSessionsEndQuietly(gone)
    with caplog.at_level(logging.DEBUG, logger="monster_zoo.openenv"):
        asyncio.run(quiet({"type": "websocket"}, None, None))
    assert "ended by its client (code 1006)" in caplog.text
    with pytest.raises(WebSocketDisconnect):
        asyncio.run(quiet({"type": "http"}, None, None))
