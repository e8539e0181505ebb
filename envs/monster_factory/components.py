"""Monster Factory's components, loaded once from ``seeds/monster_factory/``.

The tile inventory (ruling MF1) becomes tile kinds: one kind per edge pattern
and eye, so 2000 with an eye and 2000 without are two kinds (MF-2). Every
orientation's edges are precomputed so the kernels only read tables.
"""
import json

import numpy as np

from seeds import game_dir

SEEDS_DIR = game_dir("monster_factory")
DATA = json.loads((SEEDS_DIR / "components.json").read_text(encoding="utf-8"))

MIN_PLAYERS = int(DATA["min_players"])
MAX_PLAYERS = int(DATA["max_players"])
DEFAULT_PLAYERS = int(DATA["default_players"])
SIDE_NAMES = tuple(DATA["sides"])          # N, E, S, W
NUM_SIDES = len(SIDE_NAMES)
NUM_ROTATIONS = NUM_SIDES
BLANK, THIN, THICK = 0, 1, 2
# Grid steps per side; y grows southwards so that text renders north up.
DX = np.array([0, 1, 0, -1], dtype=np.int32)
DY = np.array([-1, 0, 1, 0], dtype=np.int32)
OPPOSITE = np.array([2, 3, 0, 1], dtype=np.int32)
# SIDE_TOWARDS[dx + 1, dy + 1]: the side of a cell facing its neighbour at offset (dx, dy).
SIDE_TOWARDS = np.full((3, 3), -1, dtype=np.int32)
for _d in range(4):
    SIDE_TOWARDS[DX[_d] + 1, DY[_d] + 1] = _d


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

# A monster never holds more tiles than the game has (MF-19's tile index is below this).
MAX_MONSTER_TILES = TOTAL_TILES
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
