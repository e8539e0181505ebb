"""Learned search (``az``): the numba network, the Gumbel search over it, its agents and files.

The search is tested with untrained (random) networks: a clearly best move that ends the game
is found through the exact returns the search reads at the end of a game, whatever the network
says elsewhere, so these positions check the search itself. What training adds is checked by
the trainer's tests and measured in ``training/AZ.md``.
"""

import json
import os
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import monster_factory_diagram
import numpy as np
import pytest
import test_search_positions as positions
from numba import njit
from test_hostile_inputs import MB, finishes_within, lying_metadata_zip, peak_bytes, with_entries

from monster_zoo import envs
from monster_zoo.agents.az.agent import AZAgent, AZNetAgent, load_az
from monster_zoo.agents.az.search import SearchSettings, gumbel_search, schedule, search_and_play, trees
from monster_zoo.agents.az.shipped import shipped_network_path
from monster_zoo.agents.game_rules import WrongGameError
from monster_zoo.agents.model_file import MAX_LAYER_UNITS, MAX_METADATA_BYTES, MAX_PARAMETERS, ModelFileError
from monster_zoo.agents.network import (
    GATHERED_LOGIT_COST,
    MAX_SEATS,
    NONZERO_BLOCK,
    _dense,
    _dense_columns,
    architecture_problem,
    evaluate,
    forward,
    forward_legal,
    from_layers,
    layer_shapes,
    network_input,
    nonzero_indices,
    random_network,
    read_network,
    write_network,
)
from monster_zoo.agents.ppo.champions import champion_path
from monster_zoo.agents.search.evaluator import uniform_policy
from monster_zoo.agents.search.tree import no_determinize
from monster_zoo.envs.core.batch import random_playout
from monster_zoo.envs.core.contract import H_CURRENT, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng

ROOT = Path(__file__).resolve().parents[1]
MTM = "marry_the_monster-v0"


def reachable(game_id, num_players, seed, steps):
    """A live state after ``steps`` random actions."""
    return random_playout(
        envs.spec(game_id), envs.config(game_id, {"num_players": num_players}), steps, seed
    )[0]


def legal(game_id, state):
    """The engine's mask for the seat on move."""
    mask = np.zeros(envs.spec(game_id).num_actions, np.int8)
    envs.spec(game_id).legal_mask(state, mask)
    return mask


def decide(agent, game_id, state):
    """The agent's action in ``state``, its root visits and improved policy."""
    action = agent.act(None, legal(game_id, state), state)
    return action, agent.tree.root_visits(), agent.policy.copy()


# --- the network -------------------------------------------------------------------------------
@pytest.mark.parametrize("game_id", [MTM, "monster_factory-v0"])
def test_numba_forward_pass_equals_torch_for_the_same_weights(game_id):
    """The search's forward pass and the learner's torch module agree on the same weights, at
    every player count (the count is part of the input)."""
    torch = pytest.importorskip("torch")
    from monster_zoo.training.az.learner import PolicyValueNet, export, network_inputs

    spec = envs.spec(game_id)
    torch.manual_seed(0)
    net = PolicyValueNet(game_id, (48, 32), spec.num_actions)
    counts = list(range(spec.min_players, spec.max_players + 1))
    network = export(net, game_id, {}, counts, "twin")
    observations = np.stack(
        [envs.make_batch(game_id, 1, seed=s, num_players=n).reset()[0][0] for s, n in enumerate(counts)]
    )
    observations[0, :7] = 0.5  # also a dense row
    logits, values = evaluate(network, observations, np.array(counts))
    with torch.no_grad():
        t_logits, t_values = net(network_inputs(torch.as_tensor(observations), torch.as_tensor(counts)))
    assert np.allclose(logits, t_logits.numpy(), atol=1e-5)
    assert np.allclose(values, t_values.numpy(), atol=1e-5)
    assert not np.allclose(values[0], values[1], atol=1e-4)  # the count changes the output


def numpy_forward(network, observations, num_players):
    """The network's outputs by plain float64 numpy algebra: what the numba kernel must compute."""
    counts = np.zeros((len(observations), MAX_SEATS))
    counts[np.arange(len(observations)), np.asarray(num_players) - 1] = 1.0
    h = np.concatenate([observations.astype(np.float64), counts], axis=1)
    layers = [(w.astype(np.float64), b.astype(np.float64)) for w, b in network.layers()]
    for weight, bias in layers[:-2]:
        h = np.maximum(h @ weight + bias, 0.0)
    return h @ layers[-2][0] + layers[-2][1], np.tanh(h @ layers[-1][0] + layers[-1][1])


@pytest.mark.parametrize("game_id", [g for g in envs.available() if shipped_network_path(g).is_file()])
def test_shipped_networks_give_the_same_outputs_as_plain_algebra(game_id):
    """Every shipped network loads and its forward pass (the kernel over 2-D weights) gives
    what numpy's float64 algebra gives for the same file, on real observations at every count it
    plays: the rewrite for speed changed no output beyond float rounding."""
    network = read_network(shipped_network_path(game_id))
    rows = [(reachable(game_id, n, seed, 5 * seed), n) for n in network.player_counts for seed in range(4)]
    obs = np.zeros((len(rows), envs.spec(game_id).obs_size), np.float32)
    for r, (state, _) in enumerate(rows):
        envs.spec(game_id).observe_into(state, int(state[H_CURRENT]), obs[r])
    counts = np.array([n for _, n in rows])
    logits, values = evaluate(network, obs, counts)
    want_logits, want_values = numpy_forward(network, obs, counts)
    assert np.allclose(logits, want_logits, rtol=1e-4, atol=1e-4)
    assert np.allclose(values, want_values, rtol=1e-4, atol=1e-5)
    assert np.ptp(logits, axis=1).min() > 0  # real outputs, not a constant


