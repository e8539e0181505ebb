"""Monster Factory: one or more tests per rule of ``seeds/monster_factory/rules.md``.

Each test names its rule id (MF-1 .. MF-20 and the rulebook examples MF-10.1 .. MF-10.5,
MF-15.1, MF-15.2); expectations come from the rules text and rulings, worked out by hand, not
from running the engine. Monsters are drawn as grids of tiles (see ``tests/monster_factory_diagram.py``):
each token lists a tile's edges N E S W as laid (0 blank, 1 thin, 2 thick, ``e`` for an eye),
tiles are numbered in reading order, and ``....`` is an empty cell.
"""

import numpy as np
import pytest
from monster_factory_diagram import (
    apply,
    describe,
    legal_actions,
    legal_names,
    open_number,
    place,
    placements,
    reason,
    state_from_monsters,
)

from monster_zoo import envs
from monster_zoo.envs.core.contract import H_CURRENT, H_NUM_PLAYERS, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.monster_factory import observation, rules
from monster_zoo.envs.monster_factory.actions import (
    NUM_ACTIONS,
    PLACE0,
    action_to_str,
    decode_place,
    place_action,
    str_to_action,
)
from monster_zoo.envs.monster_factory.components import (
    ALL_EMPTY,
    EDGES,
    INVENTORY,
    KIND_EYE,
    KIND_NAMES,
    MAX_MONSTERS,
    MAX_OPEN_CELLS,
    ROTATION_NEW,
    kind,
)
from monster_zoo.envs.monster_factory.game import DEFAULT_MAX_STEPS
from monster_zoo.envs.monster_factory.state_layout import (
    CURRENT_MONSTER,
    DISCARDED,
    FIRST_PLAYER,
    HAND,
    MON_DONE,
    MON_EYES,
    MON_ORDINAL,
    MON_OWNER,
    MON_SIZE,
    NUM_CELLS,
    PH_PLACE,
    PH_START,
    PHASE,
    SCORE,
    STATE_SIZE,
    SUPPLY,
    TILE_KIND,
    TILE_MONSTER,
    TILE_ROT,
    TILE_X,
    TILE_Y,
    WINNER,
)
from monster_zoo.envs.monster_factory_v0 import SPEC

GAME = "monster_factory-v0"

# Ruling MF1's table, copied by hand: edges N E S W -> (count, of which with an eye).
RULING_MF1 = {
    "2000": (18, 13),
    "1000": (16, 4),
    "2020": (5, 2),
    "2200": (6, 2),
    "1010": (4, 0),
    "1100": (5, 0),
    "2010": (5, 1),
    "2100": (5, 1),
    "2220": (5, 2),
    "2101": (6, 2),
    "2110": (3, 0),
    "2210": (2, 1),
    "1110": (1, 0),
    "2222": (2, 1),
    "2121": (3, 1),
    "2111": (1, 0),
    "1111": (1, 0),
}

# An L of three thick-joined tiles; the cell south of tile 1 (east of tile 2) is open: its north
# neighbour shows thick, its west neighbour blank.
L_SHAPE = """
0220 0022
2000 ....
"""

# A comb of 12 tiles (a thick spine of four with a leg above and below each): complete.
COMB_12 = """
0020e 0020e 0020e 0020e
2220  2222  2222e 2022
2000e 2000e 2000e 2000e
"""
# The same comb without its last leg: only the cell south of tile 7 is open (tile 10 beside it
# shows blank towards it).
COMB_11 = """
0020e 0020e 0020e 0020e
2220  2222  2222e 2022
2000e 2000e 2000e ....
"""
# A 9-tile comb (spine of three): complete.
COMB_9 = """
0020e 0020e 0020e
2220e 2222  2022e
2000e 2000e 2000e
"""


def fresh(num_players=2, seed=0, **options):
    """A state right after reset with ``options``."""
    state = np.zeros(STATE_SIZE, np.int32)
    rules.init_state(state, envs.config(GAME, {"num_players": num_players, **options}), make_rng(seed))
    return state


def supply_total(state):
    return int(state[SUPPLY : SUPPLY + len(KIND_NAMES)].sum())


