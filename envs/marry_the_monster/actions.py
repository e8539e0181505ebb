"""Marry the Monster's action space: one ``Discrete(99)``.

======  =======================================================================
index   meaning
======  =======================================================================
0-36    choose a cell (what it does depends on the phase: free house or free
        tower in step 3, house of a Build, building to fortify, stomp target)
37-72   move the fachan: 37 + 6*direction + (distance - 1), directions E, NE,
        NW, W, SW, SE
73-97   play cards: Build / Fortify with a card or a triple, stomps of 1-3
        units paid with Stomp cards or triples (see ``PLAY_LABELS``)
98      end: stop placing free houses, stop a Build after its first house,
        or end the turn
======  =======================================================================
"""

import re

from ..core.naming import read_action_text
from .components import (
    CELL_NAMES,
    DIRECTION_NAMES,
    MAX_RAY,
    NUM_CELLS,
    NUM_DIRS,
    NUM_PLAYS,
    PLAY_LABELS,
    cell,
)

CELL0 = 0
MOVE0 = CELL0 + NUM_CELLS
PLAY0 = MOVE0 + NUM_DIRS * MAX_RAY
END = PLAY0 + NUM_PLAYS
NUM_ACTIONS = END + 1  # every decision is one of these actions (MTM-23)


def action_to_str(action: int, state=None) -> str:
    """Name an action; with ``state`` a cell choice says what it does in that phase."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        return f"<out of range {a}>"
    if a < MOVE0:
        if state is not None:
            from .state_layout import HEIGHT, PH_BUILD, PH_FORTIFY, PH_FREE, PH_STOMP, PHASE

            phase = int(state[PHASE])
            empty = int(state[HEIGHT + a]) == 0
            if phase in (PH_FREE, PH_BUILD) and empty:
                return f"house {CELL_NAMES[a]}"
            if phase == PH_FREE:
                return f"tower {CELL_NAMES[a]}"
            if phase == PH_FORTIFY:
                return f"fortify {CELL_NAMES[a]}"
            if phase == PH_STOMP:
                return f"target {CELL_NAMES[a]}"
        return f"cell {CELL_NAMES[a]}"
    if a < PLAY0:
        d, k = divmod(a - MOVE0, MAX_RAY)
        return f"move {DIRECTION_NAMES[d]} {k + 1}"
    if a < END:
        return PLAY_LABELS[a - PLAY0]
    return "end"


_PLAY_BY_LABEL = {label: PLAY0 + i for i, label in enumerate(PLAY_LABELS)}
_DIR_BY_NAME = {name: i for i, name in enumerate(DIRECTION_NAMES)}


def str_to_action(text: str) -> int:
    """Parse an action name as printed by ``action_to_str`` (case-insensitive) or an index."""
    t, index = read_action_text(text, NUM_ACTIONS)
    if index is not None:
        return index
    if t == "end":
        return END
    m = re.fullmatch(r"(?:cell|house|tower|fortify|target) ([a-z]\d+)", t)
    if m:
        return CELL0 + cell(m.group(1))
    m = re.fullmatch(r"move ([a-z]+) (\d+)", t)
    if m and m.group(1).upper() in _DIR_BY_NAME and 1 <= int(m.group(2)) <= MAX_RAY:
        return MOVE0 + _DIR_BY_NAME[m.group(1).upper()] * MAX_RAY + int(m.group(2)) - 1
    if t in _PLAY_BY_LABEL:
        return _PLAY_BY_LABEL[t]
    raise ValueError(
        f"cannot read action {text!r}; examples: 'house D4', 'move NE 2', 'play build', 'stomp 2', 'end'"
    )
