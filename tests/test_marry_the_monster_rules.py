"""Marry the Monster: one or more tests per rule of ``seeds/marry_the_monster/rules.md``.

Each test names its rule id (MTM-1 .. MTM-24, MTM-12.1, MTM-12.2) and its expectations come from
the rules text and rulings, not from running the engine. Positions are drawn as boards (see
``tests/marry_the_monster_diagram.py``): ``@@`` is the fachan, ``0h`` / ``1m`` / ``2T`` a house / manor /
tower of seat 0 / 1 / 2, ``.v`` an empty cell worth v points. Player 0 is on move unless a test
says otherwise.
"""

from collections import Counter

import numpy as np
import pytest
from marry_the_monster_diagram import (
    apply,
    board_of,
    hand,
    legal_actions,
    legal_names,
    names_starting,
    normalize,
    pile,
    state_from_diagram,
)

from monster_zoo import envs
from monster_zoo.envs.core.contract import H_CURRENT, H_TERMINAL
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.marry_the_monster import observation, rules
from monster_zoo.envs.marry_the_monster.actions import END, NUM_ACTIONS, str_to_action
from monster_zoo.envs.marry_the_monster.components import CELL_NAMES, VALUE, cell
from monster_zoo.envs.marry_the_monster.state_layout import (
    DECK,
    DESTROYED,
    DISCARD,
    FACHAN,
    FIRST_PLAYER,
    HEIGHT,
    OWNER,
    PENDING,
    PH_FREE,
    PH_MAIN,
    PHASE,
    POOL,
    SCORE,
    STATE_SIZE,
    WINNER,
)

ENV_ID = "marry_the_monster-v0"
ROW_NAMES = "ABCDEFG"

# The valley with every cell's value, as the rules describe it: 5 in the centre, then rings of
# 3, 2 and 1 (MTM-1). Written by hand, so it checks the engine's geometry rather than echoing it.
EMPTY = """
A        .1  .1  .1  .1
B      .1  .2  .2  .2  .1
C    .1  .2  .3  .3  .2  .1
D  .1  .2  .3  @@  .3  .2  .1
E    .1  .2  .3  .3  .2  .1
F      .1  .2  .2  .2  .1
G        .1  .1  .1  .1
"""

# Every cell but the fachan's holds a house (seats 1 and 2): no room to build anywhere.
FULL = """
A        1h  2h  1h  2h
B      2h  1h  2h  1h  2h
C    1h  2h  1h  2h  1h  2h
D  2h  1h  2h  @@  1h  2h  1h
E    1h  2h  1h  2h  1h  2h
F      2h  1h  2h  1h  2h
G        1h  2h  1h  2h
"""


def board(**rows: str) -> str:
    """EMPTY with some rows replaced, e.g. ``board(D="@@ 0h .3 .5 .3 .2 .1")``.

    The fachan stays on the centre D4 unless a replaced row places it (``@@``).
    """
    lines = [line.split()[1:] for line in EMPTY.strip().splitlines()]
    moved = any("@@" in r for r in rows.values())
    if moved:
        lines[3][3] = ".5"
    for letter, cells in rows.items():
        lines[ROW_NAMES.index(letter)] = cells.split()
    return "\n".join(" ".join(r) for r in lines)


def new_game(num_players: int, seed: int, reward: int = 0) -> np.ndarray:
    """A fresh game as the env's reset makes it (init_state with a seeded generator)."""
    state = np.zeros(STATE_SIZE, np.int32)
    rules.init_state(state, np.array([num_players, 5000, reward], np.int64), make_rng(seed))
    return state


def hand_size(state, p: int) -> int:
    return sum(hand(state, p))


def phase_is(state, phase: int) -> bool:
    return int(state[PHASE]) == phase


def moves(state):
    return names_starting(legal_names(state), "move")


def plays(state):
    """Legal card plays (Build, Fortify, stomps), i.e. everything in step 4 but moves and end."""
    return {x for x in legal_names(state) if x.startswith(("play", "stomp"))}


def winner(state) -> int:
    """The winning seat, or -1 while nobody has won."""
    won = [p for p in range(int(state[0])) if state[WINNER + p]]
    return won[0] if won else -1


# ============================================================ MTM-1 board
def test_mtm_1_board_values_rings_and_rows():
    """MTM-1: 37 cells in rows of 4-5-6-7-6-5-4; one centre cell worth 5, rings of 6 x 3, 12 x 2, 18 x 1."""
    tokens = [t for line in EMPTY.strip().splitlines() for t in line.split()[1:]]
    drawn = [5 if t == "@@" else int(t[1]) for t in tokens]  # the fachan starts on the centre
    assert len(CELL_NAMES) == 37
    assert list(VALUE) == drawn
    assert Counter(int(v) for v in VALUE) == {5: 1, 3: 6, 2: 12, 1: 18}
    # cells are named by row A-G (north to south) and position from the west
    lengths = [4, 5, 6, 7, 6, 5, 4]
    assert CELL_NAMES == tuple(f"{r}{i}" for r, k in zip(ROW_NAMES, lengths) for i in range(1, k + 1))
    assert VALUE[cell("D4")] == 5


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_mtm_1_fachan_starts_on_centre_of_empty_board(num_players, seed):
    """MTM-1: a new game has an empty valley with the fachan on the centre D4."""
    state = new_game(num_players, seed)
    assert int(state[FACHAN]) == cell("D4")
    assert board_of(state) == normalize(EMPTY)


def test_mtm_1_centre_neighbours_are_the_three_point_ring():
    """MTM-1: the six cells next to the centre are exactly the ring worth 3; the valley's radius is 3."""
    state = state_from_diagram(EMPTY)
    one_step = set()
    for d in ("E", "NE", "NW", "W", "SW", "SE"):
        one_step.add(int(apply(state, f"move {d} 1")[FACHAN]))
        assert f"move {d} 3" in moves(state) and f"move {d} 4" not in moves(state)
    assert one_step == {c for c in range(37) if VALUE[c] == 3}


# ============================================================ MTM-2 players
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_mtm_2_player_counts_two_to_five(num_players):
    """MTM-2: 3-5 players, and 2 as a variant; seats are player_0 .. player_{n-1}."""
    env = envs.make(ENV_ID, num_players=num_players)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(num_players)]
    assert env.agents == env.possible_agents
    assert env.agent_selection in env.agents


def test_mtm_2_default_is_three_players():
    """MTM-2: the option num_players defaults to 3."""
    env = envs.make(ENV_ID)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]


@pytest.mark.parametrize("num_players", [0, 1, 6, 3.0, "3"])
def test_mtm_2_refuses_other_player_counts(num_players):
    """MTM-2: no game for 1 or 6 players (nor for a player count that is not an int)."""
    with pytest.raises(ValueError, match="num_players"):
        envs.make(ENV_ID, num_players=num_players)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_mtm_2_play_goes_clockwise(num_players):
    """MTM-2: after a seat's turn the next seat (seat + 1 mod n) is on move."""
    state = new_game(num_players, seed=7)
    first = int(state[FIRST_PLAYER])
    order = []
    for _ in range(2 * num_players):
        order.append(int(state[H_CURRENT]))
        state = apply(state, "end", "end")  # stop free houses, end the turn (empty board: no skips)
    assert order == [(first + i) % num_players for i in range(2 * num_players)]


