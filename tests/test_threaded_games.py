"""Learner games stepped in parts by several threads (``ThreadedLearnerGames``): exactly the games of
one ``LearnerGames`` for every game and option set, every part's actions checked before any part
moves, opponents acting from Python kept on one thread, and the drivers that let the parts run
side by side releasing the GIL."""

import threading

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents.ppo.agent import PPOAgent
from monster_zoo.envs.core import opponents as opponent_drivers
from monster_zoo.envs.core import selfplay
from monster_zoo.envs.core.opponents import RandomOpponent
from monster_zoo.envs.core.selfplay import LearnerGames
from monster_zoo.envs.core.threaded_games import ThreadedLearnerGames
from tests.test_selfplay import FirstLegal, FirstLegalKernel

pytestmark = pytest.mark.conformance

COMPARED = (
    "observations",
    "masks",
    "rewards",
    "terminated",
    "truncated",
    "illegal",
    "final_observations",
    "final_returns",
    "final_seats",
    "final_game_seeds",
    "learner_seats",
    "game_seeds",
    "states",
)


def mlp_opponent(spec, seed=3):
    """A PPO policy of random weights: an opponent stepped inside numba as an MLP."""
    rng = np.random.default_rng(seed)
    layers = [
        (rng.normal(size=(spec.obs_size, 8)), np.zeros(8), "tanh"),
        (rng.normal(size=(8, spec.num_actions)), np.zeros(spec.num_actions), None),
    ]
    return PPOAgent(seed, layers=layers, deterministic=False, name="random-weights")


def assert_same_view(one, threaded, when):
    for name in COMPARED:
        assert np.array_equal(getattr(one, name), getattr(threaded, name)), f"{name} differs {when}"


def random_legal(masks, rng):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks], np.int64)


@pytest.mark.parametrize("threads", [2, 3])
def test_the_parts_play_exactly_the_games_of_one_learner_games(case, threads):
    spec, config = envs.spec(case.game_id), envs.config(case.game_id, case.options)
    pool = [RandomOpponent(), FirstLegalKernel(), mlp_opponent(spec)]
    one = LearnerGames(spec, config, 24, pool, weights=[0.4, 0.3, 0.3], seed=17)
    threaded = ThreadedLearnerGames(spec, config, 24, pool, weights=[0.4, 0.3, 0.3], seed=17, threads=threads)
    assert_same_view(one, threaded, "after the constructor")
    one.reset(), threaded.reset()
    rng = np.random.default_rng(4)
    ended = 0
    for t in range(120):
        actions = random_legal(one.masks, rng)
        one.step(actions), threaded.step(actions)
        assert_same_view(one, threaded, f"after step {t}")
        ended += int(one.terminated.sum() + one.truncated.sum())
        if t == 60:  # abandoning games in several parts at once
            one.restart([0, 11, 23]), threaded.restart([0, 11, 23])
            assert_same_view(one, threaded, "after a restart")
    assert ended > 0, "no game ended: lengthen the run"
    assert [id(o) for o in one.slot_opponents] == [id(o) for o in threaded.slot_opponents]


def test_an_illegal_action_in_any_part_names_its_slot_among_all_and_changes_nothing(game_id):
    spec, config = envs.spec(game_id), envs.config(game_id, {})
    games = ThreadedLearnerGames(spec, config, 8, seed=2, threads=2)
    games.reset()
    actions = np.array([np.flatnonzero(m)[0] for m in games.masks])
    actions[6] = bad = int(np.flatnonzero(games.masks[6] == 0)[0])
    before = games.states
    with pytest.raises(
        ValueError, match=rf"slot 6: player_\d \(the learner\): action {bad} \(.+\) is illegal"
    ):
        games.step(actions)
    assert np.array_equal(before, games.states)  # the first part, whose actions were legal, did not move
    with pytest.raises(
        ValueError, match=r"expected 8 integer action indices .* got an array of shape \(7,\)"
    ):
        games.step(actions[:7])
    with pytest.raises(ValueError, match="slots must lie in 0..7"):
        games.restart([8])
    assert np.array_equal(before, games.states)


