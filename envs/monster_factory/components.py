"""Monster Factory's components, loaded once from ``seeds/monster_factory/``.

The tile inventory (ruling MF1) becomes tile kinds: one kind per edge pattern
and eye, so 2000 with an eye and 2000 without are two kinds (MF-2). Every
orientation's edges are precomputed so the kernels only read tables.
"""

import json

import numpy as np

from monster_zoo.seeds import game_dir

SEEDS_DIR = game_dir("monster_factory")
DATA = json.loads((SEEDS_DIR / "components.json").read_text(encoding="utf-8"))

MIN_PLAYERS = int(DATA["min_players"])
MAX_PLAYERS = int(DATA["max_players"])
DEFAULT_PLAYERS = int(DATA["default_players"])
SIDE_NAMES = tuple(DATA["sides"])  # N, E, S, W
NUM_SIDES = len(SIDE_NAMES)
NUM_ROTATIONS = NUM_SIDES
BLANK, THIN, THICK = 0, 1, 2
# Grid steps per side; y grows southwards so that text renders north up.
DX = np.array([0, 1, 0, -1], dtype=np.int32)
DY = np.array([-1, 0, 1, 0], dtype=np.int32)
OPPOSITE = np.array([2, 3, 0, 1], dtype=np.int32)


def _kinds():
    """(edge pattern, eye, count) per tile kind: the eyed variant first, then the plain one."""
    kinds = []
    for pattern, entry in DATA["tiles"].items():
        if pattern.startswith("_"):
            continue
        count, eyes = entry
        if len(pattern) != NUM_SIDES or set(pattern) - {"0", "1", "2"} or not 0 <= eyes <= count:
            raise ValueError(f"components.json: bad tile entry {pattern}: {[count, eyes]}")
        if eyes:
            kinds.append((pattern, 1, eyes))
        if count > eyes:
            kinds.append((pattern, 0, count - eyes))
    return kinds


_KINDS = _kinds()
NUM_KINDS = len(_KINDS)
KIND_NAMES = tuple(p + ("e" if eye else "") for p, eye, _ in _KINDS)
KIND_BY_NAME = {name: k for k, name in enumerate(KIND_NAMES)}
KIND_EYE = np.array([eye for _, eye, _ in _KINDS], dtype=np.int32)
INVENTORY = np.array([c for _, _, c in _KINDS], dtype=np.int32)
TOTAL_TILES = int(INVENTORY.sum())
BASE_EDGES = np.array([[int(ch) for ch in p] for p, _, _ in _KINDS], dtype=np.int32)

# EDGES[kind, rotation, side]: rotation r turns the tile r quarter turns clockwise (MF-3),
# so the side s shows the printed edge of side s - r.
EDGES = np.zeros((NUM_KINDS, NUM_ROTATIONS, NUM_SIDES), dtype=np.int32)
for _k in range(NUM_KINDS):
    for _r in range(NUM_ROTATIONS):
        for _s in range(NUM_SIDES):
            EDGES[_k, _r, _s] = BASE_EDGES[_k, (_s - _r) % NUM_SIDES]
# ROTATION_NEW[kind, r]: 1 unless a lower rotation shows the same edges (MF-3, MF-19).
ROTATION_NEW = np.ones((NUM_KINDS, NUM_ROTATIONS), dtype=np.int32)
for _k in range(NUM_KINDS):
    for _r in range(NUM_ROTATIONS):
        for _q in range(_r):
            if (EDGES[_k, _q] == EDGES[_k, _r]).all():
                ROTATION_NEW[_k, _r] = 0

# Open cells (MF-19): empty cells that a thin or thick edge of a monster in progress faces. A
# tile with e thin or thick edges joins at least one of them to an open edge of the monster it
# goes on (MF-10), covering that edge too, so it adds at most e - 2 open edges; a monster's first
# tile adds its e <= 2 + max(e - 2, 0). At most one monster per seat is in progress (MF-13), so
# all of them together never show more open edges, hence never more open cells, than this bound
# (43 with the inventory of ruling MF1); the placement actions number that many cells.
JOINING_EDGES = (BASE_EDGES != BLANK).sum(axis=1).astype(np.int32)
MAX_OPEN_CELLS = int((np.maximum(JOINING_EDGES - 2, 0) * INVENTORY).sum()) + 2 * MAX_PLAYERS
# What lies across each side of an open cell, one base-4 digit per side (side d at 4**d):
# the edge shown towards the cell (BLANK, THIN, THICK) or NO_TILE. NUM_NEEDS codes in all.
NO_TILE = 3
NUM_NEEDS = 4**NUM_SIDES
ALL_EMPTY = NUM_NEEDS - 1
# Monster slots: a complete monster has at least 2 tiles (every tile shows a thin or thick
# edge, so a lone tile is never complete) and at most MAX_PLAYERS monsters are in progress
# (one tile or more each): 2 * complete + in_progress <= 88 bounds all monsters ever started.
MAX_MONSTERS = (TOTAL_TILES + MAX_PLAYERS) // 2


def kind(name: str) -> int:
    """Tile kind index from its name, e.g. ``"2101e"`` (edges N E S W, ``e`` for an eye)."""
    try:
        return KIND_BY_NAME[name.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown tile kind {name!r}; kinds: {', '.join(KIND_NAMES)}") from None
