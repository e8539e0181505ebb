"""A learner's ``info`` holds nothing its seat could not know.

The learner env and the vec env used to put ``game_seed`` into ``info``: with it anyone
rebuilds the whole hidden deal (a script recovered MONSTArgh!'s secret species exactly).
Now ``info`` carries only the seat's own mask and seat, and at a game's end its result;
the seed stays where only the user's own code reads it (``LearnerEnv.game_seed()``,
``SelfPlayVecEnv.game_seeds()`` / ``finished_game_seeds()``), and replays work from that.
"""

import numpy as np
import pytest

from monster_zoo import envs

pytestmark = pytest.mark.conformance  # the test-only games of tests/fixture_games/ run these too

# what a seat may read in info, always or once its game is over (all public by then)
LEARNER_KEYS = {"action_mask", "learner_seat"}
LEARNER_END_KEYS = LEARNER_KEYS | {"returns", "illegal_move"}
VEC_KEYS = {"learner_seat"}
VEC_END_KEYS = VEC_KEYS | {
    "terminal_observation",
    "TimeLimit.truncated",
    "returns",
    "opponent",
    "illegal_move",
}


class FirstLegal:
    """Opponent playing the lowest legal action, so an AEC replay can repeat its moves."""

    name = "first-legal"

    def act_batch(self, observations, masks, states=None):
        return np.argmax(masks != 0, axis=1).astype(np.int64)


def check_learner_info(info, env, done, seats):
    assert set(info) <= (LEARNER_END_KEYS if done else LEARNER_KEYS), sorted(info)
    assert info["learner_seat"] in seats
    expected = np.zeros_like(info["action_mask"]) if done else env.action_masks()
    assert np.array_equal(info["action_mask"].astype(bool), expected)  # its own legal moves only


def test_learner_env_info_holds_only_what_the_seat_knows_and_replays_from_game_seed(game_id):
    env = envs.make_learner_env(game_id, opponents=[FirstLegal()])
    seats = range(int(env.games.num_players))
    rng = np.random.default_rng(0)
    for game in range(3):
        obs, info = env.reset(seed=40 + game)
        check_learner_info(info, env, False, seats)
        seed, seat, trace, done = env.game_seed(), info["learner_seat"], [(obs, None)], False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            check_learner_info(info, env, done, seats)
            trace.append((obs, action))
        assert env.game_seed() == seed, "after its end, game_seed() names the game that ended"
        replay_learner_game(game_id, seed, seat, trace, reward)


def replay_learner_game(game_id, seed, seat, trace, reward):
    """The AEC env from ``reset(seed=seed)`` shows ``seat`` the traced observations."""
    aec = envs.make(game_id)
    aec.reset(seed=seed)
    learner, views = f"player_{seat}", iter(trace)
    expected, _ = next(views)
    for agent in aec.agent_iter():
        _, _, term, trunc, _ = aec.last()
        if term or trunc:
            break
        view = aec.observe(agent)
        if agent != learner:
            aec.step(int(np.flatnonzero(view["action_mask"])[0]))
            continue
        assert np.array_equal(view["observation"], expected)
        expected, action = next(views)
        aec.step(action)
    assert np.array_equal(aec.observe(learner)["observation"], expected)
    assert aec.rewards[learner] == reward or aec.truncations[learner]


def test_vec_env_infos_hold_only_what_each_seat_knows(game_id):
    vec = envs.make_vec_env(game_id, 4, seed=3)
    vec.reset()
    seats, ended = range(int(vec.games.num_players)), 0
    for info in vec.reset_infos:
        assert set(info) == VEC_KEYS and info["learner_seat"] in seats
    rng = np.random.default_rng(1)
    for _ in range(120):
        started = vec.game_seeds()
        _, _, dones, infos = vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in vec.action_masks()]))
        for i, info in enumerate(infos):
            assert set(info) <= (VEC_END_KEYS if dones[i] else VEC_KEYS), sorted(info)
            assert info["learner_seat"] in seats
        # the seeds stay reachable for replays, outside infos
        assert np.array_equal(vec.finished_game_seeds()[dones], started[dones])
        ended += int(dones.sum())
    assert ended, "no game ended: lengthen the run"
