"""Marry the Monster rules as numba kernels: the single source of truth.

Everything the game does happens here: turn steps 1-5, free houses, fachan
moves, card plays and triples, stomp lines, drawing and reshuffling, scoring
and the win check. What a seat sees and the redeal of the hands it cannot see
(``observe_into``, ``determinize``) are in ``observation.py``. The AEC env, the
batched engine and the agents only call these kernels. Rule ids (MTM-n) refer to
``seeds/marry_the_monster/rules.md``.

The deck is kept as counts per card type and each draw picks a card type with
probability proportional to what is left. That is the same distribution as
drawing from the top of a shuffled deck, and it means the state holds no deck
order at all: nobody, not even a planner cloning the state, can see future draws.
"""

import numpy as np
from numba import types

from ..core.contract import (
    APPLY_ACTION_SIG,
    H_CURRENT,
    H_NUM_PLAYERS,
    H_STEPS,
    H_TERMINAL,
    INIT_STATE_SIG,
    LEGAL_MASK_SIG,
    RETURNS_SIG,
    RNG,
    STATE,
)
from ..core.header import start_game
from ..core.kernels import helper, kernel
from ..core.rewards import c3_returns
from ..core.rng import rng_below
from .actions import CELL0, END, MOVE0, NUM_ACTIONS, PLAY0
from .components import (
    ALL_CELLS,
    BUILD,
    CELL_BIT,
    DECK_COUNTS,
    DOUBLE_STOMP_POINTS,
    EXTRA_DRAWS,
    FACHAN_START,
    FORTIFY,
    FREE_HOUSE_STEPS,
    FREE_TOWER_BASE,
    FREE_TOWER_EVERY,
    FREE_TOWER_FROM,
    HAND_SIZE,
    HOUSES_PER_BUILD,
    INSTANT_WIN_POINTS,
    LINE_BITS,
    LINE_DIR,
    LINE_DIST,
    MAX_PLAYERS,
    MAX_RAY,
    NO_PLAY_DRAW,
    NUM_CARD_TYPES,
    NUM_CELLS,
    NUM_DIRS,
    NUM_PLAYS,
    OPPONENT_TARGET_POINTS,
    PIECES,
    PLAY_COST,
    PLAY_KIND,
    PLAY_STRENGTH,
    RAY,
    RAY_BIT,
    RAY_LEN,
    STOMP,
    TOWER,
    TURN_DRAW,
    VALUE,
    WIN_POINTS,
    WIN_TOWERS,
)
from .state_layout import (
    BITS_SPLIT,
    BUILD_LEFT,
    BUILD_PLACED,
    CARDS_PLAYED,
    DECK,
    DESTROYED,
    DISCARD,
    FACHAN,
    FIRST_PLAYER,
    FREE_HOUSES,
    FREE_TOWERS,
    HAND,
    HEIGHT,
    MOVED,
    OCCUPIED_BITS,
    OPP_TARGET_USED,
    OWN_BITS,
    OWNER,
    PENDING,
    PH_BUILD,
    PH_FORTIFY,
    PH_FREE,
    PH_MAIN,
    PH_OVER,
    PH_STOMP,
    PHASE,
    POOL,
    SCORE,
    STOMP_N,
    STOMPS,
    TURN,
    WINNER,
)

# Helpers called with mixed integer types get one explicit int64 signature, so each is
# compiled once.
I64 = types.int64

# --- reasons an action is illegal (codes for illegal_reason) ----------------------
OK = 0
R_GAME_OVER = 1
R_WRONG_PHASE = 2
R_CELL_TAKEN = 3
R_FACHAN_CELL = 4
R_NO_PIECES = 5
R_NOT_OWN_HOUSE_OR_MANOR = 6
R_NO_FREE_TOWER = 7
R_NO_BUILDING = 8
R_NOT_IN_LINE = 9
R_OPPONENT_TARGET = 10
R_ALREADY_MOVED = 11
R_PATH_BLOCKED = 12
R_OFF_BOARD = 13
R_MISSING_CARDS = 14
R_STOMP_LIMIT = 15
R_NO_STOMP_TARGET = 16
R_NO_EMPTY_CELL = 17
R_NOTHING_TO_FORTIFY = 18
R_FIRST_HOUSE = 19
R_OUT_OF_RANGE = 20
R_NO_FREE_HOUSE = 21