# ============================================================ MTM-3 setup
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_mtm_3_setup_hands_pieces_scores_and_deck(num_players):
    """MTM-3: 3 cards each (the first player has drawn in step 2 already), 25 pieces, 0 points,
    and the 60 cards are 25 Stomp, 15 Build, 20 Fortify."""
    for seed in range(3):
        state = new_game(num_players, seed)
        first = int(state[FIRST_PLAYER])
        assert int(state[H_CURRENT]) == first
        for p in range(num_players):
            assert int(state[POOL + p]) == 25
            assert int(state[SCORE + p]) == 0
            if p != first:
                assert hand_size(state, p) == 3
        assert hand_size(state, first) > 3
        cards = np.array(pile(state, DECK)) + np.array(pile(state, DISCARD))
        for p in range(num_players):
            cards += np.array(hand(state, p))
        assert tuple(cards) == (25, 15, 20)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_mtm_3_first_player_random_but_seeded(num_players):
    """MTM-3 (rulings C1, C2): the first player is drawn at random; the same seed gives the same game."""
    firsts = set()
    for seed in range(40):
        env = envs.make(ENV_ID, num_players=num_players)
        env.reset(seed=seed)
        firsts.add(env.agent_selection)
    assert len(firsts) == num_players  # 40 draws miss a seat with probability < 1e-4
    a, b = envs.make(ENV_ID, num_players=num_players), envs.make(ENV_ID, num_players=num_players)
    a.reset(seed=11)
    b.reset(seed=11)
    assert np.array_equal(a.unwrapped.state(), b.unwrapped.state())


def test_mtm_3_deck_is_shuffled():
    """MTM-3: the deal depends on the seed (the deck is shuffled)."""
    deals = {tuple(hand(new_game(3, seed), p) for p in range(3)) for seed in range(20)}
    assert len(deals) > 1


# ============================================================ MTM-4 drawing
@pytest.mark.parametrize(
    "deck, discard, hand0, deck_after, discard_after, hand1",
    [
        # the deck is empty: the discard pile becomes the deck; player 1's step-2 draw finds nothing
        ((0, 0, 0), (1, 2, 0), (1, 2, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0)),
        # one card left: draw it, then reshuffle the discard pile for the other two and for player 1
        ((1, 0, 0), (0, 0, 5), (1, 0, 2), (0, 0, 2), (0, 0, 0), (0, 0, 1)),
        # both piles empty: every draw is skipped
        ((0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0)),
    ],
)
def test_mtm_4_reshuffle_discard_and_skip_when_both_empty(
    deck, discard, hand0, deck_after, discard_after, hand1
):
    """MTM-4: an empty deck is refilled from the discard pile; with both empty the draw is skipped.

    Player 0 ends step 4 without a card play (draws 3, MTM-15), then player 1 draws 1 in step 2.
    """
    state = state_from_diagram(EMPTY, deck=deck, discard=discard)
    state = apply(state, "end")
    assert int(state[H_CURRENT]) == 1
    assert hand(state, 0) == hand0
    assert hand(state, 1) == hand1
    assert pile(state, DECK) == deck_after
    assert pile(state, DISCARD) == discard_after


def test_mtm_4_hands_have_no_limit():
    """MTM-4: a player holding 30 cards still draws."""
    state = state_from_diagram(EMPTY, hands={0: (10, 10, 10)})
    assert hand_size(apply(state, "end"), 0) == 33


# ============================================================ MTM-5 scoring
def test_mtm_5_scores_every_building_by_cell_value():
    """MTM-5: at the start of player 1's turn they gain 3 + 2 + 1 for a house on a 3, a manor on
    a 2 and a tower on a 1; nobody else's score moves."""
    state = state_from_diagram(
        board(A="1T .1 .1 .1", B=".1 1m .2 .2 .1", D=".1 .2 1h @@ .3 0h .1"), scores=[7, 10, 20]
    )
    state = apply(state, "end")
    assert int(state[H_CURRENT]) == 1
    assert [int(state[SCORE + p]) for p in range(3)] == [7, 16, 20]


@pytest.mark.parametrize("token", ["1h", "1m", "1T"])
@pytest.mark.parametrize(
    "where, rows, points",
    [
        ("centre", dict(D=".1 .2 .3 {b} .3 .2 @@"), 5),  # a house on the centre is worth 5 ...
        ("outer ring", dict(A="{b} .1 .1 .1"), 1),  # ... and a tower on a 1 only 1
        ("middle ring", dict(B=".1 {b} .2 .2 .1"), 2),
    ],
)
def test_mtm_5_height_does_not_matter(token, where, rows, points):
    """MTM-5: a house, a manor and a tower on the same cell score the same, the cell's value."""
    diagram = board(**{k: v.format(b=token) for k, v in rows.items()})
    state = apply(state_from_diagram(diagram, scores=[0, 4, 0]), "end")
    assert int(state[SCORE + 1]) == 4 + points


# ============================================================ MTM-6 step 2 draws
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_mtm_6_one_card_per_turn_after_the_first_round(num_players):
    """MTM-6: outside the first round every player draws exactly one card in step 2."""
    state = state_from_diagram(EMPTY, num_players=num_players)
    state = apply(state, "end")
    assert int(state[H_CURRENT]) == 1 and hand_size(state, 1) == 1


@pytest.mark.parametrize(
    "num_players, extra_first, extra_second",
    [
        (2, 0, 0),
        (3, 0, 0),
        (4, 1, 0),
        (5, 2, 1),
    ],
)
@pytest.mark.parametrize("seed", [0, 5])
def test_mtm_6_first_turn_extra_draws(num_players, extra_first, extra_second, seed):
    """MTM-6: on their first turn only, 4 players: the first player draws 1 extra;
    5 players: the first draws 2 extra and the second 1 extra. Everybody else draws 1."""
    state = new_game(num_players, seed)
    first = int(state[FIRST_PLAYER])
    extras = {first: extra_first, (first + 1) % num_players: extra_second}
    # 3 dealt + 1 in step 2 + the extras, at the start of each seat's first turn
    for i in range(num_players):
        p = (first + i) % num_players
        assert int(state[H_CURRENT]) == p
        assert hand_size(state, p) == 3 + 1 + extras.get(p, 0)
        state = apply(state, "end", "end")  # no card played: 3 more at the end of step 4
    # the first player's second turn: only 1 card in step 2
    assert int(state[H_CURRENT]) == first
    assert hand_size(state, first) == 3 + 1 + extra_first + 3 + 1


# ============================================================ MTM-7 free houses
@pytest.mark.parametrize("score, houses", [(0, 3), (14, 3), (15, 2), (29, 2), (30, 1), (59, 1)])
def test_mtm_7_free_houses_by_score(score, houses):
    """MTM-7: 3 free houses, 2 from 15 points, 1 from 30 points; then step 3 is over."""
    state = state_from_diagram(EMPTY, current=2, scores={0: score})
    state = apply(state, "end")  # player 2 ends; player 0 starts with `score` points
    assert int(state[H_CURRENT]) == 0
    for k in range(houses):
        assert phase_is(state, PH_FREE)
        state = apply(state, f"house A{k + 1}")
    assert phase_is(state, PH_MAIN)
    assert not names_starting(legal_names(state), "house")
    assert [int(state[OWNER + cell(f"A{k + 1}")]) for k in range(4)] == [0] * houses + [-1] * (4 - houses)


def test_mtm_7_free_houses_are_optional():
    """MTM-7: the player may stop placing free houses at any time, also before the first."""
    state = state_from_diagram(EMPTY, phase="free", free_houses=3)
    assert "end" in legal_names(state)
    after = apply(state, "house A1", "end")
    assert phase_is(after, PH_MAIN) and int(after[POOL]) == 24
    assert int(after[HEIGHT + cell("A1")]) == 1 and "end" in legal_names(after)
    assert phase_is(apply(state, "end"), PH_MAIN)