@njit(fastmath=True)
def dense_testing_each_input(weight, bias, source, out):
    """The dense layer as it was before the non-zero inputs were listed first: the test inside
    the loop over rows (the reference that the listed form must match to the bit)."""
    for o in range(weight.shape[1]):
        out[o] = bias[o]
    for k in range(weight.shape[0]):
        v = source[k]
        if v != 0.0:
            for o in range(weight.shape[1]):
                out[o] += v * weight[k, o]


@pytest.mark.parametrize("n_in,n_out", [(286, 256), (256, 437), (256, 6), (1, 3)])
def test_dense_layer_listing_its_nonzero_inputs_first_sums_the_same_to_the_bit(n_in, n_out):
    """The forward pass's dense layer lists the non-zero inputs, then adds their rows: the same
    sums in the same order as testing each input in the loop, so every output is equal to the
    bit (no decision of a seeded search can move), with most inputs zero, none, or all."""
    rng = np.random.default_rng(n_in + n_out)
    weight = rng.normal(size=(n_in, n_out)).astype(np.float32)
    bias = rng.normal(size=n_out).astype(np.float32)
    nonzero = np.full(n_in, -7, np.int32)
    for share in (0.1, 0.0, 1.0):
        source = (rng.normal(size=n_in) * (rng.random(n_in) < share)).astype(np.float32)
        want, got = np.zeros(n_out, np.float32), np.full(n_out, 9.0, np.float32)
        dense_testing_each_input(weight, bias, source, want)
        _dense(weight, bias, source, got, nonzero)
        assert np.array_equal(got.view(np.int32), want.view(np.int32))


@pytest.mark.parametrize("n_in,n_columns", [(256, 6), (256, 1), (7, 3), (3, 2)])
def test_listed_columns_sum_as_the_whole_layer_to_the_bit(n_in, n_columns):
    """The policy head made for a few columns (four rows at a time, and the rows left over when
    the non-zero inputs are not a multiple of four) gives each of them the whole layer's sum to
    the bit, and leaves the other outputs alone."""
    rng = np.random.default_rng(n_in * 10 + n_columns)
    weight = rng.normal(size=(n_in, 437)).astype(np.float32)
    bias = rng.normal(size=437).astype(np.float32)
    columns = np.sort(rng.choice(437, n_columns, replace=False)).astype(np.int32)
    nonzero = np.zeros(n_in, np.int32)
    for share in (0.3, 0.0, 1.0):
        source = (rng.normal(size=n_in) * (rng.random(n_in) < share)).astype(np.float32)
        want, got = np.zeros(437, np.float32), np.full(437, 9.0, np.float32)
        dense_testing_each_input(weight, bias, source, want)
        count = nonzero_indices(source, nonzero)
        _dense_columns(weight, bias, source, nonzero, count, columns, n_columns, got)
        assert np.array_equal(got[columns].view(np.int32), want[columns].view(np.int32))
        assert np.all(np.delete(got, columns) == 9.0)


@pytest.mark.parametrize("dtype", [np.int8, np.float32])
@pytest.mark.parametrize("size", [1, NONZERO_BLOCK - 1, NONZERO_BLOCK, 3 * NONZERO_BLOCK + 5, 437])
def test_nonzero_indices_lists_every_nonzero_entry_in_ascending_order(dtype, size):
    """The list the search makes of a mask's legal actions and the forward pass of an input's
    non-zero entries: every non-zero entry, in order, whether it stands in a block of zeros, at a
    block's edge or in the entries after the last whole block; none, all, and -0.0 not listed."""
    rng = np.random.default_rng(size)
    out = np.full(size, -1, np.int32)
    for share in (0.0, 0.02, 0.5, 1.0):
        values = ((rng.random(size) < share) * rng.integers(1, 5, size)).astype(dtype)
        if dtype == np.float32 and size > 2:
            values[1] = -0.0
        count = nonzero_indices(values, out)
        assert out[:count].tolist() == np.flatnonzero(values).tolist()
    edges = np.zeros(size, dtype)
    edges[[0, size - 1]] = 1
    assert out[: nonzero_indices(edges, out)].tolist() == sorted({0, size - 1})


