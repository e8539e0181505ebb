"""The player count of a view, read from the view (monster_zoo.envs.core.seated_view).

No observation holds the player count as a number; each game's ``SEATED_SLOTS`` (beside its
``observe_into``) name the entry per relative seat that reads 1 while that seat is at the table
and 0 beyond the count. Trained agents refuse a view of another count by it
(tests/test_agents_know_their_game.py), so the count read must be exact at every seat and every
step: at every decision of random games of every game under every option set, at each game's
last state, and after the batched engine's auto-reset.
"""

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.envs.core.contract import C_NUM_PLAYERS, H_TERMINAL
from monster_zoo.envs.core.header import truncated
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.core.seated_view import players_in_view, seated_index

DECISIONS = 3000  # per option set: several whole games of each, so every count sees thousands
BATCH_STEPS = 300


def every_seat_sees(spec, state, n, index, views) -> None:
    """Assert that the view of every seat of ``state`` reads ``n`` players."""
    for seat in range(n):
        spec.observe_into(state, seat, views[seat])
    read = players_in_view(index, views[:n])
    assert (read == n).all(), f"seats read {read.tolist()} players at a {n}-player table"


def test_every_game_with_several_player_counts_declares_its_seated_slots():
    several = [g for g in envs.available() if envs.spec(g).min_players < envs.spec(g).max_players]
    assert several, "some game has several player counts"
    for game_id in several:
        spec = envs.spec(game_id)
        slots = spec.seated_slots
        assert slots is not None and len(slots) == spec.max_players, game_id
        assert len(set(slots)) == len(slots) and all(0 <= k < spec.obs_size for k in slots), game_id


def test_every_seat_at_every_step_reads_the_true_player_count(case):
    spec, config = case.spec, case.config()
    n = int(config[C_NUM_PLAYERS])
    index = seated_index(spec.seated_slots)
    if index is None:
        pytest.skip(f"{case.game_id} has one player count")
    state = np.zeros(spec.state_size, np.int32)
    mask = np.zeros(spec.num_actions, np.int8)
    views = np.zeros((spec.max_players, spec.obs_size), np.float32)
    rng, pick = make_rng(11), np.random.default_rng(11)
    spec.init_state(state, config, rng)
    ends = 0
    for _ in range(DECISIONS):
        every_seat_sees(spec, state, n, index, views)
        spec.legal_mask(state, mask)
        spec.apply_action(state, int(pick.choice(np.flatnonzero(mask))), rng)
        if state[H_TERMINAL] or truncated.py_func(state):
            every_seat_sees(spec, state, n, index, views)  # the last state, as the AEC env shows it
            spec.init_state(state, config, rng)
            ends += 1
    assert ends >= 2, f"only {ends} games ended in {DECISIONS} decisions: the last steps went unchecked"


def test_the_batched_engine_views_read_the_player_count_through_auto_reset(case):
    spec = case.spec
    index = seated_index(spec.seated_slots)
    if index is None:
        pytest.skip(f"{case.game_id} has one player count")
    engine = case.make_batch(16, seed=5)
    n = engine.num_players
    obs, _ = engine.reset()
    assert (players_in_view(index, obs) == n).all()
    resets = 0
    for _ in range(BATCH_STEPS):
        obs, _, _, terminated, truncated_now = engine.step(engine.random_actions())
        resets += int(terminated.sum() + truncated_now.sum())
        assert (players_in_view(index, obs) == n).all()
    assert resets > 0


def test_a_view_of_another_count_reads_that_count():
    """The count read tells tables apart: the same game at each of its counts reads each."""
    for game_id in envs.available():
        spec = envs.spec(game_id)
        index = seated_index(spec.seated_slots)
        for n in range(spec.min_players, spec.max_players + 1):
            engine = envs.make_batch(game_id, 2, seed=0, num_players=n)
            obs, _ = engine.reset()
            assert players_in_view(index, obs).tolist() == [n, n]
            assert players_in_view(index, obs[0]) == n
