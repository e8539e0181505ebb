"""MONSTArgh!'s action space: one ``Discrete(224)``.

A play is two decisions of the same player (rule MA-19): choose the card, then
where it goes or what it targets. Positions are named relative to the cards on
the table, so no placement is ever out of reach however far the table spreads.

=======  ======================================================================
index    meaning
=======  ======================================================================
0-35     play monster card ``c`` from the hand (card ``6*species + value-1``,
         species green, blue, yellow, red, pink, orange)
36-39    play a focus card: 36 + 2*f + s, f 0 for the ±1 card and 1 for the
         ±2 card, s 0 to raise and 1 to lower
40-183   place the chosen monster on the empty cell on side ``d`` (north, east,
         south, west) of the visible card ``t``: 40 + 4*t + d
184-219  target visible card ``t`` with the focus card: 184 + t
220-223  steal from the neighbour on side ``d`` of the protagonist: 220 + d
=======  ======================================================================
"""

import re

from ..core.naming import read_action_text
from .components import CARD_NAMES, DIRECTION_NAMES, FOCUS_AMOUNTS, NUM_CARDS, NUM_DIRS, NUM_FOCUS, card_id
from .queries import neighbour_top
from .state_layout import PROTAGONIST

CARD0 = 0
FOCUS0 = CARD0 + NUM_CARDS
PLACE0 = FOCUS0 + 2 * NUM_FOCUS
TARGET0 = PLACE0 + NUM_CARDS * NUM_DIRS
STEAL0 = TARGET0 + NUM_CARDS
NUM_ACTIONS = STEAL0 + NUM_DIRS


def focus_label(f: int, sign: int) -> str:
    """``"focus +1"``, ``"focus -2"``, ... for focus card ``f`` and sign index ``sign``."""
    return f"focus {'+-'[sign]}{int(FOCUS_AMOUNTS[f])}"


def action_to_str(action: int, state=None) -> str:
    """Name an action; with ``state`` a steal also names the card stolen from."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        return f"<out of range {a}>"
    if a < FOCUS0:
        return f"play {CARD_NAMES[a - CARD0]}"
    if a < PLACE0:
        f, sign = divmod(a - FOCUS0, 2)
        return focus_label(f, sign)
    if a < TARGET0:
        t, d = divmod(a - PLACE0, NUM_DIRS)
        return f"place {DIRECTION_NAMES[d]} of {CARD_NAMES[t]}"
    if a < STEAL0:
        return f"target {CARD_NAMES[a - TARGET0]}"
    d = a - STEAL0
    if state is not None:
        victim = neighbour_top(state, int(state[PROTAGONIST]), d)
        if victim >= 0:
            return f"steal {DIRECTION_NAMES[d]} ({CARD_NAMES[victim]})"
    return f"steal {DIRECTION_NAMES[d]}"


def str_to_action(text: str) -> int:
    """Parse an action name as printed by ``action_to_str`` (case-insensitive) or an index."""
    t, index = read_action_text(text, NUM_ACTIONS)
    if index is not None:
        return index
    try:
        m = re.fullmatch(r"play ([a-z]+ \d)", t)
        if m:
            return CARD0 + card_id(m.group(1))
        m = re.fullmatch(r"focus ([+-])(\d)", t)
        if m and int(m.group(2)) in [int(x) for x in FOCUS_AMOUNTS]:
            f = [int(x) for x in FOCUS_AMOUNTS].index(int(m.group(2)))
            return FOCUS0 + 2 * f + "+-".index(m.group(1))
        m = re.fullmatch(r"place ([a-z]+) of ([a-z]+ \d)", t)
        if m and m.group(1) in DIRECTION_NAMES:
            return PLACE0 + NUM_DIRS * card_id(m.group(2)) + DIRECTION_NAMES.index(m.group(1))
        m = re.fullmatch(r"target ([a-z]+ \d)", t)
        if m:
            return TARGET0 + card_id(m.group(1))
        m = re.fullmatch(r"steal ([a-z]+)(?: \(.*\))?", t)
        if m and m.group(1) in DIRECTION_NAMES:
            return STEAL0 + DIRECTION_NAMES.index(m.group(1))
    except ValueError as err:
        raise ValueError(f"cannot read action {text!r}: {err}") from None
    raise ValueError(
        f"cannot read action {text!r}; examples: 'play red 5', 'focus -2', "
        f"'place north of blue 4', 'target red 5', 'steal east'"
    )
