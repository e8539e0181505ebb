"""Monster Factory's cell keys and the open-cell read that both the rules and the action names use.

Kept apart from ``rules.py`` so that ``actions.py``, which ``rules.py`` imports for the action
offsets, can name where a placement goes without importing the rules back.
"""

from numba import types

from ..core.kernels import helper, on_demand
from .state_layout import CELL_KEY, MON_OWNER, NUM_CELLS

I64 = types.int64

# A cell key packs a monster and a cell: monster * KEY_MONSTER + (x + KEY_BIAS) * KEY_ROW + y +
# KEY_BIAS. Cells lie within 88 steps of their monster's first tile, inside the bias.
KEY_BIAS = 128
KEY_ROW = 256
KEY_MONSTER = KEY_ROW * KEY_ROW


@helper(I64(I64, I64, I64))
def cell_key(m, x, y):
    """The key of cell (x, y) of monster ``m``."""
    return m * KEY_MONSTER + (x + KEY_BIAS) * KEY_ROW + y + KEY_BIAS


@helper(I64(I64))
def key_monster(key):
    """The monster of a cell key."""
    return key // KEY_MONSTER


@helper(types.UniTuple(I64, 2)(I64))
def key_cell(key):
    """The cell (x, y) of a cell key."""
    rest = key % KEY_MONSTER
    return rest // KEY_ROW - KEY_BIAS, rest % KEY_ROW - KEY_BIAS


@on_demand
def open_cell(state, j):
    """``(seat, x, y)`` of open cell ``j``: the owner of its monster and the cell relative to that
    monster's first tile; ``(-1, 0, 0)`` when there is no such cell."""
    if j < 0 or j >= state[NUM_CELLS]:
        return -1, 0, 0
    key = state[CELL_KEY + j]
    x, y = key_cell(key)
    return state[MON_OWNER + key_monster(key)], x, y