REASONS = {
    R_GAME_OVER: "the game is over",
    R_WRONG_PHASE: (
        "it does not fit the decision at hand: step 3, a Build, a Fortify and a stomp "
        "ask for a cell (or end); moves and card plays belong to step 4"
    ),
    R_CELL_TAKEN: "the cell already holds a building",
    R_FACHAN_CELL: "the fachan stands on that cell",
    R_NO_PIECES: "the player has no building pieces left in their pool",
    R_NOT_OWN_HOUSE_OR_MANOR: "the cell does not hold one of the player's houses or manors",
    R_NO_FREE_TOWER: "no free tower is due (needs 60+ points, one per 15 above 45) or pieces are short",
    R_NO_BUILDING: "there is no building on that cell",
    R_NOT_IN_LINE: "the target is not on a straight line from the fachan",
    R_OPPONENT_TARGET: "another player's building may be targeted only with 30+ points, once per turn",
    R_ALREADY_MOVED: "the fachan has already moved this turn",
    R_PATH_BLOCKED: "a building blocks the fachan's path",
    R_OFF_BOARD: "the move leaves the board",
    R_MISSING_CARDS: "the hand does not hold those cards",
    R_STOMP_LIMIT: "no stomp left this turn (one, or two from 15 points)",
    R_NO_STOMP_TARGET: "no building the player may target lies on a line from the fachan",
    R_NO_EMPTY_CELL: "a Build needs an empty cell and a free piece",
    R_NOTHING_TO_FORTIFY: "a Fortify needs one of the player's houses or manors and a free piece",
    R_FIRST_HOUSE: "a Build must place at least one house before stopping",
    R_OUT_OF_RANGE: "the action index is out of range",
    R_NO_FREE_HOUSE: "no free house is left this turn (3, only 2 from 15 points, 1 from 30)",
}


# --- small queries ------------------------------------------------------------------
@helper
def num_players(state):
    """Number of seats in this game."""
    return state[H_NUM_PLAYERS]


@helper
def hand_size(state, p):
    """Total cards in seat ``p``'s hand."""
    total = 0
    for t in range(NUM_CARD_TYPES):
        total += state[HAND + p * NUM_CARD_TYPES + t]
    return total


@helper(I64(STATE, I64))
def towers(state, p):
    """Number of towers seat ``p`` has on the board."""
    count = 0
    for c in range(NUM_CELLS):
        count += (state[OWNER + c] == p) & (state[HEIGHT + c] == TOWER)
    return count


@helper
def building_points(state, p):
    """Points seat ``p``'s buildings are worth (MTM-5: cell value, whatever the height)."""
    total = 0
    for c in range(NUM_CELLS):
        total += VALUE[c] * (state[OWNER + c] == p)
    return total


@helper
def free_house_allowance(score):
    """Free houses in step 3 for a player with ``score`` points (MTM-7)."""
    houses = 0
    for i in range(FREE_HOUSE_STEPS.shape[0]):
        if score >= FREE_HOUSE_STEPS[i, 0]:
            houses = FREE_HOUSE_STEPS[i, 1]
    return houses


@helper
def free_tower_allowance(score):
    """Free tower upgrades in step 3: one per full 15 points above 45, from 60 (MTM-17)."""
    if score < FREE_TOWER_FROM:
        return 0
    return (score - FREE_TOWER_BASE) // FREE_TOWER_EVERY


@helper
def stomp_allowance(score):
    """Stomps a player may make per turn (MTM-13)."""
    return 2 if score >= DOUBLE_STOMP_POINTS else 1


# The board as cell sets.
# Legality is computed on 64-bit cell sets (bit c = cell c): "cells where seat p may put
# a house" is one expression instead of a scan over 37 cells, and the mask only unpacks
# it. OWNER/HEIGHT stay the readable board; set_building changes both together.
@helper(types.uint64(STATE, I64))
def load_bits(state, offset):
    """The cell set stored at ``offset`` (two int32 slots)."""
    return np.uint64(state[offset]) | (np.uint64(state[offset + 1]) << np.uint64(BITS_SPLIT))


