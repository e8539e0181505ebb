"""Batched leaf evaluation: the network's batched pass through BLAS, and the
lock-step self-play that feeds it, give what the one-row pass and the one-game search give."""

import numpy as np
import pytest
from test_az import reachable

from monster_zoo import envs
from monster_zoo.agents.az.search import SearchSettings, search_and_play_lockstep, trees
from monster_zoo.agents.az.shipped import shipped_network_path
from monster_zoo.agents.network import (
    BATCH_MIN_ROWS,
    MAX_SEATS,
    evaluate,
    forward_batch,
    network_input,
    read_network,
)
from monster_zoo.agents.search.evaluator import uniform_policy
from monster_zoo.envs.core.contract import H_CURRENT
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.training.az.selfplay import play_games

SHIPPED = [g for g in envs.available() if shipped_network_path(g).is_file()]


def real_inputs(network, rows):
    """Network inputs of live states at every count the network plays (observation and count)."""
    spec = envs.spec(network.game_id)
    obs = np.zeros((rows, spec.obs_size), np.float32)
    counts = np.zeros(rows, np.int64)
    for r in range(rows):
        n = network.player_counts[r % len(network.player_counts)]
        state = reachable(network.game_id, n, r, 3 * r)
        spec.observe_into(state, int(state[H_CURRENT]), obs[r])
        counts[r] = n
    xs = np.zeros((rows, spec.obs_size + MAX_SEATS), np.float32)
    for r in range(rows):
        network_input(obs[r], counts[r], xs[r])
    return obs, counts, xs


@pytest.mark.parametrize("game_id", SHIPPED)
@pytest.mark.parametrize("sparse_input", [False, True])
def test_batched_pass_gives_the_one_row_pass_outputs_up_to_rounding(game_id, sparse_input):
    """Every shipped network: ``forward_batch`` over the first rows of a larger buffer gives the
    one-row pass's logits and values up to float rounding, and leaves the rows past ``rows`` alone."""
    network = read_network(shipped_network_path(game_id))
    obs, counts, xs = real_inputs(network, 24)
    want_logits, want_values = evaluate(network, obs, counts)
    width = max(network.hidden_sizes)
    logits = np.full((32, want_logits.shape[1]), 7.0, np.float32)
    values = np.full((32, MAX_SEATS), 7.0, np.float32)
    trunk_a, trunk_b = np.zeros(32 * width, np.float32), np.zeros(32 * width, np.float32)
    forward_batch(network.params, network.shapes, xs, 24, sparse_input, trunk_a, trunk_b, logits, values)
    assert np.allclose(logits[:24], want_logits, rtol=1e-4, atol=1e-4)
    assert np.allclose(values[:24], want_values, rtol=1e-4, atol=1e-5)
    assert np.all(logits[24:] == 7.0) and np.all(values[24:] == 7.0)


# --- lock-step self-play ----------------------------------------------------------------------
def self_play_both_ways(game_id, games, settings, seed):
    """The decisions of ``games`` self-play games of the shipped network at every count it plays,
    searched one game at a time and in lock step."""
    network = read_network(shipped_network_path(game_id))
    return [
        play_games(
            network, games, network.player_counts, settings, seed=seed, parallel=games, batched_leaves=batched
        )
        for batched in (False, True)
    ]


@pytest.mark.parametrize("game_id", SHIPPED)
def test_batched_leaf_evaluation_gives_the_same_decisions_as_unbatched_for_a_seed(game_id):
    """Lock step changes only where the network is called: each game's search
    draws the same numbers in the same order and makes the same choices from the same inputs,
    and the batched pass's outputs differ from the one-row pass's by float rounding (~1e-6, the
    same sums in another order). A choice turns only on a near tie that rounding tips: between
    scores that differ by less than a millionth, which no decision here has. So every decision
    of every game is the same (the games take the same course: observations, masks, counts and
    values are equal), and the policy targets equal up to rounding but for a rare one. 24 games
    side by side (the batches go through BLAS until fewer than 16 games are left, then row by
    row), every count the network plays, Gumbel noise at the root as in self-play: over 500
    decisions in all."""
    (plain, stats), (batched, batched_stats) = self_play_both_ways(
        game_id, BATCH_MIN_ROWS + 8, SearchSettings(simulations=8, gumbel_scale=1.0), 5
    )
    assert stats.decisions == batched_stats.decisions and stats.decisions >= 500
    for key in ("observations", "counts", "masks", "values"):
        assert np.array_equal(getattr(plain, key), getattr(batched, key)), key
    # Inside a search a simulation may take another branch at such a tie and still end in the
    # same move (once in 2,665 decisions of MONSTArgh! at 32 games, 16 simulations): its target
    # moves a little.
    gap = np.abs(plain.policies.astype(np.float32) - batched.policies.astype(np.float32)).max(axis=1)
    assert (gap > 1e-3).mean() <= 1e-3 and gap.max() < 0.05


def test_lock_step_mixes_rollouts_as_the_single_search_does():
    """With rollouts mixed into the leaves (``rollout_weight``), lock step plays the same games."""
    settings = SearchSettings(simulations=12, gumbel_scale=1.0, rollout_weight=0.5)
    (plain, _), (batched, _) = self_play_both_ways("marry_the_monster-v0", BATCH_MIN_ROWS, settings, 2)
    assert np.array_equal(plain.observations, batched.observations) and np.array_equal(
        plain.values, batched.values
    )


def test_lock_step_refuses_trees_too_small_for_the_simulations():
    """A tree of ``simulations`` nodes (one short) is refused before any game moves."""
    network = read_network(shipped_network_path("marry_the_monster-v0"))
    spec = envs.spec(network.game_id)
    settings = SearchSettings(simulations=8)
    states = np.stack([reachable(network.game_id, 2, s, 4) for s in range(2)])
    before = states.copy()
    children, visits, values, priors = trees(2, settings.simulations, spec.num_actions)
    with pytest.raises(ValueError, match="fewer nodes than simulations"):
        search_and_play_lockstep(
            states,
            np.arange(2),
            np.stack([make_rng(s) for s in range(2)]),
            np.stack([make_rng(9 + s) for s in range(2)]),
            settings.as_array(),
            True,
            network.params,
            network.shapes,
            children,
            visits,
            values,
            priors,
            np.zeros((2, spec.num_actions), np.float32),
            np.zeros(2, np.int64),
            np.zeros((2, spec.obs_size), np.float32),
            np.zeros((2, spec.num_actions), np.int8),
            spec.legal_mask,
            spec.apply_action,
            spec.returns,
            spec.observe_into,
            spec.determinize,
            uniform_policy,
        )
    assert np.array_equal(states, before)


def test_lock_step_below_the_batch_size_is_the_one_game_search_bit_for_bit():
    """Under 16 live leaves a step goes through ``forward`` row by row: then lock step computes
    exactly what one search per game computes, targets included (only the order of the games'
    work differs)."""
    settings = SearchSettings(simulations=12, gumbel_scale=1.0)
    (plain, _), (batched, _) = self_play_both_ways("mighty_monsters-v0", BATCH_MIN_ROWS - 1, settings, 3)
    for key in ("observations", "counts", "masks", "policies", "values"):
        assert np.array_equal(getattr(plain, key), getattr(batched, key)), key
