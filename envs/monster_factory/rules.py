"""Monster Factory rules as numba kernels: the single source of truth.

Everything the game does happens here: start tiles, drawing and discarding,
the matching rule, completion, minions, the end and scoring. The AEC env, the
batched engine and the agents only call these kernels. Rule ids (MF-n) refer to
``seeds/monster_factory/rules.md``.

Each monster lies on its own unbounded grid: a tile is stored with its cell
relative to its monster's first tile, and a placement is named by an existing
tile of the monster and one of its sides (MF-19), so no window can ever be
outgrown. The supply is kept as counts per tile kind and a draw picks a kind
with the probability of what is left, the same as drawing from a shuffled pile,
so the state holds no order that anyone could see (MF-18).
"""
import numpy as np
from numba import njit

from ..core.contract import (APPLY_ACTION_SIG, C_MAX_STEPS, C_NUM_PLAYERS, C_REWARD_MODE,
                             CONFIG_COMMON, DETERMINIZE_SIG, H_CURRENT, H_MAX_STEPS,
                             H_NUM_PLAYERS, H_REWARD_MODE, H_TERMINAL, H_STEPS,
                             ILLEGAL_REASON_SIG, INIT_STATE_SIG, LEGAL_MASK_SIG, OBSERVE_SIG,
                             RETURNS_SIG, REWARD_WIN)
from ..core.rng import rng_below
from .actions import NUM_ACTIONS, PLACE0, START0
from .components import (DX, DY, EDGES, INVENTORY, KIND_EYE, MAX_MONSTER_TILES, MAX_MONSTERS,
                         MAX_PLAYERS, NUM_KINDS, NUM_ROTATIONS, NUM_SIDES, OPPOSITE, ROTATION_NEW,
                         SIDE_TOWARDS, TOTAL_TILES)
from .layout import (CURRENT_MONSTER, DISCARDED, FIRST_PLAYER, HAND, LAST_PLACED, MON_DONE,
                     MON_EYES, MON_ORDINAL, MON_OWNER, MON_SIZE, NUM_MONSTERS, NUM_PLACED,
                     PH_OVER, PH_PLACE, PH_START, PHASE, SCORE, SUPPLY, TILE_KIND, TILE_MONSTER,
                     TILE_ROT, TILE_X, TILE_Y, WINNER)

C_START_TILES = CONFIG_COMMON  # config entry: START_CHOOSE or START_RANDOM
START_CHOOSE = 0
START_RANDOM = 1
NO_CELL = -(1 << 20)           # coordinate of a placement that names no existing tile

# --- reasons an action is illegal (codes for illegal_reason) ----------------------
OK = 0
R_OUT_OF_RANGE = 1
R_GAME_OVER = 2
R_WRONG_PHASE = 3
R_NOT_IN_SUPPLY = 4
R_NO_MONSTER = 5
R_FIRST_LOCKED = 6
R_NO_TILE = 7
R_CELL_TAKEN = 8
R_DUPLICATE_CELL = 9
R_DUPLICATE_ROTATION = 10
R_MISMATCH = 11
R_NOT_JOINED = 12

REASONS = {
    R_OUT_OF_RANGE: "the action index is out of range",
    R_GAME_OVER: "the game is over",
    R_WRONG_PHASE: ("it does not fit the decision at hand: start tiles are chosen before play, "
                    "then every decision places the tile in hand"),
    R_NOT_IN_SUPPLY: "no tile of that kind is left in the supply",
    R_NO_MONSTER: "that seat has no monster in progress (or is not in the game)",
    R_FIRST_LOCKED: ("a player whose first monster is complete may not place on other players' "
                     "first monsters, only on minions (MF-9)"),
    R_NO_TILE: "that monster has no tile with this index",
    R_CELL_TAKEN: "the cell on that side already holds a tile",
    R_DUPLICATE_CELL: ("that cell also lies next to a tile placed earlier in that monster; the "
                       "placement is named from the earliest neighbouring tile (MF-19)"),
    R_DUPLICATE_ROTATION: ("a lower orientation of this tile shows the same edges; that one names "
                           "the placement (MF-19)"),
    R_MISMATCH: "a touching side does not match (thin-thin, thick-thick, blank-blank only) (MF-10)",
    R_NOT_JOINED: "no touching side joins thin-thin or thick-thick; blank-blank alone does not join (MF-10)",
}