@helper(types.void(STATE, I64, types.uint64))
def store_bits(state, offset, bits):
    """Store the cell set ``bits`` at ``offset``."""
    state[offset] = np.int32(bits & np.uint64((1 << BITS_SPLIT) - 1))
    state[offset + 1] = np.int32(bits >> np.uint64(BITS_SPLIT))


@helper(I64(I64, I64))
def own_offset(p, height):
    """Offset of seat ``p``'s set of buildings of ``height`` (1-3)."""
    return OWN_BITS + (p * TOWER + height - 1) * 2


@helper(types.uint64(STATE, I64, I64))
def own_cells(state, p, height):
    """Cells holding seat ``p``'s buildings of ``height``."""
    return load_bits(state, own_offset(p, height))


# --- legality ----------------------------------------------------------------------
# Predicates: the legality of every decision, as cell sets or flags, shared by the
# mask, illegal_reason and the automatic skips. Conditions combine with `&` rather than
# `and`: on a board that looks random to the processor, branches mispredict constantly.
@helper
def house_cells(state, p):
    """Cells where seat ``p`` may put a house: empty, not the fachan's, a piece left (MTM-7, MTM-20)."""
    free = ALL_CELLS & ~load_bits(state, OCCUPIED_BITS) & ~CELL_BIT[state[FACHAN]]
    return free if state[POOL + p] >= 1 else np.uint64(0)


@helper
def raisable_cells(state, p):
    """Cells holding one of seat ``p``'s houses or manors."""
    return own_cells(state, p, 1) | own_cells(state, p, 2)


@helper
def free_tower_cells(state, p):
    """Cells seat ``p`` may upgrade to a tower for free now: a manor needs one piece, a house two (MTM-17)."""
    if state[FREE_TOWERS] < 1:
        return np.uint64(0)
    pool = state[POOL + p]
    cells = np.uint64(0)
    for height in range(1, TOWER):
        if pool >= TOWER - height:
            cells |= own_cells(state, p, height)
    return cells


@helper
def free_step_cells(state, p):
    """Cells seat ``p`` may choose in step 3: free houses while any are left, free towers (MTM-7, MTM-17)."""
    houses = house_cells(state, p) if state[FREE_HOUSES] >= 1 else np.uint64(0)
    return houses | free_tower_cells(state, p)


@helper
def fortify_cells(state, p):
    """Cells seat ``p`` may fortify by one level (MTM-11)."""
    return raisable_cells(state, p) if state[POOL + p] >= 1 else np.uint64(0)


@helper
def target_cells(state, p):
    """Cells seat ``p`` may make the stomp target (MTM-12, MTM-14): buildings on a line from
    the fachan, own ones, or anyone's from 30 points while no stomp of the turn targeted another's."""
    mine = own_cells(state, p, 1) | own_cells(state, p, 2) | own_cells(state, p, 3)
    if state[SCORE + p] >= OPPONENT_TARGET_POINTS and state[OPP_TARGET_USED] == 0:
        mine = load_bits(state, OCCUPIED_BITS)
    return LINE_BITS[state[FACHAN]] & mine


@helper
def has_cell(cells, c):
    """Whether cell ``c`` is in the set ``cells``."""
    return (cells & CELL_BIT[c]) != np.uint64(0)


@helper
def ray_open(state, direction, k):
    """The k-th cell from the fachan in ``direction`` exists and is empty (MTM-9)."""
    bit = RAY_BIT[state[FACHAN], direction, k]
    return (bit != np.uint64(0)) & ((load_bits(state, OCCUPIED_BITS) & bit) == np.uint64(0))


@helper(types.boolean(STATE, I64, I64))
def move_ok(state, direction, distance):
    """The fachan may move ``distance`` cells in ``direction``: he has not moved this turn
    and every cell on the way is on the board and empty (MTM-9)."""
    ok = state[MOVED] == 0
    for k in range(distance):
        ok &= ray_open(state, direction, k)
    return ok


@helper
def can_pay(state, p, play):
    """Seat ``p``'s hand covers the cards of card play ``play``."""
    h = HAND + p * NUM_CARD_TYPES
    return (
        (state[h] >= PLAY_COST[play, 0])
        & (state[h + 1] >= PLAY_COST[play, 1])
        & (state[h + 2] >= PLAY_COST[play, 2])
    )


