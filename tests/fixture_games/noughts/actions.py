"""Monster Noughts' actions: one per cell, named ``a1`` (top left) to ``c3`` (bottom right) (NC-1)."""

import re

from monster_zoo.envs.core.naming import read_action_text

from .state_layout import NUM_CELLS

NUM_ACTIONS = NUM_CELLS


def cell_name(cell: int) -> str:
    """``a1`` .. ``c3`` for cells 0 .. 8 (row by row)."""
    return f"{'abc'[cell // 3]}{cell % 3 + 1}"


def action_to_str(action, state=None) -> str:
    """The action's cell name."""
    a = int(action)
    return cell_name(a) if 0 <= a < NUM_ACTIONS else f"<out of range {a}>"


def str_to_action(text: str) -> int:
    """Parse a cell name (``b2``) or an action index."""
    t, index = read_action_text(text, NUM_ACTIONS)
    if index is not None:
        return index
    if re.fullmatch(r"[abc][123]", t):
        return "abc".index(t[0]) * 3 + int(t[1]) - 1
    raise ValueError(
        f"unknown action {text!r}; valid: a cell a1..c3 (row a-c, column 1-3) or an index "
        f"0..{NUM_ACTIONS - 1}"
    )
