"""Monster Factory rules as numba kernels: the single source of truth.

Everything the game does happens here: start tiles, drawing and discarding,
the matching rule, completion, minions, the end and scoring. The AEC env, the
batched engine and the agents only call these kernels. Rule ids (MF-n) refer to
``seeds/monster_factory/rules.md``.

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

from ..core.contract import (APPLY_ACTION_SIG, CONFIG_COMMON, H_CURRENT,
                             H_NUM_PLAYERS, H_TERMINAL, H_STEPS, INIT_STATE_SIG,
                             LEGAL_MASK_SIG, OBSERVE_SIG, RETURNS_SIG, RNG, STATE)
from ..core.header import start_game
from ..core.kernels import helper, inlined, kernel, on_demand
from ..core.rewards import c3_returns
from ..core.rng import rng_below
from .actions import NUM_ACTIONS, PLACE0, START0
from .components import (ALL_EMPTY, BLANK, DX, DY, EDGES, INVENTORY, KIND_EYE, MAX_MONSTERS,
                         MAX_OPEN_CELLS, MAX_PLAYERS, NO_TILE, NUM_KINDS, NUM_NEEDS, NUM_ROTATIONS,
                         NUM_SIDES, OPPOSITE, ROTATION_NEW, THICK, THIN, TOTAL_TILES)
from .queries import KEY_MONSTER, KEY_ROW, cell_key, key_cell, key_monster, open_cell
from .state_layout import (CELL_KEY, CELL_NEEDS, CELL_TILE, CURRENT_MONSTER, DISCARDED, FIRST_PLAYER,
                     HAND, LAST_PLACED, MON_DONE, MON_EYES, MON_OPEN, MON_ORDINAL, MON_OWNER,
                     MON_SIZE, NUM_CELLS, NUM_MONSTERS, NUM_PLACED, PH_OVER, PH_PLACE, PH_START,
                     PHASE, SCORE, SEAT_TILES, SLOT_BITS, SLOT_SPAN, SUPPLY, SUPPLY_LEFT, TILE_KIND,
                     TILE_MONSTER, TILE_ROT, TILE_X, TILE_Y, WINNER)

# A helper compiled on its own has one explicit signature (int64 scalars), so it is compiled
# once, whatever integer type a caller reads out of the state; helpers with one caller, and the
# searches of the step's hot path, are inlined (``inline="always"``).
I64 = types.int64

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
    R_WRONG_PHASE: ("it does not fit the decision at hand: start tiles are chosen before play, "
                    "then every decision places the tile in hand"),
    R_NOT_IN_SUPPLY: "no tile of that kind is left in the supply",
    R_NO_CELL: "no open cell has that number (MF-19)",
    R_FIRST_LOCKED: ("a player whose first monster is complete may not place on other players' "
                     "first monsters, only on minions (MF-9)"),
    R_DUPLICATE_ROTATION: ("a lower orientation of this tile shows the same edges; that one names "
                           "the placement (MF-19)"),
    R_MISMATCH: "a touching side does not match (thin-thin, thick-thick, blank-blank only) (MF-10)",
    R_NOT_JOINED: "no touching side joins thin-thin or thick-thick; blank-blank alone does not join (MF-10)",
}


# --- the matching rule ----------------------------------------------------------------
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
    orientations = [(k, r) for k in range(NUM_KINDS) for r in range(NUM_ROTATIONS)
                    if ROTATION_NEW[k, r]]
    for needs in range(NUM_NEEDS):
        for k, r in orientations:
            if fit_reason(needs, k, r) == OK:
                fits[k, needs] |= 1 << r
                kinds[needs] |= 1 << k
    return fits, kinds


# Built once from the kernel above, so the rule still lives in one place.
FITS, FITTING_KINDS = fit_tables()


# --- small queries ------------------------------------------------------------------
@helper(I64(STATE, I64, I64))
def tile_edge(state, slot, side):
    """Edge (0 blank, 1 thin, 2 thick) that placed tile ``slot`` shows on ``side``."""
    return EDGES[state[TILE_KIND + slot], state[TILE_ROT + slot], side]


@helper(types.boolean(STATE, I64, I64))
def may_use(state, p, m):
    """Seat ``p`` may place on monster ``m`` in progress (MF-9)."""
    return state[MON_OWNER + m] == p or state[MON_DONE + p] == 0 or state[MON_ORDINAL + m] != 0


# --- the open cells -------------------------------------------------------------------
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
        change += (edge != BLANK) if across == NO_TILE else -(across != BLANK)
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


# --- changing the table --------------------------------------------------------------
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


@inlined
def all_first_done(state):
    """Every player's first monster is complete (MF-14)."""
    for q in range(state[H_NUM_PLAYERS]):
        if state[MON_DONE + q] == 0:
            return False
    return True


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