@helper
def plays_possible(state, p):
    """Which kinds of card play could take effect now: (build, fortify, stomp) (MTM-10).

    A Build needs a cell for a house, a Fortify a house or manor to raise, a stomp a
    stomp left this turn and a building it may target.
    """
    build = house_cells(state, p) != np.uint64(0)
    fortify = fortify_cells(state, p) != np.uint64(0)
    stomp = (target_cells(state, p) != np.uint64(0)) & (state[STOMPS] < stomp_allowance(state[SCORE + p]))
    return build, fortify, stomp


@helper
def play_ok(play, build, fortify, stomp, state, p):
    """Card play ``play`` is legal given ``plays_possible``'s flags (MTM-10)."""
    kind = PLAY_KIND[play]
    able = ((kind == STOMP) & stomp) | ((kind == BUILD) & build) | ((kind == FORTIFY) & fortify)
    return able & can_pay(state, p, play)


# Reasons: which condition an illegal choice breaks, for the error message.
@helper
def house_reason(state, p, c):
    """Why seat ``p`` may not put a house on cell ``c`` (OK if it may)."""
    if has_cell(house_cells(state, p), c):
        return OK
    if state[HEIGHT + c] != 0:
        return R_CELL_TAKEN
    if state[FACHAN] == c:
        return R_FACHAN_CELL
    return R_NO_PIECES


@helper
def free_cell_reason(state, p, c):
    """Why seat ``p`` may not choose cell ``c`` in step 3."""
    if has_cell(free_step_cells(state, p), c):
        return OK
    if state[HEIGHT + c] == 0:
        return R_NO_FREE_HOUSE if state[FREE_HOUSES] < 1 else house_reason(state, p, c)
    if not has_cell(raisable_cells(state, p), c):
        return R_NOT_OWN_HOUSE_OR_MANOR
    return R_NO_FREE_TOWER


@helper
def fortify_reason(state, p, c):
    """Why seat ``p`` may not fortify cell ``c``."""
    if has_cell(fortify_cells(state, p), c):
        return OK
    return R_NO_PIECES if has_cell(raisable_cells(state, p), c) else R_NOT_OWN_HOUSE_OR_MANOR


@helper
def target_reason(state, p, c):
    """Why seat ``p`` may not make cell ``c`` the stomp target."""
    if has_cell(target_cells(state, p), c):
        return OK
    if state[HEIGHT + c] == 0:
        return R_NO_BUILDING
    if not has_cell(LINE_BITS[state[FACHAN]], c):
        return R_NOT_IN_LINE
    return R_OPPONENT_TARGET


@helper
def move_reason(state, direction, distance):
    """Why the fachan may not move ``distance`` cells in ``direction``."""
    if move_ok(state, direction, distance):
        return OK
    if state[MOVED] != 0:
        return R_ALREADY_MOVED
    if distance > RAY_LEN[state[FACHAN], direction]:
        return R_OFF_BOARD
    return R_PATH_BLOCKED


@helper
def play_reason(state, p, play):
    """Why seat ``p`` may not make card play ``play`` now."""
    build, fortify, stomp = plays_possible(state, p)
    if play_ok(play, build, fortify, stomp, state, p):
        return OK
    kind = PLAY_KIND[play]
    if kind == STOMP and state[STOMPS] >= stomp_allowance(state[SCORE + p]):
        return R_STOMP_LIMIT
    if kind == STOMP and not stomp:
        return R_NO_STOMP_TARGET
    if kind == BUILD and not build:
        return R_NO_EMPTY_CELL
    if kind == FORTIFY and not fortify:
        return R_NOTHING_TO_FORTIFY
    return R_MISSING_CARDS


@helper  # compiled when first needed: only an illegal action asks why
def illegal_reason(state, action):
    """0 if ``action`` is legal for the player on move, else a code of ``REASONS``."""
    if action < 0 or action >= NUM_ACTIONS:
        return R_OUT_OF_RANGE
    if state[H_TERMINAL] != 0:
        return R_GAME_OVER
    p = state[H_CURRENT]
    phase = state[PHASE]
    if action < MOVE0:
        c = action - CELL0
        if phase == PH_FREE:
            return free_cell_reason(state, p, c)
        if phase == PH_BUILD:
            return house_reason(state, p, c)
        if phase == PH_FORTIFY:
            return fortify_reason(state, p, c)
        if phase == PH_STOMP:
            return target_reason(state, p, c)
        return R_WRONG_PHASE
    if action == END:
        if phase == PH_FREE or phase == PH_MAIN:
            return OK
        if phase == PH_BUILD:
            return OK if state[BUILD_PLACED] > 0 else R_FIRST_HOUSE
        return R_WRONG_PHASE
    if phase != PH_MAIN:
        return R_WRONG_PHASE
    if action < PLAY0:
        d = (action - MOVE0) // MAX_RAY
        return move_reason(state, d, (action - MOVE0) % MAX_RAY + 1)
    return play_reason(state, p, action - PLAY0)