def test_penalized_illegal_actions_end_the_same_games_as_in_one_learner_games(game_id):
    spec, config = envs.spec(game_id), envs.config(game_id, {})
    one = LearnerGames(spec, config, 6, seed=8, illegal_action="penalize")
    threaded = ThreadedLearnerGames(spec, config, 6, seed=8, illegal_action="penalize", threads=2)
    one.reset(), threaded.reset()
    actions = np.array([np.flatnonzero(m)[0] for m in one.masks])
    actions[[1, 4]] = spec.num_actions  # out of range, in both parts
    one.step(actions), threaded.step(actions)
    assert_same_view(one, threaded, "after illegal actions")
    assert threaded.illegal.tolist() == [False, True, False, False, True, False]


def test_opponents_acting_from_python_are_called_on_one_thread_in_order(game_id):
    calls = []

    class Recorder(FirstLegal):
        def act_batch(self, observations, masks, states=None):
            calls.append((threading.get_ident(), len(masks)))
            return super().act_batch(observations, masks, states)

    spec, config = envs.spec(game_id), envs.config(game_id, {})
    one = LearnerGames(spec, config, 12, [FirstLegal()], seed=3)
    threaded = ThreadedLearnerGames(spec, config, 12, [RandomOpponent()], seed=3, threads=3)
    threaded.set_opponents([Recorder()])  # joins after the start: the tables' next games get it
    threaded.seed(3), one.reset(), threaded.reset()
    rng = np.random.default_rng(0)
    for _ in range(40):
        actions = random_legal(one.masks, rng)
        one.step(actions), threaded.step(actions)
        assert_same_view(one, threaded, "with a Python opponent (deterministic per slot)")
    assert calls and {ident for ident, _ in calls} == {threading.get_ident()}


def test_parts_with_opponents_in_numba_step_on_the_worker_threads(game_id, monkeypatch):
    spec, config = envs.spec(game_id), envs.config(game_id, {})
    games = ThreadedLearnerGames(spec, config, 9, seed=1, threads=3)
    games.reset()
    seen = set()
    for part in games.parts:
        step = part.apply_checked
        monkeypatch.setattr(
            part, "apply_checked", lambda *a, step=step: (seen.add(threading.get_ident()), step(*a))
        )
    games.step(np.array([np.flatnonzero(m)[0] for m in games.masks]))
    # the last part on this thread, the others on workers (an idle worker may take two parts)
    assert len(seen) >= 2 and threading.get_ident() in seen


@pytest.mark.parametrize("threads", [0, 9, True, 1.5, "2"])
def test_bad_thread_counts_are_refused_with_the_valid_range(threads):
    spec = envs.spec("marry_the_monster-v0")
    with pytest.raises(ValueError, match=r"threads must be an integer from 1 to num_envs \(8\)"):
        ThreadedLearnerGames(spec, envs.config("marry_the_monster-v0", {}), 8, threads=threads)


def test_one_thread_is_one_part_and_plays_on_the_calling_thread():
    spec, config = envs.spec("marry_the_monster-v0"), envs.config("marry_the_monster-v0", {})
    games = ThreadedLearnerGames(spec, config, 5, seed=0, threads=1)
    one = LearnerGames(spec, config, 5, seed=0)
    games.reset(), one.reset()
    assert len(games.parts) == 1 and games._workers is None
    assert_same_view(one, games, "with one thread")


@pytest.mark.parametrize(
    "driver",
    [
        selfplay.apply_in_slots,
        selfplay.learner_view,
        selfplay.view_of_mover,
        selfplay.opponents_on_move,
        opponent_drivers.advance_with_policy.serial,
        opponent_drivers.advance_with_mlps.serial,
    ],
    ids=lambda d: d.__name__,
)
def test_the_drivers_of_a_step_release_the_gil(driver):
    # without it the parts take turns on one core (measured: no gain from a second thread)
    assert driver.dispatcher.targetoptions.get("nogil") is True


def test_a_part_beyond_the_whole_is_refused():
    spec, config = envs.spec("marry_the_monster-v0"), envs.config("marry_the_monster-v0", {})
    with pytest.raises(ValueError, match="must place the 4 slots inside"):
        LearnerGames(spec, config, 4, first_slot=6, all_slots=8)
