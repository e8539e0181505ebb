"""The single-agent learner env as users reach it: unseeded resets, illegal actions, the
gymnasium and SB3 checkers, and ``gymnasium.make("monster_zoo/<game>-learner-v0")``."""

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

from monster_zoo import envs
from monster_zoo.envs.core.rng import entropy_seed
from monster_zoo.envs.registry import gymnasium_id

pytestmark = pytest.mark.conformance  # the test-only games of tests/fixture_games/ run these too


def first_illegal(mask) -> int:
    return int(np.flatnonzero(~np.asarray(mask, bool))[0])


def test_entropy_seeds_fit_an_int64():
    seeds = [entropy_seed() for _ in range(2000)]
    assert all(0 <= s < 2**63 for s in seeds)
    assert max(seeds) > 2**62, "the top bits are never used: the seeds are not spread"


def test_unseeded_resets_never_overflow(game_id):
    # entropy_seed() used to return up to 2**64 into an int64 array: about half the
    # unseeded resets of a fresh env raised OverflowError.
    for _ in range(60):
        env = envs.make_learner_env(game_id)
        obs, info = env.reset()
        assert env.observation_space.contains(obs) and info["action_mask"].any()
    for _ in range(60):
        obs, info = env.reset()
        assert env.observation_space.contains(obs)


def test_huge_seeds_are_reduced_to_a_replayable_game_seed(game_id):
    env = envs.make_learner_env(game_id)
    env.reset(seed=2**64 - 1)
    assert env.game_seed() == (2**64 - 1) % 2**63
    first, again = env.reset(seed=2**64 - 1)[0], env.reset(seed=2**64 - 1)[0]
    assert np.array_equal(first, again)


def test_reset_without_a_seed_mid_game_starts_the_next_game(game_id):
    env = envs.make_learner_env(game_id)
    env.reset(seed=3)
    first = env.game_seed()
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    _, again = env.reset()
    assert env.game_seed() == first + 1 and again["action_mask"].any()
    # a reset right after a reset keeps the fresh game
    env.reset()
    assert env.game_seed() == first + 1


def test_illegal_action_raises_naming_the_seat_not_a_slot(game_id):
    env = envs.make_learner_env(game_id)
    _, info = env.reset(seed=0)
    seat, bad = info["learner_seat"], first_illegal(env.action_masks())
    state = env.games.states.copy()
    with pytest.raises(
        ValueError,
        match=rf"^player_{seat} \(the learner\): action {bad} \(.+\) is illegal: "
        r".+; legal now: ",
    ) as err:
        env.step(bad)
    assert "slot" not in str(err.value)
    with pytest.raises(ValueError, match=rf"^player_{seat} \(the learner\): action 1.5 is not an integer"):
        env.step(1.5)
    with pytest.raises(ValueError, match=r"action -1 is out of range"):
        env.step(-1)
    assert np.array_equal(state, env.games.states), "a refused action changed the game"


def test_penalize_loses_the_game_for_the_learner(game_id):
    env = envs.make_learner_env(game_id, illegal_action="penalize")
    _, info = env.reset(seed=5)
    obs, reward, terminated, truncated, end = env.step(first_illegal(env.action_masks()))
    ended = env.game_seed()
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert end["illegal_move"] is True and end["learner_seat"] == info["learner_seat"]
    assert end["returns"][info["learner_seat"]] == -1.0 and np.count_nonzero(end["returns"]) == 1
    assert not end["action_mask"].any()
    obs, info = env.reset()
    assert env.game_seed() == ended + 1 and env.action_masks().any()


def test_vec_env_penalizes_only_the_offending_slot(game_id):
    vec = envs.make_vec_env(game_id, 3, seed=1, illegal_action="penalize")
    vec.reset()
    masks = vec.action_masks()
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    actions[1] = first_illegal(masks[1])
    _, rewards, dones, infos = vec.step(actions)
    assert dones[1] and rewards[1] == -1.0 and infos[1]["illegal_move"] is True
    assert not any(info.get("illegal_move") for k, info in enumerate(infos) if k != 1)


def test_illegal_action_option_is_validated(game_id):
    for make in (
        lambda: envs.make_learner_env(game_id, illegal_action="ignore"),
        lambda: envs.make_vec_env(game_id, 2, illegal_action="ignore"),
    ):
        with pytest.raises(
            ValueError, match="illegal_action='ignore' is not valid; valid values: 'raise', 'penalize'"
        ):
            make()
    with pytest.raises(TypeError, match="applies to the AEC env"):
        envs.make_batch(game_id, 2, illegal_action="penalize")


def test_gymnasium_check_env_passes(game_id):
    env = gymnasium.make(gymnasium_id(game_id), illegal_action="penalize").unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker warning is a failure
        gymnasium_check_env(env, skip_render_check=False)


def test_sb3_check_env_passes(game_id):
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(envs.make_learner_env(game_id, illegal_action="penalize"))


def test_rllib_samples_the_registered_learner_env_where_ray_is_installed(game_id, monkeypatch):
    """RLlib's new API stack has no single-agent check_env: its SingleAgentEnvRunner builds the env
    by its gymnasium id through gymnasium.make_vec (with gymnasium's checker) and samples it, so
    that is the check. Random (unmasked) actions need illegal_action='penalize'."""
    pytest.importorskip("ray.rllib")
    monkeypatch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # keep any local Ray on loopback
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    config = PPOConfig().environment(gymnasium_id(game_id), env_config={"illegal_action": "penalize"})
    runner = SingleAgentEnvRunner(config=config.env_runners(num_envs_per_env_runner=1))
    try:
        episodes = runner.sample(num_timesteps=200, random_actions=True)
    finally:
        runner.stop()
    assert sum(len(e) for e in episodes) >= 200
    assert all(np.isfinite(e.get_return()) for e in episodes)


def test_gymnasium_make_gives_the_learner_env_with_the_usual_wrappers(game_id):
    players = envs.spec(game_id).max_players
    env = gymnasium.make(gymnasium_id(game_id), num_players=players, max_episode_steps=4)
    assert isinstance(env.unwrapped, envs.make_learner_env(game_id).__class__)
    assert env.spec.id == gymnasium_id(game_id) and env.spec.kwargs["game_id"] == game_id
    names = []
    wrapper = env
    while wrapper is not wrapper.unwrapped:
        names.append(type(wrapper).__name__)
        wrapper = wrapper.env
    assert {"TimeLimit", "OrderEnforcing", "PassiveEnvChecker"} <= set(names)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)
    env.reset(seed=0)
    assert env.unwrapped.games.num_players == players
    for _ in range(4):
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert truncated or terminated, "max_episode_steps=4 did not end the episode"


def test_gymnasium_make_imports_the_package_from_the_module_prefix():
    env = gymnasium.make("monster_zoo:" + gymnasium_id("marry_the_monster-v0"), render_mode="ansi")
    env.reset(seed=0)
    assert "Marry the Monster" in env.render()


def test_maskable_ppo_trains_on_an_unseeded_learner_env():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    env = envs.make_learner_env("marry_the_monster-v0", num_players=2)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, device="cpu")
    model.learn(64)
    assert model.num_timesteps == 64