@kernel(LEGAL_MASK_SIG)
def legal_mask(state, out):
    """Fill ``out`` with 1 for each legal action of the player on move; return the count."""
    out[:] = 0
    if state[H_TERMINAL] != 0:
        return 0
    p = state[H_CURRENT]
    phase = state[PHASE]
    count = 0
    if phase == PH_MAIN:
        for d in range(NUM_DIRS):
            ok = state[MOVED] == 0  # move_ok, extended one cell at a time along the ray
            for k in range(MAX_RAY):
                ok &= ray_open(state, d, k)
                out[MOVE0 + d * MAX_RAY + k] = ok
                count += ok
        build, fortify, stomp = plays_possible(state, p)
        for play in range(NUM_PLAYS):
            ok = play_ok(play, build, fortify, stomp, state, p)
            out[PLAY0 + play] = ok
            count += ok
        out[END] = 1
        return count + 1
    if phase == PH_FREE:
        cells = free_step_cells(state, p)
    elif phase == PH_BUILD:
        cells = house_cells(state, p)
    elif phase == PH_FORTIFY:
        cells = fortify_cells(state, p)
    else:
        cells = target_cells(state, p)
    for c in range(NUM_CELLS):
        ok = has_cell(cells, c)
        out[CELL0 + c] = ok
        count += ok
    if phase == PH_FREE or (phase == PH_BUILD and state[BUILD_PLACED] > 0):
        out[END] = 1
        count += 1
    return count


# --- changing the state ------------------------------------------------------------
# The board.
@helper(types.void(STATE, I64, I64, I64))
def set_building(state, c, owner, height):
    """Put ``owner``'s building of ``height`` on cell ``c`` (height 0 empties it).

    The only writer of OWNER/HEIGHT during play, so the cell sets never drift.
    """
    bit = CELL_BIT[c]
    old = state[HEIGHT + c]
    if old > 0:
        off = own_offset(state[OWNER + c], old)
        store_bits(state, off, load_bits(state, off) & ~bit)
    occupied = load_bits(state, OCCUPIED_BITS) & ~bit
    if height > 0:
        off = own_offset(owner, height)
        store_bits(state, off, load_bits(state, off) | bit)
        occupied |= bit
        state[OWNER + c] = owner
    else:
        state[OWNER + c] = -1
    state[HEIGHT + c] = height
    store_bits(state, OCCUPIED_BITS, occupied)


@helper
def sync_board_bits(state):
    """Rebuild the cell sets from OWNER/HEIGHT (after writing the board by hand, e.g. in tests)."""
    for off in range(OWN_BITS, OCCUPIED_BITS + 2):
        state[off] = 0
    for c in range(NUM_CELLS):
        h = state[HEIGHT + c]
        state[HEIGHT + c] = 0
        set_building(state, c, state[OWNER + c], h)


# Stomp lines.
@helper
def stomp_stop(state, target, strength):
    """Cell where a stomp of ``strength`` units at ``target`` leaves the fachan (MTM-12).

    Walking from the fachan to ``target``, every building of height <= strength
    falls; the first higher one stops him on the cell before it. So exactly the
    buildings between the fachan and the returned cell, that cell included, fall.
    """
    f = state[FACHAN]
    d = LINE_DIR[f, target]
    stop = f
    for k in range(LINE_DIST[f, target]):
        c = RAY[f, d, k]
        if state[HEIGHT + c] > strength:
            break
        stop = c
    return stop


