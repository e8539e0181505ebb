"""Agents and the match runner: seeding, legality, the state contract, strength, the CLI."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents import available_agents, make_agent
from monster_zoo.agents.greedy.agent import GreedyAgent
from monster_zoo.agents.random.agent import RandomAgent
from monster_zoo.evaluation.match import (
    DRAW,
    LOSS,
    WIN,
    iter_games,
    parse_option,
    play_game,
    run_match,
    seat_balanced,
    seat_outcome,
    seated_options,
    wilson_interval,
)

GAME = "marry_the_monster-v0"
ROOT = Path(__file__).resolve().parents[1]


def decisions(agents, seed, num_players=3):
    """Yield ``(agent, observation, mask, live_state)`` for every decision of one AEC game.

    The caller's answer is read back with ``send``: drive it with :func:`play_through`.
    """
    env = envs.make(GAME, num_players=num_players)
    raw = env.unwrapped
    env.reset(seed=seed)
    for name in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        agent = agents[raw.possible_agents.index(name)]
        action = yield agent, obs["observation"], obs["action_mask"], raw.engine_state
        env.step(action)


def play_through(agents, seed, on_decision, num_players=3):
    """Play one game; ``on_decision(agent, obs, mask, state)`` returns the action to take."""
    game = decisions(agents, seed, num_players)
    try:
        item = next(game)
        while True:
            item = game.send(on_decision(*item))
    except StopIteration:
        pass


# --- random agent -------------------------------------------------------------------
def test_random_agent_is_reproducible_and_legal():
    masks = []
    chosen = {}
    for seed in (7, 7, 8):
        agent = RandomAgent(seed)
        picks = []

        def record(agent, obs, mask, state, picks=picks):
            a = agent.act(obs, mask)
            assert mask[a] == 1
            masks.append(mask.copy())
            picks.append(a)
            return a

        play_through([agent, RandomAgent(100), RandomAgent(101)], 3, record)
        chosen.setdefault(seed, []).append(picks)
    assert chosen[7][0] == chosen[7][1]
    assert chosen[7][0] != chosen[8][0]
    # reset(seed) restarts the generator exactly as construction did
    agent = RandomAgent(7)
    first = [agent.act(None, m) for m in masks[:50]]
    agent.reset(7)
    assert [agent.act(None, m) for m in masks[:50]] == first


def test_random_agent_is_uniform_over_the_legal_actions():
    mask = np.zeros(99, np.int8)
    mask[[3, 40, 98]] = 1
    agent = RandomAgent(0)
    counts = np.bincount([agent.act(None, mask) for _ in range(3000)], minlength=99)
    assert set(np.flatnonzero(counts)) == {3, 40, 98}
    assert counts[[3, 40, 98]].min() > 900


def test_agents_refuse_an_empty_mask():
    mask = np.zeros(99, np.int8)
    with pytest.raises(ValueError, match="not on move"):
        RandomAgent(0).act(None, mask)
    with pytest.raises(ValueError, match="needs the engine state"):
        GreedyAgent(0, GAME).act(None, mask)


def test_an_agent_without_its_state_says_how_to_pass_it():
    """In a hand-written AEC loop the greedy agent, the searches and the learned search name the
    attribute that holds the state."""
    env = envs.make(GAME)
    env.reset(seed=0)
    seen = env.observe(env.agent_selection)
    for name in ("greedy", "mcts", "marry_the_monster-mcts-v1"):
        with pytest.raises(
            ValueError, match=r"agent.act\(observation, action_mask, env.unwrapped.engine_state\)"
        ):
            make_agent(name, env).act(seen["observation"], seen["action_mask"])
    assert make_agent("greedy", env).act(
        seen["observation"], seen["action_mask"], env.unwrapped.engine_state
    ) in np.flatnonzero(seen["action_mask"])


# --- greedy agent -------------------------------------------------------------------
def test_greedy_beats_random_in_three_player_games():
    result = run_match(GAME, ["greedy", "random", "random"], games=300, seed=12345, progress=False)
    greedy = result.stats[0]
    low, high = wilson_interval(greedy.wins, greedy.games)
    print(
        f"\ngreedy vs 2 random: {greedy.wins}/{greedy.games} = {greedy.win_rate:.3f} "
        f"[95% Wilson {low:.3f}, {high:.3f}]"
    )
    assert greedy.games == 300
    assert greedy.win_rate >= 0.80


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 4, 5])
def test_greedy_beats_random_at_other_player_counts(num_players):
    names = ["greedy"] + ["random"] * (num_players - 1)
    result = run_match(GAME, names, games=60 * num_players, seed=777, progress=False)
    greedy = result.stats[0]
    low, high = wilson_interval(greedy.wins, greedy.games)
    print(f"\ngreedy vs {num_players - 1} random: {greedy.win_rate:.3f} [{low:.3f}, {high:.3f}]")
    assert low > 0.75


# --- registry -------------------------------------------------------------------------
def test_registry_names():
    names = available_agents(GAME)
    assert {"random", "greedy", "marry_the_monster-greedy-v1", "marry_the_monster-random-v1"} <= set(names)
    assert isinstance(make_agent("greedy", GAME, 1), GreedyAgent)
    assert isinstance(make_agent("marry_the_monster-greedy-v1", GAME, 1), GreedyAgent)
    assert isinstance(make_agent("marry_the_monster-random-v1", GAME, 1), RandomAgent)
    assert make_agent("random", GAME, 5).seed == 5
    with pytest.raises(
        ValueError,
        match=r"valid names: az, az-net, az-timed, champion, greedy, mcts, mcts-fast, random, .* "
        r"or .*ppo:<model.npz>",
    ):  # the model prefixes, in the kinds' order
        make_agent("alphazero", GAME, 0)
    # a replaced version stays available by its versioned name
    assert {"marry_the_monster-mcts-v1", "marry_the_monster-mcts-v2"} <= set(names)
    assert make_agent("marry_the_monster-mcts-v1", GAME, 0).simulations == 10_000
    with pytest.raises(ValueError, match="no such file"):
        make_agent("ppo:/no/such/model.npz", GAME, 0)
    with pytest.raises(ValueError, match="valid names"):
        make_agent("other_game-greedy-v1", GAME, 0)
    with pytest.raises(ValueError, match="unknown game"):
        make_agent("random", "no_such_game-v0", 0)


# --- match runner -------------------------------------------------------------------
def test_wilson_interval():
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert wilson_interval(0, 20)[0] == 0.0 and wilson_interval(20, 20)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_match_rotates_seats_and_pairs_deals():
    result = run_match(GAME, ["random", "greedy", "random"], games=6, seed=3, progress=False)
    seats = np.zeros((3, 3), int)
    deals = {}
    for record in result.records:
        for seat, agent in enumerate(record["seats"]):
            seats[agent, seat] += 1
        deals.setdefault(record["seed"], set()).add(record["rotation"])
    assert (seats == 2).all()
    assert deals == {3: {0, 1, 2}, 4: {0, 1, 2}}
    assert [s.games for s in result.stats] == [6, 6, 6]
    # a game is reproducible from its deal seed and the agents' seeds
    again = run_match(GAME, ["random", "greedy", "random"], games=6, seed=3, progress=False)
    assert again.records == result.records


def test_play_game_rewards_sum_to_zero():
    env = envs.make(GAME, num_players=4)
    outcome = play_game(env, [RandomAgent(i) for i in range(4)], seed=1)
    assert sum(outcome["rewards"]) == pytest.approx(0.0, abs=1e-6)
    assert outcome["length"] > 0


def test_seat_outcome_is_strictly_the_best_return():
    assert [seat_outcome([1.0, -0.5, -0.5], s) for s in range(3)] == [WIN, LOSS, LOSS]
    assert [seat_outcome([0.0, 0.0], s) for s in range(2)] == [DRAW, DRAW]  # truncated
    assert [seat_outcome([0.5, 0.5, -1.0], s) for s in range(3)] == [DRAW, DRAW, LOSS]  # shared win
    # reward="score": above the mean is not enough, only first place wins
    assert [seat_outcome([12.0, 3.0, -15.0], s) for s in range(3)] == [WIN, LOSS, LOSS]


def test_match_helpers():
    assert [seat_balanced(g, 3) for g in (1, 3, 4)] == [3, 3, 6]
    assert seated_options({"max_steps": 9}, 4) == {"max_steps": 9, "num_players": 4}
    with pytest.raises(ValueError, match="num_players=2 but 3 agents"):
        seated_options({"num_players": 2}, 3)


def test_command_line_options_read_ints_bools_and_none():
    """``--option`` values: ints, true/false (any case) as bools, none as None, else strings."""
    assert parse_option("num_players=4") == ("num_players", 4)
    assert parse_option("kings_rules=True") == ("kings_rules", True)
    assert parse_option("guard_lineup=false") == ("guard_lineup", False)
    assert parse_option("render_mode=None") == ("render_mode", None)
    assert parse_option("species=red,blue") == ("species", "red,blue")


def test_play_game_announces_every_action_before_it_is_applied():
    env = envs.make(GAME, num_players=2)
    heard = []
    outcome = play_game(
        env,
        [RandomAgent(0), RandomAgent(1)],
        seed=2,
        on_action=lambda seat, a: heard.append((seat, a, env.unwrapped.action_to_str(a))),
    )
    assert len(heard) == outcome["length"]
    assert {seat for seat, _, _ in heard} == {0, 1}
    replay = envs.make(GAME, num_players=2)
    replay.reset(seed=2)
    for seat, a, name in heard:  # the same actions replay the game, named as they were applied
        assert replay.unwrapped.agent_selection == f"player_{seat}"
        assert replay.unwrapped.action_to_str(a) == name
        replay.step(a)


def test_iter_games_yields_the_records_run_match_keeps():
    records = list(iter_games(GAME, ["random", "greedy"], 4, seed=9))
    assert records == run_match(GAME, ["random", "greedy"], 4, seed=9, progress=False).records


def test_match_cli_smoke(tmp_path):
    out = tmp_path / "results.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "monster_zoo.evaluation.match",
            "--game",
            GAME,
            "--agents",
            "greedy",
            "random",
            "random",
            "--games",
            "3",
            "--seed",
            "0",
            "--option",
            "max_steps=3000",
            "--json",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| agent |"))
    assert "win rate [95% CI]" in lines[header] and "mean length" in lines[header]
    rows = lines[header + 2 : header + 5]
    assert [r.split("|")[1].strip() for r in rows] == ["greedy", "random #1", "random #2"]
    assert all(r.split("|")[2].strip() == "3" for r in rows)
    assert any(line.startswith("elapsed") for line in lines)
    data = json.loads(out.read_text())
    assert data["games"] == 3 and data["options"]["max_steps"] == 3000
    assert sum(r["wins"] for r in data["results"]) <= 3


def test_agents_package_runs_as_a_module():
    proc = subprocess.run(
        [sys.executable, "-m", "monster_zoo.agents", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and "--agents" in proc.stdout and "--option" in proc.stdout
