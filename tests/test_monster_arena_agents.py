"""The Monster Arena greedy baseline: its arena heuristic on hand-built positions (AR-11, AR-26)
and its strength with more players (the checks shared by every game are in test_baselines.py)."""

import numpy as np
import pytest

from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.monster_arena import rules
from monster_zoo.envs.monster_arena.actions import NUM_ACTIONS, action_to_str
from monster_zoo.envs.monster_arena.greedy import greedy_action
from monster_zoo.envs.monster_arena.state_layout import PH_ATTACK, PHASE
from monster_zoo.evaluation.match import run_match, wilson_interval
from tests.monster_arena_diagram import act, arena_state

GAME = "monster_arena-v0"


def choose(state):
    """The greedy's action in ``state`` by name."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    rules.legal_mask(state, mask)
    return action_to_str(greedy_action(state, mask, make_rng(0)), state)


def test_greedy_prefers_an_outer_torso_half():
    """AR-26: the heuristic goes for an outer torso half it can likely destroy rather than the
    weakest part, adds attackers until a hit is likely, then rolls."""
    state = arena_state({0: "U1[GA1[-],GA2[-],HO1] + L1[HO2,HO3,HO4]", 1: "U4[BC1,-,-] + L3[SA1[-],ST1,ST2]"})
    assert choose(state) == "target U4"
    act(state, "target U4")
    picks = []
    while state[PHASE] == PH_ATTACK and len(picks) < 10:
        picks.append(choose(state))
        if picks[-1] == "roll":
            break
        act(state, picks[-1])
    assert picks[-1] == "roll" and len(picks) >= 3  # one Horn (1d6+3) alone rarely reaches 10


def test_greedy_attacks_the_weakest_card_when_torsos_are_covered():
    """AR-11: with both halves covered it attacks the part it can most likely destroy."""
    state = arena_state({0: "U1[HO1,-,-] + L1[-,-,-]", 1: "U3[AP1[-,-],BC1] + L5[SA1[-],HO2]"}, energy={0: 5})
    assert choose(state) == "target BC1"


def test_greedy_covers_its_own_exposed_torso_first():
    """An outer torso half of its own is covered from inventory before attacking."""
    state = arena_state(
        {0: "U3[HO1,-] + L5[HO2,HO3]", 1: "U1[-,-,-] + L1[-,-,-]"}, inventory={0: ["AP1", "BC1"]}
    )
    assert choose(state) == "attach AP1"


@pytest.mark.parametrize("num_players", [4])
def test_greedy_beats_random(num_players):
    names = ["greedy"] + ["random"] * (num_players - 1)
    result = run_match(GAME, names, games=100 * num_players, seed=4242, progress=False)
    greedy = result.stats[0]
    low, high = wilson_interval(greedy.wins, greedy.games)
    print(
        f"\ngreedy vs {num_players - 1} random: {greedy.wins}/{greedy.games} = {greedy.win_rate:.3f} "
        f"[95% Wilson {low:.3f}, {high:.3f}]"
    )
    assert greedy.win_rate >= 0.80


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [3, 5, 6])
def test_greedy_beats_random_at_other_player_counts(num_players):
    names = ["greedy"] + ["random"] * (num_players - 1)
    result = run_match(GAME, names, games=100 * num_players, seed=777, progress=False)
    greedy = result.stats[0]
    low, high = wilson_interval(greedy.wins, greedy.games)
    print(f"\ngreedy vs {num_players - 1} random: {greedy.win_rate:.3f} [{low:.3f}, {high:.3f}]")
    assert greedy.win_rate >= 0.80