def test_mtm_7_free_houses_anywhere_empty_but_not_the_fachans_cell():
    """MTM-1 / MTM-7: any empty cell takes a free house, not the fachan's cell nor a built cell."""
    diagram = board(C=".1 .2 1h .3 .2 .1", D=".1 .2 .3 .5 @@ 2m .1")
    state = state_from_diagram(diagram, phase="free", free_houses=3)
    empty = {f"house {CELL_NAMES[c]}" for c in range(37)} - {"house C3", "house D5", "house D6"}
    assert legal_names(state) == empty | {"end"}


# ============================================================ MTM-8 move and play
@pytest.mark.parametrize(
    "actions",
    [
        ["move E 1", "play build", "house A1", "house A2"],
        ["play build", "house A1", "house A2", "move E 1"],
        ["play build", "house A1", "end", "move E 1", "play build", "house A3", "end"],
    ],
)
def test_mtm_8_move_once_in_any_order_with_plays(actions):
    """MTM-8: the fachan moves at most once, before, between or after card plays."""
    state = state_from_diagram(EMPTY, hands={0: (0, 3, 0)})
    assert moves(state)
    state = apply(state, *actions)
    assert int(state[H_CURRENT]) == 0
    assert not moves(state)  # the move is spent ...
    assert "play build" in plays(state)  # ... but more cards may still be played
    assert int(state[FACHAN]) == cell("D5")


@pytest.mark.parametrize(
    "actions, cards_after",
    [
        (["move E 1", "end"], 2 + 3),  # a move is not a card play
        (["move E 1", "play build", "house A1", "end", "end"], 2 - 1),  # a Build is
    ],
)
def test_mtm_8_moving_is_not_a_card_play(actions, cards_after):
    """MTM-8 / MTM-15: a turn with a move but no card play still draws 3 at the end of step 4."""
    state = state_from_diagram(EMPTY, hands={0: (0, 2, 0)})
    state = apply(state, *actions)
    assert int(state[H_CURRENT]) == 1
    assert hand_size(state, 0) == cards_after


# ============================================================ MTM-9 moving the fachan
def test_mtm_9_fachan_cannot_enter_or_pass_buildings():
    """MTM-9: from D4 the fachan goes along the six lines over empty cells only:
    a house on D6 allows E 1 only (D7 behind it is empty), a house on B2 allows NW 1 only."""
    state = state_from_diagram(board(B=".1 1h .2 .2 .1", D=".1 .2 .3 @@ .3 2h .1"))
    expected = {"move E 1", "move NW 1"} | {
        f"move {d} {k}" for d in ("NE", "W", "SW", "SE") for k in (1, 2, 3)
    }
    assert moves(state) == expected


def test_mtm_9_fachan_cannot_leave_the_board():
    """MTM-9: from the corner A1 he goes east 1-3, south-west 1-3 or south-east 1-6 (to G4)."""
    state = state_from_diagram(board(A="@@ .1 .1 .1"))
    expected = (
        {f"move E {k}" for k in (1, 2, 3)}
        | {f"move SW {k}" for k in (1, 2, 3)}
        | {f"move SE {k}" for k in range(1, 7)}
    )
    assert moves(state) == expected
    assert int(apply(state, "move SE 6")[FACHAN]) == cell("G4")
    assert int(apply(state, "move SW 3")[FACHAN]) == cell("D1")


def test_mtm_9_boxed_in_fachan_cannot_move():
    """MTM-9: with all six neighbours built on he cannot move, even over his own buildings."""
    diagram = board(C=".1 .2 0h 1h .2 .1", D=".1 .2 2m @@ 0T .2 .1", E=".1 .2 1h 0h .2 .1")
    state = state_from_diagram(diagram, hands={0: (0, 1, 0)})
    assert not moves(state)
    assert legal_names(state) == {"play build", "end"}


# ============================================================ MTM-10 card plays and triples
# Player 0 has a house on D6 in line with the fachan (a stomp target), a free piece and empty cells.
PLAYABLE = board(D=".1 .2 .3 @@ .3 0h .1")


@pytest.mark.parametrize(
    "cards, expected",
    [
        ((1, 0, 0), {"stomp 1"}),
        ((0, 1, 0), {"play build"}),
        ((0, 0, 1), {"play fortify"}),
        ((2, 0, 0), {"stomp 1", "stomp 2"}),
        ((3, 0, 0), {"stomp 1", "stomp 2", "stomp 3", "play build (3 stomp)", "play fortify (3 stomp)"}),
        ((0, 3, 0), {"play build", "play fortify (3 build)", "stomp 1 (3 build)"}),
        ((0, 2, 2), {"play build", "play fortify"}),
        ((0, 6, 0), {"play build", "play fortify (3 build)", "stomp 1 (3 build)", "stomp 2 (6 build)"}),
        (
            (1, 3, 0),
            {
                "stomp 1",
                "play build",
                "play fortify (3 build)",
                "stomp 1 (3 build)",
                "stomp 2 (1 stomp + 3 build)",
            },
        ),
        (
            (0, 3, 3),
            {
                "play build",
                "play fortify",
                "play build (3 fortify)",
                "play fortify (3 build)",
                "stomp 1 (3 build)",
                "stomp 1 (3 fortify)",
                "stomp 2 (3 build + 3 fortify)",
            },
        ),
    ],
)
def test_mtm_10_plays_and_triples_offered(cards, expected):
    """MTM-10: a card plays as its own type; three of one type play as one card of either other
    type, also as units of a multi-card stomp (at most 3 units)."""
    state = state_from_diagram(PLAYABLE, hands={0: cards})
    assert plays(state) == expected


def test_mtm_10_triple_inside_a_multi_card_stomp_pays_and_strikes():
    """MTM-10 / MTM-12: 1 Stomp + 3 Build + 3 Fortify is a 3-unit stomp; it fells a tower and
    all 7 cards go to the discard pile."""
    state = state_from_diagram(board(D="@@ 1m 0T .5 .3 .2 .1"), hands={0: (1, 3, 4)})
    state = apply(state, "stomp 3 (1 stomp + 3 build + 3 fortify)", "target D3")
    assert board_of(state) == normalize(board(D=".1 .2 @@ .5 .3 .2 .1"))
    assert hand(state, 0) == (0, 0, 1)
    assert pile(state, DISCARD) == (1, 3, 3)


def test_mtm_10_triple_as_build():
    """MTM-10: three Stomp cards played as a Build place houses like a Build card."""
    state = state_from_diagram(EMPTY, hands={0: (3, 0, 0)})
    state = apply(state, "play build (3 stomp)", "house A1", "house G4")
    assert int(state[OWNER + cell("A1")]) == 0 and int(state[OWNER + cell("G4")]) == 0
    assert hand(state, 0) == (0, 0, 0) and pile(state, DISCARD) == (3, 0, 0)


