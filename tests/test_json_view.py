"""The JSON seat view (envs/core/json_view.py): valid against each game's shipped JSON Schema, the same
from the AEC env and the batched engine, and blind to whatever the seat may not know."""

import jsonschema
import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.envs.core.contract import H_TERMINAL
from monster_zoo.envs.core.json_view import (
    MAX_LAST_MOVES,
    SCHEMA_FILE,
    rules_summary,
    schema_text,
    shipped_schema,
    since_own_move,
)
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.registry import declaration
from monster_zoo.seeds import game_dir

GAMES = envs.available()
HIDDEN = tuple(g for g in GAMES if declaration(g).hides_information)


def play(env, steps: int, rng) -> None:
    """``steps`` random legal moves (fewer if the game ends first)."""
    for _ in range(steps):
        if not env.agents or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            return
        env.step(int(rng.choice(env.unwrapped.legal_actions())))


@pytest.mark.parametrize("game_id", GAMES)
def test_the_shipped_schema_is_the_one_the_code_describes(game_id):
    spec = envs.spec(game_id)
    shipped = (game_dir(spec.name) / SCHEMA_FILE).read_text(encoding="utf-8")
    assert shipped == schema_text(spec, declaration(game_id).max_players), (
        "regenerate seeds/<game>/seat_view.schema.json with monster_zoo.envs.core.json_view.schema_text"
    )


@pytest.mark.parametrize("game_id", GAMES)
def test_every_seats_view_is_valid_against_its_schema_through_a_whole_game(game_id):
    env = envs.make(game_id)
    env.reset(seed=3)
    schema = shipped_schema(envs.spec(game_id).name)
    validator = jsonschema.Draft202012Validator(schema)
    rng = np.random.default_rng(3)
    on_move_seen = False
    while True:
        for agent in env.possible_agents:
            view = env.unwrapped.observe_json(agent)
            validator.validate(view)
            on_move_seen |= view["your_turn"]
            assert bool(view["legal_moves"]) == view["your_turn"]
            if view["your_turn"]:
                assert [m["id"] for m in view["legal_moves"]] == env.unwrapped.legal_actions()
        if (
            not env.agents
            or env.unwrapped.engine_state[H_TERMINAL]
            or len(env.unwrapped._trail.actions) > 400
        ):
            break
        play(env, 7, rng)
    assert on_move_seen


def test_the_view_at_the_end_holds_the_result_and_no_moves():
    env = envs.make("monster_factory-v0", num_players=2)
    env.reset(seed=1)
    play(env, 10_000, np.random.default_rng(1))
    view = env.unwrapped.observe_json("player_0")
    assert view["over"] and view["on_move"] is None and view["legal_moves"] == []
    assert len(view["result"]["returns"]) == 2


@pytest.mark.parametrize("game_id", HIDDEN)
def test_a_seats_view_is_the_same_for_any_redeal_of_what_it_cannot_see(game_id):
    """``determinize`` redeals what the seat cannot see: every field of its view stays the same, and
    the names of the moves it saw were the same in every redeal of the state each move met."""
    env = envs.make(game_id)
    env.reset(seed=5)
    raw = env.unwrapped
    rng = np.random.default_rng(5)
    changed = False
    for steps in (5, 12, 25):
        play(env, steps, rng)
        real = raw.engine_state.copy()
        for seat, agent in enumerate(env.possible_agents):
            seen = raw.observe_json(agent)
            twin = real.copy()
            raw.spec.determinize(twin, seat, make_rng(steps + seat))
            changed |= not np.array_equal(twin, real)
            raw.engine_state[:] = twin
            assert raw.observe_json(agent) == seen, f"{agent}'s view shows something hidden from it"
            raw.engine_state[:] = real
    assert changed, "the redeals changed hidden information"
    # the moves as named for each seat: the same from any redeal of the state each move met
    state, game_rng = raw._trail._start[0].copy(), raw._trail._start[1].copy()
    for index, (_, action) in enumerate(raw._trail.actions):
        for seat in range(len(env.possible_agents)):
            twin = state.copy()
            raw.spec.determinize(twin, seat, make_rng(index))
            assert raw.spec.describe_action(twin, action, seat) == raw.spec.describe_action(
                state, action, seat
            )
        raw.spec.apply_action(state, action, game_rng)


def test_another_seats_secret_move_is_named_as_the_seat_knew_it():
    env = envs.make("mighty_monsters-v0", num_players=3)
    env.reset(seed=0)
    play(env, 2, np.random.default_rng(0))
    raw = env.unwrapped
    movers = [seat for seat, _ in raw._trail.actions]
    watcher = next(s for s in range(3) if s not in movers)
    seen = raw.observe_json(f"player_{watcher}")["last_moves"]
    assert [m["seat"] for m in seen] == movers
    assert all(m["name"] == "lay two cards face down" for m in seen)
    mover = raw.observe_json(f"player_{movers[0]}")["last_moves"]
    assert [m["seat"] for m in mover] == movers[1:]


def test_last_moves_are_those_since_the_seats_own_last_move_and_capped():
    named = [(0, "a"), (1, "b"), (0, "c"), (1, "d"), (2, "e")]
    assert [m["name"] for m in since_own_move(named, 0)] == ["d", "e"]
    assert [m["name"] for m in since_own_move(named, 3)] == ["a", "b", "c", "d", "e"]
    assert len(since_own_move([(1, "x")] * (MAX_LAST_MOVES + 5), 0)) == MAX_LAST_MOVES


@pytest.mark.parametrize("game_id", ["monstargh-v0", "monster_factory-v0"])
def test_the_batched_engine_gives_a_slot_the_envs_view_without_history(game_id):
    engine = envs.make_batch(game_id, num_envs=2, seed=7)
    engine.reset()
    env = envs.make(game_id)
    env.reset(seed=8)  # slot 1 is seeded seed + 1
    rng = np.random.default_rng(0)
    for _ in range(6):
        action = int(rng.choice(env.unwrapped.legal_actions()))
        actions = engine.random_actions().copy()
        actions[1] = action
        engine.step(actions)
        env.step(action)
    for seat, agent in enumerate(env.possible_agents):
        expected = {**env.unwrapped.observe_json(agent), "last_moves": []}
        assert engine.observe_json(1, seat) == expected


def test_bad_seats_and_slots_are_refused_by_name():
    env = envs.make("monstargh-v0")
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before observe"):  # as observe()
        env.unwrapped.observe_json("player_0")
    env.reset(seed=0)
    with pytest.raises(KeyError, match="possible agents"):
        env.unwrapped.observe_json("player_9")
    engine = envs.make_batch("monstargh-v0", num_envs=2)
    engine.reset()
    with pytest.raises(ValueError, match="slot must be an integer from 0 to 1"):
        engine.observe_json(2, 0)
    with pytest.raises(ValueError, match="seat must be an integer from 0 to 3"):
        engine.observe_json(0, -1)


@pytest.mark.parametrize("game_id", GAMES)
def test_each_game_has_a_rules_summary_for_prompts_pointing_at_its_rules(game_id):
    spec = envs.spec(game_id)
    summary = rules_summary(spec.name)
    assert f"{declaration(game_id).rule_prefix}-1" in summary and 200 < len(summary) < 3000