# --- small queries ------------------------------------------------------------------
@njit(cache=True)
def supply_total(state):
    """Face-down tiles left."""
    total = 0
    for k in range(NUM_KINDS):
        total += state[SUPPLY + k]
    return total


@njit(cache=True)
def tile_edge(state, slot, side):
    """Edge (0 blank, 1 thin, 2 thick) that placed tile ``slot`` shows on ``side``."""
    return EDGES[state[TILE_KIND + slot], state[TILE_ROT + slot], side]


@njit(cache=True)
def place_action(seat, tile, side, rotation):
    """Action index of a placement (see ``actions``)."""
    return PLACE0 + ((seat * MAX_MONSTER_TILES + tile) * NUM_SIDES + side) * NUM_ROTATIONS + rotation


@njit(cache=True)
def gather(state, m, slots, xs, ys):
    """Write monster ``m``'s tile slots and cells in placement order; return how many."""
    n = 0
    for i in range(state[NUM_PLACED]):
        if state[TILE_MONSTER + i] == m:
            slots[n] = i
            xs[n] = state[TILE_X + i]
            ys[n] = state[TILE_Y + i]
            n += 1
    return n


@njit(cache=True)
def probe(state, slots, xs, ys, n, x, y, needs):
    """Look at cell (x, y) of a gathered monster: ``(occupied, lowest neighbour index)``.

    ``needs[e]`` becomes the edge the neighbour across side ``e`` shows towards the
    cell (-1 where that neighbour cell is empty); the lowest neighbour index is
    ``n`` when the cell touches no tile.
    """
    for e in range(NUM_SIDES):
        needs[e] = -1
    occupied = False
    lowest = n
    for j in range(n):
        dx = xs[j] - x
        dy = ys[j] - y
        distance = abs(dx) + abs(dy)
        if distance == 0:
            occupied = True
        elif distance == 1:
            e = SIDE_TOWARDS[dx + 1, dy + 1]
            needs[e] = tile_edge(state, slots[j], OPPOSITE[e])
            lowest = min(lowest, j)
    return occupied, lowest


@njit(cache=True)
def fit_reason(needs, kind, rotation):
    """Whether tile ``kind`` in ``rotation`` may go on a cell with ``needs`` (MF-10): OK,
    R_MISMATCH or R_NOT_JOINED."""
    joined = False
    for e in range(NUM_SIDES):
        if needs[e] >= 0:
            if EDGES[kind, rotation, e] != needs[e]:
                return R_MISMATCH
            joined |= needs[e] > 0
    return OK if joined else R_NOT_JOINED


@njit(cache=True)
def may_use(state, p, s):
    """Seat ``p`` may place on seat ``s``'s monster in progress (MF-9)."""
    m = state[CURRENT_MONSTER + s]
    if s >= state[H_NUM_PLAYERS] or m < 0:
        return False
    return s == p or state[MON_DONE + p] == 0 or state[MON_ORDINAL + m] != 0


