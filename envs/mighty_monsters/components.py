"""Mighty Monsters' components, loaded once from ``seeds/mighty_monsters/components.json``.

Monster cards, the 36 guards, the guard backs, the round table, replacement
fees and the 12 king tiles become numpy tables the kernels read.
"""

import json
from itertools import combinations

import numpy as np

from monster_zoo.seeds import game_dir

SEEDS_DIR = game_dir("mighty_monsters")
DATA = json.loads((SEEDS_DIR / "components.json").read_text(encoding="utf-8"))

MIN_PLAYERS = int(DATA["min_players"])
MAX_PLAYERS = int(DATA["max_players"])
STARTING_GOLD = int(DATA["starting_gold"])

# --- monster cards: card k of every player has strength STRENGTH[k] ------------------
STRENGTH = np.array(DATA["monsters"]["strength"], dtype=np.int32)
HEALING = np.array(DATA["monsters"]["healing"], dtype=np.int32)
NUM_CARDS = len(STRENGTH)
MAX_STRENGTH = int(STRENGTH.max())
UNREPLACEABLE = int(DATA["monsters"]["unreplaceable_strength"])
HAND_SIZE = int(DATA["hand_size"])
FACE_DOWN = int(DATA["face_down"])
PER_ROUND = int(DATA["monsters_per_round"])
if HAND_SIZE + FACE_DOWN != NUM_CARDS or PER_ROUND != FACE_DOWN:
    raise ValueError(
        "components.json: hand + face-down cards must be the whole set, "
        "and a round plays as many cards as lie face down"
    )

# Setup choices: the pairs of cards a player lays face down (MM-4).
SETUP_PAIRS = np.array(list(combinations(range(NUM_CARDS), FACE_DOWN)), dtype=np.int32)
NUM_SETUP_PAIRS = len(SETUP_PAIRS)

# --- castle ----------------------------------------------------------------------------
SIDES = 2  # monster spaces beside each guard
NUM_SPACES = MAX_PLAYERS * SIDES
ROUNDS = np.zeros(MAX_PLAYERS + 1, dtype=np.int32)
for _n, _r in DATA["rounds"].items():
    ROUNDS[int(_n)] = _r

# --- replacement fees by guard level (index 1-3) ----------------------------------------
FEE_TREASURY = np.array([0] + DATA["replacement"]["treasury"], dtype=np.int32)
FEE_OWNER = np.array([0] + DATA["replacement"]["owner"], dtype=np.int32)
FEE_OWN_CARD = int(DATA["replacement"]["own_card"])

# --- guards ------------------------------------------------------------------------------
NUM_LEVELS = 3
LEVEL_STRENGTH = np.array([[0, 0]] + DATA["guard_levels"]["strength"], dtype=np.int32)  # [level, min/max]
LEVEL_LOOT = np.array([[0, 0]] + DATA["guard_levels"]["loot"], dtype=np.int32)
_guards = [(lvl, s, loot) for lvl in range(1, NUM_LEVELS + 1) for s, loot in DATA["guards"][str(lvl)]]
NUM_GUARDS = len(_guards)
GUARD_LEVEL = np.array([g[0] for g in _guards], dtype=np.int32)
GUARD_STRENGTH = np.array([g[1] for g in _guards], dtype=np.int32)
GUARD_LOOT = np.array([g[2] for g in _guards], dtype=np.int32)
for _lvl, _s, _loot in _guards:
    if not (
        LEVEL_STRENGTH[_lvl, 0] <= _s <= LEVEL_STRENGTH[_lvl, 1]
        and LEVEL_LOOT[_lvl, 0] <= _loot <= LEVEL_LOOT[_lvl, 1]
    ):
        raise ValueError(f"components.json: guard ({_s}, {_loot}) lies outside its level-{_lvl} back")
MAX_GUARD_STRENGTH = int(LEVEL_STRENGTH[:, 1].max())
MAX_GUARD_LOOT = int(LEVEL_LOOT[:, 1].max())
LEVEL_SIZE = np.array(
    [0] + [int((GUARD_LEVEL == lvl).sum()) for lvl in range(1, NUM_LEVELS + 1)], dtype=np.int32
)

# --- king tiles (MM-20) -------------------------------------------------------------------
_tiles = DATA["king_tiles"]["tiles"]
NUM_KING_TILES = len(_tiles)
KING_NAMES = tuple(t["name"] for t in _tiles)
KING_NO_STRENGTH = np.array([t.get("no_strength", 0) for t in _tiles], dtype=np.int32)
KING_HEAL = np.array(
    [[int(t.get("heal", {}).get(str(int(s)), h)) for s, h in zip(STRENGTH, HEALING)] for t in _tiles],
    dtype=np.int32,
)  # [tile, card] healing cost
KING_EQUAL_LOOT = np.array([t.get("equal_pair_loot", 0) for t in _tiles], dtype=np.int32)
KING_WEAKEST_LOOT = np.array([t.get("weakest_pairs_loot", 0) for t in _tiles], dtype=np.int32)
# KING_HAND[tile, card]: 1 if the tile sends the card to hand, 0 face down; all 1 = no such rule.
KING_HAND = np.array(
    [[int(s) in t.get("hand_strengths", list(map(int, STRENGTH))) for s in STRENGTH] for t in _tiles],
    dtype=np.int32,
)
KING_SORTS_HANDS = np.array(["hand_strengths" in t for t in _tiles], dtype=np.int32)
# KING_GUARD[tile, end, i, (strength, loot)]: end 0 counts from the main gate, 1 from the far end.
KING_GUARD = np.zeros((NUM_KING_TILES, 2, MAX_PLAYERS, 2), dtype=np.int32)
for _t, _tile in enumerate(_tiles):
    for _m in _tile.get("guards", []):
        _end = {"first": 0, "last": 1}[_m["from"]]
        KING_GUARD[_t, _end, _m["position"] - 1] += (_m["strength"], _m["loot"])
if max(ROUNDS) > NUM_KING_TILES:
    raise ValueError("components.json: more rounds than king tiles")


def card_name(k: int) -> str:
    """A monster card's name: its strength."""
    return str(int(STRENGTH[k]))


def space_name(space: int) -> str:
    """Monster space name: guard position from the main gate (1-6) and side (a/b), e.g. ``G2b``."""
    return f"G{space // SIDES + 1}{'ab'[space % SIDES]}"


def guard_name(guard: int) -> str:
    """A guard card's name: level stars, strength and loot, e.g. ``**7/8``."""
    return f"{'*' * int(GUARD_LEVEL[guard])}{int(GUARD_STRENGTH[guard])}/{int(GUARD_LOOT[guard])}"


if (KING_HAND.sum(axis=1)[KING_SORTS_HANDS == 1] != HAND_SIZE).any():
    raise ValueError("components.json: a king tile's hand_strengths must make a full hand")
