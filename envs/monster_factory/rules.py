"""Monster Factory rules as numba kernels: the single source of truth.

Everything the game does happens here: start tiles, drawing and discarding,
the matching rule, completion, minions, the end and scoring. What a seat sees
(``observe_into``, with nothing to redeal: ``determinize``) is in ``observation.py``.
The AEC env, the batched engine and the agents only call these kernels. Rule ids
(MF-n) refer to ``seeds/monster_factory/rules.md``.

Each monster lies on its own unbounded grid: a tile is stored with its cell
relative to its monster's first tile, and a placement names one of the open
cells that the state lists in step (MF-19), so no window can ever be outgrown.
Each open cell carries what lies across its sides, so the matching rule is a
table lookup per cell (the table is built once from ``fit_reason``) and the
tiles of a monster are searched only when a new cell opens. The supply is kept
as counts per tile kind and a draw picks a kind with the probability of what is
left, the same as drawing from a shuffled pile, so the state holds no order that
anyone could see (MF-18).
"""

import numpy as np
from numba import types

from ..core.contract import (
    APPLY_ACTION_SIG,
    CONFIG_COMMON,
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
from ..core.kernels import helper, inlined, kernel
from ..core.rewards import c3_returns
from ..core.rng import rng_below
from .actions import NUM_ACTIONS, PLACE0, START0
from .components import (
    ALL_EMPTY,
    BLANK,
    DX,
    DY,
    EDGES,
    INVENTORY,
    KIND_EYE,
    MAX_MONSTERS,
    MAX_PLAYERS,
    NO_TILE,
    NUM_KINDS,
    NUM_NEEDS,
    NUM_ROTATIONS,
    NUM_SIDES,
    OPPOSITE,
    ROTATION_NEW,
    TOTAL_TILES,
)
from .queries import KEY_MONSTER as KEY_MONSTER  # re-exported: read through the rules module
from .queries import KEY_ROW, cell_key, key_cell, key_monster
from .queries import open_cell as open_cell  # re-exported: read through the rules module
from .state_layout import (
    CELL_KEY,
    CELL_NEEDS,
    CELL_TILE,
    CURRENT_MONSTER,
    DISCARDED,
    FIRST_PLAYER,
    HAND,
    LAST_PLACED,
    MON_DONE,
    MON_EYES,
    MON_OPEN,
    MON_ORDINAL,
    MON_OWNER,
    MON_SIZE,
    NUM_CELLS,
    NUM_MONSTERS,
    NUM_PLACED,
    PH_OVER,
    PH_PLACE,
    PH_START,
    PHASE,
    SCORE,
    SEAT_TILES,
    SLOT_BITS,
    SLOT_SPAN,
    SUPPLY,
    SUPPLY_LEFT,
    TILE_KIND,
    TILE_MONSTER,
    TILE_ROT,
    TILE_X,
    TILE_Y,
    WINNER,
)

# A helper compiled on its own has one explicit signature (int64 scalars), so it is compiled
# once, whatever integer type a caller reads out of the state; helpers with one caller, and the
# searches of the step's hot path, are inlined (``inline="always"``).
I64 = types.int64

# --- config ---------------------------------------------------------------------------
C_START_TILES = CONFIG_COMMON  # config entry: START_CHOOSE or START_RANDOM
START_CHOOSE = 0
START_RANDOM = 1

KEY_STEP = (DX * KEY_ROW + DY).astype(np.int32)  # key offset of the neighbour on each side

# --- reasons an action is illegal (codes for illegal_reason) ----------------------
OK = 0
R_OUT_OF_RANGE = 1
R_GAME_OVER = 2
R_WRONG_PHASE = 3
R_NOT_IN_SUPPLY = 4
R_NO_CELL = 5
R_FIRST_LOCKED = 6
R_DUPLICATE_ROTATION = 7
R_MISMATCH = 8
R_NOT_JOINED = 9

REASONS = {
    R_OUT_OF_RANGE: "the action index is out of range",
    R_GAME_OVER: "the game is over",
    R_WRONG_PHASE: (
        "it does not fit the decision at hand: start tiles are chosen before play, "
        "then every decision places the tile in hand"
    ),
    R_NOT_IN_SUPPLY: "no tile of that kind is left in the supply",
    R_NO_CELL: "no open cell has that number (MF-19)",
    R_FIRST_LOCKED: (
        "a player whose first monster is complete may not place on other players' "
        "first monsters, only on minions (MF-9)"
    ),
    R_DUPLICATE_ROTATION: (
        "a lower orientation of this tile shows the same edges; that one names the placement (MF-19)"
    ),
    R_MISMATCH: "a touching side does not match (thin-thin, thick-thick, blank-blank only) (MF-10)",
    R_NOT_JOINED: "no touching side joins thin-thin or thick-thick; blank-blank alone does not join (MF-10)",
}


# --- small queries ------------------------------------------------------------------
@helper(I64(STATE, I64, I64))
def tile_edge(state, slot, side):
    """Edge (0 blank, 1 thin, 2 thick) that placed tile ``slot`` shows on ``side``."""
    return EDGES[state[TILE_KIND + slot], state[TILE_ROT + slot], side]


@helper(types.boolean(STATE, I64, I64))
def may_use(state, p, m):
    """Seat ``p`` may place on monster ``m`` in progress (MF-9)."""
    return state[MON_OWNER + m] == p or state[MON_DONE + p] == 0 or state[MON_ORDINAL + m] != 0


@inlined
def all_first_done(state):
    """Every player's first monster is complete (MF-14)."""
    for q in range(state[H_NUM_PLAYERS]):
        if state[MON_DONE + q] == 0:
            return False
    return True


# --- legality -------------------------------------------------------------------------
# The matching rule (MF-10), and the tables built from it.
@helper(I64(I64, I64))
def need(needs, side):
    """What lies across ``side`` of a cell: the edge shown towards it, or NO_TILE."""
    return (needs >> (2 * side)) & 3


@helper(I64(I64, I64, I64))
def with_need(needs, side, edge):
    """``needs`` with ``edge`` across ``side``."""
    return (needs & ~(3 << (2 * side))) | (edge << (2 * side))


@helper(I64(I64, I64, I64))
def fit_reason(needs, kind, rotation):
    """Whether tile ``kind`` in ``rotation`` may go on a cell with ``needs`` (MF-10): OK,
    R_MISMATCH or R_NOT_JOINED."""
    joined = False
    for e in range(NUM_SIDES):
        n = need(needs, e)
        if n != NO_TILE:
            if EDGES[kind, rotation, e] != n:
                return R_MISMATCH
            joined |= n != BLANK
    return OK if joined else R_NOT_JOINED


def fit_tables():
    """``(fits, kinds)``: ``fits[kind, needs]`` has bit r set when ``fit_reason`` lets ``kind`` in
    rotation r go on a cell with ``needs``, for the lowest rotation of each distinct orientation
    (MF-3, MF-19); ``kinds[needs]`` has bit k set when some rotation of kind k fits. Filled by
    calling the kernel from Python (a few milliseconds), so no second kernel is compiled."""
    fits = np.zeros((NUM_KINDS, NUM_NEEDS), np.int8)
    kinds = np.zeros(NUM_NEEDS, np.int32)
    orientations = [(k, r) for k in range(NUM_KINDS) for r in range(NUM_ROTATIONS) if ROTATION_NEW[k, r]]
    for needs in range(NUM_NEEDS):
        for k, r in orientations:
            if fit_reason(needs, k, r) == OK:
                fits[k, needs] |= 1 << r
                kinds[needs] |= 1 << k
    return fits, kinds


# Built once from the kernel above, so the rule still lives in one place.
FITS, FITTING_KINDS = fit_tables()


@helper  # compiled when first needed: only an illegal action asks why
def illegal_reason(state, action):
    """0 if ``action`` is legal for the player on move, else a code of ``REASONS``."""
    if action < 0 or action >= NUM_ACTIONS:
        return R_OUT_OF_RANGE
    if state[H_TERMINAL] != 0:
        return R_GAME_OVER
    if action < PLACE0:
        if state[PHASE] != PH_START:
            return R_WRONG_PHASE
        return OK if state[SUPPLY + action - START0] > 0 else R_NOT_IN_SUPPLY
    if state[PHASE] != PH_PLACE:
        return R_WRONG_PHASE
    j = (action - PLACE0) // NUM_ROTATIONS
    rotation = (action - PLACE0) % NUM_ROTATIONS
    if j >= state[NUM_CELLS]:
        return R_NO_CELL
    if not may_use(state, state[H_CURRENT], key_monster(state[CELL_KEY + j])):
        return R_FIRST_LOCKED
    kind = state[HAND]
    if ROTATION_NEW[kind, rotation] == 0:
        return R_DUPLICATE_ROTATION
    return fit_reason(state[CELL_NEEDS + j], kind, rotation)


@kernel(LEGAL_MASK_SIG)
def legal_mask(state, out):
    """Fill ``out`` with 1 for each legal action of the player on move; return the count."""
    out[:] = 0
    if state[H_TERMINAL] != 0:
        return 0
    count = 0
    if state[PHASE] == PH_START:
        for k in range(NUM_KINDS):
            ok = state[SUPPLY + k] > 0
            out[START0 + k] = ok
            count += ok
        return count
    p = state[H_CURRENT]
    hand = state[HAND]
    locked = state[MON_DONE + p] != 0  # else every monster in progress is open to p
    for j in range(state[NUM_CELLS]):
        if not locked or may_use(state, p, key_monster(state[CELL_KEY + j])):
            bits = FITS[hand, state[CELL_NEEDS + j]]
            for r in range(NUM_ROTATIONS):
                fits = (bits >> r) & 1
                out[PLACE0 + NUM_ROTATIONS * j + r] = fits
                count += fits
    return count


# --- changing the state ---------------------------------------------------------------
# The open cells.
@inlined
def find_cell(state, key):
    """The number of the open cell with ``key``, or -1."""
    for j in range(state[NUM_CELLS]):
        if state[CELL_KEY + j] == key:
            return j
    return -1


@inlined(I64(STATE, I64, I64, I64))
def look_around(state, m, key, j):
    """What lies around cell ``key`` of monster ``m``, from its tiles: the needs, and the tile
    slots written into open cell ``j``'s entry unless ``j`` is -1. A search over the monster's
    tiles (the list kept per seat), made only when a cell opens."""
    needs = ALL_EMPTY
    tiles = SEAT_TILES + state[MON_OWNER + m] * TOTAL_TILES
    for i in range(state[MON_SIZE + m]):
        packed = state[tiles + i]
        delta = (packed >> SLOT_BITS) - key  # keys and slots are never negative: shifts and masks
        # A neighbour lies 1 or KEY_ROW away: tested on the square, so that no branch depends on
        # the sign of delta (most tiles are not neighbours; that branch is well predicted).
        square = delta * delta
        if (square == 1) | (square == KEY_ROW * KEY_ROW):
            q = packed & (SLOT_SPAN - 1)
            for d in range(NUM_SIDES):
                if delta == KEY_STEP[d]:
                    needs = with_need(needs, d, tile_edge(state, q, OPPOSITE[d]))
                    if j >= 0:
                        state[CELL_TILE + NUM_SIDES * j + d] = q
    return needs


@inlined
def close_cell(state, j):
    """Take open cell ``j`` off the list: the last cell takes over its number (no shifting)."""
    last = state[NUM_CELLS] - 1
    state[CELL_KEY + j] = state[CELL_KEY + last]
    state[CELL_NEEDS + j] = state[CELL_NEEDS + last]
    for d in range(NUM_SIDES):
        state[CELL_TILE + NUM_SIDES * j + d] = state[CELL_TILE + NUM_SIDES * last + d]
    state[NUM_CELLS] = last


@helper(I64(STATE, I64, I64, I64, I64, I64, I64))
def lay_tile(state, m, x, y, kind, rotation, j):
    """Lay a tile of ``kind`` on cell (x, y) of monster ``m`` and keep its open cells and open
    edges in step (MF-10, MF-11); ``j`` is the cell's number if known, else -1. Returns the slot."""
    key = cell_key(m, x, y)
    if j < 0:
        j = find_cell(state, key)
    if j >= 0:
        needs = state[CELL_NEEDS + j]
        close_cell(state, j)
    elif state[MON_SIZE + m] == 0:
        needs = ALL_EMPTY
    else:  # a cell no open edge faces: only test states lay tiles there
        needs = look_around(state, m, key, -1)
    slot = state[NUM_PLACED]
    state[NUM_PLACED] = slot + 1
    state[TILE_MONSTER + slot] = m
    state[TILE_X + slot] = x
    state[TILE_Y + slot] = y
    state[TILE_KIND + slot] = kind
    state[TILE_ROT + slot] = rotation
    tiles = SEAT_TILES + state[MON_OWNER + m] * TOTAL_TILES
    state[tiles + state[MON_SIZE + m]] = (key << SLOT_BITS) + slot
    state[MON_SIZE + m] += 1
    state[MON_EYES + m] += KIND_EYE[kind]
    # The open cells among the four neighbours, found in one pass over the list without a
    # branch: the keys are distinct, so each sum is one cell's number plus one, or 0.
    north = east = south = west = 0
    for k in range(state[NUM_CELLS]):
        delta = state[CELL_KEY + k] - key
        north += (k + 1) * (delta == KEY_STEP[0])
        east += (k + 1) * (delta == KEY_STEP[1])
        south += (k + 1) * (delta == KEY_STEP[2])
        west += (k + 1) * (delta == KEY_STEP[3])
    change = 0
    for d in range(NUM_SIDES):
        across = need(needs, d)
        edge = EDGES[kind, rotation, d]
        # A thin or thick edge of the monster that faced this cell is covered now; one of the
        # new tile that faces an empty cell is open.
        change += (
            (edge != BLANK) if across == NO_TILE else 0 - (across != BLANK)
        )  # not -(bool): numpy refuses it
        if across != NO_TILE:
            continue
        side = OPPOSITE[d]
        other = key + KEY_STEP[d]
        k = (north if d == 0 else east if d == 1 else south if d == 2 else west) - 1
        if k < 0 and edge != BLANK:  # a new open cell
            k = state[NUM_CELLS]
            state[NUM_CELLS] = k + 1
            state[CELL_KEY + k] = other
            for e in range(NUM_SIDES):
                state[CELL_TILE + NUM_SIDES * k + e] = -1
            state[CELL_NEEDS + k] = look_around(state, m, other, k)
        elif k >= 0:
            state[CELL_NEEDS + k] = with_need(state[CELL_NEEDS + k], side, edge)
            state[CELL_TILE + NUM_SIDES * k + side] = slot
    state[MON_OPEN + m] += change
    return slot


# Changing the table.
@inlined(I64(STATE, RNG))
def draw_kind(state, rng):
    """Take a random tile out of the supply and return its kind (MF-6, MF-18); supply not empty."""
    r = rng_below(rng, state[SUPPLY_LEFT])
    state[SUPPLY_LEFT] -= 1
    # The kind drawn is the first whose running count of tiles exceeds r: the number of kinds
    # whose running count is still <= r, counted without a branch to mispredict.
    seen = 0
    k = 0
    for i in range(NUM_KINDS):
        seen += state[SUPPLY + i]
        k += seen <= r
    state[SUPPLY + k] -= 1
    return k


@helper(types.void(STATE, I64, I64, I64))
def start_monster(state, m, owner, kind):
    """Start monster slot ``m`` of ``owner`` from a tile of ``kind`` at (0, 0) (MF-5, MF-12)."""
    ordinal = 0
    for j in range(state[NUM_MONSTERS]):
        if j != m and state[MON_OWNER + j] == owner and state[MON_SIZE + j] > 0:
            ordinal += 1
    state[MON_OWNER + m] = owner
    state[MON_ORDINAL + m] = ordinal
    lay_tile(state, m, 0, 0, kind, 0, -1)
    state[CURRENT_MONSTER + owner] = m


@helper(types.void(STATE))
def end_game(state):
    """End the game and mark every seat with the highest score a winner (MF-14, MF-16)."""
    n = state[H_NUM_PLAYERS]
    best = state[SCORE]
    for q in range(n):
        best = max(best, state[SCORE + q])
    for q in range(n):
        state[WINNER + q] = 1 if state[SCORE + q] == best else 0
    state[H_TERMINAL] = 1
    state[H_CURRENT] = -1
    state[PHASE] = PH_OVER
    state[HAND] = -1


@helper(types.void(STATE, I64, RNG))
def complete_monster(state, m, rng):
    """Score monster ``m``, end the game if every first monster is done, else start its
    owner's minion from a random supply tile (MF-11 to MF-15)."""
    owner = state[MON_OWNER + m]
    state[MON_DONE + m] = 1
    state[CURRENT_MONSTER + owner] = -1
    state[SCORE + owner] += state[MON_SIZE + m] if state[MON_ORDINAL + m] == 0 else state[MON_EYES + m]
    if all_first_done(state):
        end_game(state)
        return
    if state[SUPPLY_LEFT] > 0:
        minion = state[NUM_MONSTERS]
        state[NUM_MONSTERS] = minion + 1
        start_monster(state, minion, owner, draw_kind(state, rng))


# --- turn flow ------------------------------------------------------------------------
@inlined
def fits_somewhere(state, p, kind):
    """A tile of ``kind`` fits some open cell that seat ``p`` may place on (MF-7, MF-9)."""
    locked = state[MON_DONE + p] != 0  # else every monster in progress is open to p
    for j in range(state[NUM_CELLS]):
        if (FITTING_KINDS[state[CELL_NEEDS + j]] >> kind) & 1:
            if not locked or may_use(state, p, key_monster(state[CELL_KEY + j])):
                return True
    return False


@helper(types.void(STATE, I64, RNG))
def begin_turn(state, p, rng):
    """Seat ``p`` draws until a tile fits somewhere it may place; unplaceable tiles leave
    the game (MF-6 to MF-8). An empty supply ends the game (MF-14). These steps take no
    decision, so the kernel makes them itself (MF-20)."""
    state[H_CURRENT] = p
    state[PHASE] = PH_PLACE
    state[HAND] = -1
    # The open cells do not change while tiles are discarded; most drawn tiles fit one of
    # the first cells looked at, so each draw is checked alone.
    while state[SUPPLY_LEFT] > 0:
        k = draw_kind(state, rng)
        if fits_somewhere(state, p, k):
            state[HAND] = k
            return
        state[DISCARDED + k] += 1
    end_game(state)


# --- the kernel contract ------------------------------------------------------------
@kernel(INIT_STATE_SIG)
def init_state(state, config, rng):
    """Set up a new game from ``config`` = (num_players, max_steps, reward_mode, start_tiles)."""
    n = start_game(state, config)
    for k in range(NUM_KINDS):
        state[SUPPLY + k] = INVENTORY[k]
    state[SUPPLY_LEFT] = TOTAL_TILES
    for i in range(TOTAL_TILES):
        state[TILE_MONSTER + i] = -1
    for m in range(MAX_MONSTERS):
        state[MON_OWNER + m] = m if m < n else -1
    for q in range(MAX_PLAYERS):
        state[CURRENT_MONSTER + q] = -1
    state[NUM_MONSTERS] = n  # slots 0..n-1 are the first monsters
    state[HAND] = -1
    state[LAST_PLACED] = -1
    first = rng_below(rng, n)  # the seeded generator draws the first player (MF-4)
    state[FIRST_PLAYER] = first
    if config[C_START_TILES] == START_RANDOM:
        for q in range(n):
            start_monster(state, q, q, draw_kind(state, rng))
        begin_turn(state, first, rng)
    else:
        state[PHASE] = PH_START
        state[H_CURRENT] = 0  # start tiles are chosen in seat order, before play begins (MF-5)


@kernel(APPLY_ACTION_SIG)
def apply_action(state, action, rng):
    """Apply a legal ``action`` of the player on move (legality is the caller's check)."""
    state[H_STEPS] += 1
    p = state[H_CURRENT]
    n = state[H_NUM_PLAYERS]
    if action < PLACE0:
        kind = action - START0
        state[SUPPLY + kind] -= 1
        state[SUPPLY_LEFT] -= 1
        start_monster(state, p, p, kind)
        state[LAST_PLACED] = state[NUM_PLACED] - 1
        if p + 1 == n:
            begin_turn(state, state[FIRST_PLAYER], rng)
        else:
            state[H_CURRENT] = p + 1
        return
    j = (action - PLACE0) // NUM_ROTATIONS
    key = state[CELL_KEY + j]
    m = key_monster(key)
    x, y = key_cell(key)
    kind = state[HAND]
    state[HAND] = -1
    # Marked before completing: a finished monster starts a minion, whose tile is no one's action.
    state[LAST_PLACED] = lay_tile(state, m, x, y, kind, (action - PLACE0) % NUM_ROTATIONS, j)
    if state[MON_OPEN + m] == 0:
        complete_monster(state, m, rng)
        if state[H_TERMINAL] != 0:
            return
    if state[SUPPLY_LEFT] == 0:
        end_game(state)
        return
    begin_turn(state, p + 1 if p + 1 < n else 0, rng)


@kernel(RETURNS_SIG)
def returns(state, out):
    """Final rewards per seat (MF-16, ruling C3); zeros while the game runs."""
    c3_returns(state, WINNER, SCORE, out)