# --- observation -------------------------------------------------------------------
# Per placed tile (88 slots in the order tiles were laid), TILE_FEATURES values:
F_PRESENT = 0
F_OWNER = 1                      # one-hot relative seat of the monster's owner (6)
F_FIRST = F_OWNER + MAX_PLAYERS  # the monster is its owner's first monster
F_ORDINAL = F_FIRST + 1          # minion number / MAX_MONSTERS
F_DONE = F_ORDINAL + 1           # the monster is complete
F_X = F_DONE + 1                 # (x + 88) / 176, relative to the monster's first tile
F_Y = F_X + 1                    # (y + 88) / 176, y grows southwards
F_EDGES = F_Y + 1                # per side N, E, S, W: thin flag, thick flag (8)
F_EYE = F_EDGES + 2 * NUM_SIDES
F_OPEN = F_EYE + 1               # per side: thin or thick edge facing an empty cell (4)
F_LAST = F_OPEN + NUM_SIDES      # placed by the last action
TILE_FEATURES = F_LAST + 1
# Per open cell (MAX_OPEN_CELLS slots, numbered as the placement actions number them),
# CELL_FEATURES values:
G_PRESENT = 0
G_OWNER = 1                      # one-hot relative seat of the monster's owner (6)
G_FIRST = G_OWNER + MAX_PLAYERS  # the monster is its owner's first monster
G_X = G_FIRST + 1                # (x + 88) / 176, relative to the monster's first tile
G_Y = G_X + 1
G_NEEDS = G_Y + 1                # per side: the tile across shows blank, thin, thick (3 x 4)
CELL_FEATURES = G_NEEDS + 3 * NUM_SIDES

OBS_TILES = 0
OBS_CELLS = OBS_TILES + TOTAL_TILES * TILE_FEATURES
OBS_HAND = OBS_CELLS + MAX_OPEN_CELLS * CELL_FEATURES  # kind one-hot (28), edges (8), eye (1)
OBS_SUPPLY = OBS_HAND + NUM_KINDS + 2 * NUM_SIDES + 1  # supply count / inventory count per kind
OBS_DISCARDED = OBS_SUPPLY + NUM_KINDS                 # left the game / inventory count per kind
OBS_SUPPLY_TOTAL = OBS_DISCARDED + NUM_KINDS           # supply size / 88
OBS_SCORES = OBS_SUPPLY_TOTAL + 1                      # score / 88 per seat
OBS_FIRST_DONE = OBS_SCORES + MAX_PLAYERS              # first monster complete per seat
OBS_CURRENT_SIZE = OBS_FIRST_DONE + MAX_PLAYERS        # size of the monster in progress / 88
OBS_CURRENT_OPEN = OBS_CURRENT_SIZE + MAX_PLAYERS      # its open edges / MAX_OPEN_CELLS
OBS_ON_MOVE = OBS_CURRENT_OPEN + MAX_PLAYERS           # one-hot seat on move
OBS_FIRST_PLAYER = OBS_ON_MOVE + MAX_PLAYERS           # one-hot first player
OBS_SEATED = OBS_FIRST_PLAYER + MAX_PLAYERS            # 1 for seats in the game
OBS_PHASE = OBS_SEATED + MAX_PLAYERS                   # one-hot: start tile, place, over
# Derived from the public view (observation v3), what the greedy baseline weighs when it plays:
OBS_CELL_FIT = OBS_PHASE + 3                # per open cell: share of the supply that fits it
OBS_HAND_FITS = OBS_CELL_FIT + MAX_OPEN_CELLS  # per open cell: the tile in hand fits it
OBS_WORTH = OBS_HAND_FITS + MAX_OPEN_CELLS  # per relative seat: what completing its monster in
                                           # progress scores (MF-15) / WORTH_SCALE