@pytest.mark.parametrize(
    "diagram, cards, pools, scores, play, legal",
    [
        # Build: needs an empty cell and a free piece
        (FULL, (0, 1, 0), None, None, "play build", False),
        (EMPTY, (0, 1, 0), {0: 0}, None, "play build", False),
        (EMPTY, (0, 1, 0), {0: 1}, None, "play build", True),
        # Fortify: needs an own house or manor and a free piece
        (board(A="0T 0T .1 1h"), (0, 0, 1), None, None, "play fortify", False),
        (board(A="1h 2m .1 .1"), (0, 0, 1), None, None, "play fortify", False),
        (board(A="0h .1 .1 .1"), (0, 0, 1), {0: 0}, None, "play fortify", False),
        (board(A="0m .1 .1 .1"), (0, 0, 1), {0: 1}, None, "play fortify", True),
        (board(A="0h .1 .1 .1"), (0, 0, 1), None, None, "play fortify", True),
        (board(A="0h .1 .1 .1"), (3, 0, 0), None, None, "play fortify (3 stomp)", True),
        (board(A="0T .1 .1 .1"), (3, 0, 0), None, None, "play fortify (3 stomp)", False),
        # Stomp: needs a building the player may target on a line from the fachan (D4)
        (board(B="0h .2 .2 .2 .1"), (1, 0, 0), None, None, "stomp 1", False),  # B1 not in line
        (board(B=".1 0h .2 .2 .1"), (1, 0, 0), None, None, "stomp 1", True),  # B2 on NW line
        (board(D=".1 .2 .3 @@ .3 1h .1"), (1, 0, 0), None, {0: 29}, "stomp 1", False),  # not own
        (board(D=".1 .2 .3 @@ .3 1h .1"), (1, 0, 0), None, {0: 30}, "stomp 1", True),
        (board(D=".1 .2 .3 @@ .3 1h .1"), (0, 3, 0), None, {0: 29}, "stomp 1 (3 build)", False),
        # a stomp with an own target behind a stronger building is still a legal play (MTM-12)
        (board(D=".1 .2 .3 @@ 1T 0h .1"), (1, 0, 0), None, None, "stomp 1", True),
    ],
)
def test_mtm_10_play_only_if_it_can_take_effect(diagram, cards, pools, scores, play, legal):
    """MTM-10 (ruling MtM8): a card play is refused when it could not take effect."""
    state = state_from_diagram(diagram, hands={0: cards}, pools=pools, scores=scores)
    assert (play in legal_names(state)) == legal
    assert "end" in legal_names(state)


# ============================================================ MTM-11 Build and Fortify
def test_mtm_11_build_places_up_to_two_houses():
    """MTM-11: a Build places two houses on empty cells (not the fachan's), then step 4 resumes."""
    state = state_from_diagram(EMPTY, hands={0: (0, 1, 0)})
    state = apply(state, "play build")
    expected = {f"house {CELL_NAMES[c]}" for c in range(37) if CELL_NAMES[c] != "D4"}
    assert legal_names(state) == expected  # no "end" before the first house
    state = apply(state, "house B3")
    assert legal_names(state) == expected - {"house B3"} | {"end"}
    state = apply(state, "house F2")
    assert phase_is(state, PH_MAIN)
    assert board_of(state) == normalize(board(B=".1 .2 0h .2 .1", F=".1 0h .2 .2 .1"))
    assert int(state[POOL]) == 23


def test_mtm_11_build_may_stop_after_the_first_house():
    """MTM-11: the player may stop a Build after its first house, not before it."""
    state = apply(state_from_diagram(EMPTY, hands={0: (0, 1, 0)}), "play build")
    assert "end" not in legal_names(state)
    state = apply(state, "house A1", "end")
    assert phase_is(state, PH_MAIN) and int(state[H_CURRENT]) == 0
    assert int(state[POOL]) == 24
    assert sum(int(state[HEIGHT + c]) for c in range(37)) == 1


@pytest.mark.parametrize("before, after", [("0h", "0m"), ("0m", "0T")])
def test_mtm_11_fortify_raises_one_level(before, after):
    """MTM-11: a Fortify turns a house into a manor, a manor into a tower, with one more piece."""
    state = state_from_diagram(board(A=f"{before} .1 .1 .1"), hands={0: (0, 0, 1)})
    pool = int(state[POOL])
    state = apply(state, "play fortify", "fortify A1")
    assert board_of(state) == normalize(board(A=f"{after} .1 .1 .1"))
    assert int(state[POOL]) == pool - 1


def test_mtm_11_two_fortifies_make_a_house_a_tower():
    """MTM-11: two Fortify plays turn a house into a tower."""
    state = state_from_diagram(board(A="0h .1 .1 .1"), hands={0: (0, 0, 2)})
    state = apply(state, "play fortify", "fortify A1", "play fortify", "fortify A1")
    assert board_of(state) == normalize(board(A="0T .1 .1 .1"))
    assert int(state[POOL]) == 22


def test_mtm_11_fortify_only_own_houses_and_manors():
    """MTM-11 / MTM-20: never an empty cell, a tower, or another player's building."""
    diagram = board(A="0h 0m 0T 1h", B=".1 2m .2 .2 .1")
    state = apply(state_from_diagram(diagram, hands={0: (0, 0, 1)}), "play fortify")
    assert legal_names(state) == {"fortify A1", "fortify A2"}


# ============================================================ MTM-12 stomp lines
# The fachan stands on D1 at the west end of row D; seat 0 stomps east along the row.
@pytest.mark.parametrize(
    "before, play, target, after, destroyed",
    [
        pytest.param(
            "@@ 0h .3 .5 .3 .2 .1", "stomp 1", "D2", ".1 @@ .3 .5 .3 .2 .1", 1, id="1 unit fells a house"
        ),
        pytest.param(
            "@@ .2 0m .5 .3 .2 .1",
            "stomp 1",
            "D3",
            ".1 @@ 0m .5 .3 .2 .1",
            0,
            id="1 unit stops before a manor",
        ),
        pytest.param(
            "@@ .2 0m .5 .3 .2 .1", "stomp 2", "D3", ".1 .2 @@ .5 .3 .2 .1", 1, id="2 units fell a manor"
        ),
        pytest.param(
            "@@ 0T .3 .5 .3 .2 .1", "stomp 2", "D2", "@@ 0T .3 .5 .3 .2 .1", 0, id="2 units vs tower: nothing"
        ),
        pytest.param(
            "@@ .2 .3 .5 0T .2 .1", "stomp 3", "D5", ".1 .2 .3 .5 @@ .2 .1", 1, id="3 units fell a tower"
        ),
        pytest.param(
            "@@ 1h 2m 0T .3 .2 .1", "stomp 3", "D4", ".1 .2 .3 @@ .3 .2 .1", 3, id="3 units fell all"
        ),
        pytest.param(
            "@@ 1h 2m 1h 0m .2 .1", "stomp 2", "D5", ".1 .2 .3 .5 @@ .2 .1", 4, id="fells every owner's"
        ),
        pytest.param(
            "@@ 1h 2T 1h 0h .2 .1", "stomp 2", "D5", ".1 @@ 2T 1h 0h .2 .1", 1, id="stops before stronger"
        ),
        pytest.param("@@ 1h 0h 2h .3 .2 .1", "stomp 1", "D3", ".1 .2 @@ 2h .3 .2 .1", 2, id="ends on target"),
        pytest.param("@@ .2 .3 .5 .3 .2 0h", "stomp 1", "D7", ".1 .2 .3 .5 .3 .2 @@", 1, id="any distance"),
        pytest.param(
            "@@ 1m .3 .5 .3 .2 0h", "stomp 1", "D7", "@@ 1m .3 .5 .3 .2 0h", 0, id="blocked at once"
        ),
    ],
)
def test_mtm_12_stomp_lines(before, play, target, after, destroyed):
    """MTM-12 (ruling MtM6): walking towards the target he fells every building no higher than
    the units played, whoever owns it; the first higher one stops him on the cell before it and
    shields everything behind it; if the target falls he ends on its cell. A stomp that fells
    nothing is legal."""
    state = state_from_diagram(board(D=before), hands={0: (3, 0, 0)})
    state = apply(state, play, f"target {target}")
    assert board_of(state) == normalize(board(D=after))
    assert int(state[DESTROYED]) == destroyed
    assert int(state[H_CURRENT]) == 0 and phase_is(state, PH_MAIN)