# --- players and components -------------------------------------------------------------
def test_mf_1_two_to_six_players_default_four():
    """MF-1: 2-6 players named player_0..; default 4; other counts refused listing the valid ones."""
    assert envs.make(GAME).possible_agents == [f"player_{i}" for i in range(4)]
    for n in range(2, 7):
        assert envs.make(GAME, num_players=n).possible_agents == [f"player_{i}" for i in range(n)]
    for bad in (1, 7):
        with pytest.raises(ValueError, match="2, 3, 4, 5, 6"):
            envs.make(GAME, num_players=bad)


def test_mf_2_inventory_is_ruling_mf1():
    """MF-2: 88 tiles; per edge pattern the count and eyes of ruling MF1; kinds split by eye."""
    assert INVENTORY.sum() == 88 == sum(c for c, _ in RULING_MF1.values())
    for pattern, (count, eyes) in RULING_MF1.items():
        ks = [k for k, name in enumerate(KIND_NAMES) if name.rstrip("e") == pattern]
        assert sum(int(INVENTORY[k]) for k in ks) == count, pattern
        assert sum(int(INVENTORY[k]) for k in ks if KIND_EYE[k]) == eyes, pattern
        assert list(EDGES[ks[0], 0]) == [int(ch) for ch in pattern]
    assert len(KIND_NAMES) == 28  # 17 patterns, 11 of them with and without eyes
    state = fresh()
    assert supply_total(state) == 88


def test_mf_3_rotation_is_clockwise_and_symmetric_orientations_count_once():
    """MF-3: one quarter turn clockwise moves the N edge to E; identical orientations are one."""
    assert list(EDGES[kind("2000"), 1]) == [0, 2, 0, 0]
    assert list(EDGES[kind("2100"), 1]) == [0, 2, 1, 0]
    assert list(EDGES[kind("2100"), 3]) == [1, 0, 0, 2]
    assert list(ROTATION_NEW[kind("1010")]) == [1, 1, 0, 0]
    assert list(ROTATION_NEW[kind("2121e")]) == [1, 1, 0, 0]
    assert list(ROTATION_NEW[kind("2222")]) == [1, 0, 0, 0]
    assert list(ROTATION_NEW[kind("2101")]) == [1, 1, 1, 1]
    # In play: a 1010 east of a thin edge fits turned once; turned three times is the same tile.
    state = state_from_monsters([(0, "0100", False), (1, "2000e", False)], hand="1010")
    assert placements(state) == [(0, (1, 0), "0101")]
    assert legal_names(state) == [f"place c{open_number(state, 0, 1, 0)} r1"]
    assert reason(state, place_action(open_number(state, 0, 1, 0), 3)) == rules.R_DUPLICATE_ROTATION