@pytest.mark.parametrize("game_id", [g for g in envs.available() if shipped_network_path(g).is_file()])
def test_forward_over_the_legal_actions_gives_their_logits_and_the_values_to_the_bit(game_id):
    """``forward_legal`` (what the search calls at a leaf) makes the listed actions' logits, equal
    to the bit to ``forward``'s, and the values; where they are few (Monster Arena, MONSTArgh!,
    Monster Factory) only theirs: every other logit is left as it was."""
    network = read_network(shipped_network_path(game_id))
    spec = envs.spec(game_id)
    for seed in range(4):
        n = network.player_counts[seed % len(network.player_counts)]
        state = reachable(game_id, n, seed, 5 * seed)
        obs = np.zeros(spec.obs_size, np.float32)
        spec.observe_into(state, int(state[H_CURRENT]), obs)
        x = np.zeros(spec.obs_size + MAX_SEATS, np.float32)
        network_input(obs, n, x)
        legal_actions = np.flatnonzero(legal(game_id, state)).astype(np.int32)
        want_logits, want_values = np.zeros(spec.num_actions, np.float32), np.zeros(MAX_SEATS, np.float32)
        forward(network.params, network.shapes, x, network.scratch(), want_logits, want_values)
        logits, values = np.full(spec.num_actions, 7.0, np.float32), np.zeros(MAX_SEATS, np.float32)
        forward_legal(
            network.params,
            network.shapes,
            x,
            network.scratch(),
            legal_actions,
            len(legal_actions),
            logits,
            values,
        )
        assert np.array_equal(logits[legal_actions].view(np.int32), want_logits[legal_actions].view(np.int32))
        assert np.array_equal(values.view(np.int32), want_values.view(np.int32))
        if len(legal_actions) * GATHERED_LOGIT_COST <= spec.num_actions:
            assert np.all(np.delete(logits, legal_actions) == 7.0)


def test_value_head_gives_one_entry_per_seat_within_minus_one_and_one():
    """Entries are tanh outputs: never outside [-1, 1] however large the weights, and saturating
    towards +-1 for large pre-activations."""
    network = random_network(MTM, (32,), seed=3)
    network.params *= 200.0
    observations = np.random.default_rng(0).random((64, envs.spec(MTM).obs_size), dtype=np.float32)
    _, values = evaluate(network, observations, 3)
    assert values.shape == (64, MAX_SEATS)
    assert np.all(np.abs(values) <= 1.0) and np.abs(values).max() > 0.99


def constant_network(game_id, value_bias, counts=(2, 3, 4, 5)):
    """A network whose policy is uniform and whose value head always says ``tanh(value_bias)``."""
    layers = [(np.zeros((i, o)), np.zeros(o)) for i, o in layer_shapes(game_id, (8,))]
    layers[-1] = (layers[-1][0], np.asarray(value_bias, np.float64))
    return from_layers(game_id, {}, counts, layers, "constant")


def test_value_entry_k_is_the_seat_k_places_after_the_mover():
    """With a value head that always answers (0.6, -0.2, -0.4, ...), each root action's child is
    worth tanh(0.6) to the seat on move after it, tanh(-0.2) to the next seat, and so on: the
    search reads entry k as the seat k places after the mover."""
    bias = [0.6, -0.2, -0.4, 0.1, 0.0, 0.0]
    network = constant_network(MTM, bias)
    spec = envs.spec(MTM)
    checked = set()
    for seed in range(12):
        state = reachable(MTM, 3, seed, 5 + 7 * seed)
        mask = legal(MTM, state)
        legal_count = int(mask.sum())
        # One simulation per legal action: every child is evaluated once, by the network.
        agent = AZAgent(
            seed,
            network,
            MTM,
            {"num_players": 3},
            simulations=legal_count,
            considered=legal_count,
            determinize=False,
        )
        agent.act(None, mask, state)
        values = agent.tree.root_values()
        for a in np.flatnonzero(mask):
            after = state.copy()
            spec.apply_action(after, int(a), make_rng(0))
            if after[H_TERMINAL]:
                continue
            mover = int(after[H_CURRENT])
            expected = [np.tanh(bias[(seat - mover) % 3]) for seat in range(3)]
            assert np.allclose(values[a, :3], expected, atol=1e-6)
            checked.add(mover == int(state[H_CURRENT]))
    assert checked == {True, False}  # actions that keep the turn and actions that pass it


# --- the search --------------------------------------------------------------------------------
def clear_positions():
    """(game, options, state, best move by name) of tests/test_search_positions.py, every game."""
    cases = []
    for n in (2, 4):
        cases += [
            (
                positions.MTM,
                n,
                positions.third_tower(n, phase="fortify", hand=(0, 1, 0), cards_played=1),
                "fortify A3",
            ),
            (positions.MTM, n, positions.third_tower(n), "play fortify"),
            (
                positions.MTM,
                n,
                positions.third_tower(n, hand=(0, 0, 2), board=positions.HOUSES_ONLY),
                "play fortify",
            ),
        ]
        tile = positions.last_tile(n)
        cases.append(
            (
                positions.MF,
                n,
                tile,
                envs.spec(positions.MF).action_to_str(
                    monster_factory_diagram.place(0, 7, "S", tile, "2000"), tile
                ),
            )
        )
        cases.append((positions.MA, n, positions.last_card(n), "place west of blue 2"))
        cases.append((positions.AR, n, positions.last_blow(n), "target U4"))
    for n in (3, 4):
        cases.append((positions.MM, n, positions.last_round(n), "play 1 at G1a"))
    return cases


@pytest.mark.parametrize("rollout_weight", [0.0, 1.0])
@pytest.mark.parametrize(
    "game_id,num_players,state,best",
    clear_positions(),
    ids=lambda v: v if isinstance(v, (str, int)) else "state",
)
def test_search_with_a_random_network_finds_the_clearly_best_move(
    game_id, num_players, state, best, rollout_weight
):
    """Each position of tests/test_search_positions.py (a move that wins at once or within the
    turn whatever the hidden cards; the others lose or share) is solved by the search over an
    untrained network, for several seeds, the state left untouched; with the game's rollouts as
    leaf values too."""
    network = random_network(game_id, (64, 64), seed=5)
    spec = envs.spec(game_id)
    before = state.copy()
    for seed in range(3):
        agent = AZAgent(
            seed,
            network,
            game_id,
            {"num_players": num_players},
            simulations=400,
            rollout_weight=rollout_weight,
        )
        action, visits, _ = decide(agent, game_id, state)
        assert spec.action_to_str(action, state) == best, {
            spec.action_to_str(int(a), state): int(visits[a]) for a in np.flatnonzero(legal(game_id, state))
        }
    assert np.array_equal(state, before)


