"""RLlib's PPO over the batched learner games (``training.rllib.vector.vector_ppo_config``): one env
runner samples many games through ``make_vector_env`` and trains; bad settings are refused before
Ray starts."""

import os

import numpy as np
import pytest

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # as tests/test_rllib.py
ray = pytest.importorskip("ray")
pytest.importorskip("torch")

from monster_zoo.training.rllib.vector import make_rllib_vector_env, vector_ppo_config  # noqa: E402


def test_the_env_speaks_rllibs_keys_and_next_step_autoreset():
    env = make_rllib_vector_env({"game": "monstargh-v0", "num_envs": 3, "num_players": 2, "max_steps": 20})
    obs, info = env.reset(seed=1)
    assert set(obs) == {"observations", "action_mask"} and obs["action_mask"].dtype == np.float32
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        masks = np.where(obs["action_mask"].any(1)[:, None], obs["action_mask"], 1.0)
        obs, reward, terminated, truncated, info = env.step(
            np.where(masks > 0, rng.random(masks.shape), -1).argmax(1)
        )
        done = terminated | truncated
        assert not obs["action_mask"][done].any()
        ended += done.sum()
    assert ended >= 3


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"opponent": "champion"}, "valid values: ('random', 'greedy')"),
        ({"num_envs": 0}, "num_envs=0"),
        ({"options": {"num_players": 9}}, "num_players"),
        ({"learning_rate": 0.1}, "takes no argument learning_rate"),
    ],
)
def test_bad_settings_are_refused_before_ray_starts(kwargs, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        vector_ppo_config("marry_the_monster-v0", **kwargs)
    assert not ray.is_initialized()


@pytest.mark.slow  # Ray's start and a PPO iteration: a minute or more on a busy 2-core machine
def test_one_runner_samples_many_games_and_trains():
    config = vector_ppo_config(
        "marry_the_monster-v0",
        {"num_players": 2, "max_steps": 40},
        num_envs=16,
        opponent="greedy",
        model_config={"fcnet_hiddens": [32, 32]},
        train_batch_size_per_learner=256,
        minibatch_size=128,
        num_epochs=1,
    ).env_runners(num_env_runners=0)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        algo = config.build_algo()
        result = algo.train()
        algo.stop()
    finally:
        ray.shutdown()
    runners = result["env_runners"]
    assert runners["num_env_steps_sampled"] >= 256
    assert runners["num_episodes"] >= 1
