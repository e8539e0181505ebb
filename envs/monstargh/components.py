"""MONSTArgh!'s components, loaded once from ``seeds/monstargh/``.

Cards have fixed ids whatever species are in play: card ``6 * species + value - 1``
(species in the order of ``SPECIES``), so a card means the same thing in every game.
"""

import json

import numpy as np

from monster_zoo.seeds import game_dir

SEEDS_DIR = game_dir("monstargh")
DATA = json.loads((SEEDS_DIR / "components.json").read_text(encoding="utf-8"))

SPECIES = tuple(DATA["species"])
NUM_SPECIES = len(SPECIES)
VALUES = tuple(int(v) for v in DATA["values"])
NUM_VALUES = len(VALUES)
NUM_CARDS = NUM_SPECIES * NUM_VALUES  # one card per species and value (MA-1)
CARD_SPECIES = np.array([c // NUM_VALUES for c in range(NUM_CARDS)], dtype=np.int64)
CARD_VALUE = np.array([VALUES[c % NUM_VALUES] for c in range(NUM_CARDS)], dtype=np.int64)
CARD_NAMES = tuple(f"{SPECIES[c // NUM_VALUES]} {VALUES[c % NUM_VALUES]}" for c in range(NUM_CARDS))

MIN_PLAYERS = int(DATA["min_players"])
MAX_PLAYERS = int(DATA["max_players"])
DEFAULT_PLAYERS = int(DATA["default_players"])
SPECIES_IN_PLAY = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
for _n, _count in DATA["species_in_play"].items():
    SPECIES_IN_PLAY[int(_n)] = _count

MONSTERS_DEALT = int(DATA["monster_cards_dealt"])
FOCUS_AMOUNTS = np.array(DATA["focus_cards"], dtype=np.int64)  # one card of each per player
NUM_FOCUS = len(FOCUS_AMOUNTS)
DRAW_AFTER_PLAY = int(DATA["draw_after_play"])
STARS_TO_END = int(DATA["stars_to_end"])

# Orthogonal directions on the square grid, in the order the actions use (y grows southwards).
DIRECTIONS = ((0, -1), (1, 0), (0, 1), (-1, 0))
DIRECTION_NAMES = ("north", "east", "south", "west")
DX = np.array([d[0] for d in DIRECTIONS], dtype=np.int64)
DY = np.array([d[1] for d in DIRECTIONS], dtype=np.int64)
NUM_DIRS = 4

# The cells near a cell that decide its placements: the 4 sides (index d), the cells two steps
# away on side d (4 + d) and the diagonal between sides d and d + 1 (8 + d). The cell on side d
# borders the cell itself and near cells 4 + d, 8 + d and 8 + (d + 3) % 4.
NEAR_X = np.concatenate([DX, 2 * DX, DX + np.roll(DX, -1)])
NEAR_Y = np.concatenate([DY, 2 * DY, DY + np.roll(DY, -1)])
NUM_NEAR = len(NEAR_X)
# Near index of the offset (dx, dy) at [(dy + 3) * 7 + dx + 3], -1 when not near; dx and dy
# clamped to [-3, 3] first, so that any offset is looked up without a branch.
NEAR_SPAN = 3
NEAR_INDEX = np.full((2 * NEAR_SPAN + 1) ** 2, -1, dtype=np.int64)
NEAR_INDEX[(NEAR_Y + NEAR_SPAN) * (2 * NEAR_SPAN + 1) + NEAR_X + NEAR_SPAN] = np.arange(NUM_NEAR)
# A cell is near index j of its near cell at index NEAR_BACK[j] (the opposite offset).
NEAR_BACK = np.array(
    [
        NEAR_INDEX[(NEAR_SPAN - NEAR_Y[j]) * (2 * NEAR_SPAN + 1) + NEAR_SPAN - NEAR_X[j]]
        for j in range(NUM_NEAR)
    ],
    dtype=np.int64,
)

# A scene places every monster card at most once and each placement borders an occupied
# cell, so no cell is ever more than NUM_CARDS - 1 steps from the origin.
MAX_REACH = NUM_CARDS - 1


def card_id(name: str) -> int:
    """The id of a card named like ``"red 5"`` (case-insensitive)."""
    key = " ".join(name.strip().lower().split())
    for c, card in enumerate(CARD_NAMES):
        if card == key:
            return c
    raise ValueError(
        f"no card named {name!r}; cards are '<species> <value>' with species "
        f"{', '.join(SPECIES)} and values 1-6"
    )
