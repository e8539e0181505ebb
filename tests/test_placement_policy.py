"""The placement policy (Monster Factory): inputs read from the right slots, numpy = torch, policy
files that round-trip and play, snapshots, and the trainer's ``--policy`` flag."""

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.agents.ppo.placement import layer_sizes, placement_layout, placement_logits, split_inputs
from monster_zoo.agents.ppo.policy_file import make_metadata, read_policy, write_policy
from monster_zoo.envs.core.batch import random_playout
from monster_zoo.envs.core.contract import H_CURRENT
from monster_zoo.envs.monster_factory.components import EDGES, NO_TILE, NUM_ROTATIONS, NUM_SIDES
from monster_zoo.envs.monster_factory.observation import G_NEEDS
from monster_zoo.envs.monster_factory.rules import FITS, need
from monster_zoo.envs.monster_factory.state_layout import CELL_NEEDS, HAND, NUM_CELLS
from monster_zoo.evaluation.match import run_match

GAME = "monster_factory-v0"
TWO = {"num_players": 2}
LAYOUT = placement_layout(GAME)


def playing_states(count: int, num_players: int = 2):
    """``(state, observation of the seat on move, mask)`` of ``count`` games in the placing phase."""
    spec = envs.spec(GAME)
    config = envs.config(GAME, {"num_players": num_players})
    found = []
    for seed in range(10 * count):
        state, _, _ = random_playout(spec, config, 5 + 3 * seed % 60, seed=seed)
        if state[HAND] < 0 or state[NUM_CELLS] == 0:
            continue
        obs = np.zeros(spec.obs_size, np.float32)
        mask = np.zeros(spec.num_actions, np.int8)
        spec.observe_into(state, state[H_CURRENT], obs)
        spec.legal_mask(state, mask)
        found.append((state, obs, mask))
        if len(found) == count:
            break
    return found


def random_placement_layers(hidden=(16,), item=(8,), seed=0):
    """Random layers of a placement policy for Monster Factory, in the policy file's order."""
    rng = np.random.default_rng(seed)
    sizes = layer_sizes(LAYOUT, envs.spec(GAME).obs_size, list(hidden), list(item))
    return [
        (rng.normal(0, 0.3, (a, b)), rng.normal(0, 0.1, b), "tanh" if k < len(hidden) else None)
        for k, (a, b) in enumerate(sizes)
    ]


def test_only_games_with_placement_actions_have_a_layout():
    assert [g for g in envs.available() if placement_layout(g) is not None] == [GAME]


def test_each_placement_reads_its_cell_and_the_hand_turned_by_its_rotation():
    """The inputs of placement (c, r) hold cell c's needs and the hand's edges turned r quarter
    turns, as the engine's edge table turns them: checked against the engine state."""
    for state, obs, _ in playing_states(20):
        per_cell, per_turn = split_inputs(LAYOUT, obs[None])
        hand = int(state[HAND])
        for r in range(NUM_ROTATIONS):
            for side in range(NUM_SIDES):
                edge = EDGES[hand, r, side]
                assert per_turn[0, r, 2 * side] == (edge == 1) and per_turn[0, r, 2 * side + 1] == (edge == 2)
        for c in range(int(state[NUM_CELLS])):
            needs = int(state[CELL_NEEDS + c])
            block = per_cell[0, c]
            assert block[0] == 1.0  # the cell is present
            for side in range(NUM_SIDES):
                across = need(needs, side)
                shown = block[G_NEEDS + 3 * side : G_NEEDS + 3 * side + 3]
                assert shown.sum() == (across != NO_TILE) and (across == NO_TILE or shown[across] == 1)
            assert block[-1] == (FITS[hand, needs] != 0)  # the derived "hand fits this cell" slot


