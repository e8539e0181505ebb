"""Monster Arena's action space: one ``Discrete(437)``.

======  =======================================================================
index   meaning
======  =======================================================================
0-59    take card c: pick a torso half, the dealer's 1-token pick, the auction
        winner's pick, or choose a part of one's inventory to attach
60-239  place the chosen part into slot s of card c: 60 + 3*c + s
240-254 bid k tokens: 240 + k - 1 (k = 1..15)
255-314 target card c: start an attack on it, or the part a Pincer pinches
315-374 attack with card c (add it to the pending attack)
375-434 use the ability of card c (active on one's turn, reactive when attacked)
435     roll the pending attack
436     pass: dealer declines, auction pass, building done, end turn, decline
        to react
======  =======================================================================
"""

import re

from ..core.naming import read_action_text
from .components import CARD_LABEL, DRAFT_TOKENS, MAX_SLOTS, NUM_CARDS, card

TAKE0 = 0
SLOT0 = TAKE0 + NUM_CARDS
BID0 = SLOT0 + NUM_CARDS * MAX_SLOTS
TARGET0 = BID0 + DRAFT_TOKENS
ATTACKER0 = TARGET0 + NUM_CARDS
ABILITY0 = ATTACKER0 + NUM_CARDS
ROLL = ABILITY0 + NUM_CARDS
PASS = ROLL + 1
NUM_ACTIONS = PASS + 1


def action_to_str(action: int, state=None) -> str:
    """Name an action; with ``state`` a take or pass says what it does in that phase."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        return f"<out of range {a}>"
    phase = None
    if state is not None:
        from .state_layout import PHASE

        phase = int(state[PHASE])
    if a < SLOT0:
        from .state_layout import PH_BUILD, PH_MAIN

        verb = "attach" if phase in (PH_BUILD, PH_MAIN) else "take"
        return f"{verb} {CARD_LABEL[a - TAKE0]}"
    if a < BID0:
        c, s = divmod(a - SLOT0, MAX_SLOTS)
        return f"into {CARD_LABEL[c]} slot {s + 1}"
    if a < TARGET0:
        return f"bid {a - BID0 + 1}"
    if a < ATTACKER0:
        return f"target {CARD_LABEL[a - TARGET0]}"
    if a < ABILITY0:
        return f"attack with {CARD_LABEL[a - ATTACKER0]}"
    if a < ROLL:
        return f"use {CARD_LABEL[a - ABILITY0]}"
    if a == ROLL:
        return "roll"
    if phase is not None:
        from .state_layout import PH_AUCTION, PH_BUILD, PH_DEAL, PH_MAIN, PH_REACT

        names = {
            PH_DEAL: "pass (take nothing)",
            PH_AUCTION: "pass",
            PH_BUILD: "pass (done building)",
            PH_MAIN: "pass (end turn)",
            PH_REACT: "pass (no reaction)",
        }
        return names.get(phase, "pass")
    return "pass"


def str_to_action(text: str) -> int:
    """Parse an action name as printed by ``action_to_str`` (case-insensitive) or an index."""
    t, index = read_action_text(text, NUM_ACTIONS)
    if index is not None:
        return index
    if t == "roll":
        return ROLL
    if t == "pass" or t.startswith("pass ("):
        return PASS
    try:
        m = re.fullmatch(r"(?:take|attach) (\w+)", t)
        if m:
            return TAKE0 + card(m.group(1))
        m = re.fullmatch(r"into (\w+) slot (\d)", t)
        if m and 1 <= int(m.group(2)) <= MAX_SLOTS:
            return SLOT0 + MAX_SLOTS * card(m.group(1)) + int(m.group(2)) - 1
        m = re.fullmatch(r"bid (\d+)", t)
        if m and 1 <= int(m.group(1)) <= DRAFT_TOKENS:
            return BID0 + int(m.group(1)) - 1
        m = re.fullmatch(r"target (\w+)", t)
        if m:
            return TARGET0 + card(m.group(1))
        m = re.fullmatch(r"attack with (\w+)", t)
        if m:
            return ATTACKER0 + card(m.group(1))
        m = re.fullmatch(r"use (\w+)", t)
        if m:
            return ABILITY0 + card(m.group(1))
    except ValueError as err:
        raise ValueError(f"cannot read action {text!r}: {err}") from None
    raise ValueError(
        f"cannot read action {text!r}; examples: 'take U1', 'into L2 slot 1', 'bid 3', "
        f"'target SA2', 'attack with HO1', 'use BW1', 'roll', 'pass'"
    )
