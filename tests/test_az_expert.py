"""The tuned search as the expert of expert iteration (:mod:`monster_zoo.training.az.expert`):
its policy targets are the ``mcts`` root visit distribution of the very state each decision saw."""

import numba
import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents.search.agent import MCTSAgent
from monster_zoo.agents.search.tuned import FAST_FRACTION, rollout_kernel, search_config
from monster_zoo.envs.core import threads
from monster_zoo.envs.core.batch import random_playout
from monster_zoo.envs.core.contract import H_CURRENT
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.training.az.expert import expert_mover, expert_simulations, play_expert_games

MTM = "marry_the_monster-v0"
SIMULATIONS = 40


def tables(game_id, counts):
    """Running states at the given player counts, each after a different number of random moves."""
    spec = envs.spec(game_id)
    return np.stack(
        [
            random_playout(spec, envs.config(game_id, {"num_players": n}), 3 + 7 * k, seed=k)[0]
            for k, n in enumerate(counts)
        ]
    )


def mcts_view(game_id, state, rng):
    """What the ``mcts`` agent (the game's tuned exploration and rollouts, ``SIMULATIONS``) does in
    ``state`` with generator ``rng``: its root visit distribution and its move."""
    spec = envs.spec(game_id)
    config = search_config(game_id)
    agent = MCTSAgent(
        0, SIMULATIONS, config.exploration, game_id, rollout_policy=rollout_kernel(game_id, config.rollout)
    )
    agent.rng[:] = rng
    obs = np.zeros(spec.obs_size, np.float32)
    mask = np.zeros(spec.num_actions, np.int8)
    spec.observe_into(state, int(state[H_CURRENT]), obs)
    spec.legal_mask(state, mask)
    action = agent.act(obs, mask, state.copy())
    visits = agent.tree.root_visits()
    return visits / visits.sum(), action, obs, mask


@pytest.mark.parametrize("game_id,counts", [(MTM, (2, 3, 4)), ("monster_arena-v0", (2, 4, 3))])
def test_expert_targets_are_the_search_visits_of_the_state_each_decision_saw(game_id, counts):
    """Row j of a move's targets is the root visit distribution (and the move) of ``mcts`` searching
    the state of game ``slots[j]`` with that game's generator: slots given out of order, two moves
    in a row (the second sees the states the first left, not stale ones)."""
    spec = envs.spec(game_id)
    states = tables(game_id, counts)
    slots = np.array([2, 0, 1], np.int64)
    game_rngs = np.stack([make_rng(100 + k) for k in range(3)])
    expert_rngs = np.stack([make_rng(200 + k) for k in range(3)])
    move = expert_mover(game_id, SIMULATIONS, 3)
    for _ in range(2):
        before, rngs_before = states.copy(), expert_rngs.copy()
        policies = np.zeros((3, spec.num_actions), np.float32)
        observations = np.zeros((3, spec.obs_size), np.float32)
        masks = np.zeros((3, spec.num_actions), np.int8)
        actions = np.zeros(3, np.int64)
        move(states, slots, game_rngs, expert_rngs, policies, actions, observations, masks)
        for j, slot in enumerate(slots):
            target, action, obs, mask = mcts_view(game_id, before[slot], rngs_before[slot])
            assert np.allclose(policies[j], target, atol=1e-6)
            assert actions[j] == action
            assert np.array_equal(observations[j], obs) and np.array_equal(masks[j], mask)
            assert np.all(policies[j][mask == 0] == 0)
        assert not np.array_equal(states, before)  # every game moved on


def test_expert_games_give_visit_distributions_and_rotated_returns():
    """A whole round of expert games: every policy target a distribution over legal actions with
    SIMULATIONS visits behind it, value targets the final returns (win scale), the same whatever
    the games side by side or the thread count."""
    batch, stats = play_expert_games(MTM, 3, [2, 3], seed=4, simulations=SIMULATIONS, parallel=2)
    assert stats.games == 3 and len(batch) == stats.decisions
    policies = batch.policies.astype(np.float64)
    assert np.allclose(policies.sum(axis=1), 1.0, atol=1e-2)
    assert np.all(policies[batch.masks == 0] == 0)
    scaled = policies * SIMULATIONS  # whole visit counts (float16 keeps three decimals)
    assert np.allclose(scaled, np.round(scaled), atol=0.05)
    assert np.all(np.abs(batch.values) <= 1.0) and np.any(batch.values == 1.0)
    again, _ = play_expert_games(MTM, 3, [2, 3], seed=4, simulations=SIMULATIONS, parallel=3)
    assert np.array_equal(batch.policies, again.policies) and np.array_equal(batch.values, again.values)
    with threads.using(min(2, numba.config.NUMBA_NUM_THREADS), min_batch=2):  # over both cores
        threaded, _ = play_expert_games(MTM, 3, [2, 3], seed=4, simulations=SIMULATIONS, parallel=3)
    assert np.array_equal(batch.policies, threaded.policies) and np.array_equal(
        batch.observations, threaded.observations
    )


def test_expert_budget_is_mcts_fast_unless_given():
    for game_id in envs.available():
        assert expert_simulations(game_id) == search_config(game_id).simulations // FAST_FRACTION
    assert expert_simulations(MTM, 7) == 7
    for bad in (0, -3, 2.5, 10**9):
        with pytest.raises(ValueError, match="expert simulations must be an integer from 1"):
            expert_simulations(MTM, bad)


def test_expert_trees_too_large_are_refused_before_anything_is_allocated():
    with pytest.raises(ValueError, match="play fewer games at once"):
        play_expert_games(MTM, 64, [2], seed=0, simulations=500_000, parallel=64)