@njit(cache=True)
def scan_monster(state, p, s, kind, out, first_only, slots, xs, ys, needs):
    """Count the legal placements of tile ``kind`` by seat ``p`` on seat ``s``'s monster.

    Each empty cell is taken once, from its neighbour with the lowest tile index,
    and each orientation once (MF-19). Writes the actions into ``out`` when it is
    not empty; with ``first_only`` it stops at the first placement found.
    """
    if not may_use(state, p, s):
        return 0
    n = gather(state, state[CURRENT_MONSTER + s], slots, xs, ys)
    count = 0
    for i in range(n):
        for d in range(NUM_SIDES):
            occupied, lowest = probe(state, slots, xs, ys, n, xs[i] + DX[d], ys[i] + DY[d], needs)
            if occupied or lowest != i:
                continue
            for r in range(NUM_ROTATIONS):
                if ROTATION_NEW[kind, r] != 0 and fit_reason(needs, kind, r) == OK:
                    count += 1
                    if out.shape[0] > 0:
                        out[place_action(s, i, d, r)] = 1
                    elif first_only:
                        return count
    return count


@njit(cache=True)
def can_place(state, p, kind):
    """Whether tile ``kind`` fits anywhere seat ``p`` may place (MF-7)."""
    slots = np.empty(MAX_MONSTER_TILES, np.int32)
    xs = np.empty(MAX_MONSTER_TILES, np.int32)
    ys = np.empty(MAX_MONSTER_TILES, np.int32)
    needs = np.empty(NUM_SIDES, np.int32)
    none = np.zeros(0, np.int8)
    for s in range(state[H_NUM_PLAYERS]):
        if scan_monster(state, p, s, kind, none, True, slots, xs, ys, needs) > 0:
            return True
    return False


@njit(cache=True)
def open_sides(state, m):
    """Thin or thick edges of monster ``m`` that face an empty cell (MF-11)."""
    slots = np.empty(MAX_MONSTER_TILES, np.int32)
    xs = np.empty(MAX_MONSTER_TILES, np.int32)
    ys = np.empty(MAX_MONSTER_TILES, np.int32)
    needs = np.empty(NUM_SIDES, np.int32)
    n = gather(state, m, slots, xs, ys)
    count = 0
    for i in range(n):
        for d in range(NUM_SIDES):
            if tile_edge(state, slots[i], d) != 0:
                occupied, _ = probe(state, slots, xs, ys, n, xs[i] + DX[d], ys[i] + DY[d], needs)
                count += not occupied
    return count


@njit(cache=True)
def placement_cell(state, seat, tile, side):
    """Cell (x, y) that a placement on ``seat``'s monster beside its ``tile`` on ``side``
    names, or ``(NO_CELL, NO_CELL)`` when there is no such tile."""
    m = state[CURRENT_MONSTER + seat] if seat < MAX_PLAYERS else -1
    if m < 0 or tile >= state[MON_SIZE + m]:
        return NO_CELL, NO_CELL
    seen = 0
    for i in range(state[NUM_PLACED]):
        if state[TILE_MONSTER + i] == m:
            if seen == tile:
                return state[TILE_X + i] + DX[side], state[TILE_Y + i] + DY[side]
            seen += 1
    return NO_CELL, NO_CELL


# --- changing the table --------------------------------------------------------------
@njit(cache=True)
def draw_kind(state, rng):
    """Take a random tile out of the supply and return its kind (MF-6, MF-18); supply not empty."""
    r = rng_below(rng, supply_total(state))
    for k in range(NUM_KINDS):
        if r < state[SUPPLY + k]:
            state[SUPPLY + k] -= 1
            return k
        r -= state[SUPPLY + k]
    return -1


@njit(cache=True)
def place_tile(state, m, x, y, kind, rotation):
    """Lay a tile of ``kind`` on cell (x, y) of monster ``m``; return its slot."""
    slot = state[NUM_PLACED]
    state[NUM_PLACED] = slot + 1
    state[TILE_MONSTER + slot] = m
    state[TILE_X + slot] = x
    state[TILE_Y + slot] = y
    state[TILE_KIND + slot] = kind
    state[TILE_ROT + slot] = rotation
    state[MON_SIZE + m] += 1
    state[MON_EYES + m] += KIND_EYE[kind]
    state[LAST_PLACED] = slot
    return slot


