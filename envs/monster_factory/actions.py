"""Monster Factory's action space: one ``Discrete(200)``.

=============  ================================================================
index          meaning
=============  ================================================================
0-27           choose a start tile of kind k (MF-5), kinds in ``KIND_NAMES``
28-199         place the tile in hand: ``28 + 4*c + r`` = on open cell c, in
               orientation r (quarter turns clockwise) (MF-19)
=============  ================================================================

The open cells are the empty cells that a thin or thick edge of a monster in
progress faces, over all monsters in progress: a cell that opens takes the
next number, and when one is filled the last-numbered cell takes over its
number. No more than 43 can exist at once (``components.MAX_OPEN_CELLS``). Only an open cell can take a tile, and
orientations that show the same edges are offered with the lowest r only, so
each legal placement is exactly one action (MF-19).
"""

import re

from ..core.naming import read_action_text
from .components import KIND_NAMES, MAX_OPEN_CELLS, NUM_KINDS, NUM_ROTATIONS, kind
from .queries import open_cell
from .state_layout import HAND

START0 = 0
PLACE0 = START0 + NUM_KINDS
NUM_ACTIONS = PLACE0 + MAX_OPEN_CELLS * NUM_ROTATIONS


def place_action(cell: int, rotation: int) -> int:
    """The action index of a placement on open cell ``cell`` in ``rotation``."""
    return PLACE0 + cell * NUM_ROTATIONS + rotation


def decode_place(action: int):
    """``(cell, rotation)`` of a placement action."""
    return divmod(int(action) - PLACE0, NUM_ROTATIONS)


def action_to_str(action: int, state=None) -> str:
    """Name an action; with ``state`` a placement also shows the tile, the monster's seat and
    the cell (relative to that monster's first tile)."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        return f"<out of range {a}>"
    if a < PLACE0:
        return f"start {KIND_NAMES[a - START0]}"
    cell, rotation = decode_place(a)
    name = f"place c{cell} r{rotation}"
    if state is not None and int(state[HAND]) >= 0:
        seat, x, y = open_cell(state, cell)
        if seat >= 0:
            name += f" [{KIND_NAMES[int(state[HAND])]} on p{seat} at {x},{y}]"
    return name


def str_to_action(text: str) -> int:
    """Parse an action name as printed by ``action_to_str`` (case-insensitive) or an index."""
    t, index = read_action_text(text, NUM_ACTIONS)
    if index is not None:
        return index
    m = re.fullmatch(r"start (\w+)", t)
    if m:
        return START0 + kind(m.group(1))
    m = re.fullmatch(r"place c(\d+) r(\d+)(?: \[[^\]]*\])?", t)
    if m:
        cell, rotation = int(m.group(1)), int(m.group(2))
        if cell < MAX_OPEN_CELLS and rotation < NUM_ROTATIONS:
            return place_action(cell, rotation)
    raise ValueError(
        f"cannot read action {text!r}; examples: 'start 2101e', 'place c3 r2' "
        f"(open cell 0-{MAX_OPEN_CELLS - 1} as numbered in the render, rotation 0-3)"
    )
