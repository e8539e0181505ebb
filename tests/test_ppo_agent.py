"""The MaskablePPO agent wrapper: numpy scoring, masks, seeding, saving and loading."""
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import gymnasium as gym  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from monster_zoo import envs  # noqa: E402
from monster_zoo.agents import make_agent  # noqa: E402
from monster_zoo.agents.ppo_agent import PPOAgent  # noqa: E402

GAME = "marry_the_monster-v0"


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
    path = tmp_path / "model.zip"
    model.save(path)
    agent = make_agent(f"ppo:{path}", GAME, seed=1)
    obs, masks = views
    assert agent.name == f"ppo:{path}" and agent.deterministic
    assert np.allclose(agent.probabilities(obs, masks), PPOAgent(0, model.policy).probabilities(obs, masks),
                       atol=1e-5)


def test_loading_a_model_of_another_shape_is_refused(tmp_path):
    other = MaskablePPO("MlpPolicy", gym.make("CartPole-v1"), n_steps=8, batch_size=8, device="cpu")
    path = tmp_path / "cartpole.zip"
    other.save(path)
    with pytest.raises(ValueError, match=r"needs \(280,\) and 99"):
        PPOAgent.load(str(path), GAME)


def test_snapshots_play_inside_numba_with_the_policy_distribution(model, views):
    from monster_zoo.envs.core.rng import make_rng
    from monster_zoo.envs.core.opponents import _mlp_logits, _sample_masked

    snap = PPOAgent.snapshot(model.policy, 0, "s")
    mlp = snap.policy_mlp
    assert mlp is not None
    obs, masks = views
    probs = snap.probabilities(obs, masks)
    logits = np.empty(max(mlp.width, masks.shape[1]), np.float32)
    for row in range(4):
        x = np.empty(mlp.width, np.float32)
        x[:obs.shape[1]] = obs[row]
        _mlp_logits(mlp.params, mlp.shapes, mlp.activations, x, logits)
        z = np.where(masks[row] != 0, logits[:masks.shape[1]], -np.inf)
        assert np.allclose(np.exp(z - z.max()) / np.exp(z - z.max()).sum(), probs[row], atol=1e-6)
    # Draws follow the distribution: 4,000 samples of the first row, within 0.03 per action.
    rng = make_rng(5)
    counts = np.zeros(masks.shape[1])
    for _ in range(4000):
        scratch = np.where(masks[0] != 0, np.log(np.maximum(probs[0], 1e-300)), 0.0)
        counts[_sample_masked(scratch, masks[0], rng)] += 1
    assert counts[masks[0] == 0].sum() == 0
    assert np.abs(counts / 4000 - probs[0]).max() < 0.03


def test_vec_env_with_snapshot_opponents_is_reproducible(model):
    def run():
        snaps = [PPOAgent.snapshot(model.policy, k, f"s{k}") for k in range(3)]
        vec = envs.make_vec_env(GAME, 16, opponents=snaps, seed=4, num_players=3)
        vec.reset()
        rewards = []
        for _ in range(120):
            _, r, _, _ = vec.step(np.argmax(vec.action_masks(), axis=1))
            rewards.append(r.copy())
        return vec.games.states.copy(), np.array(rewards)

    (states_a, rewards_a), (states_b, rewards_b) = run(), run()
    assert np.array_equal(states_a, states_b) and np.array_equal(rewards_a, rewards_b)
