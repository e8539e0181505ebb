"""Monster Factory's observation (MF-18): what a seat sees, as ``OBS_SIZE`` floats, and why there is
nothing to redeal.

``observe_into`` writes every placed tile, every open cell, the tile in hand, the supply and
discards per kind, the scores and the monsters in progress; the slices from ``OBS_CELL_FIT`` on
are derived from that public view (``observe_derived``, observation v3). Everything is public
but the supply's order, which the state does not hold, so ``determinize`` changes nothing. Rule
ids (MF-n) refer to ``seeds/monster_factory/rules.md``.
"""

import numpy as np

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, OBSERVE_SIG
from ..core.kernels import helper, kernel, on_demand, scratch, scratch_empty
from .actions import PLACE0
from .components import (
    BLANK,
    EDGES,
    INVENTORY,
    KIND_EYE,
    MAX_MONSTERS,
    MAX_OPEN_CELLS,
    MAX_PLAYERS,
    NO_TILE,
    NUM_KINDS,
    NUM_NEEDS,
    NUM_ROTATIONS,
    NUM_SIDES,
    OPPOSITE,
    THICK,
    THIN,
    TOTAL_TILES,
)
from .queries import key_cell, key_monster
from .rules import FITS, FITTING_KINDS, I64, need
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
    NUM_PLACED,
    PHASE,
    SCORE,
    SUPPLY,
    SUPPLY_LEFT,
    TILE_KIND,
    TILE_MONSTER,
    TILE_ROT,
    TILE_X,
    TILE_Y,
)

# --- observation -------------------------------------------------------------------
# Per placed tile (88 slots in the order tiles were laid), TILE_FEATURES values:
F_PRESENT = 0
F_OWNER = 1  # one-hot relative seat of the monster's owner (6)
F_FIRST = F_OWNER + MAX_PLAYERS  # the monster is its owner's first monster
F_ORDINAL = F_FIRST + 1  # minion number / MAX_MONSTERS
F_DONE = F_ORDINAL + 1  # the monster is complete
F_X = F_DONE + 1  # (x + 88) / 176, relative to the monster's first tile
F_Y = F_X + 1  # (y + 88) / 176, y grows southwards
F_EDGES = F_Y + 1  # per side N, E, S, W: thin flag, thick flag (8)
F_EYE = F_EDGES + 2 * NUM_SIDES
F_OPEN = F_EYE + 1  # per side: thin or thick edge facing an empty cell (4)
F_LAST = F_OPEN + NUM_SIDES  # placed by the last action
TILE_FEATURES = F_LAST + 1
# Per open cell (MAX_OPEN_CELLS slots, numbered as the placement actions number them),
# CELL_FEATURES values:
G_PRESENT = 0
G_OWNER = 1  # one-hot relative seat of the monster's owner (6)
G_FIRST = G_OWNER + MAX_PLAYERS  # the monster is its owner's first monster
G_X = G_FIRST + 1  # (x + 88) / 176, relative to the monster's first tile
G_Y = G_X + 1
G_NEEDS = G_Y + 1  # per side: the tile across shows blank, thin, thick (3 x 4)
CELL_FEATURES = G_NEEDS + 3 * NUM_SIDES

OBS_TILES = 0
OBS_CELLS = OBS_TILES + TOTAL_TILES * TILE_FEATURES
OBS_HAND = OBS_CELLS + MAX_OPEN_CELLS * CELL_FEATURES  # kind one-hot (28), edges (8), eye (1)
OBS_SUPPLY = OBS_HAND + NUM_KINDS + 2 * NUM_SIDES + 1  # supply count / inventory count per kind
OBS_DISCARDED = OBS_SUPPLY + NUM_KINDS  # left the game / inventory count per kind
OBS_SUPPLY_TOTAL = OBS_DISCARDED + NUM_KINDS  # supply size / 88
OBS_SCORES = OBS_SUPPLY_TOTAL + 1  # score / 88 per seat
OBS_FIRST_DONE = OBS_SCORES + MAX_PLAYERS  # first monster complete per seat
OBS_CURRENT_SIZE = OBS_FIRST_DONE + MAX_PLAYERS  # size of the monster in progress / 88
OBS_CURRENT_OPEN = OBS_CURRENT_SIZE + MAX_PLAYERS  # its open edges / MAX_OPEN_CELLS
OBS_ON_MOVE = OBS_CURRENT_OPEN + MAX_PLAYERS  # one-hot seat on move
OBS_FIRST_PLAYER = OBS_ON_MOVE + MAX_PLAYERS  # one-hot first player
OBS_SEATED = OBS_FIRST_PLAYER + MAX_PLAYERS  # 1 for seats in the game
OBS_PHASE = OBS_SEATED + MAX_PLAYERS  # one-hot: start tile, place, over
# Derived from the public view (observation v3), what the greedy baseline weighs when it plays:
OBS_CELL_FIT = OBS_PHASE + 3  # per open cell: share of the supply that fits it
OBS_HAND_FITS = OBS_CELL_FIT + MAX_OPEN_CELLS  # per open cell: the tile in hand fits it
OBS_WORTH = OBS_HAND_FITS + MAX_OPEN_CELLS  # per relative seat: what completing its monster in
# progress scores (MF-15) / WORTH_SCALE
OBS_CELLS_OPEN = OBS_WORTH + MAX_PLAYERS  # its open cells / MAX_OPEN_CELLS
OBS_HARDEST = OBS_CELLS_OPEN + MAX_PLAYERS  # the lowest supply share fitting one of them (0: can
# never be completed from what is left)
OBS_BEHIND = OBS_HARDEST + MAX_PLAYERS  # score behind the best score / WORTH_SCALE
OBS_SIZE = OBS_BEHIND + MAX_PLAYERS
# The entry of each relative seat that reads 1 while that seat is at the table and 0 beyond the
# player count, in every view: the player count a view was written for (Game.seated_slots).
SEATED_SLOTS = tuple(OBS_SEATED + k for k in range(MAX_PLAYERS))

# Where a placement network (agents/ppo/placement.py) finds its inputs in this observation: one
# item per open cell and rotation, placement PLACE0 + NUM_ROTATIONS * cell + rotation.
PLACEMENT = dict(
    first_action=PLACE0,
    cells=MAX_OPEN_CELLS,
    rotations=NUM_ROTATIONS,
    cell_block=OBS_CELLS,
    cell_features=CELL_FEATURES,
    cell_extras=(OBS_CELL_FIT, OBS_HAND_FITS),
    hand_edges=OBS_HAND + NUM_KINDS,
    edge_values=2,
    hand_extras=(OBS_HAND + NUM_KINDS + 2 * NUM_SIDES,),
)
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
        lists[needs, : len(kinds)] = kinds
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
    cells = scratch(MAX_MONSTERS, np.int64)
    hardest = scratch_empty(MAX_MONSTERS, np.float64)
    hardest[:] = 1.0
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


# --- hidden information ---------------------------------------------------------------
@on_demand  # compiled when first needed (a search that resamples hidden information)
def determinize(state, player, rng):
    """Nothing to resample: every field of the state is public and the supply has no order
    in it (MF-18), so the state is already a sample of what ``player`` considers possible."""
    return