def test_mtm_12_target_must_lie_on_a_straight_line():
    """MTM-12 / MTM-9: targets are own buildings on one of the six lines from the fachan, at any
    distance and with buildings in between; C3 and F3 are not on a line from D1."""
    diagram = board(
        A="0h .1 .1 .1", C=".1 .2 0h .3 .2 .1", D="@@ 1T .3 .5 .3 .2 0m", F=".1 .2 0h .2 .1", G="0h .1 .1 .1"
    )
    state = apply(state_from_diagram(diagram, hands={0: (1, 0, 0)}), "stomp 1")
    assert legal_names(state) == {"target A1", "target D7", "target G1"}


def test_mtm_12_stomp_along_a_diagonal():
    """MTM-12: lines run along all six hex directions; from G1 the north-east line is F2, E3, D4,
    C4, ... so a 2-unit stomp at C4 fells F2 and E3 on the way and ends on C4."""
    diagram = board(C=".1 .2 .3 0m .2 .1", E=".1 .2 2h .3 .2 .1", F=".1 1m .2 .2 .1", G="@@ .1 .1 .1")
    state = apply(state_from_diagram(diagram, hands={0: (2, 0, 0)}), "stomp 2", "target C4")
    assert board_of(state) == normalize(board(C=".1 .2 .3 @@ .2 .1", G=".1 .1 .1 .1"))
    assert int(state[DESTROYED]) == 3


# ============================================================ MTM-12.1 and MTM-12.2 rulebook examples
EXAMPLE_1 = """
A        .1  .1  .1  .1
B      .1  .2  .2  .2  .1
C    .1  .2  .3  .3  .2  .1
D  @@  1h  2h  0m  .3  .2  .1
E    .1  .2  .3  .3  .2  .1
F      .1  .2  .2  .2  .1
G        .1  .1  .1  .1
"""


def test_mtm_12_1_rulebook_example_one():
    """MTM-12.1: one Stomp at the player's manor with two houses between: both houses fall and the
    fachan stops beside the manor, which stands."""
    state = state_from_diagram(EXAMPLE_1, hands={0: (1, 0, 0)})
    state = apply(state, "stomp 1", "target D4")
    assert board_of(state) == normalize("""
        A        .1  .1  .1  .1
        B      .1  .2  .2  .2  .1
        C    .1  .2  .3  .3  .2  .1
        D  .1  .2  @@  0m  .3  .2  .1
        E    .1  .2  .3  .3  .2  .1
        F      .1  .2  .2  .2  .1
        G        .1  .1  .1  .1
    """)
    assert int(state[DESTROYED]) == 2


def test_mtm_12_1_rulebook_example_one_with_a_house_target():
    """MTM-12.1: had the target been a house it would fall too, and the fachan would end on it."""
    state = state_from_diagram(EXAMPLE_1.replace("0m", "0h"), hands={0: (1, 0, 0)})
    state = apply(state, "stomp 1", "target D4")
    assert board_of(state) == normalize(EMPTY)  # all three fell; the fachan ends on the target D4
    assert int(state[DESTROYED]) == 3


def test_mtm_12_2_rulebook_example_two():
    """MTM-12.2: two Stomps at the player's house, with a house, a manor and a tower on the way
    (here along the south-east line from A1): house and manor fall, the fachan stops beside the
    tower, and the target behind the tower is safe."""
    state = state_from_diagram(
        """
        A        @@  .1  .1  .1
        B      .1  1h  .2  .2  .1
        C    .1  .2  2m  .3  .2  .1
        D  .1  .2  .3  1T  .3  .2  .1
        E    .1  .2  .3  0h  .2  .1
        F      .1  .2  .2  .2  .1
        G        .1  .1  .1  .1
    """,
        hands={0: (2, 0, 0)},
    )
    assert "target E4" in legal_names(apply(state, "stomp 2"))
    state = apply(state, "stomp 2", "target E4")
    assert board_of(state) == normalize("""
        A        .1  .1  .1  .1
        B      .1  .2  .2  .2  .1
        C    .1  .2  @@  .3  .2  .1
        D  .1  .2  .3  1T  .3  .2  .1
        E    .1  .2  .3  0h  .2  .1
        F      .1  .2  .2  .2  .1
        G        .1  .1  .1  .1
    """)
    assert int(state[DESTROYED]) == 2


# ============================================================ MTM-13 stomps per turn
# Seat 0 owns the whole outer ring, so every line from an inner cell ends on one of its houses.
RING = """
A        0h  0h  0h  0h
B      0h  .2  .2  .2  0h
C    0h  .2  .3  .3  .2  0h
D  0h  .2  .3  @@  .3  .2  0h
E    0h  .2  .3  .3  .2  0h
F      0h  .2  .2  .2  0h
G        0h  0h  0h  0h
"""


@pytest.mark.parametrize(
    "actions",
    [
        ["move E 1", "stomp 1", "target D7", "stomp 1", "target C6"],  # move > stomp > stomp
        ["stomp 1", "target D7", "move W 3", "stomp 1", "target A1"],  # stomp > move > stomp
        ["stomp 1", "target D7", "stomp 1", "target C6", "move W 1"],  # stomp > stomp > move
        ["stomp 1", "target D7", "play fortify", "fortify A1", "stomp 1", "target C6"],
    ],
)
def test_mtm_13_two_stomps_from_fifteen_points(actions):
    """MTM-13 (ruling MtM7): with 15+ points two stomps per turn, in any order with the move and
    other plays; then no third."""
    state = state_from_diagram(RING, scores={0: 15}, hands={0: (3, 0, 2)})
    state = apply(state, *actions)
    assert int(state[H_CURRENT]) == 0
    assert not names_starting(legal_names(state), "stomp")
    assert hand(state, 0)[0] == 1  # a Stomp card is left, and own houses are in line


@pytest.mark.parametrize("first", ["stomp 1", "stomp 2", "stomp 1 (3 build)"])
def test_mtm_13_one_stomp_below_fifteen_points(first):
    """MTM-13: below 15 points one stomp per turn, however many units it had."""
    state = state_from_diagram(RING, scores={0: 14}, hands={0: (3, 4, 0)})
    state = apply(state, first, "target D7")
    assert int(state[H_CURRENT]) == 0
    assert not names_starting(legal_names(state), "stomp")
    assert "play build" in legal_names(state)
    # the same position at 15 points still offers a second stomp
    state15 = state_from_diagram(RING, scores={0: 15}, hands={0: (3, 4, 0)})
    assert "stomp 1" in legal_names(apply(state15, first, "target D7"))


# ============================================================ MTM-14 targets
# From D4: seat 0's house A4 (north-east line), seat 1's house D7 (east), seat 2's house G4 (south-east).
TARGETS = board(A=".1 .1 .1 0h", D=".1 .2 .3 @@ .3 .2 1h", G=".1 .1 .1 2h")


@pytest.mark.parametrize(
    "score, expected",
    [
        (0, {"target A4"}),
        (29, {"target A4"}),
        (30, {"target A4", "target D7", "target G4"}),
        (55, {"target A4", "target D7", "target G4"}),
    ],
)
def test_mtm_14_other_players_buildings_from_thirty_points(score, expected):
    """MTM-14: the target is one's own building; from 30 points another player's too."""
    state = apply(state_from_diagram(TARGETS, scores={0: score}, hands={0: (2, 0, 0)}), "stomp 1")
    assert legal_names(state) == expected