OBS_CELLS_OPEN = OBS_WORTH + MAX_PLAYERS   # its open cells / MAX_OPEN_CELLS
OBS_HARDEST = OBS_CELLS_OPEN + MAX_PLAYERS  # the lowest supply share fitting one of them (0: can
                                            # never be completed from what is left)
OBS_BEHIND = OBS_HARDEST + MAX_PLAYERS     # score behind the best score / WORTH_SCALE
OBS_SIZE = OBS_BEHIND + MAX_PLAYERS
WORTH_SCALE = 30.0
COORD_SCALE = 2.0 * TOTAL_TILES
# Reciprocals, so the observation multiplies instead of dividing per tile.
COORD_STEP = 1.0 / COORD_SCALE
ORDINAL_STEP = 1.0 / MAX_MONSTERS


@helper(I64(I64, I64, I64))
def relative(seat, player, n):
    """``seat`` as seen from ``player``: 0 for the observer, then clockwise."""
    rel = seat - player
    return rel + n if rel < 0 else rel


def fitting_kind_lists():
    """``(lists, counts)``: ``lists[needs, :counts[needs]]`` are the kinds ``FITTING_KINDS[needs]``
    names, so that a sum over them visits only kinds that fit."""
    lists = np.zeros((NUM_NEEDS, NUM_KINDS), np.int32)
    counts = np.zeros(NUM_NEEDS, np.int32)
    for needs in range(NUM_NEEDS):
        kinds = [k for k in range(NUM_KINDS) if (int(FITTING_KINDS[needs]) >> k) & 1]
        lists[needs, :len(kinds)] = kinds
        counts[needs] = len(kinds)
    return lists, counts


FITTING_LIST, FITTING_COUNT = fitting_kind_lists()


@on_demand
def supply_fit_share(state, j):
    """Share of the face-down supply whose kind fits open cell ``j`` in some rotation (MF-10)."""
    if state[SUPPLY_LEFT] == 0:
        return 0.0
    needs = state[CELL_NEEDS + j]
    fitting = 0
    for i in range(FITTING_COUNT[needs]):
        fitting += state[SUPPLY + FITTING_LIST[needs, i]]
    return fitting / state[SUPPLY_LEFT]


@on_demand
def monster_worth(state, m):
    """What monster ``m`` scores once complete (MF-15): its tiles if a first monster, else its eyes."""
    return state[MON_SIZE + m] if state[MON_ORDINAL + m] == 0 else state[MON_EYES + m]


@on_demand
def observe_derived(state, player, out):
    """The derived slices of seat ``player``'s view (``OBS_CELL_FIT`` onwards), from public fields."""
    n = state[H_NUM_PLAYERS]
    hand = state[HAND]
    cells = np.zeros(MAX_MONSTERS, np.int64)
    hardest = np.ones(MAX_MONSTERS)
    for j in range(state[NUM_CELLS]):
        m = key_monster(state[CELL_KEY + j])
        share = supply_fit_share(state, j)
        out[OBS_CELL_FIT + j] = share
        if hand >= 0:
            out[OBS_HAND_FITS + j] = FITS[hand, state[CELL_NEEDS + j]] != 0
        cells[m] += 1
        hardest[m] = min(hardest[m], share)
    best = 0
    for q in range(n):
        best = max(best, state[SCORE + q])
    for q in range(n):
        rel = relative(q, player, n)
        m = state[CURRENT_MONSTER + q]
        if m >= 0:
            out[OBS_WORTH + rel] = min(monster_worth(state, m) / WORTH_SCALE, 1.0)
            out[OBS_CELLS_OPEN + rel] = cells[m] / MAX_OPEN_CELLS
            out[OBS_HARDEST + rel] = hardest[m] if cells[m] > 0 else 0.0
        out[OBS_BEHIND + rel] = min((best - state[SCORE + q]) / WORTH_SCALE, 1.0)


