"""Monster Factory's action space: one ``Discrete(8476)``.

=============  ================================================================
index          meaning
=============  ================================================================
0-27           choose a start tile of kind k (MF-5), kinds in ``KIND_NAMES``
28-8475        place the tile in hand: ``28 + ((seat*88 + t)*4 + side)*4 + r``
               = on seat's monster in progress, on the empty cell beside its
               tile t (placement order) on side N/E/S/W, in orientation r
               (quarter turns clockwise) (MF-19)
=============  ================================================================

A cell next to several tiles of a monster is offered only from its neighbour
with the lowest t, and orientations that show the same edges only with the
lowest r, so each legal placement is exactly one action (MF-19).
"""
import re

from .components import (KIND_NAMES, MAX_MONSTER_TILES, MAX_PLAYERS, NUM_KINDS, NUM_ROTATIONS,
                         NUM_SIDES, SIDE_NAMES, kind)
from .layout import HAND

START0 = 0
PLACE0 = START0 + NUM_KINDS
NUM_ACTIONS = PLACE0 + MAX_PLAYERS * MAX_MONSTER_TILES * NUM_SIDES * NUM_ROTATIONS


def place_action(seat: int, tile: int, side: int, rotation: int) -> int:
    """The action index of a placement (see the module table)."""
    return PLACE0 + ((seat * MAX_MONSTER_TILES + tile) * NUM_SIDES + side) * NUM_ROTATIONS + rotation


def decode_place(action: int):
    """``(seat, tile, side, rotation)`` of a placement action."""
    a = int(action) - PLACE0
    a, rotation = divmod(a, NUM_ROTATIONS)
    a, side = divmod(a, NUM_SIDES)
    seat, tile = divmod(a, MAX_MONSTER_TILES)
    return seat, tile, side, rotation


def action_to_str(action: int, state=None) -> str:
    """Name an action; with ``state`` a placement also shows the tile and the target cell."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        return f"<out of range {a}>"
    if a < PLACE0:
        return f"start {KIND_NAMES[a - START0]}"
    seat, tile, side, rotation = decode_place(a)
    name = f"place p{seat} t{tile} {SIDE_NAMES[side]} r{rotation}"
    if state is not None and int(state[HAND]) >= 0:
        from .rules import NO_CELL, placement_cell  # rules imports this module

        x, y = placement_cell(state, seat, tile, side)
        if x != NO_CELL:
            name += f" [{KIND_NAMES[int(state[HAND])]} at {x},{y}]"
    return name


_SIDE_BY_NAME = {s.lower(): i for i, s in enumerate(SIDE_NAMES)}


def str_to_action(text: str) -> int:
    """Parse an action name as printed by ``action_to_str`` (case-insensitive) or an index."""
    t = " ".join(str(text).strip().lower().split())
    if re.fullmatch(r"\d+", t):
        a = int(t)
        if a < NUM_ACTIONS:
            return a
        raise ValueError(f"action index {a} is out of range 0..{NUM_ACTIONS - 1}")
    m = re.fullmatch(r"start (\w+)", t)
    if m:
        return START0 + kind(m.group(1))
    m = re.fullmatch(r"place p(\d+) t(\d+) ([nesw]) r(\d+)(?: \[[^\]]*\])?", t)
    if m:
        seat, tile, rotation = int(m.group(1)), int(m.group(2)), int(m.group(4))
        if seat < MAX_PLAYERS and tile < MAX_MONSTER_TILES and rotation < NUM_ROTATIONS:
            return place_action(seat, tile, _SIDE_BY_NAME[m.group(3)], rotation)
    raise ValueError(f"cannot read action {text!r}; examples: 'start 2101e', 'place p1 t0 N r2' "
                     f"(seat 0-{MAX_PLAYERS - 1}, tile 0-{MAX_MONSTER_TILES - 1}, side N/E/S/W, "
                     f"rotation 0-3)")