def test_mtm_14_only_one_stomp_per_turn_at_another_player():
    """MTM-14: of the turn's two stomps only one may target another player's building."""
    state = state_from_diagram(TARGETS, scores={0: 30}, hands={0: (2, 0, 0)})
    # first at player 1's D7: from D7 the second stomp sees own A4 (NW) and player 2's G4 (SW)
    state = apply(state, "stomp 1", "target D7")
    assert int(state[FACHAN]) == cell("D7")
    assert legal_names(apply(state, "stomp 1")) == {"target A4"}


def test_mtm_14_opponent_target_still_allowed_after_an_own_target():
    """MTM-14: a first stomp at an own building leaves the opponent target for the second one."""
    state = state_from_diagram(TARGETS, scores={0: 30}, hands={0: (2, 0, 0)})
    state = apply(state, "stomp 1", "target A4")  # from A4 the south-east line reaches D7
    assert legal_names(apply(state, "stomp 1")) == {"target D7"}


def test_mtm_14_opponent_target_allowance_renews_each_turn():
    """MTM-14: the opponent target is once per turn, so the next turn has it again."""
    state = state_from_diagram(
        TARGETS.replace("0h", "1h").replace("2h", "0h"),
        current=2,
        opp_target_used=1,
        scores={0: 30},
        hands={0: (2, 0, 0)},
    )
    state = apply(state, "end", "end")  # player 2 ends; player 0 skips free houses
    assert int(state[H_CURRENT]) == 0
    targets = legal_names(apply(state, "stomp 1"))
    assert {"target A4", "target D7"} <= targets


# ============================================================ MTM-15 no play, draw three
@pytest.mark.parametrize(
    "cards, actions, hand_after, discard_after",
    [
        pytest.param((0, 1, 0), ["end"], (0, 1, 3), (0, 0, 0), id="no play: draw 3"),
        pytest.param(
            (0, 1, 0), ["play build", "house A1", "house A2", "end"], (0, 0, 0), (0, 1, 0), id="build played"
        ),
        pytest.param(
            (3, 0, 0),
            ["play fortify (3 stomp)", "fortify B2", "end"],
            (0, 0, 0),
            (3, 0, 0),
            id="triple played",
        ),
        pytest.param(
            (1, 0, 0),
            ["stomp 1", "target C3", "end"],
            (0, 0, 0),
            (1, 0, 0),
            id="stomp that fells nothing is a play",
        ),
    ],
)
def test_mtm_15_draw_three_only_without_a_card_play(cards, actions, hand_after, discard_after):
    """MTM-15 (ruling MtM10): no card played in step 4 -> draw 3; played cards go to the discard."""
    diagram = board(B=".1 0h .2 .2 .1", C=".1 .2 0m .3 .2 .1")  # C3 is next to the fachan on D4
    state = state_from_diagram(diagram, hands={0: cards}, deck=(0, 0, 20))
    state = apply(state, *actions)
    assert int(state[H_CURRENT]) == 1
    assert hand(state, 0) == hand_after
    assert pile(state, DISCARD) == discard_after


# ============================================================ MTM-16 / MTM-20 step 5
@pytest.mark.parametrize(
    "row, play, target, destroyed, pieces",
    [
        pytest.param("@@ 1h 2m 0h .3 .2 .1", "stomp 2", "D4", 3, {0: 1, 1: 1, 2: 2}, id="own included"),
        pytest.param("@@ 1T 0T .5 .3 .2 .1", "stomp 3", "D3", 2, {0: 3, 1: 3}, id="a tower is one card"),
        pytest.param("@@ 1T 0h .5 .3 .2 .1", "stomp 2", "D3", 0, {}, id="nothing felled"),
    ],
)
def test_mtm_16_step_five_draws_and_returns_pieces(row, play, target, destroyed, pieces):
    """MTM-16 / MTM-20 (rulings MtM11, MtM14): one card per felled building, own ones and towers
    counting one each; the pieces wait beside the board until step 5 is over."""
    state = state_from_diagram(board(D=row), hands={0: (3, 0, 0)})
    pools = [int(state[POOL + p]) for p in range(3)]
    state = apply(state, play, f"target {target}")
    # during the turn the felled pieces are neither on the board nor back in the pools
    assert [int(state[POOL + p]) for p in range(3)] == pools
    assert [int(state[PENDING + p]) for p in range(3)] == [pieces.get(p, 0) for p in range(3)]
    cards_left = hand_size(state, 0)
    state = apply(state, "end")
    assert hand_size(state, 0) == cards_left + destroyed
    assert [int(state[POOL + p]) for p in range(3)] == [pools[p] + pieces.get(p, 0) for p in range(3)]
    assert [int(state[PENDING + p]) for p in range(3)] == [0, 0, 0]


def test_mtm_20_felled_pieces_unusable_until_after_step_five():
    """MTM-20: a player without pieces cannot build with the pieces of a building just felled."""
    state = state_from_diagram(board(D="@@ 0h .3 .5 .3 .2 .1"), pools={0: 0}, hands={0: (1, 1, 1)})
    assert "play build" not in legal_names(state)
    state = apply(state, "stomp 1", "target D2")
    assert int(state[H_CURRENT]) == 0
    assert "play build" not in legal_names(state)
    state = apply(state, "end")
    assert int(state[POOL]) == 1


def test_mtm_20_pieces_run_out():
    """MTM-20: a house costs 1 piece, a manor 2, a tower 3: with 2 pieces a house becomes a tower
    and then nothing more can be built or fortified."""
    state = state_from_diagram(board(A="0h .1 .1 .1"), pools={0: 2}, hands={0: (0, 1, 3)})
    state = apply(state, "play fortify", "fortify A1", "play fortify", "fortify A1")
    assert int(state[POOL]) == 0 and int(state[HEIGHT + cell("A1")]) == 3
    assert not plays(state)


def test_mtm_20_no_pieces_no_free_houses():
    """MTM-20 / MTM-23: with no piece left step 3 is skipped."""
    state = state_from_diagram(EMPTY, current=2, pools={0: 0}, hands={0: (0, 1, 0)})
    state = apply(state, "end")
    assert int(state[H_CURRENT]) == 0 and phase_is(state, PH_MAIN)


# ============================================================ MTM-17 free towers
@pytest.mark.parametrize("score, towers", [(59, 0), (60, 1), (74, 1), (75, 2), (89, 2)])
def test_mtm_17_free_towers_by_score(score, towers):
    """MTM-17 (ruling MtM12): from 60 points one free tower per full 15 points above 45."""
    diagram = board(A="0h 0h 0h 0h")  # worth 4 points in step 1
    state = state_from_diagram(diagram, current=2, scores={0: score - 4})
    state = apply(state, "end")
    assert int(state[H_CURRENT]) == 0 and int(state[SCORE]) == score and phase_is(state, PH_FREE)
    made = 0
    while names_starting(legal_names(state), "tower"):
        state = apply(state, sorted(names_starting(legal_names(state), "tower"))[0])
        made += 1
    assert made == towers
    assert sum(int(state[HEIGHT + c]) == 3 for c in range(37)) == towers