@njit(cache=True)
def start_monster(state, m, owner, kind):
    """Start monster slot ``m`` of ``owner`` from a tile of ``kind`` at (0, 0) (MF-5, MF-12)."""
    ordinal = 0
    for j in range(state[NUM_MONSTERS]):
        if j != m and state[MON_OWNER + j] == owner and state[MON_SIZE + j] > 0:
            ordinal += 1
    state[MON_OWNER + m] = owner
    state[MON_ORDINAL + m] = ordinal
    place_tile(state, m, 0, 0, kind, 0)
    state[CURRENT_MONSTER + owner] = m


@njit(cache=True)
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


@njit(cache=True)
def all_first_done(state):
    """Every player's first monster is complete (MF-14)."""
    for q in range(state[H_NUM_PLAYERS]):
        if state[MON_DONE + q] == 0:
            return False
    return True


@njit(cache=True)
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
    if supply_total(state) > 0:
        minion = state[NUM_MONSTERS]
        state[NUM_MONSTERS] = minion + 1
        start_monster(state, minion, owner, draw_kind(state, rng))


@njit(cache=True)
def begin_turn(state, p, rng):
    """Seat ``p`` draws until a tile fits somewhere it may place; unplaceable tiles leave
    the game (MF-6 to MF-8). An empty supply ends the game (MF-14)."""
    state[H_CURRENT] = p
    state[PHASE] = PH_PLACE
    state[HAND] = -1
    while supply_total(state) > 0:
        k = draw_kind(state, rng)
        if can_place(state, p, k):
            state[HAND] = k
            return
        state[DISCARDED + k] += 1
    end_game(state)


# --- the kernel contract ------------------------------------------------------------
@njit(INIT_STATE_SIG, cache=True)
def init_state(state, config, rng):
    """Set up a new game from ``config`` = (num_players, max_steps, reward_mode, start_tiles)."""
    state[:] = 0
    n = config[C_NUM_PLAYERS]
    state[H_NUM_PLAYERS] = n
    state[H_MAX_STEPS] = config[C_MAX_STEPS]
    state[H_REWARD_MODE] = config[C_REWARD_MODE]
    for k in range(NUM_KINDS):
        state[SUPPLY + k] = INVENTORY[k]
    for i in range(TOTAL_TILES):
        state[TILE_MONSTER + i] = -1
    for m in range(MAX_MONSTERS):
        state[MON_OWNER + m] = m if m < n else -1
    for q in range(MAX_PLAYERS):
        state[CURRENT_MONSTER + q] = -1
    state[NUM_MONSTERS] = n  # slots 0..n-1 are the first monsters
    state[HAND] = -1
    state[LAST_PLACED] = -1
    first = rng_below(rng, n)
    state[FIRST_PLAYER] = first
    if config[C_START_TILES] == START_RANDOM:
        for q in range(n):
            start_monster(state, q, q, draw_kind(state, rng))
        begin_turn(state, first, rng)
    else:
        state[PHASE] = PH_START
        state[H_CURRENT] = 0  # start tiles are chosen in seat order, before play begins (MF-5)


