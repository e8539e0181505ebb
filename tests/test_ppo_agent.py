"""The MaskablePPO agent wrapper: numpy scoring, masks, seeding, saving and loading."""

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import gymnasium as gym
from sb3_contrib import MaskablePPO

from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.agents.model_file import ModelFileError
from monster_zoo.agents.ppo.agent import PPOAgent, save_policy
from monster_zoo.cli import main as cli

GAME = "marry_the_monster-v0"
TWO = {"num_players": 2}


@pytest.fixture(scope="module")
def model():
    """A MaskablePPO model on the self-play vec env, after one short update."""
    vec = envs.make_vec_env(GAME, 8, seed=0, num_players=2)
    m = MaskablePPO("MlpPolicy", vec, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu")
    m.learn(128)
    return m


@pytest.fixture(scope="module")
def views():
    """Observations and masks of 16 live games."""
    engine = envs.make_batch(GAME, 16, seed=3, num_players=2)
    engine.reset()
    for _ in range(5):
        engine.step(engine.random_actions())
    return engine.obs.copy(), engine.masks.copy()


def test_numpy_scoring_matches_torch(model, views):
    frozen = PPOAgent.snapshot(model.policy, 0, "s")
    live = PPOAgent(0, frozen.policy)
    assert frozen.layers is not None and live.layers is None
    obs, masks = views
    assert np.allclose(frozen.probabilities(obs, masks), live.probabilities(obs, masks), atol=1e-5)
    assert (frozen.probabilities(obs, masks)[masks == 0] == 0).all()


def test_actions_are_legal_greedy_or_seeded_samples(model, views):
    obs, masks = views
    greedy = PPOAgent(0, model.policy, deterministic=True)
    probs = greedy.probabilities(obs, masks)
    assert np.array_equal(greedy.act_batch(obs, masks), probs.argmax(axis=1))
    a, b = (PPOAgent.snapshot(model.policy, 7, "s") for _ in range(2))
    draws_a = np.stack([a.act_batch(obs, masks) for _ in range(20)])
    draws_b = np.stack([b.act_batch(obs, masks) for _ in range(20)])
    assert np.array_equal(draws_a, draws_b)
    assert (masks[np.arange(16), draws_a] == 1).all()
    assert len({tuple(row) for row in draws_a}) > 1, "sampling should vary between calls"
    assert greedy.act(obs[0], masks[0]) == probs[0].argmax()
    with pytest.raises(ValueError, match="not on move"):
        greedy.act(obs[0], np.zeros_like(masks[0]))


def test_snapshot_is_frozen(model, views):
    obs, masks = views
    snap = PPOAgent.snapshot(model.policy, 0, "s")
    before = snap.probabilities(obs, masks)
    model.learn(128)
    assert np.array_equal(before, snap.probabilities(obs, masks))


def test_save_and_load_by_name(model, views, tmp_path):
    """The policy file plays exactly as the torch policy; the SB3 zip loads only when trusted."""
    obs, masks = views
    torch_probs = PPOAgent(0, model.policy).probabilities(obs, masks)
    save_policy(model.policy, tmp_path / "model.npz", GAME, TWO, "tiny", {"timesteps": 128})
    agent = make_agent(f"ppo:{tmp_path / 'model.npz'}", GAME, seed=1, options=TWO)
    assert agent.name == "tiny" and agent.deterministic and agent.policy is None
    assert np.allclose(agent.probabilities(obs, masks), torch_probs, atol=1e-5)
    path = tmp_path / "model.zip"
    model.save(path)
    with pytest.raises(ModelFileError, match="can run any code"):
        make_agent(f"ppo:{path}", GAME, seed=1, options=TWO)
    with pytest.warns(UserWarning, match="only its sizes were checked"):
        trusted = make_agent(f"ppo-trusted:{path}", GAME, seed=1, options=TWO)
    assert np.allclose(trusted.probabilities(obs, masks), torch_probs, atol=1e-5)


def test_loading_a_model_of_another_shape_is_refused(tmp_path):
    other = MaskablePPO("MlpPolicy", gym.make("CartPole-v1"), n_steps=8, batch_size=8, device="cpu")
    path = tmp_path / "cartpole.zip"
    other.save(path)
    with pytest.raises(ValueError, match=r"needs \(280,\) and 99"):
        PPOAgent.load_trusted_zip(str(path), GAME)
    text = tmp_path / "text.zip"
    text.write_text("not a model")
    with pytest.raises(ModelFileError, match="not a MaskablePPO zip"):
        make_agent(f"ppo-trusted:{text}", GAME)


def training_run(tmp_path, model, options=("num_players=2",)):
    """A run folder as the trainer leaves it: args.json and final_model.zip (no policy file)."""
    run = tmp_path / f"{GAME}__demo__1__1700000000"
    run.mkdir()
    (run / "args.json").write_text(
        json.dumps({"game": GAME, "option": list(options), "exp_name": "demo", "seed": 1})
    )
    model.save(run / "final_model.zip")
    return run


def test_trusted_zips_are_checked_against_their_training_run(model, tmp_path):
    run = training_run(tmp_path, model)
    assert make_agent(f"ppo-trusted:{run / 'final_model.zip'}", GAME, options=TWO).name == "demo-s1"
    with pytest.raises(
        ModelFileError, match="with num_players=2; this game is marry_the_monster-v0 with num_players=3"
    ):
        make_agent(f"ppo-trusted:{run / 'final_model.zip'}", GAME)
    (run / "checkpoints").mkdir()
    model.save(run / "checkpoints" / "step_256.zip")
    assert (
        make_agent(f"ppo-trusted:{run / 'checkpoints' / 'step_256.zip'}", GAME, options=TWO).name
        == "demo-s1@256"
    )


def test_export_model_converts_a_trusted_zip(model, views, tmp_path, capsys):
    run = training_run(tmp_path, model)
    out = tmp_path / "exported.npz"
    assert cli.main(["export-model", "--trust-model", str(run / "final_model.zip"), str(out)]) == 0
    assert f"ppo:{out}" in capsys.readouterr().out
    agent = make_agent(f"ppo:{out}", GAME, options=TWO)
    obs, masks = views
    assert agent.name == "demo-s1"
    assert np.allclose(
        agent.probabilities(obs, masks), PPOAgent(0, model.policy).probabilities(obs, masks), atol=1e-5
    )
    lone = tmp_path / "lone.zip"
    model.save(lone)
    refusals = [
        (["export-model", "--trust-model", str(lone), str(tmp_path / "a.npz")], "say which game it plays"),
        (
            ["export-model", "--trust-model", str(lone), str(tmp_path / "a.npz"), "--game", "monstargh-v0"],
            "monstargh-v0 needs",
        ),
        (["export-model", "--trust-model", str(run / "final_model.zip"), str(out)], "exists"),
        (["export-model", "--trust-model", str(lone), str(tmp_path / "a.zip")], "must end in .npz"),
        (
            [
                "export-model",
                "--trust-model",
                str(run / "final_model.zip"),
                str(tmp_path / "b.npz"),
                "--game",
                GAME,
                "--option",
                "num_players=4",
            ],
            "num_players=2",
        ),
        (
            ["export-model", "--trust-model", str(tmp_path / "none.zip"), str(tmp_path / "a.npz")],
            "no model file",
        ),
    ]
    for argv, message in refusals:
        with pytest.raises(SystemExit) as stop:
            cli.main(argv)
        assert stop.value.code == 2 and message in capsys.readouterr().err, argv
    assert not (tmp_path / "a.npz").exists() and not (tmp_path / "b.npz").exists()
    assert (
        cli.main(
            [
                "export-model",
                "--trust-model",
                str(lone),
                str(tmp_path / "c.npz"),
                "--game",
                GAME,
                "--option",
                "num_players=2",
            ]
        )
        == 0
    )
    assert make_agent(f"ppo:{tmp_path / 'c.npz'}", GAME, options=TWO).name == "lone"


def test_snapshots_play_inside_numba_with_the_policy_distribution(model, views):
    from monster_zoo.envs.core.opponents import _sample_masked, mlp_logits_rows
    from monster_zoo.envs.core.rng import make_rng

    snap = PPOAgent.snapshot(model.policy, 0, "s")
    mlp = snap.policy_mlp
    assert mlp is not None
    obs, masks = views
    probs = snap.probabilities(obs, masks)
    # Four inputs in one pass, in a scrambled order: each row's logits are its own.
    logits = np.empty((4, max(mlp.width, masks.shape[1])), np.float32)
    xs = np.zeros((4, mlp.width), np.float32)
    xs[:, : obs.shape[1]] = obs[:4]
    mlp_logits_rows(mlp.params, mlp.shapes, mlp.activations, np.array([2, 0, 3, 1]), xs, logits)
    for row in range(4):
        z = np.where(masks[row] != 0, logits[row, : masks.shape[1]], -np.inf)
        assert np.allclose(np.exp(z - z.max()) / np.exp(z - z.max()).sum(), probs[row], atol=1e-6)
    # Draws follow the distribution: 4,000 samples of the first row, within 0.03 per action.
    rng = make_rng(5)
    counts = np.zeros(masks.shape[1])
    for _ in range(4000):
        scratch = np.where(masks[0] != 0, np.log(np.maximum(probs[0], 1e-300)), 0.0)
        counts[_sample_masked(scratch, masks[0], rng)] += 1
    assert counts[masks[0] == 0].sum() == 0
    assert np.abs(counts / 4000 - probs[0]).max() < 0.03


def test_vec_env_with_snapshot_opponents_is_reproducible_at_any_thread_count(model):
    """Three different MLPs (the forward passes are grouped by MLP, slots move in rounds) give
    the same games twice and with one thread or two."""
    from monster_zoo.envs.core import threads

    def run(count):
        snaps = [PPOAgent.snapshot(model.policy, k, f"s{k}") for k in range(3)]
        for k, snap in enumerate(snaps):
            snap.policy_mlp.params *= np.float32(1 + 0.5 * k)  # sharper policies: three distinct MLPs
        with threads.using(count, min_batch=1):
            vec = envs.make_vec_env(GAME, 16, opponents=snaps, seed=4, num_players=3)
            vec.reset()
            rewards = []
            for _ in range(120):
                _, r, _, _ = vec.step(np.argmax(vec.action_masks(), axis=1))
                rewards.append(r.copy())
        return vec.games.states.copy(), np.array(rewards)

    (states_a, rewards_a), (states_b, rewards_b), (states_c, rewards_c) = run(1), run(1), run(2)
    assert np.array_equal(states_a, states_b) and np.array_equal(rewards_a, rewards_b)
    assert np.array_equal(states_a, states_c) and np.array_equal(rewards_a, rewards_c)