@helper
def resolve_stomp(state, target):
    """Apply a stomp at ``target``: remove fallen buildings, move the fachan (MTM-12)."""
    f = state[FACHAN]
    stop = stomp_stop(state, target, state[STOMP_N])
    if stop == f:
        return
    d = LINE_DIR[f, stop]
    for k in range(LINE_DIST[f, stop]):
        c = RAY[f, d, k]
        h = state[HEIGHT + c]
        if h > 0:
            state[PENDING + state[OWNER + c]] += h
            set_building(state, c, -1, 0)
            state[DESTROYED] += 1
    state[FACHAN] = stop


# Cards.
@helper(types.void(STATE, I64, RNG))
def draw_card(state, p, rng):
    """Seat ``p`` draws one card, reshuffling the discard pile into an empty deck (MTM-4); the draw of
    a turn's second step (MTM-6)."""
    total = state[DECK] + state[DECK + 1] + state[DECK + 2]
    if total == 0:
        for t in range(NUM_CARD_TYPES):
            state[DECK + t] = state[DISCARD + t]
            state[DISCARD + t] = 0
        total = state[DECK] + state[DECK + 1] + state[DECK + 2]
        if total == 0:
            return
    r = rng_below(rng, total)
    for t in range(NUM_CARD_TYPES):
        if r < state[DECK + t]:
            state[DECK + t] -= 1
            state[HAND + p * NUM_CARD_TYPES + t] += 1
            return
        r -= state[DECK + t]


@helper
def pay_cards(state, p, play):
    """Move the cards of ``play`` from seat ``p``'s hand to the discard pile (MTM-15)."""
    for t in range(NUM_CARD_TYPES):
        state[HAND + p * NUM_CARD_TYPES + t] -= PLAY_COST[play, t]
        state[DISCARD + t] += PLAY_COST[play, t]
    state[CARDS_PLAYED] += 1


# --- turn flow ---------------------------------------------------------------------
@helper(types.boolean(STATE, I64))
def check_win(state, p):
    """End the game if seat ``p`` has 45+ points and 3+ towers, or 90+ points (MTM-18)."""
    s = state[SCORE + p]
    if s >= INSTANT_WIN_POINTS or (s >= WIN_POINTS and towers(state, p) >= WIN_TOWERS):
        state[WINNER + p] = 1
        state[H_TERMINAL] = 1
        state[H_CURRENT] = -1
        state[PHASE] = PH_OVER
        return True
    return False


@helper
def start_turn(state, p, rng):
    """Steps 1-3 of seat ``p``'s turn up to the first decision (MTM-5 to MTM-7, MTM-17)."""
    turn_index = state[TURN]
    state[TURN] = turn_index + 1
    state[H_CURRENT] = p
    state[MOVED] = 0
    state[CARDS_PLAYED] = 0
    state[STOMPS] = 0
    state[OPP_TARGET_USED] = 0
    state[DESTROYED] = 0
    state[BUILD_LEFT] = 0
    state[BUILD_PLACED] = 0
    state[STOMP_N] = 0
    state[SCORE + p] += building_points(state, p)
    if check_win(state, p):
        return
    n = state[H_NUM_PLAYERS]
    draws = TURN_DRAW
    if turn_index < n:
        draws += EXTRA_DRAWS[n, turn_index]
    for _ in range(draws):
        draw_card(state, p, rng)
    state[FREE_HOUSES] = free_house_allowance(state[SCORE + p])
    state[FREE_TOWERS] = free_tower_allowance(state[SCORE + p])
    state[PHASE] = PH_FREE


@helper
def end_turn(state, rng):
    """Close step 4 and run step 5, then start the next seat's turn (MTM-15, MTM-16, MTM-20)."""
    p = state[H_CURRENT]
    if state[CARDS_PLAYED] == 0:
        for _ in range(NO_PLAY_DRAW):
            draw_card(state, p, rng)
    for _ in range(state[DESTROYED]):
        draw_card(state, p, rng)
    for q in range(MAX_PLAYERS):
        state[POOL + q] += state[PENDING + q]
        state[PENDING + q] = 0
    start_turn(state, (p + 1) % state[H_NUM_PLAYERS], rng)


@helper
def has_free_option(state, p):
    """Whether step 3 offers seat ``p`` any placement or upgrade."""
    return free_step_cells(state, p) != np.uint64(0)


