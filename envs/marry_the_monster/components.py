"""Marry the Monster's components, loaded once from ``seeds/marry_the_monster/``.

The board (MTM-1) is a table of cell values row by row; its geometry (cells, rays,
lines, cell sets) is derived here so the kernels only read precomputed tables.
"""

import json

import numpy as np

from monster_zoo.seeds import game_dir

SEEDS_DIR = game_dir("marry_the_monster")
DATA = json.loads((SEEDS_DIR / "components.json").read_text(encoding="utf-8"))

# --- cards -----------------------------------------------------------------------
STOMP, BUILD, FORTIFY = 0, 1, 2
CARD_NAMES = ("stomp", "build", "fortify")
NUM_CARD_TYPES = 3
DECK_COUNTS = np.array([DATA["deck"][name] for name in CARD_NAMES], dtype=np.int32)
DECK_SIZE = int(DECK_COUNTS.sum())
HAND_SIZE = int(DATA["hand_size"])
PIECES = int(DATA["pieces_per_player"])
MAX_PLAYERS = int(DATA["max_players"])
MIN_PLAYERS = int(DATA["min_players"])
EXTRA_DRAWS = np.zeros((MAX_PLAYERS + 1, MAX_PLAYERS), dtype=np.int32)
for _n, _extras in DATA["first_turn_extra_draws"].items():
    EXTRA_DRAWS[int(_n), : len(_extras)] = _extras

FREE_HOUSE_STEPS = np.array(DATA["free_houses"], dtype=np.int32)  # rows (from_points, houses)
DOUBLE_STOMP_POINTS = int(DATA["double_stomp_points"])
OPPONENT_TARGET_POINTS = int(DATA["opponent_target_points"])
WIN_POINTS = int(DATA["win_points"])
WIN_TOWERS = int(DATA["win_towers"])
INSTANT_WIN_POINTS = int(DATA["instant_win_points"])
FREE_TOWER_FROM = int(DATA["free_tower_from_points"])
FREE_TOWER_EVERY = int(DATA["free_tower_every"])
FREE_TOWER_BASE = int(DATA["free_tower_base_points"])
HOUSES_PER_BUILD = int(DATA["houses_per_build"])
MAX_STOMP_CARDS = int(DATA["max_stomp_cards"])
TRIPLE = int(DATA["substitute_triple"])
NO_PLAY_DRAW = int(DATA["no_play_draw"])
TURN_DRAW = int(DATA["turn_draw"])
TOWER = int(DATA["building_heights"]["tower"])

# --- board ------------------------------------------------------------------------
BOARD_ROWS = [list(map(int, row)) for row in DATA["board"]["rows"]]
RADIUS = len(BOARD_ROWS) // 2
# Axial directions on a pointy-top hex grid, in the order the actions use.
DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
DIRECTION_NAMES = ("E", "NE", "NW", "W", "SW", "SE")
NUM_DIRS = 6


def _cells():
    """Axial coordinates row by row (north to south, west to east)."""
    out = []
    for r in range(-RADIUS, RADIUS + 1):
        for q in range(max(-RADIUS, -RADIUS - r), min(RADIUS, RADIUS - r) + 1):
            out.append((q, r))
    return out


COORDS = np.array(_cells(), dtype=np.int32)
NUM_CELLS = len(COORDS)
_INDEX = {(int(q), int(r)): i for i, (q, r) in enumerate(COORDS)}
_ROW_LENGTHS = [sum(1 for _, r in COORDS if r == row - RADIUS) for row in range(2 * RADIUS + 1)]
if [len(row) for row in BOARD_ROWS] != _ROW_LENGTHS:
    raise ValueError(f"components.json: board rows must have lengths {_ROW_LENGTHS} (a hexagon)")
VALUE = np.array([v for row in BOARD_ROWS for v in row], dtype=np.int32)
MAX_RAY = 2 * RADIUS

