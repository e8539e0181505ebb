"""The Monster Arena greedy baseline: its arena heuristic on hand-built positions (AR-11, AR-26),
its dice arithmetic, and its strength with more players (the checks shared by every game are in
test_baselines.py)."""

import itertools

import numpy as np
import pytest

from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.monster_arena import rules
from monster_zoo.envs.monster_arena.actions import NUM_ACTIONS, action_to_str
from monster_zoo.envs.monster_arena.components import MAX_DICE
from monster_zoo.envs.monster_arena.greedy import DICE_TAIL, ENOUGH, _dice_tail, chance, greedy_action
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


def test_the_dice_table_holds_probabilities():
    """Every row of the tail table is a probability: 1 at 0, within [0, 1], never rising; its shape
    and dtype are the GPU's (a float64 table of MAX_DICE + 1 rows, placed by its size)."""
    assert DICE_TAIL.shape == (MAX_DICE + 1, 6 * MAX_DICE + 2) and DICE_TAIL.dtype == np.float64
    assert np.all(DICE_TAIL[:, 0] == 1.0)
    assert np.all((DICE_TAIL >= 0.0) & (DICE_TAIL <= 1.0))
    assert np.all(np.diff(DICE_TAIL, axis=1) <= 0.0)
    for k in range(MAX_DICE + 1):  # k dice never sum beyond 6k, and always reach k
        assert DICE_TAIL[k, 6 * k + 1 :].sum() == 0.0 and DICE_TAIL[k, k] == 1.0


@pytest.mark.parametrize("k", range(5))
def test_the_dice_table_matches_every_roll_counted(k):
    """P(sum of k d6 >= x) for every x, against all 6**k rolls enumerated."""
    sums = np.array([sum(roll) for roll in itertools.product(range(1, 7), repeat=k)])
    tail = _dice_tail(4)
    for x in range(tail.shape[1]):
        assert tail[k, x] == pytest.approx(np.mean(sums >= x), abs=1e-15), (k, x)


def test_chance_reads_the_table_and_clips_what_it_needs():
    assert chance(2, 7) == pytest.approx(21 / 36)
    assert chance(1, -3) == 1.0 and chance(0, 0) == 1.0
    assert chance(1, 7) == 0.0 and chance(1, DICE_TAIL.shape[1] + 5) == 0.0


def test_greedy_adds_attackers_until_a_hit_is_likely():
    """Against Defense 9, one Horn (1d6+3) hits on a 6 only: greedy adds the second Horn (2d6+6,
    35/36) before it rolls. Counting rolls instead of weighing them (one way to hit read as a
    chance of 1) would have rolled after the first Horn."""
    assert chance(1, 9 - 3) < ENOUGH <= chance(2, 9 - 6)
    state = arena_state({0: "U3[HO1,HO2] + L5[-,-]", 1: "U3[AP1[-,-],-] + L5[-,-]"}, energy={0: 5})
    act(state, "target AP1")
    picks = []
    while state[PHASE] == PH_ATTACK and len(picks) < 5:
        picks.append(choose(state))
        if picks[-1] == "roll":
            break
        act(state, picks[-1])
    assert len(picks) == 3 and picks[-1] == "roll" and {"HO1", "HO2"} == {p.split()[-1] for p in picks[:2]}


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