@helper
def has_main_option(state, p):
    """Whether step 4 offers seat ``p`` anything besides ending the turn."""
    can_move = False
    for d in range(NUM_DIRS):
        can_move |= move_ok(state, d, 1)
    if can_move:
        return True  # the common case: skip the scan for card plays
    build, fortify, stomp = plays_possible(state, p)
    can_play = False
    for play in range(NUM_PLAYS):
        can_play |= play_ok(play, build, fortify, stomp, state, p)
    return can_play


@helper
def advance(state, rng):
    """Skip decisions that offer nothing but stopping (ruling C6), possibly across turns."""
    while state[H_TERMINAL] == 0:
        p = state[H_CURRENT]
        phase = state[PHASE]
        if phase == PH_FREE and not has_free_option(state, p):
            state[PHASE] = PH_MAIN
        elif phase == PH_MAIN and not has_main_option(state, p):
            end_turn(state, rng)
        elif phase == PH_BUILD and (state[BUILD_LEFT] == 0 or not plays_possible(state, p)[0]):
            state[PHASE] = PH_MAIN
        else:
            return


# --- the kernel contract -----------------------------------------------------------
@kernel(INIT_STATE_SIG)
def init_state(state, config, rng):
    """Set up a new game from ``config`` = (num_players, max_steps, reward_mode) (MTM-3)."""
    n = start_game(state, config)
    for c in range(NUM_CELLS):
        state[OWNER + c] = -1
    state[FACHAN] = FACHAN_START
    for p in range(n):
        state[POOL + p] = PIECES
    for t in range(NUM_CARD_TYPES):
        state[DECK + t] = DECK_COUNTS[t]
    for p in range(n):
        for _ in range(HAND_SIZE):
            draw_card(state, p, rng)
    first = rng_below(rng, n)
    state[FIRST_PLAYER] = first
    start_turn(state, first, rng)
    advance(state, rng)


@kernel(APPLY_ACTION_SIG)
def apply_action(state, action, rng):
    """Apply a legal ``action`` of the player on move (legality is the caller's check)."""
    state[H_STEPS] += 1
    p = state[H_CURRENT]
    phase = state[PHASE]
    if action < MOVE0:
        c = action - CELL0
        if phase == PH_FREE:
            if state[HEIGHT + c] == 0:
                set_building(state, c, p, 1)
                state[POOL + p] -= 1
                state[FREE_HOUSES] -= 1
            else:
                state[POOL + p] -= TOWER - state[HEIGHT + c]
                set_building(state, c, p, TOWER)
                state[FREE_TOWERS] -= 1
                if check_win(state, p):
                    return
        elif phase == PH_BUILD:
            set_building(state, c, p, 1)
            state[POOL + p] -= 1
            state[BUILD_LEFT] -= 1
            state[BUILD_PLACED] += 1
        elif phase == PH_FORTIFY:
            set_building(state, c, p, state[HEIGHT + c] + 1)
            state[POOL + p] -= 1
            state[PHASE] = PH_MAIN
            if check_win(state, p):
                return
        else:
            if state[OWNER + c] != p:
                state[OPP_TARGET_USED] = 1
            resolve_stomp(state, c)
            state[STOMPS] += 1
            state[PHASE] = PH_MAIN
    elif action == END:
        if phase == PH_FREE or phase == PH_BUILD:
            state[PHASE] = PH_MAIN
        else:
            end_turn(state, rng)
    elif action < PLAY0:
        d = (action - MOVE0) // MAX_RAY
        k = (action - MOVE0) % MAX_RAY
        state[FACHAN] = RAY[state[FACHAN], d, k]
        state[MOVED] = 1
    else:
        play = action - PLAY0
        pay_cards(state, p, play)
        kind = PLAY_KIND[play]
        if kind == BUILD:
            state[PHASE] = PH_BUILD
            state[BUILD_LEFT] = HOUSES_PER_BUILD
            state[BUILD_PLACED] = 0
        elif kind == FORTIFY:
            state[PHASE] = PH_FORTIFY
        else:
            state[PHASE] = PH_STOMP
            state[STOMP_N] = PLAY_STRENGTH[play]
    advance(state, rng)


@kernel(RETURNS_SIG)
def returns(state, out):
    """Final rewards per seat (MTM-21, ruling C3); zeros while the game runs."""
    c3_returns(state, WINNER, SCORE, out)