def test_policy_file_round_trip_and_legal_play(tmp_path):
    layers = random_placement_layers()
    metadata = make_metadata(GAME, TWO, [16], "tanh", "place", {"algorithm": "test"}, item_sizes=[8])
    path = write_policy(tmp_path / "place.npz", layers, metadata)
    loaded = read_policy(path)
    assert loaded.metadata["architecture"] == {
        "type": "placement",
        "hidden_sizes": [16],
        "activation": "tanh",
        "item_sizes": [8],
    }
    assert [act for _, _, act in loaded.layers] == ["tanh", None, None, None, None]
    agent = make_agent(f"ppo:{path}", GAME, seed=0, options=TWO)
    states = playing_states(8)
    obs = np.stack([o for _, o, _ in states])
    masks = np.stack([m for _, _, m in states])
    probs = agent.probabilities(obs, masks)
    assert np.allclose(probs.sum(axis=1), 1) and (probs[masks == 0] == 0).all()
    # A placement's logit depends on its own cell through shared weights: with a trunk blind to the
    # cells, swapping two cells' slots swaps their placements' logits.
    blind = [(w.copy(), b, act) for w, b, act in loaded.layers]
    blind[0][0][LAYOUT.cell_block : LAYOUT.cell_block + LAYOUT.cells * LAYOUT.cell_features] = 0
    for o in LAYOUT.cell_extras:
        blind[0][0][o : o + LAYOUT.cells] = 0
    logits = placement_logits(LAYOUT, blind, 1, obs, np.tanh)
    swapped = obs.copy()
    a, b = (LAYOUT.cell_block + k * LAYOUT.cell_features for k in (0, 1))
    swapped[:, a : a + LAYOUT.cell_features], swapped[:, b : b + LAYOUT.cell_features] = (
        obs[:, b : b + LAYOUT.cell_features],
        obs[:, a : a + LAYOUT.cell_features],
    )
    for o in LAYOUT.cell_extras:
        swapped[:, o], swapped[:, o + 1] = obs[:, o + 1], obs[:, o]
    first = LAYOUT.first_action
    moved = placement_logits(LAYOUT, blind, 1, swapped, np.tanh)
    assert np.allclose(moved[:, first : first + 4], logits[:, first + 4 : first + 8], atol=1e-9)
    assert np.allclose(moved[:, first + 8 :], logits[:, first + 8 :], atol=1e-9)
    assert not np.allclose(logits[:, first : first + 4], logits[:, first + 4 : first + 8])
    result = run_match(GAME, [f"ppo:{path}", "random"], 4, seed=2, options=TWO, progress=False)
    assert sum(s.games for s in result.stats) == 8


# --- torch: the trainer's module ------------------------------------------------------------------
@pytest.fixture(scope="module")
def model():
    """A MaskablePPO model with the placement policy, after one short update."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from monster_zoo.training.ppo.placement_net import PlacementPolicy

    vec = envs.make_vec_env(GAME, 8, seed=0, num_players=2)
    m = MaskablePPO(
        PlacementPolicy,
        vec,
        n_steps=16,
        batch_size=64,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [32, 32], "layout": LAYOUT},
    )
    m.learn(128)
    return m


def test_numpy_forward_is_the_torch_forward_and_the_file_plays_it(model, tmp_path):
    from monster_zoo.agents.ppo.agent import PPOAgent, save_policy

    states = playing_states(16)
    obs = np.stack([o for _, o, _ in states])
    masks = np.stack([m for _, _, m in states])
    torch_probs = PPOAgent(0, model.policy).probabilities(obs, masks)
    snapshot = PPOAgent.snapshot(model.policy, 3, "s")
    assert snapshot.layers is not None and snapshot.policy_mlp is None  # numpy, not the numba MLP
    assert np.allclose(snapshot.probabilities(obs, masks), torch_probs, atol=1e-5)
    save_policy(model.policy, tmp_path / "p.npz", GAME, TWO, "p", {"timesteps": 128})
    agent = make_agent(f"ppo:{tmp_path / 'p.npz'}", GAME, seed=0, options=TWO)
    assert np.allclose(agent.probabilities(obs, masks), torch_probs, atol=1e-5)
    # A snapshot opponent plays inside the training vec env (its Python path).
    vec = envs.make_vec_env(GAME, 4, opponents=[snapshot], seed=1, num_players=2)
    vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(100):
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in vec.action_masks()]))


def test_the_trainer_refuses_a_placement_policy_for_a_game_without_placements(capsys):
    pytest.importorskip("sb3_contrib")
    from monster_zoo.training.ppo import trainer as selfplay_ppo

    for argv, message in (
        (["--game", "monstargh-v0", "--policy", "placement"], "monstargh-v0 has none"),
        (["--game", GAME, "--policy", "cnn"], "not one of mlp, placement"),
    ):
        with pytest.raises(SystemExit) as exit_info:
            selfplay_ppo.main(argv)
        assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_the_shipped_monster_factory_champion_is_a_placement_policy_played_by_numpy():
    """The 2-player champion is the placement policy of training/README.md: it loads by name
    without torch and its file names the placement architecture (its games are checked with every
    shipped agent's in tests/test_shipped_agents.py)."""
    from monster_zoo.agents import make_agent
    from monster_zoo.agents.ppo.champions import champion_path

    assert read_policy(champion_path("monster_factory", 2)).metadata["architecture"]["type"] == "placement"
    assert make_agent("champion", GAME, seed=1, options=TWO).name == "monster_factory-champion-v1"
    result = run_match(
        GAME, ["monster_factory-champion-v1", "random"], 6, seed=3, options=TWO, progress=False
    )
    assert sum(s.games for s in result.stats) == 12 and result.stats[0].wins >= 3, result.table()
