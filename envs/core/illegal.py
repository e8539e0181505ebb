"""Why an action is refused, worded once for every entry point (AEC env, learner env, vec env).

Each message names who acted, the action (its index and, when it is an index, its name in
the current state), the rule it breaks (the game's ``illegal_reason`` kernel) and the
moves that are legal instead.
"""
import numbers
from typing import Optional

import numpy as np

ILLEGAL_ACTION_CHOICES = ("raise", "penalize")


def action_index(action):
    """``int(action)`` for an integer action (Python, numpy scalar or 0-d array), else None."""
    if isinstance(action, (bool, np.bool_)):
        return None
    if isinstance(action, numbers.Integral):
        return int(action)
    if isinstance(action, np.ndarray) and action.size == 1 and np.issubdtype(action.dtype, np.integer):
        return int(action.reshape(()))
    return None


def refusal(spec, state: np.ndarray, mask: np.ndarray, who: str, action) -> Optional[str]:
    """None if ``action`` is legal for ``who`` (the seat on move in ``state``, legal
    actions ``mask``), else the error message."""
    a = action_index(action)
    if a is None:
        shown = action.item() if isinstance(action, np.generic) else action
        return f"{who}: action {shown!r} is not an integer action index"
    if not 0 <= a < spec.num_actions:
        return f"{who}: action {a} is out of range 0..{spec.num_actions - 1}"
    if mask[a]:
        return None
    code = int(spec.illegal_reason(state, a))
    why = spec.reasons.get(code, "it is not among the legal moves")
    return (f"{who}: action {a} ({spec.action_to_str(a, state)}) is illegal: {why}; "
            f"legal now: {legal_summary(spec, state, mask)}")


def legal_summary(spec, state: np.ndarray, mask: np.ndarray, shown: int = 8) -> str:
    """The first legal actions of ``mask`` by name, for error messages."""
    legal = np.flatnonzero(mask).tolist()
    names = [spec.action_to_str(a, state) for a in legal[:shown]]
    more = f" and {len(legal) - shown} more" if len(legal) > shown else ""
    return ", ".join(names) + more


def check_illegal_action_option(value, where: str) -> str:
    """``value`` if it is a valid ``illegal_action`` choice, else ValueError listing them."""
    if value not in ILLEGAL_ACTION_CHOICES:
        listed = ", ".join(repr(c) for c in ILLEGAL_ACTION_CHOICES)
        raise ValueError(f"{where}: option illegal_action={value!r} is not valid; valid values: {listed}")
    return value