@pytest.mark.parametrize(
    "pool, expected",
    [
        (0, set()),
        (1, {"tower A2"}),  # a manor needs one more piece ...
        (2, {"tower A1", "tower A2"}),  # ... a house two
    ],
)
def test_mtm_17_free_towers_need_pieces_and_own_buildings(pool, expected):
    """MTM-17 / MTM-20: a free tower upgrades an own house or manor if the pieces suffice; never
    an empty cell, a tower or another player's building."""
    diagram = board(A="0h 0m 0T 1h", B=".1 2m .2 .2 .1")
    state = state_from_diagram(diagram, phase="free", free_towers=1, pools={0: pool}, scores={0: 60})
    assert legal_names(state) == expected | {"end"}


def test_mtm_17_free_house_may_become_the_free_tower():
    """MTM-17: a house placed as a free house this step may take the free tower."""
    state = state_from_diagram(EMPTY, phase="free", free_houses=1, free_towers=1, scores={0: 60})
    state = apply(state, "house A1", "tower A1")
    assert board_of(state) == normalize(board(A="0T .1 .1 .1"))
    assert int(state[POOL]) == 22


# ============================================================ MTM-18 winning
@pytest.mark.parametrize(
    "row_a, score_before, wins",
    [
        ("0T 0T 0T .1", 42, True),  # 45 points and 3 towers
        ("0T 0T 0T .1", 41, False),  # 44 points
        ("0T 0T 0h .1", 42, False),  # 2 towers
        ("0T 0T 0T 0T", 50, True),
        ("0h 0h 0h .1", 87, True),  # 90 points, no towers needed
        ("0h 0h 0h .1", 86, False),  # 89 points
    ],
)
def test_mtm_18_win_in_step_one(row_a, score_before, wins):
    """MTM-18 (ruling MtM13): 45+ points with 3+ towers, or 90+ points, win at once in step 1."""
    state = state_from_diagram(board(A=row_a), current=2, scores={0: score_before})
    state = apply(state, "end")
    assert bool(state[H_TERMINAL]) == wins
    if wins:
        assert winner(state) == 0 and int(state[H_CURRENT]) == -1
    else:
        assert winner(state) == -1 and int(state[H_CURRENT]) == 0


@pytest.mark.parametrize("score, wins", [(45, True), (44, False), (70, True)])
def test_mtm_18_win_by_fortify_in_step_four(score, wins):
    """MTM-18: a Fortify that makes the third tower wins at once with 45+ points."""
    state = state_from_diagram(board(A="0T 0T 0m .1"), scores={0: score}, hands={0: (0, 0, 2)})
    state = apply(state, "play fortify", "fortify A3")
    assert bool(state[H_TERMINAL]) == wins
    assert winner(state) == (0 if wins else -1)


def test_mtm_18_win_by_free_tower_in_step_three():
    """MTM-18 / MTM-17: 60 points after step 1 with two towers: the free tower is the third and wins."""
    state = state_from_diagram(board(A="0T 0T 0h .1"), current=2, scores={0: 57})
    state = apply(state, "end")
    assert not state[H_TERMINAL] and int(state[SCORE]) == 60 and phase_is(state, PH_FREE)
    state = apply(state, "tower A3")
    assert state[H_TERMINAL] and winner(state) == 0


def test_mtm_18_no_actions_after_a_win():
    """MTM-18: the game ends at once: nothing is legal any more."""
    state = state_from_diagram(board(A="0T 0T 0m .1"), scores={0: 45}, hands={0: (0, 0, 2)})
    state = apply(state, "play fortify", "fortify A3")
    assert legal_names(state) == set()


# ============================================================ MTM-19 information
def test_mtm_19_observation_ignores_other_hands():
    """MTM-19 (ruling MtM15): what seat 0 sees does not depend on how the other hands (and so
    the deck) are made up, only on their sizes; its own hand is part of its view."""
    a = state_from_diagram(TARGETS, hands=[(1, 1, 1), (2, 0, 1), (0, 3, 0)])
    b = state_from_diagram(TARGETS, hands=[(1, 1, 1), (0, 3, 0), (3, 0, 0)])
    obs_a, obs_b = np.zeros(observation.OBS_SIZE, np.float32), np.zeros(observation.OBS_SIZE, np.float32)
    observation.observe_into(a, 0, obs_a)
    observation.observe_into(b, 0, obs_b)
    assert np.array_equal(obs_a, obs_b)
    observation.observe_into(a, 1, obs_a)
    observation.observe_into(b, 1, obs_b)
    assert not np.array_equal(obs_a, obs_b)


# ============================================================ MTM-21 rewards
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_mtm_21_winner_plus_one_others_share_minus_one(num_players):
    """MTM-21 (ruling C3): the winner gets +1, each other player -1/(n-1)."""
    state = state_from_diagram(
        board(A="0T 0T 0m .1"), num_players=num_players, scores={0: 45}, hands={0: (0, 0, 1)}
    )
    out = np.zeros(num_players, np.float32)
    rules.returns(state, out)
    assert np.all(out == 0)  # nothing while the game runs
    state = apply(state, "play fortify", "fortify A3")
    rules.returns(state, out)
    assert out[0] == pytest.approx(1.0)
    assert np.allclose(out[1:], -1.0 / (num_players - 1))


def test_mtm_21_score_mode():
    """MTM-21: with reward="score" each player gets their final score minus the mean score."""
    state = state_from_diagram(
        board(A="0T 0T 0m .1"), scores=[45, 12, 3], hands={0: (0, 0, 1)}, reward="score"
    )
    state = apply(state, "play fortify", "fortify A3")
    out = np.zeros(3, np.float32)
    rules.returns(state, out)
    assert np.allclose(out, [25.0, -8.0, -17.0])


@pytest.mark.parametrize("reward", ["win", "score"])
@pytest.mark.parametrize("num_players, seed", [(2, 1), (3, 2), (5, 3)])
def test_mtm_21_env_rewards_at_the_end_of_a_played_game(num_players, seed, reward):
    """MTM-21: through the AEC env, rewards are 0 until the game ends, then as the rule says."""
    env = envs.make(ENV_ID, num_players=num_players, reward=reward)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    final = None
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if any(env.terminations.values()) and final is None:
            final = dict(env.rewards)
        elif final is None:
            assert all(r == 0 for r in env.rewards.values())
    assert final is not None, "the game should end by a win well before 5000 actions"
    state = env.unwrapped.state()
    if reward == "win":
        w = winner(state)
        expected = [1.0 if p == w else -1.0 / (num_players - 1) for p in range(num_players)]
    else:
        scores = [int(state[SCORE + p]) for p in range(num_players)]
        expected = [s - sum(scores) / num_players for s in scores]
    assert [final[f"player_{p}"] for p in range(num_players)] == pytest.approx(expected)


# ============================================================ MTM-22 truncation
def test_mtm_22_truncation_after_max_steps_with_zero_reward():
    """MTM-22 (ruling C4): after max_steps actions every agent is truncated with reward 0."""
    env = envs.make(ENV_ID, max_steps=6)
    env.reset(seed=0)
    for _i in range(6):
        assert not any(env.truncations.values())
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
    assert all(env.truncations.values())
    assert not any(env.terminations.values())
    assert all(r == 0 for r in env.rewards.values())
    seen = []
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert trunc and not term and reward == 0
        seen.append(agent)
        env.step(None)
    assert sorted(seen) == ["player_0", "player_1", "player_2"]
    assert env.agents == []


def test_mtm_22_default_limit_is_5000():
    """MTM-22: max_steps defaults to 5000 and must be a positive integer."""
    assert envs.spec(ENV_ID).max_game_length == 5000
    for bad in (0, -1, 2.5):
        with pytest.raises(ValueError, match="max_steps"):
            envs.make(ENV_ID, max_steps=bad)


