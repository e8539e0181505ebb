"""The training adapters (LearnerGames, the SB3 VecEnv, the gymnasium env) against the AEC env.

The learner's view from the vec env must be exactly what the AEC env shows the
same seat for the same seeds and actions: observations, masks, rewards and the
final observation, game after game. Opponents here pick the first legal action,
once as a Python object (the ``act_batch`` path) and once as a numba policy (the
in-kernel path), so the AEC replay can reproduce their moves.
"""

import numba
import numpy as np
import pytest
from numba import njit

from monster_zoo import envs
from monster_zoo.envs.core import threads
from monster_zoo.envs.core.contract import POLICY_SIG
from monster_zoo.envs.core.opponents import RandomOpponent
from monster_zoo.envs.core.sb3_vec_env import SelfPlayVecEnv
from monster_zoo.envs.core.selfplay import LearnerGames

pytestmark = pytest.mark.conformance  # the test-only games of tests/fixture_games/ run these too


@njit(POLICY_SIG)
def first_legal_policy(state, mask, rng):
    """The lowest legal action (deterministic, so the AEC replay can repeat it)."""
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            return a
    return -1


class FirstLegal:
    """Python-path opponent: lowest legal action, no kernel."""

    name = "first-legal"

    def act_batch(self, observations, masks, states=None):
        return np.argmax(masks != 0, axis=1).astype(np.int64)


class FirstLegalKernel(FirstLegal):
    """The same opponent stepped inside numba."""

    policy_kernel = staticmethod(first_legal_policy)


def play_vec(game_id, options, opponent, num_envs=3, steps=250, seed=11):
    """Step a SelfPlayVecEnv with random learner actions; record each slot's view per step."""
    spec = envs.spec(game_id)
    vec = SelfPlayVecEnv(spec, envs.config(game_id, options), num_envs, [opponent], seed=seed)
    obs = vec.reset()
    rng = np.random.default_rng(seed)
    records = [
        [] for _ in range(num_envs)
    ]  # per slot: (game_seed, seat, obs, mask, action, reward, done, final)
    infos = vec.reset_infos
    for _ in range(steps):
        masks = vec.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        seeds = vec.game_seeds()  # not in infos: a seed reveals the hidden deal
        before = [
            (seeds[i], infos[i]["learner_seat"], obs[i].copy(), masks[i].copy()) for i in range(num_envs)
        ]
        obs, rewards, dones, infos = vec.step(actions)
        for i in range(num_envs):
            final = infos[i].get("terminal_observation")
            records[i].append((*before[i], int(actions[i]), float(rewards[i]), bool(dones[i]), final))
    return records


def replay_in_aec(game_id, options, records):
    """Replay one slot's record in the AEC env and check every learner view against it."""
    env = envs.make(game_id, **options)
    k = 0
    while k < len(records):
        game_seed, seat = records[k][0], records[k][1]
        env.reset(seed=int(game_seed))
        learner = f"player_{seat}"
        for agent in env.agent_iter():
            if env.terminations[agent] or env.truncations[agent]:
                _, _, _, _, _, reward, done, final = records[k - 1]
                assert done
                assert reward == pytest.approx(env.rewards[learner])
                assert np.array_equal(final, env.observe(learner)["observation"])
                break
            view = env.observe(agent)
            if agent != learner:
                env.step(int(np.flatnonzero(view["action_mask"])[0]))
                continue
            if k >= len(records):
                return
            _, _, obs, mask, action, reward, done, _ = records[k]
            assert records[k][0] == game_seed and records[k][1] == seat
            assert np.array_equal(obs, view["observation"])
            assert np.array_equal(mask, view["action_mask"].astype(bool))
            env.step(action)
            k += 1
            if not done:
                assert reward == 0.0


@pytest.mark.parametrize("opponent", [FirstLegal(), FirstLegalKernel()], ids=["python", "kernel"])
def test_vec_env_matches_aec_env_from_the_learner_seat(case, opponent):
    records = play_vec(case.game_id, case.options, opponent)
    assert sum(r[6] for slot in records for r in slot) >= 1, "no game finished: lengthen the run"
    for slot in records:
        replay_in_aec(case.game_id, case.options, slot)


def test_learner_seats_and_opponents_vary_and_are_reproducible(game_id):
    spec, config = envs.spec(game_id), envs.config(game_id, {})
    a, b = (LearnerGames(spec, config, 64, [RandomOpponent(), FirstLegal()], seed=5) for _ in range(2))
    a.reset(), b.reset()
    assert np.array_equal(a.states, b.states) and np.array_equal(a.learner_seats, b.learner_seats)
    assert set(a.learner_seats) == set(range(int(config[0])))
    assert {type(o).__name__ for o in a.slot_opponents} == {"RandomOpponent", "FirstLegal"}
    assert np.array_equal(a.game_seeds, 5 + np.arange(64))