@njit(ILLEGAL_REASON_SIG, cache=True)
def illegal_reason(state, action):
    """0 if ``action`` is legal for the player on move, else a code of ``REASONS``."""
    if action < 0 or action >= NUM_ACTIONS:
        return R_OUT_OF_RANGE
    if state[H_TERMINAL] != 0:
        return R_GAME_OVER
    p = state[H_CURRENT]
    if action < PLACE0:
        if state[PHASE] != PH_START:
            return R_WRONG_PHASE
        return OK if state[SUPPLY + action - START0] > 0 else R_NOT_IN_SUPPLY
    if state[PHASE] != PH_PLACE:
        return R_WRONG_PHASE
    a = action - PLACE0
    rotation = a % NUM_ROTATIONS
    side = (a // NUM_ROTATIONS) % NUM_SIDES
    tile = (a // (NUM_ROTATIONS * NUM_SIDES)) % MAX_MONSTER_TILES
    seat = a // (NUM_ROTATIONS * NUM_SIDES * MAX_MONSTER_TILES)
    if seat >= state[H_NUM_PLAYERS] or state[CURRENT_MONSTER + seat] < 0:
        return R_NO_MONSTER
    if not may_use(state, p, seat):
        return R_FIRST_LOCKED
    m = state[CURRENT_MONSTER + seat]
    if tile >= state[MON_SIZE + m]:
        return R_NO_TILE
    slots = np.empty(MAX_MONSTER_TILES, np.int32)
    xs = np.empty(MAX_MONSTER_TILES, np.int32)
    ys = np.empty(MAX_MONSTER_TILES, np.int32)
    needs = np.empty(NUM_SIDES, np.int32)
    n = gather(state, m, slots, xs, ys)
    occupied, lowest = probe(state, slots, xs, ys, n, xs[tile] + DX[side], ys[tile] + DY[side], needs)
    if occupied:
        return R_CELL_TAKEN
    if lowest != tile:
        return R_DUPLICATE_CELL
    kind = state[HAND]
    if ROTATION_NEW[kind, rotation] == 0:
        return R_DUPLICATE_ROTATION
    return fit_reason(needs, kind, rotation)


@njit(LEGAL_MASK_SIG, cache=True)
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
    slots = np.empty(MAX_MONSTER_TILES, np.int32)
    xs = np.empty(MAX_MONSTER_TILES, np.int32)
    ys = np.empty(MAX_MONSTER_TILES, np.int32)
    needs = np.empty(NUM_SIDES, np.int32)
    p = state[H_CURRENT]
    for s in range(state[H_NUM_PLAYERS]):
        count += scan_monster(state, p, s, state[HAND], out, False, slots, xs, ys, needs)
    return count


@njit(APPLY_ACTION_SIG, cache=True)
def apply_action(state, action, rng):
    """Apply a legal ``action`` of the player on move (legality is the caller's check)."""
    state[H_STEPS] += 1
    p = state[H_CURRENT]
    n = state[H_NUM_PLAYERS]
    if action < PLACE0:
        kind = action - START0
        state[SUPPLY + kind] -= 1
        start_monster(state, p, p, kind)
        if p + 1 == n:
            begin_turn(state, state[FIRST_PLAYER], rng)
        else:
            state[H_CURRENT] = p + 1
        return
    a = action - PLACE0
    rotation = a % NUM_ROTATIONS
    side = (a // NUM_ROTATIONS) % NUM_SIDES
    tile = (a // (NUM_ROTATIONS * NUM_SIDES)) % MAX_MONSTER_TILES
    seat = a // (NUM_ROTATIONS * NUM_SIDES * MAX_MONSTER_TILES)
    m = state[CURRENT_MONSTER + seat]
    x, y = placement_cell(state, seat, tile, side)
    kind = state[HAND]
    state[HAND] = -1
    place_tile(state, m, x, y, kind, rotation)
    if open_sides(state, m) == 0:
        complete_monster(state, m, rng)
        if state[H_TERMINAL] != 0:
            return
    if supply_total(state) == 0:
        end_game(state)
        return
    begin_turn(state, (p + 1) % n, rng)


@njit(RETURNS_SIG, cache=True)
def returns(state, out):
    """Final rewards per seat (MF-16, ruling C3); zeros while the game runs."""
    out[:] = 0.0
    if state[H_TERMINAL] == 0:
        return
    n = state[H_NUM_PLAYERS]
    if state[H_REWARD_MODE] == REWARD_WIN:
        k = 0
        for p in range(n):
            k += state[WINNER + p]
        if k == 0 or k == n:
            return
        for p in range(n):
            out[p] = 1.0 / k if state[WINNER + p] else -1.0 / (n - k)
    else:
        mean = 0.0
        for p in range(n):
            mean += state[SCORE + p]
        mean /= n
        for p in range(n):
            out[p] = state[SCORE + p] - mean


# --- observation -------------------------------------------------------------------
# Per placed tile (88 slots in the order tiles were laid), TILE_FEATURES values:
F_PRESENT = 0
F_OWNER = 1                      # one-hot relative seat of the monster's owner (6)
F_FIRST = F_OWNER + MAX_PLAYERS  # the monster is its owner's first monster
F_ORDINAL = F_FIRST + 1          # minion number / MAX_MONSTERS
F_DONE = F_ORDINAL + 1           # the monster is complete
F_INDEX = F_DONE + 1             # the tile's index t in its monster / 88 (the actions' t)
F_X = F_INDEX + 1                # (x + 88) / 176, relative to the monster's first tile
F_Y = F_X + 1                    # (y + 88) / 176, y grows southwards
F_EDGES = F_Y + 1                # per side N, E, S, W: thin flag, thick flag (8)
F_EYE = F_EDGES + 2 * NUM_SIDES
F_OPEN = F_EYE + 1               # per side: thin or thick edge facing an empty cell (4)
F_LAST = F_OPEN + NUM_SIDES      # placed by the last action
TILE_FEATURES = F_LAST + 1

OBS_TILES = 0
OBS_HAND = OBS_TILES + TOTAL_TILES * TILE_FEATURES   # kind one-hot (28), edges (8), eye (1)
OBS_SUPPLY = OBS_HAND + NUM_KINDS + 2 * NUM_SIDES + 1  # supply count / inventory count per kind
OBS_DISCARDED = OBS_SUPPLY + NUM_KINDS                 # left the game / inventory count per kind
OBS_SUPPLY_TOTAL = OBS_DISCARDED + NUM_KINDS           # supply size / 88
OBS_SCORES = OBS_SUPPLY_TOTAL + 1                      # score / 88 per seat
OBS_FIRST_DONE = OBS_SCORES + MAX_PLAYERS              # first monster complete per seat
OBS_CURRENT_SIZE = OBS_FIRST_DONE + MAX_PLAYERS        # size of the monster in progress / 88
OBS_CURRENT_OPEN = OBS_CURRENT_SIZE + MAX_PLAYERS      # its open sides / (2 * 88 + 2)
OBS_ON_MOVE = OBS_CURRENT_OPEN + MAX_PLAYERS           # one-hot seat on move
OBS_FIRST_PLAYER = OBS_ON_MOVE + MAX_PLAYERS           # one-hot first player
OBS_SEATED = OBS_FIRST_PLAYER + MAX_PLAYERS            # 1 for seats in the game
OBS_PHASE = OBS_SEATED + MAX_PLAYERS                   # one-hot: start tile, place, over
OBS_SIZE = OBS_PHASE + 3
COORD_SCALE = 2.0 * TOTAL_TILES
# A monster of t tiles has at most 2t + 2 open sides (each tile adds at most 2 net).
OPEN_SCALE = 2.0 * TOTAL_TILES + 2.0


@njit(OBSERVE_SIG, cache=True)
def observe_into(state, player, out):
    """Write seat ``player``'s view into ``out`` (seats relative: the observer is seat 0).

    Everything is public except the supply's order, which the state does not hold (MF-18).
    """
    out[:] = 0.0
    n = state[H_NUM_PLAYERS]
    # Group the placed tiles by monster (placement order kept within each group), so that
    # finding a tile's neighbours scans only its own monster.
    placed = state[NUM_PLACED]
    monsters = state[NUM_MONSTERS]
    starts = np.zeros(MAX_MONSTERS + 1, np.int32)
    for i in range(placed):
        starts[state[TILE_MONSTER + i] + 1] += 1
    for m in range(monsters):
        starts[m + 1] += starts[m]
    fill = starts[:monsters].copy()
    slots = np.empty(TOTAL_TILES, np.int32)
    xs = np.empty(TOTAL_TILES, np.int32)
    ys = np.empty(TOTAL_TILES, np.int32)
    for i in range(placed):
        m = state[TILE_MONSTER + i]
        slots[fill[m]] = i
        xs[fill[m]] = state[TILE_X + i]
        ys[fill[m]] = state[TILE_Y + i]
        fill[m] += 1
    needs = np.empty(NUM_SIDES, np.int32)
    for m in range(monsters):
        first, count = starts[m], starts[m + 1] - starts[m]
        group_slots = slots[first:first + count]
        group_xs = xs[first:first + count]
        group_ys = ys[first:first + count]
        for t in range(count):
            i = group_slots[t]
            o = OBS_TILES + i * TILE_FEATURES
            out[o + F_PRESENT] = 1.0
            out[o + F_OWNER + (state[MON_OWNER + m] - player) % n] = 1.0
            out[o + F_FIRST] = 1.0 if state[MON_ORDINAL + m] == 0 else 0.0
            out[o + F_ORDINAL] = state[MON_ORDINAL + m] / MAX_MONSTERS
            out[o + F_DONE] = state[MON_DONE + m]
            out[o + F_INDEX] = t / MAX_MONSTER_TILES
            out[o + F_X] = (group_xs[t] + TOTAL_TILES) / COORD_SCALE
            out[o + F_Y] = (group_ys[t] + TOTAL_TILES) / COORD_SCALE
            for d in range(NUM_SIDES):
                e = tile_edge(state, i, d)
                if e > 0:
                    out[o + F_EDGES + 2 * d + e - 1] = 1.0
                    occupied, _ = probe(state, group_slots, group_xs, group_ys, count,
                                        group_xs[t] + DX[d], group_ys[t] + DY[d], needs)
                    out[o + F_OPEN + d] = 0.0 if occupied else 1.0
            out[o + F_EYE] = KIND_EYE[state[TILE_KIND + i]]
            out[o + F_LAST] = 1.0 if state[LAST_PLACED] == i else 0.0
    hand = state[HAND]
    if hand >= 0:
        out[OBS_HAND + hand] = 1.0
        for d in range(NUM_SIDES):
            e = EDGES[hand, 0, d]
            if e > 0:
                out[OBS_HAND + NUM_KINDS + 2 * d + e - 1] = 1.0
        out[OBS_HAND + NUM_KINDS + 2 * NUM_SIDES] = KIND_EYE[hand]
    for k in range(NUM_KINDS):
        out[OBS_SUPPLY + k] = state[SUPPLY + k] / INVENTORY[k]
        out[OBS_DISCARDED + k] = state[DISCARDED + k] / INVENTORY[k]
    out[OBS_SUPPLY_TOTAL] = supply_total(state) / TOTAL_TILES
    for q in range(n):
        rel = (q - player) % n
        out[OBS_SCORES + rel] = min(state[SCORE + q] / TOTAL_TILES, 1.0)
        out[OBS_FIRST_DONE + rel] = state[MON_DONE + q]
        m = state[CURRENT_MONSTER + q]
        if m >= 0:
            out[OBS_CURRENT_SIZE + rel] = state[MON_SIZE + m] / TOTAL_TILES
            out[OBS_CURRENT_OPEN + rel] = open_sides(state, m) / OPEN_SCALE
        out[OBS_SEATED + rel] = 1.0
    if state[H_CURRENT] >= 0:
        out[OBS_ON_MOVE + (state[H_CURRENT] - player) % n] = 1.0
    out[OBS_FIRST_PLAYER + (state[FIRST_PLAYER] - player) % n] = 1.0
    out[OBS_PHASE + state[PHASE]] = 1.0


@njit(DETERMINIZE_SIG, cache=True)
def determinize(state, player, rng):
    """Nothing to resample: every field of the state is public and the supply has no order
    in it (MF-18), so the state is already a sample of what ``player`` considers possible."""
    return
