"""Reading action names typed by people: the part every game's ``str_to_action`` shares."""

import re


def read_action_text(text, num_actions: int) -> tuple[str, int | None]:
    """``text`` in lower case with single spaces, and the action index when it is a plain number.

    A number outside ``0..num_actions-1`` raises ValueError naming the valid range; so does a digit
    other than 0-9 (``"١"``, ``"²"``), which Python's ``int`` and ``\\d`` would read as a number.
    """
    t = " ".join(str(text).strip().lower().split())
    if any(c.isdigit() and not c.isascii() for c in t):
        raise ValueError(f"cannot read action {str(text)!r}: write numbers with the digits 0-9")
    if re.fullmatch(r"[0-9]+", t):
        index = int(t)
        if index >= num_actions:
            raise ValueError(f"action index {index} is out of range 0..{num_actions - 1}")
        return t, index
    return t, None