# --- setup -----------------------------------------------------------------------------
def test_mf_4_first_player_is_drawn_by_the_seeded_generator():
    """MF-4: the first player is random (ruling C1) and reproducible from the seed (ruling C2)."""
    firsts = {int(fresh(4, seed)[FIRST_PLAYER]) for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert all(fresh(4, s)[FIRST_PLAYER] == fresh(4, s)[FIRST_PLAYER] for s in range(5))
    state = fresh(4, 3, start_tiles="random")  # no start-tile decisions: the first player is on move
    assert state[H_CURRENT] == state[FIRST_PLAYER]
    assert fresh(4, 3)[H_CURRENT] == 0  # start tiles come first, in seat order (MF-5)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mf_5_start_tiles_are_chosen_in_seat_order(seed):
    """MF-5: in seat order each picks a kind from the supply; it lies at (0, 0); then the first
    player (MF-4) begins."""
    state = fresh(3, seed=seed)
    first = int(state[FIRST_PLAYER])
    assert state[PHASE] == PH_START
    assert legal_names(state) == [f"start {name}" for name in KIND_NAMES]
    picks = ["2222e", "2222", "1111"]
    for i, name in enumerate(picks):
        seat = i
        assert state[H_CURRENT] == seat
        state = apply(state, str_to_action(f"start {name}"), seed=i)
        assert state[SUPPLY + kind(name)] == INVENTORY[kind(name)] - 1
        assert state[MON_SIZE + seat] == 1 and state[CURRENT_MONSTER + seat] == seat
        slot = i
        assert (
            state[TILE_MONSTER + slot],
            state[TILE_X + slot],
            state[TILE_Y + slot],
            state[TILE_KIND + slot],
            state[TILE_ROT + slot],
        ) == (seat, 0, 0, kind(name), 0)
    assert state[PHASE] == PH_PLACE and state[H_CURRENT] == first
    assert 0 <= state[HAND] < len(KIND_NAMES)
    # the only 1111 is gone: nobody could have picked it again
    assert state[SUPPLY + kind("1111")] == 0


def test_mf_5_a_kind_no_longer_in_the_supply_cannot_be_chosen():
    """MF-5: a start tile comes from the supply, so a kind that has run out is refused."""
    state = fresh(3, seed=2)
    state = apply(state, str_to_action("start 1111"))
    assert reason(state, str_to_action("start 1111")) == rules.R_NOT_IN_SUPPLY
    assert "start 1111" not in legal_names(state)


def test_mf_5_random_start_tiles_ask_nobody():
    """MF-5: with start_tiles="random" every seat gets a drawn start tile and play begins at once."""
    for seed in range(10):
        state = fresh(5, seed, start_tiles="random")
        assert state[PHASE] == PH_PLACE and state[H_CURRENT] == state[FIRST_PLAYER]
        assert all(state[MON_SIZE + q] == 1 for q in range(5))
        taken = 5 + 1 + int(state[DISCARDED : DISCARDED + 28].sum())
        assert supply_total(state) == 88 - taken


# --- a turn -------------------------------------------------------------------------------
def test_mf_6_the_drawn_tile_is_public():
    """MF-6: after a placement the next seat has drawn a tile, visible in everyone's observation."""
    state = state_from_monsters([(0, "0220", False), (1, "0200e", False)], hand="2000")
    before = supply_total(state)
    after = apply(state, place(0, 0, "E", state, "0002"))
    assert after[H_CURRENT] == 1 and after[HAND] >= 0
    assert supply_total(after) + int(after[DISCARDED : DISCARDED + 28].sum()) == before - 1
    for seat in range(2):
        obs = np.zeros(SPEC.obs_size, np.float32)
        observation.observe_into(after, seat, obs)
        assert obs[observation.OBS_HAND + after[HAND]] == 1.0
        assert obs[observation.OBS_HAND : observation.OBS_HAND + 28].sum() == 1.0


def test_mf_7_a_tile_that_fits_must_be_placed_and_the_turn_passes():
    """MF-7: every legal action places the tile (there is no pass); then the next seat is on move."""
    state = state_from_monsters(
        [(0, "0200", False), (1, "0100e", False), (2, "0200e", False)], num_players=3, hand="2000"
    )
    # Hand-worked: the 2000 fits east of seat 0's and seat 2's tiles turned three times (thick W);
    # seat 1's open edge is thin.
    assert placements(state) == [(0, (1, 0), "0002"), (2, (1, 0), "0002")]
    assert all(a >= PLACE0 for a in legal_actions(state))
    after = apply(state, place(2, 0, "E", state, "0002"))
    assert after[H_CURRENT] == 1


def test_mf_8_unplaceable_tiles_leave_the_game_and_the_player_draws_again():
    """MF-8: tiles that fit nowhere are discarded face up and drawn again, without a decision."""
    # Every open edge is thin; the supply holds only 2000 tiles (no thin edge): seat 1 draws and
    # discards all three, and the empty supply ends the game (MF-14).
    state = state_from_monsters([(0, "0100", False), (1, "0100e", False)], hand="1010", supply={"2000": 3})
    after = apply(state, place(0, 0, "E", state, "0101"))
    assert after[DISCARDED + kind("2000")] == 3
    assert supply_total(after) == 0
    assert after[H_TERMINAL] == 1 and after[HAND] == -1
    # With one tile that fits among them, the draw ends on it, whatever the order.
    state = state_from_monsters(
        [(0, "0100", False), (1, "0100e", False)], hand="1010", supply={"2000": 2, "1000": 1}
    )
    for seed in range(8):
        after = apply(state, place(0, 0, "E", state, "0101"), seed)
        assert after[HAND] == kind("1000") and after[H_CURRENT] == 1
        assert after[DISCARDED + kind("2000")] + after[SUPPLY + kind("2000")] == 2


def test_mf_9_whose_monsters_a_player_may_use():
    """MF-9: own and others' monsters in progress; after one's first monster is complete, only
    minions of others (ruling MF6)."""
    monsters = [
        (0, "0200e 0002e", True),
        (0, "0200", False),  # seat 0: first done, a minion
        (1, "0200e", False),  # seat 1: first in progress
        (2, "0200e 0002e", True),
        (2, "0200e", False),
    ]  # seat 2: first done, a minion
    state = state_from_monsters(monsters, num_players=3, hand="2000", current=0)
    assert placements(state) == [(0, (1, 0), "0002"), (2, (1, 0), "0002")]
    assert reason(state, place(1, 0, "E", state, "0002")) == rules.R_FIRST_LOCKED
    state = state_from_monsters(monsters, num_players=3, hand="2000", current=1)
    assert placements(state) == [(0, (1, 0), "0002"), (1, (1, 0), "0002"), (2, (1, 0), "0002")]


# --- placing ----------------------------------------------------------------------------
def two_player(monster, hand):
    """Seat 0 on move with ``monster`` as its first monster; seat 1's lone 1000 takes no thick tile."""
    return state_from_monsters([(0, monster, False), (1, "1000", False)], hand=hand)


def test_mf_10_1_thick_to_thick_is_legal():
    """MF-10.1 (rulebook example): a thick edge joined to a thick edge."""
    state = two_player("0200", "2000")
    assert reason(state, place(0, 0, "E", state, "0002")) == 0


def test_mf_10_2_thin_to_thin_is_legal():
    """MF-10.2 (rulebook example): a thin edge joined to a thin edge."""
    state = state_from_monsters([(0, "0100", False), (1, "2000", False)], hand="1000")
    assert reason(state, place(0, 0, "E", state, "0001")) == 0


def test_mf_10_3_blank_to_blank_with_thick_to_thick_is_legal():
    """MF-10.3 (rulebook example): blank against blank on one side and thick against thick on another."""
    state = two_player(L_SHAPE, "2000")
    action = place(0, 1, "S", state, "2000")  # thick N to tile 1, blank W to tile 2's blank E
    assert reason(state, action) == 0
    assert (0, (1, 1), "2000") in placements(state)


def test_mf_10_4_blank_to_blank_alone_is_refused():
    """MF-10.4 (rulebook example): a tile touching only blank against blank does not join, so a
    cell that only blank edges face is never offered (it is no open cell, MF-19)."""
    state = two_player("2000", "2000")
    assert placements(state) == [(0, (0, -1), "0020")]  # only north of the thick edge
    for side in ("E", "S", "W"):
        with pytest.raises(ValueError, match="not open"):
            place(0, 0, side, state, "2000")
    # The matching rule itself: a west neighbour showing blank and nothing else does not join.
    west_blank = rules.with_need(ALL_EMPTY, 3, 0)
    assert rules.fit_reason(west_blank, kind("2000"), 0) == rules.R_NOT_JOINED
    assert rules.FITS[kind("2000"), west_blank] == 0


@pytest.mark.parametrize(
    "monster,hand,side,edges",
    [
        ("0200", "1000", "E", "0001"),  # thin against thick
        ("0100", "2000", "E", "0002"),  # thick against thin
        (L_SHAPE, "2200", "S", "2002"),  # thick joins north, but thick meets blank west
        (L_SHAPE, "2101", "S", "2101"),  # thick joins north, but thin meets blank west
    ],
)
def test_mf_10_5_every_mismatch_is_refused(monster, hand, side, edges):
    """MF-10.5 (rulebook example "not OK"): thin-thick, thin-blank and thick-blank are refused,
    also when another side joins properly."""
    state = state_from_monsters([(0, monster, False), (1, "1000e", False)], hand=hand)
    tile = 1 if monster == L_SHAPE else 0
    assert reason(state, place(0, tile, side, state, edges)) == rules.R_MISMATCH


@pytest.mark.parametrize("hand,rotation", [("1000", 2), ("2000", 2)])
def test_mf_10_5_thin_or_thick_against_a_lone_blank_is_refused(hand, rotation):
    """MF-10.5: thin against blank and thick against blank are refused; the cell north of a 0200
    (its blank N edge) is not even offered, since no thin or thick edge faces it."""
    state = two_player("0200", hand)
    with pytest.raises(ValueError, match="not open"):
        place(0, 0, "N", state, "".join(str(e) for e in EDGES[kind(hand), rotation]))
    south_blank = rules.with_need(ALL_EMPTY, 2, 0)
    assert list(EDGES[kind(hand), rotation])[2] != 0
    assert rules.fit_reason(south_blank, kind(hand), rotation) == rules.R_MISMATCH


def test_mf_10_no_placement_is_refused_for_lack_of_room():
    """MF-10: monsters grow without bound in any direction; far cells stay placeable."""
    line = "0202 0202e 0202 0202e 2222 0222 0222e 2202 2202e 2222e 0202"
    state = state_from_monsters([(0, line, False), (1, "1000", False)], hand="2121")
    found = placements(state)
    assert (0, (-1, 0), "1212") in found  # west of the first tile: x = -1
    assert (0, (11, 0), "1212") in found  # east of the eleventh: x = 11
    after = apply(state, place(0, 0, "W", state, "1212"))
    assert (after[TILE_X + 12], after[TILE_Y + 12]) == (-1, 0)  # slots: 11 line tiles, seat 1's, this


# --- completing ---------------------------------------------------------------------------
def test_mf_11_and_mf_12_completion_at_once_and_a_minion_on_another_players_turn():
    """MF-11: the placement that closes the last open edge completes the monster, whoever laid it;
    MF-12: its owner at once starts a minion from a supply tile, which is not a turn."""
    state = state_from_monsters(
        [(0, L_SHAPE, False), (1, "0200e", False), (2, "0200", False)], num_players=3, hand="2000", current=1
    )
    before = supply_total(state)
    after = apply(state, place(0, 1, "S", state, "2000"))
    assert after[MON_DONE + 0] == 1 and after[SCORE + 0] == 4  # a 4-tile first monster
    minion = int(after[CURRENT_MONSTER + 0])
    assert minion >= 3 and after[MON_ORDINAL + minion] == 1 and after[MON_SIZE + minion] == 1
    assert after[H_CURRENT] == 2  # seat 2 plays next, not seat 0
    assert supply_total(after) + int(after[DISCARDED : DISCARDED + 28].sum()) == before - 2


def _last_laid(state):
    """The tile slots flagged 'laid by the last action' in seat 0's observation."""
    obs = np.zeros(SPEC.obs_size, np.float32)
    observation.observe_into(state, 0, obs)
    f = observation.TILE_FEATURES
    return [i for i in range(88) if obs[observation.OBS_TILES + i * f + observation.F_LAST] == 1]


def test_mf_18_last_action_flag_marks_the_laid_tile_after_a_completing_placement():
    """MF-18 observation, MF-11, MF-12: after a placement that completes a monster, 'laid by the last
    action' marks the tile the player laid, not the minion's start tile laid automatically."""
    state = state_from_monsters(
        [(0, L_SHAPE, False), (1, "0200e", False), (2, "0200", False)], num_players=3, hand="2000", current=1
    )
    laid = int(state[rules.NUM_PLACED])
    after = apply(state, place(0, 1, "S", state, "2000"))
    minion = int(after[CURRENT_MONSTER + 0])
    assert (
        after[TILE_MONSTER + laid] == 0 and after[TILE_MONSTER + laid + 1] == minion
    )  # the minion's tile follows
    assert _last_laid(after) == [laid]


@pytest.mark.parametrize("start_tiles", ["choose", "random"])
def test_mf_18_last_action_flag_always_marks_the_cell_the_action_named(start_tiles):
    """MF-18 observation: over random games, after every placement exactly one tile is flagged and
    it lies on the monster and cell the action named; a chosen start tile is flagged, random
    start tiles (no action) are not."""
    for seed in range(15):
        state = fresh(3, seed, start_tiles=start_tiles)
        rng, pick = make_rng(seed), np.random.default_rng(seed)
        assert _last_laid(state) == []
        while not state[H_TERMINAL]:
            actions = legal_actions(state)
            action = int(pick.choice(actions))
            if action >= PLACE0:
                key = int(state[rules.CELL_KEY + decode_place(action)[0]])
                named = (rules.key_monster(key), *rules.key_cell(key))
            else:
                named = (int(state[H_CURRENT]), 0, 0)  # a chosen start tile
            rules.apply_action(state, action, rng)
            marked = _last_laid(state)
            assert len(marked) == 1
            i = marked[0]
            assert (state[TILE_MONSTER + i], state[TILE_X + i], state[TILE_Y + i]) == named


def test_mf_11_blank_edges_facing_empty_cells_do_not_keep_a_monster_open():
    """MF-11: only thin or thick edges facing empty cells keep a monster in progress."""
    state = state_from_monsters(
        [(0, "0200", False), (1, "1000e", False), (2, "1000", False)], num_players=3, hand="2000"
    )
    after = apply(state, place(0, 0, "E", state, "0002"))
    assert after[MON_DONE + 0] == 1 and after[SCORE + 0] == 2


def test_mf_13_a_player_never_has_two_monsters_in_progress():
    """MF-13: over random games every seat has at most one incomplete monster at every step."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for seed in range(20):
        state = fresh(4, seed, start_tiles="random")
        rng, pick = make_rng(seed), np.random.default_rng(seed)
        while not state[H_TERMINAL]:
            for q in range(4):
                own = [
                    m
                    for m in range(MAX_MONSTERS)
                    if state[MON_SIZE + m] > 0 and state[MON_OWNER + m] == q and not state[MON_DONE + m]
                ]
                assert own == ([int(state[CURRENT_MONSTER + q])] if own else [])
                assert own or state[CURRENT_MONSTER + q] == -1
            rules.legal_mask(state, mask)
            rules.apply_action(state, int(pick.choice(np.flatnonzero(mask))), rng)


# --- end and scoring ------------------------------------------------------------------------
def test_mf_14_game_ends_when_every_first_monster_is_complete():
    """MF-14: closing the last first monster ends the game at once, tiles left or not; no minion."""
    state = state_from_monsters([(0, COMB_11, False), (1, "0200e 0002e", True)], hand="2000", scores={1: 2})
    after = apply(state, place(0, 7, "S", state, "2000"))
    assert after[H_TERMINAL] == 1 and after[H_CURRENT] == -1
    assert supply_total(after) > 0 and after[CURRENT_MONSTER + 0] == -1
    assert legal_actions(after) == []


def test_mf_14_game_ends_when_the_supply_is_empty_after_the_last_tile_is_placed():
    """MF-14: the last drawn tile is still placed; the game ends right after, before any draw."""
    state = state_from_monsters([(0, "0202", False), (1, "0202e", False)], hand="2020", supply={"2020e": 1})
    after = apply(state, place(0, 0, "E", state, "0202"))
    assert after[H_TERMINAL] == 0 and after[HAND] == kind("2020e") and supply_total(after) == 0
    assert legal_actions(after)  # seat 1 holds the last tile and places it
    final = apply(after, place(1, 0, "E", after, "0202"))
    assert final[H_TERMINAL] == 1 and final[HAND] == -1


def test_mf_15_1_anna_scores_twelve():
    """MF-15.1 (rulebook example): a complete 12-tile first monster scores 12; her incomplete
    minion with two eye tiles scores nothing."""
    state = state_from_monsters(
        [(0, COMB_11, False), (1, "0200e", False), (2, "0200", False)], num_players=3, hand="2000"
    )
    after = apply(state, place(0, 7, "S", state, "2000"))
    assert after[SCORE + 0] == 12
    # Later: the game ends (the last first monster closes) with her minion still open.
    minion = "0220e 0002e"  # two eye tiles, thick edge open to the south
    state = state_from_monsters(
        [(0, COMB_12, True), (0, minion, False), (1, "0200e", False), (2, "0200e 0002", True)],
        num_players=3,
        hand="2000",
        current=1,
        scores={0: 12, 2: 2},
    )
    final = apply(state, place(1, 0, "E", state, "0002"))
    assert final[H_TERMINAL] == 1
    assert [int(final[SCORE + q]) for q in range(3)] == [12, 2, 2]
    assert final[WINNER + 0] == 1 and final[WINNER + 1] == 0


def test_mf_15_2_natalie_scores_fourteen():
    """MF-15.2 (rulebook example): a 9-tile first monster (9), a complete minion without eyes (0)
    and a complete minion with 5 eye tiles (5): 14."""
    no_eyes = "0200 0022"  # its thick south edge is open
    state = state_from_monsters(
        [(0, COMB_9, True), (0, no_eyes, False), (1, "0100e", False)], hand="2000", scores={0: 9}
    )
    after = apply(state, place(0, 1, "S", state, "2000"))
    assert after[MON_DONE + 2] == 1 and after[MON_EYES + 2] == 0  # the minion is slot 2
    assert after[SCORE + 0] == 9  # and scored nothing
    five_eyes = """
0020e 0020  0020e
2220  2222e 2022
2000e 2000e ....
"""
    state = state_from_monsters(
        [(0, COMB_9, True), (0, no_eyes + "\n.... 2000", True), (0, five_eyes, False), (1, "0100e", False)],
        hand="2000",
        scores={0: 9},
    )
    after = apply(state, place(0, 5, "S", state, "2000"))
    assert after[SCORE + 0] == 14


def test_mf_16_highest_score_wins_and_ties_share():
    """MF-16: rewards per ruling C3 (shared wins) and reward="score" (score minus the mean)."""
    out = np.zeros(3, np.float32)
    for mode, expected in (("win", [0.5, 0.5, -1.0]), ("score", [3.0, 3.0, -6.0])):
        state = state_from_monsters(
            [(0, "0200", False), (1, "0200e", False), (2, "1000", False)],
            num_players=3,
            hand="2000",
            scores={0: 12, 1: 12, 2: 3},
            reward=mode,
        )
        rules.end_game(state)
        rules.returns(state, out)
        assert out.tolist() == expected
        assert [int(state[WINNER + q]) for q in range(3)] == [1, 1, 0]
    state = state_from_monsters([(0, "0200", False), (1, "0200e", False)], hand="2000")
    rules.end_game(state)
    rules.returns(state, out[:2])
    assert out[:2].tolist() == [0.0, 0.0]  # everyone tied at 0


def test_mf_17_truncation_limit_exceeds_the_longest_possible_game():
    """MF-17: every action takes a tile from the supply, so 88 actions end any game; the default
    limit is 100 and a small max_steps truncates with reward 0 (ruling C4)."""
    assert DEFAULT_MAX_STEPS == 100 > 88 and SPEC.max_game_length == DEFAULT_MAX_STEPS
    env = envs.make(GAME, num_players=2, max_steps=3)
    env.reset(seed=0)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert all(env.truncations.values()) and not any(env.rewards.values())


# --- information and actions ------------------------------------------------------------------
def test_mf_18_the_state_holds_no_supply_order():
    """MF-18: two resets that agree on the first player give identical states: the supply is
    counts, so no order exists to be seen; the counts are in the observation."""
    by_first = {}
    for seed in range(30):
        state = fresh(3, seed)
        by_first.setdefault(int(state[FIRST_PLAYER]), []).append(state)
    assert any(len(v) > 1 for v in by_first.values())
    for states in by_first.values():
        assert all(np.array_equal(states[0], s) for s in states)
    obs = np.zeros(SPEC.obs_size, np.float32)
    observation.observe_into(states[0], 0, obs)
    assert np.allclose(obs[observation.OBS_SUPPLY : observation.OBS_SUPPLY + 28], 1.0)


def test_mf_18_observation_shows_every_monster_tile_with_its_edges():
    """MF-18: each placed tile appears with its owner seat (relative), cell, edges, eye and open sides."""
    state = state_from_monsters([(0, L_SHAPE, False), (1, "0200e", False)], hand="2000")
    obs = np.zeros(SPEC.obs_size, np.float32)
    observation.observe_into(state, 1, obs)  # seen from seat 1: seat 0 is relative seat 1
    f = observation.TILE_FEATURES
    tile1 = obs[observation.OBS_TILES + 1 * f : observation.OBS_TILES + 2 * f]
    assert (
        tile1[observation.F_PRESENT] == 1
        and tile1[observation.F_OWNER + 1] == 1
        and tile1[observation.F_FIRST] == 1
    )
    assert tile1[observation.F_X] == pytest.approx((1 + 88) / 176) and tile1[
        observation.F_Y
    ] == pytest.approx(88 / 176)
    # tile 1 shows 0022: thick S and W; its S faces the empty cell, its W joins tile 0
    assert tile1[observation.F_EDGES : observation.F_EDGES + 8].tolist() == [0, 0, 0, 0, 0, 1, 0, 1]
    assert tile1[observation.F_OPEN : observation.F_OPEN + 4].tolist() == [0, 0, 1, 0]
    seat1 = obs[observation.OBS_TILES + 3 * f : observation.OBS_TILES + 4 * f]
    assert seat1[observation.F_OWNER + 0] == 1 and seat1[observation.F_EYE] == 1
    assert obs[observation.OBS_TILES + 4 * f + observation.F_PRESENT] == 0


def test_mf_19_each_legal_placement_is_exactly_one_action():
    """MF-19: a placement names an open cell and an orientation; a cell beside several tiles is one
    open cell; names read back; a placement is offered once per distinct orientation."""
    state = two_player(L_SHAPE, "2000")
    # South of tile 1 and east of tile 2 is the same cell, so the same action.
    assert place(0, 2, "E", state, "2000") == place(0, 1, "S", state, "2000")
    # Open cells, hand-worked from the diagrams: in seat 0's L the thick edges of tile 0 (0220)
    # join tiles 1 and 2, tile 2's (2000) joins tile 0, and tile 1's (0022) S faces the empty
    # (1, 1); seat 1's lone 1000 shows a thin edge to (0, -1).
    cells = sorted(tuple(int(v) for v in rules.open_cell(state, j)) for j in range(int(state[NUM_CELLS])))
    assert cells == [(0, 1, 1), (1, 0, -1)]
    assert placements(state) == [(0, (1, 1), "2000")]
    for a in legal_actions(state):
        assert str_to_action(action_to_str(a)) == a == str_to_action(action_to_str(a, state))
    j = open_number(state, 0, 1, 1)
    assert action_to_str(place_action(j, 0), state) == f"place c{j} r0 [2000 on p0 at 1,1]"
    assert str_to_action(f"place c{j} r0") == place_action(j, 0) == PLACE0 + 4 * j
    assert reason(state, place_action(int(state[NUM_CELLS]), 0)) == rules.R_NO_CELL
    assert reason(state, place_action(open_number(state, 1, 0, -1), 0)) == rules.R_MISMATCH
    assert reason(state, str_to_action("start 2000")) == rules.R_WRONG_PHASE
    assert reason(state, -1) == rules.R_OUT_OF_RANGE
    with pytest.raises(ValueError, match="place c3 r2"):
        str_to_action("put it somewhere")


def test_mf_19_numbering_a_new_cell_goes_last_a_filled_one_is_replaced_by_the_last():
    """MF-19: a cell that opens takes the next number; a filled cell's number goes to the last cell."""
    state = state_from_monsters([(0, "0200", False), (1, "1000", False)], hand="2200")
    assert [tuple(int(v) for v in rules.open_cell(state, j)) for j in range(2)] == [(0, 1, 0), (1, 0, -1)]
    after = apply(state, place(0, 0, "E", state, "0022"))  # fills c0, opens the cell south of it
    assert int(after[NUM_CELLS]) == 2
    assert [tuple(int(v) for v in rules.open_cell(after, j)) for j in range(2)] == [(1, 0, -1), (0, 1, 1)]


def test_mf_19_the_open_cells_never_outgrow_the_actions():
    """MF-19: the bound on open cells, worked out by hand from ruling MF1: tiles with four thin or
    thick edges (2222 x2, 2121 x3, 2111, 1111: 7) add at most 2 open edges each, tiles with three
    (2220 x5, 2101 x6, 2110 x3, 2210 x2, 1110: 17) at most 1, the others none, and each of at most
    6 monsters in progress adds 2 more for its first tile: 14 + 17 + 12 = 43 cells."""
    assert MAX_OPEN_CELLS == 43 and NUM_ACTIONS == 28 + 4 * 43 == SPEC.num_actions


def test_mf_19_the_mask_lists_distinct_placements():
    """MF-19: over random games no two legal actions lay the same tile on the same cell of the same
    monster in the same edges."""
    env = envs.make(GAME, num_players=3)
    rng = np.random.default_rng(0)
    for seed in range(5):
        env.reset(seed=seed)
        while not any(env.terminations.values()):
            state = env.unwrapped.state()
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            if state[PHASE] == PH_PLACE:
                seen = set()
                for a in legal:
                    key = describe(state, a)
                    assert key not in seen, action_to_str(a, state)
                    seen.add(key)
                    assert decode_place(a)[0] < int(state[NUM_CELLS]) <= MAX_OPEN_CELLS
            env.step(int(rng.choice(legal)))


def test_mf_20_automatic_steps_never_ask_and_someone_can_always_act():
    """MF-20: drawing, discarding and minions happen inside step; the seat on move always has an
    action until the game ends."""
    env = envs.make(GAME, num_players=6, start_tiles="random")
    for seed in range(10):
        env.reset(seed=seed)
        state = env.unwrapped.state()
        assert state[PHASE] == PH_PLACE and state[H_NUM_PLAYERS] == 6
        while not any(env.terminations.values()):
            mask = env.observe(env.agent_selection)["action_mask"]
            assert mask.any()
            env.step(int(np.flatnonzero(mask)[-1]))
