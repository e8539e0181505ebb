"""A read of a MONSTArgh! table that both the rules and the action names use.

Kept apart from ``rules.py`` so that ``actions.py``, which ``rules.py`` imports for the action
offsets, can name a steal's victim without importing the rules back.
"""

from ..core.kernels import inlined
from .components import NUM_CARDS, NUM_NEAR
from .state_layout import CARD_CELL, NEAR, W_TABLE, WHERE

NO_CARD = NUM_CARDS  # in NEAR: no card there (above every card id, so never the lowest)


@inlined
def neighbour_top(state, card, d):
    """The visible card on side ``d`` of ``card``'s cell, or -1 (also when ``card`` is not on the table)."""
    if card < 0 or state[WHERE + card] != W_TABLE:
        return -1
    top = state[NEAR + state[CARD_CELL + card] * NUM_NEAR + d]
    return top if top != NO_CARD else -1
