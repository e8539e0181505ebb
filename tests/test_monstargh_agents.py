"""The MONSTArgh! greedy baseline: its value, its steal choice, playing inside numba and its
strength with more players (the checks shared by every game are in test_baselines.py)."""

import numpy as np
import pytest
from monstargh_diagram import play, position

from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.agents.greedy.agent import GreedyAgent
from monster_zoo.envs.monstargh.components import NUM_SPECIES
from monster_zoo.envs.monstargh.greedy import table_value
from monster_zoo.evaluation.match import run_match, wilson_interval

GAME = "monstargh-v0"
SPEC = envs.spec(GAME)


def test_table_value_counts_own_species_against_the_others():
    """The value: own visible monsters minus half the best and half the mean other species in play."""
    state = position("G1 G2 B1\nY1 Y2 Y3", {}, ["green", "blue"])
    # green 2 visible, others in play: blue 1, yellow 3, red 0 -> best 3, mean 4/3
    assert table_value(state, 0, np.zeros(NUM_SPECIES, np.int64)) == pytest.approx(2 - 0.5 * 3 - 0.5 * 4 / 3)


def test_greedy_takes_the_steal_that_keeps_its_species_visible():
    """Given a steal choice, greedy covers the other species that shows more cards."""
    state = position("B4 . Y4\n. . Y1", {0: ["G5", "R1"]}, ["green", "blue"])
    play(state, "play green 5", "place east of blue 4")
    mask = np.zeros(SPEC.num_actions, np.int8)
    SPEC.legal_mask(state, mask)
    action = GreedyAgent(0, GAME).act(None, mask, state)
    assert SPEC.action_to_str(action, state) == "steal east (yellow 4)"


def test_greedy_runs_inside_the_vec_env():
    """The numba policy kernel plays the opponents of the SB3 vec env."""
    vec = envs.make_vec_env(GAME, 8, opponents=[make_agent("greedy", GAME)], seed=3, num_players=3)
    vec.reset()
    finished = 0
    for _ in range(300):
        actions = np.array([np.flatnonzero(m)[0] for m in vec.action_masks()])
        _, rewards, dones, _ = vec.step(actions)
        finished += int(dones.sum())
        assert np.all(rewards[~dones] == 0)
    assert finished > 0


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [3, 4, 6])
def test_greedy_beats_an_even_share_with_more_players(num_players):
    """With more players luck weighs more; greedy still wins clearly more than its even share."""
    names = ["greedy"] + ["random"] * (num_players - 1)
    result = run_match(GAME, names, games=120 * num_players, seed=99, progress=False)
    low, _ = wilson_interval(result.stats[0].wins, result.stats[0].games)
    assert low > 1.3 / num_players