@kernel(OBSERVE_SIG)
def observe_into(state, player, out):
    """Write seat ``player``'s view into ``out`` (seats relative: the observer is seat 0).

    Everything is public except the supply's order, which the state does not hold (MF-18).
    """
    out[:] = 0.0
    n = state[H_NUM_PLAYERS]
    last = state[LAST_PLACED]
    for i in range(state[NUM_PLACED]):
        m = state[TILE_MONSTER + i]
        o = OBS_TILES + i * TILE_FEATURES
        out[o + F_PRESENT] = 1.0
        out[o + F_OWNER + relative(state[MON_OWNER + m], player, n)] = 1.0
        out[o + F_FIRST] = state[MON_ORDINAL + m] == 0
        out[o + F_ORDINAL] = state[MON_ORDINAL + m] * ORDINAL_STEP
        out[o + F_DONE] = state[MON_DONE + m]
        out[o + F_X] = (state[TILE_X + i] + TOTAL_TILES) * COORD_STEP
        out[o + F_Y] = (state[TILE_Y + i] + TOTAL_TILES) * COORD_STEP
        kind, rotation = state[TILE_KIND + i], state[TILE_ROT + i]
        for d in range(NUM_SIDES):  # stores without branches: edges are too random to predict
            e = EDGES[kind, rotation, d]
            out[o + F_EDGES + 2 * d] = e == THIN
            out[o + F_EDGES + 2 * d + 1] = e == THICK
        out[o + F_EYE] = KIND_EYE[state[TILE_KIND + i]]
        out[o + F_LAST] = last == i
    # Open edges are exactly the thin or thick edges across the sides of the open cells.
    for j in range(state[NUM_CELLS]):
        key = state[CELL_KEY + j]
        m = key_monster(key)
        x, y = key_cell(key)
        needs = state[CELL_NEEDS + j]
        o = OBS_CELLS + j * CELL_FEATURES
        out[o + G_PRESENT] = 1.0
        out[o + G_OWNER + relative(state[MON_OWNER + m], player, n)] = 1.0
        out[o + G_FIRST] = state[MON_ORDINAL + m] == 0
        out[o + G_X] = (x + TOTAL_TILES) * COORD_STEP
        out[o + G_Y] = (y + TOTAL_TILES) * COORD_STEP
        for d in range(NUM_SIDES):
            across = need(needs, d)
            if across != NO_TILE:
                out[o + G_NEEDS + 3 * d + across] = 1.0
                if across != BLANK:
                    q = state[CELL_TILE + NUM_SIDES * j + d]
                    out[OBS_TILES + q * TILE_FEATURES + F_OPEN + OPPOSITE[d]] = 1.0
    hand = state[HAND]
    if hand >= 0:
        out[OBS_HAND + hand] = 1.0
        for d in range(NUM_SIDES):
            e = EDGES[hand, 0, d]
            if e != BLANK:
                out[OBS_HAND + NUM_KINDS + 2 * d + e - 1] = 1.0
        out[OBS_HAND + NUM_KINDS + 2 * NUM_SIDES] = KIND_EYE[hand]
    for k in range(NUM_KINDS):
        out[OBS_SUPPLY + k] = state[SUPPLY + k] / INVENTORY[k]
        out[OBS_DISCARDED + k] = state[DISCARDED + k] / INVENTORY[k]
    out[OBS_SUPPLY_TOTAL] = state[SUPPLY_LEFT] / TOTAL_TILES
    for q in range(n):
        rel = relative(q, player, n)
        out[OBS_SCORES + rel] = min(state[SCORE + q] / TOTAL_TILES, 1.0)
        out[OBS_FIRST_DONE + rel] = state[MON_DONE + q]
        m = state[CURRENT_MONSTER + q]
        if m >= 0:
            out[OBS_CURRENT_SIZE + rel] = state[MON_SIZE + m] / TOTAL_TILES
            out[OBS_CURRENT_OPEN + rel] = state[MON_OPEN + m] / MAX_OPEN_CELLS
        out[OBS_SEATED + rel] = 1.0
    if state[H_CURRENT] >= 0:
        out[OBS_ON_MOVE + relative(state[H_CURRENT], player, n)] = 1.0
    out[OBS_FIRST_PLAYER + relative(state[FIRST_PLAYER], player, n)] = 1.0
    out[OBS_PHASE + state[PHASE]] = 1.0
    observe_derived(state, player, out)


@on_demand  # compiled when first needed (a search that resamples hidden information)
def determinize(state, player, rng):
    """Nothing to resample: every field of the state is public and the supply has no order
    in it (MF-18), so the state is already a sample of what ``player`` considers possible."""
    return
