"""Every game's greedy baseline, checked the same way (checklist point 9): registered under its
short and versioned names, legal, never touching the live state, blind to what its seat cannot
see, and winning at least 80% of seat-rotated games against random play at the game's
smallest player count. Game-specific behaviour is tested in each game's own agents file."""

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents import available_agents, make_agent
from monster_zoo.envs.core.contract import H_CURRENT
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.evaluation.match import run_match, wilson_interval

pytestmark = pytest.mark.conformance  # the test-only games of tests/fixture_games/ run these too

GAMES_PER_CHECK = 300


def play_with_greedy(game_id, seed, num_players, on_greedy):
    """One AEC game: greedy in seat ``seed % num_players``, random elsewhere;
    ``on_greedy(agent, obs, mask, state)`` answers for the greedy seat."""
    env = envs.make(game_id, num_players=num_players)
    raw = env.unwrapped
    greedy_seat = seed % num_players
    agents = [
        make_agent("greedy" if q == greedy_seat else "random", game_id, seed + q) for q in range(num_players)
    ]
    env.reset(seed=seed)
    for name in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        seat = raw.possible_agents.index(name)
        agent = agents[seat]
        if seat == greedy_seat:
            env.step(on_greedy(agent, obs["observation"], obs["action_mask"], raw.engine_state))
        else:
            env.step(agent.act(obs["observation"], obs["action_mask"]))


def test_greedy_answers_to_its_names(game_id):
    """``greedy`` plays the version its game declares, by its short and its versioned name; an
    earlier version's name is refused with the valid names (a greedy baseline keeps one version)."""
    name = envs.spec(game_id).name
    version = envs.spec(game_id).baselines["greedy"].version
    names = available_agents(game_id)
    assert {"greedy", "random", f"{name}-greedy-v{version}", f"{name}-random-v1"} <= set(names)
    assert type(make_agent("greedy", game_id, 1)) is type(make_agent(f"{name}-greedy-v{version}", game_id, 1))
    assert make_agent("greedy", game_id, 1).policy_kernel is not None  # plays inside numba in training
    for earlier in range(1, version):
        with pytest.raises(
            ValueError, match=f"unknown agent '{name}-greedy-v{earlier}'.*{name}-greedy-v{version}"
        ):
            make_agent(f"{name}-greedy-v{earlier}", game_id, 1)


def test_greedy_is_legal_pure_and_blind_to_hidden_information(game_id):
    """At every greedy decision: a legal action, the live state untouched, and the same answer
    when everything the seat cannot see is resampled (``spec.determinize``)."""
    spec = envs.spec(game_id)
    checked = 0

    def check(agent, obs, mask, state):
        nonlocal checked
        before, keep = state.copy(), agent.rng.copy()
        a = agent.act(obs, mask, state)
        assert mask[a] == 1, f"illegal action {a}"
        assert np.array_equal(state, before), "the agent modified the live engine state"
        for k in range(2):
            other = state.copy()
            spec.determinize(other, int(state[H_CURRENT]), make_rng(1000 * checked + k))
            agent.rng[:] = keep
            assert agent.act(obs, mask, other) == a, spec.to_text(state)
        checked += 1
        return a

    counts = range(spec.min_players, spec.max_players + 1)
    for seed, n in enumerate(counts):
        play_with_greedy(game_id, seed, n, check)
    assert checked > 20


def test_greedy_beats_random_at_the_smallest_player_count(game_id):
    """Checklist 9: >= 80% of seat-rotated games won against random opponents."""
    n = envs.spec(game_id).min_players
    result = run_match(
        game_id, ["greedy"] + ["random"] * (n - 1), games=GAMES_PER_CHECK, seed=4242, progress=False
    )
    greedy = result.stats[0]
    low, high = wilson_interval(greedy.wins, greedy.games)
    print(f"\n{game_id} greedy vs {n - 1} random: {greedy.win_rate:.3f} [{low:.3f}, {high:.3f}]")
    assert greedy.win_rate >= 0.80


def test_greedy_refuses_to_act_without_the_state_or_off_turn(game_id):
    spec = envs.spec(game_id)
    agent = make_agent("greedy", game_id, 0)
    with pytest.raises(ValueError, match="needs the engine state"):
        agent.act(None, np.ones(spec.num_actions, np.int8))
    with pytest.raises(ValueError, match="not on move"):
        agent.act(None, np.zeros(spec.num_actions, np.int8), np.zeros(spec.state_size, np.int32))
