"""Mighty Monsters' action space: one ``Discrete(70)``.

======  =======================================================================
index   meaning
======  =======================================================================
0-9     setup: lay a pair of cards face down, pairs of strengths in the order
        1+2, 1+3, 1+4, 1+5, 2+3, 2+4, 2+5, 3+4, 3+5, 4+5 (the other three
        cards form the hand)
10-69   play a monster: ``10 + 12 * (strength - 1) + space``, where space is
        ``2 * (guard position - 1) + side`` (``G1a`` = 0, ``G1b`` = 1, ...
        ``G6b`` = 11). An empty space means placing, an occupied one replacing
        the monster there
======  =======================================================================

The encoding is lossless: every placement and every replacement the rules allow
is one (card, space) pair, and every setup choice one pair of cards.
"""

import re

from ..core.naming import read_action_text
from .components import NUM_CARDS, NUM_SETUP_PAIRS, NUM_SPACES, SETUP_PAIRS, STRENGTH, card_name, space_name

SETUP0 = 0
PLAY0 = SETUP0 + NUM_SETUP_PAIRS
NUM_ACTIONS = PLAY0 + NUM_CARDS * NUM_SPACES  # every decision is one of these actions (MM-17)


def play_action(card: int, space: int) -> int:
    """The action playing card ``card`` (0-4, strength card+1) on ``space`` (0-11)."""
    return PLAY0 + card * NUM_SPACES + space


def setup_name(pair: int) -> str:
    """Name of setup choice ``pair``."""
    a, b = SETUP_PAIRS[pair]
    return f"lay down {card_name(a)}+{card_name(b)}"


def action_to_str(action: int, state=None) -> str:
    """Name an action; with ``state`` a play on an occupied space says whom it replaces."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        return f"<out of range {a}>"
    if a < PLAY0:
        return setup_name(a - SETUP0)
    card, space = divmod(a - PLAY0, NUM_SPACES)
    name = f"play {card_name(card)} at {space_name(space)}"
    if state is not None:
        from .state_layout import SPACE

        occupant = int(state[SPACE + space])
        if occupant >= 0:
            owner, old = divmod(occupant, NUM_CARDS)
            name += f" (replace player_{owner}'s {card_name(old)})"
    return name


_SETUP_BY_NAME = {setup_name(i): SETUP0 + i for i in range(NUM_SETUP_PAIRS)}
_STRENGTHS = [int(s) for s in STRENGTH]


def str_to_action(text: str) -> int:
    """Parse an action name as printed by ``action_to_str`` (case-insensitive) or an index."""
    t, index = read_action_text(text, NUM_ACTIONS)
    if index is not None:
        return index
    if t in _SETUP_BY_NAME:
        return _SETUP_BY_NAME[t]
    m = re.fullmatch(r"play (\d) at g(\d)([ab])(?: \(replace player_\d's \d\))?", t)
    if m and int(m.group(1)) in _STRENGTHS and 1 <= int(m.group(2)) <= NUM_SPACES // 2:
        space = 2 * (int(m.group(2)) - 1) + "ab".index(m.group(3))
        return play_action(_STRENGTHS.index(int(m.group(1))), space)
    raise ValueError(f"cannot read action {text!r}; examples: 'lay down 1+2', 'play 4 at G2a'")
