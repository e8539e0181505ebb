"""The games as an OpenEnv environment (llm/openenv_server.py, the openenv extra): reset, step and
state; the MCP tools under monster-zoo's names and OpenSpiel's; refusals in our own words that change
nothing; and the HTTP server a GRPO trainer points at."""

import json

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
    """A tool's answer through OpenEnv's step (CallToolAction); (data, error message or None)."""
    observation = env.step(CallToolAction(tool_name=tool, arguments=arguments))
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