# ============================================================ MTM-23 decisions
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_mtm_23_always_a_real_choice(num_players):
    """MTM-23 (rulings C5, C6): whenever a seat is on move it has a legal action besides `end`."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    for seed in range(4):
        state = new_game(num_players, seed)
        rng, pick = make_rng(seed), np.random.default_rng(seed)
        steps = 0
        while not state[H_TERMINAL] and steps < 3000:
            count = rules.legal_mask(state, mask)
            legal = np.flatnonzero(mask)
            assert count == len(legal) and len(legal) > 0
            assert np.any(legal != END), f"only 'end' is legal:\n{envs.spec(ENV_ID).to_text(state)}"
            rules.apply_action(state, int(pick.choice(legal)), rng)
            steps += 1


def test_mtm_23_a_turn_with_nothing_to_decide_passes_by_itself():
    """MTM-23: player 1 has no pieces, the fachan is boxed in and the drawn card (a Stomp) has no
    target: player 1's whole turn runs inside player 0's `end` (with its 3-card draw, MTM-15)."""
    diagram = board(C=".1 .2 2h 2h .2 .1", D=".1 .2 2h @@ 2h .2 .1", E=".1 .2 2h 2h .2 .1")
    state = state_from_diagram(diagram, pools={1: 0}, hands={0: (0, 0, 0)}, deck=(20, 0, 0))
    state = apply(state, "end")
    assert int(state[H_CURRENT]) == 2
    assert hand(state, 1) == (4, 0, 0)
    assert phase_is(state, PH_FREE)


@pytest.mark.parametrize(
    "diagram, pools",
    [
        pytest.param(FULL.replace("1h  2h  1h  2h\nB", ".1  2h  1h  2h\nB", 1), None, id="one empty cell"),
        pytest.param(EMPTY, {0: 1}, id="one piece"),
    ],
)
def test_mtm_23_build_without_room_for_a_second_house_ends_by_itself(diagram, pools):
    """MTM-23 / MTM-20: when no cell or no piece is left for a Build's second house, the Build
    ends on its own and step 4 resumes."""
    state = state_from_diagram(diagram, hands={0: (0, 1, 1)}, pools=pools)
    state = apply(state, "play build", "house A1")
    assert int(state[H_CURRENT]) == 0 and phase_is(state, PH_MAIN)
    assert "end" in legal_names(state) and not names_starting(legal_names(state), "house")
    assert sum(int(state[OWNER + c]) == 0 for c in range(37)) == 1


def test_mtm_23_free_houses_skipped_when_every_cell_is_taken():
    """MTM-23: with no empty cell there is no free-house decision."""
    state = state_from_diagram(FULL, current=2, hands={1: (0, 0, 1)}, deck=(0, 20, 0))
    state = apply(state, "end")
    # player 0 draws a Build in step 2 but can neither build, fortify nor move: the whole turn
    # passes (with the 3-card draw of MTM-15) and player 1, who can fortify, is on move
    assert int(state[H_CURRENT]) == 1
    assert hand(state, 0) == (0, 4, 0)


# ============================================================ MTM-24 bad input
@pytest.mark.parametrize(
    "action, text",
    [
        (str_to_action("house D4"), "house D4"),  # the fachan's cell
        (str_to_action("move E 1"), "move E 1"),  # a move in step 3
        (99, "99"),
        (-1, "-1"),
        (1.5, "1.5"),
        ("3", "'3'"),
        (None, "None"),
    ],
)
def test_mtm_24_illegal_action_raises_and_changes_nothing(action, text):
    """MTM-24: an illegal, out-of-range, non-integer or None action raises ValueError naming the
    agent, the action and the reason, and leaves the game exactly as it was."""
    env = envs.make(ENV_ID)
    env.reset(seed=4)
    raw = env.unwrapped
    agent = env.agent_selection
    assert raw.state()[PHASE] == PH_FREE and raw.state()[FACHAN] == cell("D4")
    before = raw.state()
    dicts = {
        k: dict(getattr(raw, k))
        for k in ("rewards", "_cumulative_rewards", "terminations", "truncations", "infos")
    }
    with pytest.raises(ValueError) as err:
        env.step(action)
    message = str(err.value)
    assert agent in message and text in message
    assert len(message) > len(agent) + len(text) + 10  # there is a reason, not just the names
    assert np.array_equal(raw.state(), before)
    assert {k: dict(getattr(raw, k)) for k in dicts} == dicts
    assert env.agent_selection == agent


def test_mtm_24_illegal_action_reason_is_specific():
    """MTM-24: the reason says what is wrong: a free house on the fachan's cell."""
    env = envs.make(ENV_ID)
    env.reset(seed=4)
    with pytest.raises(ValueError, match="fachan"):
        env.step(str_to_action("house D4"))


@pytest.mark.parametrize(
    "diagram, setup, actions, bad, word",
    [
        pytest.param(
            EMPTY, dict(hands={0: (0, 1, 0)}), ["move E 1"], "move W 1", "already moved", id="MTM-8"
        ),
        pytest.param(board(D=".1 .2 .3 @@ .3 2h .1"), {}, [], "move E 2", "blocks", id="MTM-9 blocked"),
        pytest.param(board(A="@@ .1 .1 .1"), {}, [], "move NE 1", "board", id="MTM-9 edge"),
        pytest.param(
            EMPTY, dict(hands={0: (2, 1, 0)}), [], "play build (3 stomp)", "cards", id="MTM-10 triple"
        ),
        pytest.param(PLAYABLE, dict(hands={0: (1, 0, 0)}), [], "stomp 2", "cards", id="MTM-10 units"),
        pytest.param(FULL, dict(hands={0: (0, 1, 0)}), [], "play build", "empty cell", id="MTM-10 no room"),
        pytest.param(EMPTY, dict(hands={0: (0, 1, 0)}), ["play build"], "end", "house", id="MTM-11"),
        pytest.param(
            RING,
            dict(hands={0: (2, 0, 0)}, scores={0: 14}),
            ["stomp 1", "target D7"],
            "stomp 1",
            "stomp",
            id="MTM-13",
        ),
        pytest.param(
            TARGETS, dict(hands={0: (2, 0, 0)}, scores={0: 29}), ["stomp 1"], "target D7", "30", id="MTM-14"
        ),
    ],
)
def test_mtm_24_reason_names_the_broken_rule(diagram, setup, actions, bad, word):
    """MTM-24: the engine's reason for refusing an action names the rule it breaks (the text the
    env puts in its error), and the action is missing from the mask."""
    state = apply(state_from_diagram(diagram, **setup), *actions)
    action = str_to_action(bad)
    assert action not in legal_actions(state)
    code = int(rules.illegal_reason(state, action))
    assert code != 0 and word in rules.REASONS[code]


def test_mtm_24_penalize_mode_ends_the_game():
    """MTM-24: with illegal_action="penalize" the offender gets -1, the others 0, and the game ends."""
    env = envs.make(ENV_ID, illegal_action="penalize")
    env.reset(seed=4)
    offender = env.agent_selection
    env.step(str_to_action("house D4"))
    assert all(env.terminations.values())
    totals = {}
    for agent in env.agent_iter():
        _, reward, term, _, _ = env.last()
        assert term
        totals[agent] = reward
        env.step(None)
    assert totals == {a: (-1.0 if a == offender else 0.0) for a in ["player_0", "player_1", "player_2"]}