# RAY[c, d, k]: the k-th cell from c in direction d (-1 past the edge).
RAY = np.full((NUM_CELLS, NUM_DIRS, MAX_RAY), -1, dtype=np.int32)
RAY_LEN = np.zeros((NUM_CELLS, NUM_DIRS), dtype=np.int32)
# LINE_DIR / LINE_DIST[a, b]: direction and distance from a to b when they share a line, else -1.
LINE_DIR = np.full((NUM_CELLS, NUM_CELLS), -1, dtype=np.int32)
LINE_DIST = np.full((NUM_CELLS, NUM_CELLS), -1, dtype=np.int32)
for _c, (_q, _r) in enumerate(COORDS):
    for _d, (_dq, _dr) in enumerate(DIRECTIONS):
        _k = 0
        while (int(_q) + (_k + 1) * _dq, int(_r) + (_k + 1) * _dr) in _INDEX:
            _t = _INDEX[(int(_q) + (_k + 1) * _dq, int(_r) + (_k + 1) * _dr)]
            RAY[_c, _d, _k] = _t
            LINE_DIR[_c, _t] = _d
            LINE_DIST[_c, _t] = _k + 1
            _k += 1
        RAY_LEN[_c, _d] = _k

# Cell sets as 64-bit masks: bit c is cell c.
CELL_BIT = np.array([1 << c for c in range(NUM_CELLS)], dtype=np.uint64)
ALL_CELLS = np.uint64((1 << NUM_CELLS) - 1)
LINE_BITS = np.array(
    [sum(1 << int(t) for t in range(NUM_CELLS) if LINE_DIR[c, t] >= 0) for c in range(NUM_CELLS)],
    dtype=np.uint64,
)
# RAY_BIT[c, d, k]: the bit of RAY[c, d, k], 0 past the edge.
RAY_BIT = np.where(
    RAY >= 0, np.left_shift(np.uint64(1), np.maximum(RAY, 0).astype(np.uint64)), np.uint64(0)
).astype(np.uint64)

# Rows for rendering and cell names: row letters A.. north to south, numbers west to east.
ROW_LETTERS = "ABCDEFGHIJKLM"
CELL_NAMES = []
for _i, (_q, _r) in enumerate(COORDS):
    _row = int(_r) + RADIUS
    _first_q = max(-RADIUS, -RADIUS - int(_r))
    CELL_NAMES.append(f"{ROW_LETTERS[_row]}{int(_q) - _first_q + 1}")
CELL_NAMES = tuple(CELL_NAMES)
CELL_BY_NAME = {name: i for i, name in enumerate(CELL_NAMES)}
FACHAN_START = CELL_BY_NAME[DATA["board"]["fachan_start"]]


def cell(name: str) -> int:
    """Cell index from its name (``"D4"`` is the centre)."""
    try:
        return CELL_BY_NAME[name.strip().upper()]
    except KeyError:
        raise ValueError(
            f"unknown cell {name!r}; cells are {CELL_NAMES[0]}..{CELL_NAMES[-1]} "
            f"(rows A-{ROW_LETTERS[2 * RADIUS]})"
        ) from None


# --- card plays -------------------------------------------------------------------
def _plays():
    """Every way to play cards in step 4: (kind, stomp strength, cost in cards S/B/F, label).

    A single card of a type, or three of one type standing in for one of another
    type (MTM-8); a stomp of 1-3 units, each unit a Stomp card or such a triple.
    """
    plays = []
    for kind in (BUILD, FORTIFY):
        cost = [0, 0, 0]
        cost[kind] = 1
        plays.append((kind, 0, tuple(cost), f"play {CARD_NAMES[kind]}"))
        for other in range(NUM_CARD_TYPES):
            if other != kind:
                cost = [0, 0, 0]
                cost[other] = TRIPLE
                plays.append((kind, 0, tuple(cost), f"play {CARD_NAMES[kind]} (3 {CARD_NAMES[other]})"))
    for n in range(1, MAX_STOMP_CARDS + 1):
        for b in range(n + 1):
            for f in range(n - b + 1):
                s = n - b - f
                parts = [
                    f"{k} {CARD_NAMES[t]}"
                    for k, t in ((s, STOMP), (TRIPLE * b, BUILD), (TRIPLE * f, FORTIFY))
                    if k
                ]
                label = f"stomp {n}" + ("" if b == f == 0 else f" ({' + '.join(parts)})")
                plays.append((STOMP, n, (s, TRIPLE * b, TRIPLE * f), label))
    return plays


_PLAYS = _plays()
NUM_PLAYS = len(_PLAYS)
PLAY_KIND = np.array([p[0] for p in _PLAYS], dtype=np.int32)
PLAY_STRENGTH = np.array([p[1] for p in _PLAYS], dtype=np.int32)
PLAY_COST = np.array([p[2] for p in _PLAYS], dtype=np.int32)
PLAY_LABELS = tuple(p[3] for p in _PLAYS)