def test_sequential_halving_schedule_halves_the_considered_actions():
    """Four considered actions, 12 simulations: one visit each, then the best two get the rest
    in turn (the schedule of the Gumbel paper)."""
    assert schedule(4, 12).tolist() == [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert schedule(1, 3).tolist() == [0, 1, 2]


@pytest.mark.parametrize("gumbel_scale,rollout_weight", [(0.0, 0.0), (1.0, 0.0), (0.0, 0.5)])
def test_decisions_are_deterministic_for_a_seed(gumbel_scale, rollout_weight):
    """Two agents with one seed make the same decision from the same searches (rollouts included);
    another seed (another redeal per simulation, other noise) may differ, and a new search starts
    afresh."""
    network = random_network(MTM, (32, 32), seed=1)
    state = reachable(MTM, 3, 4, 30)
    results = []
    for seed in (7, 7, 8):
        agent = AZAgent(
            seed,
            network,
            MTM,
            {"num_players": 3},
            simulations=96,
            gumbel_scale=gumbel_scale,
            rollout_weight=rollout_weight,
        )
        results.append(decide(agent, MTM, state))
    (a0, v0, p0), (a1, v1, p1), (_, v2, _) = results
    assert a0 == a1 and np.array_equal(v0, v1) and np.array_equal(p0, p1)
    assert legal(MTM, state)[a0] and abs(p0.sum() - 1) < 1e-5 and np.all(p0[legal(MTM, state) == 0] == 0)
    agent = AZAgent(
        7,
        network,
        MTM,
        {"num_players": 3},
        simulations=96,
        gumbel_scale=gumbel_scale,
        rollout_weight=rollout_weight,
    )
    decide(agent, MTM, reachable(MTM, 3, 9, 11))  # a search elsewhere first leaves nothing behind
    agent.reset(7)
    assert np.array_equal(decide(agent, MTM, state)[1], v0)
    assert v2.sum() == v0.sum() == 96


@pytest.mark.parametrize(
    "rollout_weight,belief", [(0.0, None), (0.5, None), (0.5, {"particles": 8})], ids=["0", "0.5", "belief"]
)
@pytest.mark.parametrize(
    "game_id,num_players,steps", [(MTM, 3, 25), ("mighty_monsters-v0", 4, 9), ("monstargh-v0", 3, 20)]
)
def test_decision_is_unchanged_when_only_hidden_information_changes(
    game_id, num_players, steps, rollout_weight, belief
):
    """A twin state redealt by ``determinize`` (others' hands, the deck) gets the same decision,
    root visits and policy, rollouts included (they start from each simulation's redeal), and so
    do simulations dealt from the seat's belief; searching the true state without redealing gives
    another policy, so the hidden cards would reach a search that read them."""
    network = random_network(game_id, (32, 32), seed=2)
    spec = envs.spec(game_id)
    differs = False
    for seed in range(3):
        state = reachable(game_id, num_players, seed, steps + seed)
        twins = []
        for k in range(2):
            twin = state.copy()
            spec.determinize(twin, int(state[H_CURRENT]), make_rng(50 + k))
            twins.append(twin)
        assert any(not np.array_equal(t, state) for t in twins)
        options = {"num_players": num_players}
        settings = {"simulations": 64, "rollout_weight": rollout_weight, "belief": belief}
        reference = decide(AZAgent(seed, network, game_id, options, **settings), game_id, state)
        for twin in twins:
            result = decide(AZAgent(seed, network, game_id, options, **settings), game_id, twin)
            assert result[0] == reference[0]
            assert np.array_equal(result[1], reference[1]) and np.array_equal(result[2], reference[2])
            seeing = [
                decide(AZAgent(seed, network, game_id, options, determinize=False, **settings), game_id, s)
                for s in (state, twin)
            ]
            differs |= not np.array_equal(seeing[0][2], seeing[1][2])
    assert differs


def test_batched_search_plays_as_the_single_search_does():
    """``search_and_play`` (self-play's batch of games) makes in each game the move, policy and
    observation the single search makes with the same generators."""
    spec = envs.spec(MTM)
    network = random_network(MTM, (32,), seed=4)
    settings = SearchSettings(simulations=24, gumbel_scale=1.0)
    states = np.stack([reachable(MTM, n, s, 10 + s) for s, n in enumerate((2, 3, 4))])
    game_rngs = np.stack([make_rng(s) for s in range(3)])
    search_rngs = np.stack([make_rng(100 + s) for s in range(3)])
    expected = []
    for i in range(3):
        tree = trees(1, settings.simulations + 1, spec.num_actions)
        policy = np.zeros(spec.num_actions, np.float32)
        s, rng = states[i].copy(), search_rngs[i].copy()
        action = gumbel_search(
            s,
            settings.as_array(),
            True,
            rng,
            network.params,
            network.shapes,
            tree[0][0],
            tree[1][0],
            tree[2][0],
            tree[3][0],
            policy,
            spec.legal_mask,
            spec.apply_action,
            spec.returns,
            spec.observe_into,
            spec.determinize,
            uniform_policy,
        )
        after, game_rng = s.copy(), game_rngs[i].copy()
        spec.apply_action(after, action, game_rng)
        expected.append((action, policy, after))
    slots = np.array([2, 0, 1], np.int64)  # any order of slots
    children, visits, values, priors = trees(3, settings.simulations + 1, spec.num_actions)
    policies = np.zeros((3, spec.num_actions), np.float32)
    actions = np.zeros(3, np.int64)
    observations = np.zeros((3, spec.obs_size), np.float32)
    masks = np.zeros((3, spec.num_actions), np.int8)
    before = states.copy()
    search_and_play(
        states,
        slots,
        game_rngs,
        search_rngs,
        settings.as_array(),
        True,
        network.params,
        network.shapes,
        children,
        visits,
        values,
        priors,
        policies,
        actions,
        observations,
        masks,
        spec.legal_mask,
        spec.apply_action,
        spec.returns,
        spec.observe_into,
        spec.determinize,
        uniform_policy,
    )
    for j, i in enumerate(slots):
        action, policy, after = expected[i]
        assert (
            actions[j] == action and np.array_equal(policies[j], policy) and np.array_equal(states[i], after)
        )
        assert np.array_equal(masks[j], legal(MTM, before[i]))
        obs = np.zeros(spec.obs_size, np.float32)
        spec.observe_into(before[i], int(before[i][H_CURRENT]), obs)
        assert np.array_equal(observations[j], obs)


def test_perfect_information_search_needs_no_determinize():
    """``no_determinize`` stands in for a game that hides nothing: the search still plays legally."""
    spec = envs.spec(MTM)
    network = random_network(MTM, (16,), seed=0)
    state = reachable(MTM, 2, 0, 12)
    tree = trees(1, 9, spec.num_actions)
    policy = np.zeros(spec.num_actions, np.float32)
    action = gumbel_search(
        state,
        SearchSettings(simulations=8).as_array(),
        False,
        make_rng(0),
        network.params,
        network.shapes,
        tree[0][0],
        tree[1][0],
        tree[2][0],
        tree[3][0],
        policy,
        spec.legal_mask,
        spec.apply_action,
        spec.returns,
        spec.observe_into,
        no_determinize,
        uniform_policy,
    )
    assert legal(MTM, state)[action]
    with pytest.raises(ValueError, match="fewer nodes"):
        gumbel_search(
            state,
            SearchSettings(simulations=9).as_array(),
            False,
            make_rng(0),
            network.params,
            network.shapes,
            tree[0][0],
            tree[1][0],
            tree[2][0],
            tree[3][0],
            policy,
            spec.legal_mask,
            spec.apply_action,
            spec.returns,
            spec.observe_into,
            no_determinize,
            uniform_policy,
        )


# --- the agents --------------------------------------------------------------------------------
def test_agents_play_whole_games_through_the_env():
    """Through the match runner's AEC loop (which refuses illegal actions) the search and the
    network alone finish games against greedy."""
    from monster_zoo.agents import make_agent
    from monster_zoo.evaluation.match import play_game

    network = random_network(MTM, (32,), seed=0, player_counts=[2])
    options = {"num_players": 2}
    env = envs.make(MTM, **options)
    for mine in (AZAgent(0, network, MTM, options, simulations=16), AZNetAgent(0, network, MTM, options)):
        result = play_game(env, [mine, make_agent("greedy", MTM, 1, options)], seed=3)
        assert result["length"] > 10 and sum(result["rewards"]) == pytest.approx(0.0, abs=1e-6)


def test_network_alone_plays_the_legal_action_of_highest_logit():
    """``az-net`` is the argmax of the policy head over the legal actions, row by row."""
    network = random_network(MTM, (16,), seed=6, player_counts=[3])
    agent = AZNetAgent(0, network, MTM, {"num_players": 3})
    states = [reachable(MTM, 3, s, 4 * s) for s in range(6)]
    spec = envs.spec(MTM)
    observations = np.zeros((6, spec.obs_size), np.float32)
    for row, s in zip(observations, states):
        spec.observe_into(s, int(s[H_CURRENT]), row)
    masks = np.stack([legal(MTM, s) for s in states])
    logits, _ = evaluate(network, observations, 3)
    expected = np.where(masks != 0, logits, -np.inf).argmax(axis=1)
    assert agent.act_batch(observations, masks).tolist() == expected.tolist()
    assert agent.act(observations[0], masks[0]) == expected[0]


def test_agents_refuse_what_they_cannot_play():
    """A state of another player count, a missing state, an empty mask, a network-less agent."""
    network = random_network(MTM, (16,), seed=0, player_counts=[2, 3])
    agent = AZAgent(0, network, MTM, {"num_players": 2}, simulations=8)
    four = reachable(MTM, 4, 0, 3)
    with pytest.raises(
        WrongGameError,
        match="made for marry_the_monster-v0 with num_players=2; this state is "
        "of marry_the_monster-v0 with num_players=4",
    ):
        agent.act(None, legal(MTM, four), four)
    two = reachable(MTM, 2, 0, 3)
    with pytest.raises(ValueError, match="needs_state"):
        agent.act(None, legal(MTM, two), None)
    with pytest.raises(ValueError, match="allows no action"):
        agent.act(None, np.zeros_like(legal(MTM, two)), two)
    agent.made_for = None  # made for no game: still never searches a state of another size
    with pytest.raises(ValueError, match="whose state has .* entries; this one has shape"):
        agent.act(None, legal(MTM, two), two[:-1])
    with pytest.raises(ValueError, match="needs a network"):
        AZAgent(0, None, MTM)
    with pytest.raises(ValueError, match="simulations must be at least 1"):
        AZAgent(0, network, MTM, {"num_players": 2}, simulations=0)


# --- network files -----------------------------------------------------------------------------
def test_network_file_round_trip_and_load_by_path(tmp_path):
    """Written and read back, a network is the same arrays and metadata; ``load_az`` plays it
    under its own name, as the search or alone."""
    network = random_network(
        "mighty_monsters-v0",
        (24, 16),
        seed=1,
        player_counts=[3, 5],
        options={"guard_lineup": True},
        name="mm-test",
    )
    path = write_network(tmp_path / "mm.npz", network)
    back = read_network(path)
    assert np.array_equal(back.params, network.params) and np.array_equal(back.shapes, network.shapes)
    assert (back.player_counts, back.options, back.name) == ([3, 5], network.options, "mm-test")
    metadata = json.loads(zipfile.ZipFile(path).read("metadata.json"))
    assert metadata["architecture"]["type"] == "az-mlp" and "num_players" not in metadata["options"]
    options = {"num_players": 5, "guard_lineup": True}
    assert load_az(path, "mighty_monsters-v0", 0, options, simulations=8).name == "mm-test"
    alone = load_az(path, "mighty_monsters-v0", 0, options, alone=True)
    assert isinstance(alone, AZNetAgent) and alone.name == "mm-test-net"


def test_network_file_for_another_game_count_or_rule_is_refused(tmp_path):
    """The refusal names the network's game and the one asked for."""
    path = write_network(tmp_path / "mtm.npz", random_network(MTM, (16,), seed=0, player_counts=[2, 3]))
    with pytest.raises(
        ModelFileError, match="trained for marry_the_monster-v0.*this game is mighty_monsters-v0"
    ):
        load_az(path, "mighty_monsters-v0", options={"num_players": 3})
    with pytest.raises(ModelFileError, match="with 2, 3 players, not 4"):
        load_az(path, MTM, options={"num_players": 4})
    mm = write_network(tmp_path / "mm.npz", random_network("mighty_monsters-v0", (16,), seed=0))
    with pytest.raises(ModelFileError, match="guard_lineup"):
        load_az(mm, "mighty_monsters-v0", options={"num_players": 3, "guard_lineup": True})


def rewrite(source: Path, target: Path, metadata=None, arrays=None) -> Path:
    """A copy of the network file ``source`` with its metadata or some arrays replaced."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            if name == "metadata.json" and metadata is not None:
                new.writestr(name, json.dumps(metadata))
            elif arrays and name in arrays:
                with new.open(name, "w") as f:
                    np.lib.format.write_array(f, arrays[name], allow_pickle=True)
            else:
                new.writestr(name, old.read(name))
    return target


def test_malformed_network_files_are_refused_with_the_reason(tmp_path):
    """A PPO policy file, a damaged array, an object array, a shape the metadata does not
    promise, a game this library lacks, or a missing file: each refused, nothing unpickled."""
    good = write_network(tmp_path / "good.npz", random_network(MTM, (16,), seed=0))
    metadata = json.loads(zipfile.ZipFile(good).read("metadata.json"))
    cases = {
        "not an az-mlp network": champion_path("marry_the_monster", 2),
        "object": rewrite(
            good, tmp_path / "obj.npz", arrays={"value.bias.npy": np.array([None] * 6, object)}
        ),
        "has shape": rewrite(
            good, tmp_path / "shape.npz", arrays={"value.bias.npy": np.zeros(5, np.float32)}
        ),
        "NaN": rewrite(good, tmp_path / "nan.npz", arrays={"value.bias.npy": np.full(6, np.nan, np.float32)}),
        "does not have": rewrite(good, tmp_path / "game.npz", {**metadata, "game": "chess-v0"}),
        "hidden_sizes": rewrite(
            good,
            tmp_path / "hidden.npz",
            {**metadata, "architecture": {**metadata["architecture"], "hidden_sizes": [0]}},
        ),
        "holds a layer of 1,048,576 units": rewrite(
            good,
            tmp_path / "huge.npz",
            {**metadata, "architecture": {**metadata["architecture"], "hidden_sizes": [1 << 20] * 3}},
        ),
        "player counts \\[7\\]": rewrite(
            good, tmp_path / "counts.npz", {**metadata, "player_counts": [2, 7]}
        ),
        "metadata field observation_size must be an integer": rewrite(
            good, tmp_path / "bool.npz", {**metadata, "observation_size": True}
        ),
        "control characters": rewrite(good, tmp_path / "name.npz", {**metadata, "name": "evil\x1b[2J"}),
        "is a folder": tmp_path,
        "no such file": tmp_path / "missing.npz",
    }
    for reason, path in cases.items():
        with pytest.raises(ModelFileError, match=reason):
            read_network(path)


# --- hostile network files: read within the policy files' bounds -----------------------------
def test_a_network_declaring_huge_layers_is_refused_before_anything_is_allocated(tmp_path):
    """Layers wider, deeper or with more parameters than the caps are refused from the metadata,
    before any array is read; the message names the cap."""
    good = write_network(tmp_path / "good.npz", random_network(MTM, (16,), seed=0))
    metadata = json.loads(zipfile.ZipFile(good).read("metadata.json"))
    cases = {
        (200_000,): "holds a layer of 200,000 units; the most accepted is 4,096",
        (8,) * 9: "has 9 layers; the most accepted is 8",
        (4096,) * 3: f"parameters; the most accepted is {MAX_PARAMETERS:,}",
        (): "needs at least one layer",
    }
    for hidden, message in cases.items():
        arch = {**metadata["architecture"], "hidden_sizes": list(hidden)}
        bad = rewrite(good, tmp_path / "big.npz", {**metadata, "architecture": arch})
        with pytest.raises(ModelFileError, match=f"big.npz.*{message}"):
            read_network(bad)
        assert peak_bytes(lambda: read_network(bad)) < 4 * MB


def test_a_network_whose_metadata_zip_header_lies_is_read_in_bounded_chunks(tmp_path):
    """A metadata.json that its zip headers say is 100 bytes but inflates to 24 MB, and an honest
    one over the cap: refused after reading at most the cap."""
    bad = lying_metadata_zip(tmp_path / "lying.npz", 24 * MB)
    with pytest.raises(ModelFileError, match="network .*lying.npz"):
        read_network(bad)
    assert peak_bytes(lambda: read_network(bad)) < 4 * MB
    honest = tmp_path / "honest.npz"
    with zipfile.ZipFile(honest, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("metadata.json", b" " * (3 * MB))
    with pytest.raises(ModelFileError, match=f"metadata.json is larger than {MAX_METADATA_BYTES:,} bytes"):
        read_network(honest)


def test_a_network_array_whose_header_declares_gigabytes_is_refused_within_its_bound(tmp_path):
    good = write_network(tmp_path / "good.npz", random_network(MTM, (16,), seed=0))
    header = b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFF0) + b" " * (16 * MB)
    bad = with_entries(good, tmp_path / "header.npz", {"actor.0.weight.npy": header})
    with pytest.raises(ModelFileError, match="network .*header.npz.*actor.0.weight.npy is larger than"):
        read_network(bad)
    assert peak_bytes(lambda: read_network(bad)) < 4 * MB


def test_deeply_nested_network_metadata_gets_the_readers_own_error(tmp_path):
    good = write_network(tmp_path / "good.npz", random_network(MTM, (16,), seed=0))
    nested = with_entries(good, tmp_path / "nested.npz", {"metadata.json": "[" * 100_000 + "]" * 100_000})
    with pytest.raises(ModelFileError, match="network .*nested.npz.*nests JSON 100,000 levels deep"):
        read_network(nested)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_network_that_is_a_fifo_or_a_device_is_refused_at_once(tmp_path):
    from monster_zoo.agents import make_agent

    fifo = tmp_path / "network.npz"
    os.mkfifo(fifo)
    refused = finishes_within(10, lambda: read_network(fifo))
    assert isinstance(refused, ModelFileError) and "is a FIFO, not a regular file" in str(refused)
    for prefix in ("az:", "az-net:"):
        refused = finishes_within(10, lambda: make_agent(f"{prefix}{fifo}", MTM, options={"num_players": 2}))
        assert isinstance(refused, ModelFileError) and "FIFO" in str(refused)
    if Path("/dev/zero").exists():
        with pytest.raises(ModelFileError, match="'/dev/zero' is a character device"):
            read_network("/dev/zero")


def test_a_network_is_written_atomically_replacing_a_link_rather_than_following_it(tmp_path):
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me")
    link = tmp_path / "net.npz"
    link.symlink_to(target)
    write_network(link, random_network(MTM, (16,), seed=0, player_counts=[2]))
    assert target.read_text() == "keep me" and not link.is_symlink()
    assert read_network(link).player_counts == [2]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "elsewhere.txt",
        "net.npz",
    ]  # no temporary file left


def test_a_network_too_large_for_its_file_is_refused_before_writing(tmp_path):
    """The writer refuses what the reader would refuse; the trainer asks the same question first."""
    assert architecture_problem(MTM, [256, 256]) is None
    assert "holds a layer of 8,192 units" in architecture_problem(MTM, [8192])
    assert "parameters; the most accepted" in architecture_problem("monster_factory-v0", [4096, 4096])
    wide = random_network(MTM, (MAX_LAYER_UNITS + 1,), seed=0)
    with pytest.raises(ModelFileError, match="cannot be written: architecture.hidden_sizes holds a layer"):
        write_network(tmp_path / "wide.npz", wide)
    assert not any(tmp_path.iterdir())


def test_network_files_load_and_play_without_torch(tmp_path):
    """A fresh interpreter where torch cannot be imported loads a network file and plays it,
    searched and alone."""
    path = write_network(tmp_path / "net.npz", random_network(MTM, (16,), seed=0, player_counts=[2]))
    script = f"""
import sys
sys.modules["torch"] = None  # any import of torch now fails
import numpy as np
from monster_zoo import envs
from monster_zoo.agents.az.agent import load_az
env = envs.make("{MTM}", num_players=2)
env.reset(seed=0)
obs = env.observe(env.agent_selection)
for alone, settings in ((False, {{"simulations": 8}}), (True, {{}})):
    agent = load_az({str(path)!r}, "{MTM}", options={{"num_players": 2}}, alone=alone, **settings)
    action = agent.act(obs["observation"], obs["action_mask"], env.unwrapped.engine_state)
    assert obs["action_mask"][action] == 1
print("played")
"""
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0 and "played" in done.stdout, done.stderr[-2000:]


def test_no_network_ships_yet_and_the_refusal_says_how_to_get_one():
    """The shipped-network path is per game; without a file the agent explains how to train one."""
    from monster_zoo.agents.az.agent import ShippedAZ

    assert shipped_network_path(MTM).name == "marry_the_monster-az-v2.npz"
    if not shipped_network_path(MTM).exists():
        with pytest.raises(ValueError, match="monster_zoo.training.az.trainer"):
            ShippedAZ(0, MTM, {"num_players": 2})


@pytest.mark.parametrize("min_spread,chosen", [(2.0, 0), (1e-8, 1)])
def test_root_values_count_by_their_size_not_their_rank(min_spread, chosen):
    """Two root actions visited once, worth 0.10 and 0.11 to the mover, the first preferred by the
    policy by one logit: on the fixed scale (the default, ``min_spread`` 2: the span of win-mode
    returns) a difference of 0.01 moves the score by 0.03 and the policy's choice stands; min-max
    rescaling stretches it to the full range (5.1 logits) and picks the other."""
    from monster_zoo.agents.az.search import _root_legal, _root_scores

    settings = SearchSettings()
    assert settings.min_spread == 2.0 and settings.as_array().shape == (10,)
    mask = np.array([1, 1, 0], np.int8)
    logits = np.array([1.0, 0.0, 0.0], np.float32)
    probs = np.array([0.73, 0.27, 0.0], np.float32)
    children = np.array([[1, 2, -1], [-1, -1, -1], [-1, -1, -1]], np.int32)
    visits = np.array([2, 1, 1], np.int32)
    values = np.zeros((3, MAX_SEATS))
    values[1, 0], values[2, 0] = 0.10, 0.11
    sigma, scores, legal = np.zeros(3), np.zeros(3), np.zeros(3, np.int32)
    count = _root_legal(mask, legal, sigma, scores)
    assert count == 2 and list(legal[:2]) == [0, 1]
    most = _root_scores(
        legal,
        count,
        logits,
        probs,
        np.zeros(3),
        0.1,
        0,
        settings.c_visit,
        settings.c_scale,
        min_spread,
        children,
        visits,
        values,
        sigma,
        scores,
    )
    assert most == 1 and scores[2] == -np.inf
    assert int(np.argmax(scores)) == chosen
    assert sigma[1] - sigma[0] == pytest.approx(
        (settings.c_visit + 1) * settings.c_scale * 0.01 / max(0.01, min_spread)
    )


def test_min_spread_must_be_positive():
    with pytest.raises(ValueError, match="min_spread must be > 0"):
        SearchSettings(min_spread=0.0)


@pytest.mark.parametrize("weight", [-0.1, 1.5])
def test_rollout_weight_must_lie_in_zero_one(weight):
    with pytest.raises(ValueError, match="rollout_weight must be from 0 to 1"):
        SearchSettings(rollout_weight=weight)


def test_rollouts_replace_the_value_head_by_their_weight():
    """A network of zero weights values every seat at 0: without rollouts every root action is
    worth exactly that; with weight 1 every leaf's value is a played-out game's return (+1 for the
    winner, -1 for the loser at 2 players, ruling C3), so the means move away from 0."""
    network = random_network(MTM, (16,), seed=3)
    network.params[:] = 0.0
    state = reachable(MTM, 2, 6, 12)
    means = {}
    for weight in (0.0, 1.0):
        agent = AZAgent(0, network, MTM, {"num_players": 2}, simulations=64, rollout_weight=weight)
        decide(agent, MTM, state)
        means[weight] = agent.tree.root_values()[agent.tree.root_visits() > 0, :2]
    assert np.allclose(np.abs(means[0.0]), 0.0, atol=1e-6)  # zero weights: tanh(0) for every seat
    assert np.abs(means[1.0]).max() > 0.1 and np.all(np.abs(means[1.0]) <= 1.0 + 1e-6)


def test_a_cpu_time_budget_is_sized_on_the_host_and_its_count_replays_it():
    """``budget_ms`` sizes the simulations at the first move (a larger budget, more simulations);
    the count it chose, with the same seed, makes the same moves: the budget's reproducible form."""
    network = random_network(MTM, (32, 32), seed=5)
    states = [reachable(MTM, 2, seed, 6 + 4 * seed) for seed in range(4)]
    small = AZAgent(3, network, MTM, {"num_players": 2}, budget_ms=1.0)
    large = AZAgent(3, network, MTM, {"num_players": 2}, budget_ms=40.0)
    sized = [decide(small, MTM, s) for s in states]
    decide(large, MTM, states[0])
    assert 1 <= small.settings.simulations < large.settings.simulations
    replay = AZAgent(3, network, MTM, {"num_players": 2}, simulations=small.settings.simulations)
    for state, (action, visits, policy) in zip(states, sized):
        again, again_visits, again_policy = decide(replay, MTM, state)
        assert (
            action == again and np.array_equal(visits, again_visits) and np.array_equal(policy, again_policy)
        )


@pytest.mark.parametrize("budget", [0, -5.0, "fast", True, 1e9])
def test_a_bad_cpu_time_budget_is_refused_with_the_valid_range(budget):
    with pytest.raises(ValueError, match="budget_ms must be a number of CPU milliseconds per move above 0"):
        AZAgent(0, random_network(MTM, (8,)), MTM, {"num_players": 2}, budget_ms=budget)