def test_weights_pick_opponents_in_proportion(game_id):
    spec, config = envs.spec(game_id), envs.config(game_id, {})
    games = LearnerGames(spec, config, 400, [RandomOpponent(), FirstLegal()], weights=[0.8, 0.2], seed=1)
    games.reset()
    share = np.mean([isinstance(o, RandomOpponent) for o in games.slot_opponents])
    assert 0.72 < share < 0.88


def test_illegal_learner_action_raises_and_changes_nothing(game_id):
    vec = envs.make_vec_env(game_id, 4, seed=2)
    vec.reset()
    masks = vec.action_masks()
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    bad = int(np.flatnonzero(masks[1] == 0)[0])
    actions[1] = bad
    before = vec.games.states.copy()
    with pytest.raises(
        ValueError, match=rf"slot 1: player_\d \(the learner\): action {bad} \(.+\) is illegal: "
    ):
        vec.step(actions)
    assert np.array_equal(before, vec.games.states)
    actions[1] = spec_actions = envs.spec(game_id).num_actions
    with pytest.raises(ValueError, match=f"slot 1: player_.*: action {spec_actions} is out of range"):
        vec.step(actions)


def test_bad_pools_are_refused(game_id):
    spec, config = envs.spec(game_id), envs.config(game_id, {})
    with pytest.raises(ValueError, match="empty"):
        LearnerGames(spec, config, 2, [])
    with pytest.raises(TypeError, match="act_batch"):
        LearnerGames(spec, config, 2, [object()])
    with pytest.raises(ValueError, match="weights"):
        LearnerGames(spec, config, 2, [FirstLegal()], weights=[-1])
    with pytest.raises(ValueError, match="seats"):
        LearnerGames(spec, config, 2, [FirstLegal()], seats=[0, 99])


def test_opponent_answering_illegally_is_reported(game_id):
    class Cheater(FirstLegal):
        def act_batch(self, observations, masks, states=None):
            return np.argmin(masks != 0, axis=1).astype(np.int64)

    def play():
        vec = envs.make_vec_env(game_id, 4, opponents=[Cheater()], seed=0)
        vec.reset()  # the opponent moves first in some slot, or right after the learner
        vec.step(np.array([np.flatnonzero(m)[0] for m in vec.action_masks()]))

    with pytest.raises(ValueError, match="chose illegal action"):
        play()


def _kernel_advance(game_id, count):
    with threads.using(count, min_batch=1):
        vec = envs.make_vec_env(game_id, 32, opponents=[RandomOpponent()], seed=9)
        vec.reset()
        rng = np.random.default_rng(0)
        for _ in range(60):
            vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in vec.action_masks()]))
        return vec.games.states.copy()


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 numba threads")
def test_vec_env_does_not_depend_on_the_thread_count(game_id):
    assert np.array_equal(_kernel_advance(game_id, 1), _kernel_advance(game_id, 2))


def test_sb3_recognises_masks_and_maskable_ppo_learns_a_rollout(game_id):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    vec = VecMonitor(envs.make_vec_env(game_id, 8, seed=0))
    assert is_masking_supported(vec)
    vec.reset()
    masks = get_action_masks(vec)
    assert (
        masks.shape == (8, envs.spec(game_id).num_actions) and masks.dtype == bool and masks.any(axis=1).all()
    )
    model = MaskablePPO("MlpPolicy", vec, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(8 * 16)
    assert model.num_timesteps == 128


def test_gymnasium_env_passes_the_checks_and_replays_from_a_seed(game_id):
    # gymnasium's full check_env steps unmasked random actions, which a masked game refuses.
    from gymnasium.utils.passive_env_checker import env_reset_passive_checker, env_step_passive_checker

    env = envs.make_learner_env(game_id, opponents=[FirstLegalKernel()], render_mode="ansi")
    env_reset_passive_checker(env, seed=0)
    env_step_passive_checker(env, int(np.flatnonzero(env.action_masks())[0]))

    def episode(seed):
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        trace = [obs]
        done = False
        while not done:
            assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())
            obs, reward, terminated, truncated, info = env.step(
                rng.choice(np.flatnonzero(env.action_masks()))
            )
            trace.append(obs)
            done = terminated or truncated
        return np.array(trace), reward, info

    first, reward, info = episode(4)
    again, reward_again, _ = episode(4)
    assert np.array_equal(first, again) and reward == reward_again
    assert reward == pytest.approx(info["returns"][info["learner_seat"]])
    assert isinstance(env.render(), str)


def test_bad_options_are_refused_with_the_valid_values(game_id):
    with pytest.raises(TypeError, match="unknown option.*valid options"):
        envs.make_vec_env(game_id, 2, no_such_option=1)
    with pytest.raises(TypeError, match="applies to the AEC env"):
        envs.make_learner_env(game_id, observation="flat")
    with pytest.raises(ValueError, match=r"num_envs=0 is not valid; expected an integer >= 1"):
        envs.make_vec_env(game_id, 0)
    with pytest.raises(ValueError, match="render_mode must be one of"):
        envs.make_learner_env(game_id, render_mode="rgb_array")
