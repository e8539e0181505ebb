"""Text view of a Monster Arena state: phase, draft row, every monster as a tree, graveyard."""

import re

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, H_STEPS, H_TERMINAL
from .components import (
    AB_NONE,
    ABILITY,
    ABILITY_NAMES,
    ABILITY_TEXT,
    CARD_CODE,
    CARD_LABEL,
    CARD_NAME,
    COST,
    DEFENSE,
    DICE,
    KIND,
    KIND_LOWER,
    KIND_PART,
    KIND_UPPER,
    MAX_SLOTS,
    MOD,
    NUM_CARDS,
    SLOTS,
)
from .state_layout import (
    ALIVE,
    BID,
    CHILD,
    DEALER,
    DONE,
    ENERGY,
    FROZEN,
    GRAVE_ORDER,
    HIGH,
    IN_ATTACK,
    KNOWN,
    L_DECK,
    L_DISCARD,
    L_GRAVE,
    L_INV,
    L_ROW,
    L_TABLE,
    L_TORSO,
    LAST,
    LOC,
    OWNER,
    PH_BUILD,
    PH_DEAL,
    PH_PLACE,
    PH_PRIZE,
    PHASE,
    PHASE_NAMES,
    QUIET,
    ROUND,
    TARGET,
    TOKENS,
    TURN_SEAT,
    USED,
    WINNER,
)

# What the symbols mean, for people at the terminal (``help`` / ``legend``) and for a JSON view's
# reader; it names no command, since not every reader has the terminal's (``help SA3`` for a card).
LEGEND = """\
cards: U1-U6 upper torso halves, L1-L6 lower halves, parts by code and copy (SA3 = the third
  Stitched Arm)
monsters: U5[SA1,-,HO2] + L6[-,-] is a torso half with what hangs in its slots (nested parts have
  their own brackets); - an empty slot, card* used this round, card! pinched (cannot act)
row: the cards dealt for the draft; bid: the highest bid and its bidder
players: tokens (for bidding), energy (for attacks and abilities), inventory size (contents
  hidden; 'seen' lists the cards others have seen); * on move, T whose turn it is, W winner,
  out = monster destroyed
graveyard: destroyed parts, topmost first"""


def card_text(name: str) -> str:
    """Card ``name`` (a label such as ``SA3``, a code such as ``SA`` or a card's name, any case)
    in words: kind, slots, Defense, attack, ability. ValueError naming the cards for others."""
    wanted = name.strip().lower()
    matches = [
        c
        for c in range(NUM_CARDS)
        if wanted in (CARD_LABEL[c].lower(), CARD_CODE[c].lower(), CARD_NAME[c].lower())
    ]
    if not matches:
        codes = ", ".join(dict.fromkeys(CARD_CODE))
        raise ValueError(f"no card {name!r}: give a card such as SA3, a code ({codes}) or a name")
    c = matches[0]
    copies = f", {CARD_CODE.count(CARD_CODE[c])} in the game" if KIND[c] == KIND_PART else ""
    lines = [f"{CARD_CODE[c]} {CARD_NAME[c]}: {card_words(c, copies)}"]
    if ABILITY[c] != AB_NONE:
        lines.append(
            f"  {ABILITY_NAMES[int(ABILITY[c])].replace('_', ' ')}: {ABILITY_TEXT[ABILITY_NAMES[int(ABILITY[c])]]}"
        )
    return "\n".join(lines)


CARD_BY_LABEL = {label: c for c, label in enumerate(CARD_LABEL)}


def code_words(text: str) -> dict[str, str]:
    """Each card label ``text`` uses (``SA3``, ``U1``), with its name, numbers and ability."""
    labels = dict.fromkeys(re.findall(r"\b[A-Z]{1,2}[0-9]\b", text))
    return {
        label: "; ".join(line.strip() for line in card_text(label).splitlines())
        for label in labels
        if label in CARD_BY_LABEL
    }


def card_words(c: int, copies: str = "") -> str:
    """Card ``c``'s kind, slots, Defense and attack in words (``copies`` after its kind)."""
    kind = {KIND_UPPER: "upper torso half", KIND_LOWER: "lower torso half"}.get(int(KIND[c]), "part")
    attack = (
        f"attack: {int(COST[c])} energy, {int(DICE[c])}d6 + {int(MOD[c])}"
        if COST[c] >= 0
        else "cannot attack"
    )
    return f"{kind}{copies}; {int(SLOTS[c])} slot(s); Defense {int(DEFENSE[c])}; {attack}"


def explain_action(state, action: int) -> str:
    """Action ``action`` (legal in ``state``) in words for the person who takes it, each card named
    with its text (cards are public once named in a move: the mover knows its own)."""
    from .actions import ABILITY0, ATTACKER0, BID0, PASS, ROLL, SLOT0, TARGET0, action_to_str

    def named(c: int) -> str:
        return f"{CARD_LABEL[c]} {CARD_NAME[c]}"

    if action < SLOT0:
        verb = action_to_str(action, state).split()[0]
        doing = "choose to attach" if verb == "attach" else "take"
        return f"{doing} {named(action)} ({card_words(action)})"
    if action < BID0:
        c, slot = divmod(action - SLOT0, MAX_SLOTS)
        return f"put the chosen part into slot {slot + 1} of {named(c)}"
    if action < TARGET0:
        k = action - BID0 + 1
        return f"bid {k} token{'s' if k > 1 else ''} for the row"
    if action < ATTACKER0:
        c = action - TARGET0
        return f"target {named(c)} (Defense {int(DEFENSE[c])})"
    if action < ABILITY0:
        c = action - ATTACKER0
        return f"attack with {named(c)} ({int(DICE[c])}d6 + {int(MOD[c])} for {int(COST[c])} energy)"
    if action < ROLL:
        c = action - ABILITY0
        ability = ABILITY_NAMES[int(ABILITY[c])]
        return f"use {named(c)}'s {ability.replace('_', ' ')}: {ABILITY_TEXT[ability]}"
    return "roll the dice for the attack" if action == ROLL else action_to_str(PASS, state)


def _cards(state, loc, owner=None):
    """Ids of the cards at ``loc`` (of ``owner`` when given)."""
    return [
        c
        for c in range(NUM_CARDS)
        if int(state[LOC + c]) == loc and (owner is None or int(state[OWNER + c]) == owner)
    ]


def _building(state) -> bool:
    """Whether monsters are being built (AR-19): others' attachments are not shown."""
    phase = int(state[PHASE])
    return phase == PH_BUILD or (phase == PH_PLACE and int(state[ROUND]) == 0)


def phase_text(state) -> str:
    """The phase the game is in, in words ("game over" once it ended): the text view's status and
    the JSON view's ``phase``. While monsters are built it is building for everyone (AR-19): that
    some have started placing is not shown."""
    if int(state[H_TERMINAL]):
        return "game over"
    return PHASE_NAMES[PH_BUILD if _building(state) else int(state[PHASE])]


def card_tree(state, c) -> str:
    """Card ``c`` with its slots: ``SA1*[HO1,-]``; ``*`` used this round, ``!`` pinched, ``-`` empty slot."""
    mark = ("*" if int(state[USED + c]) else "") + ("!" if int(state[FROZEN + c]) else "")
    if SLOTS[c] == 0:
        return CARD_LABEL[c] + mark
    inner = []
    for s in range(int(SLOTS[c])):
        ch = int(state[CHILD + c * MAX_SLOTS + s])
        inner.append("-" if ch < 0 else card_tree(state, ch))
    return f"{CARD_LABEL[c]}{mark}[{','.join(inner)}]"


def monster_text(state, p, show_parts=True) -> str:
    """Seat ``p``'s monster: its two torso halves and what hangs on them."""
    halves = [c for c in _cards(state, L_TABLE, p) if KIND[c] != KIND_PART]
    if not halves:
        return "(destroyed)" if int(state[ROUND]) > 0 else "(no torso yet)"
    if not show_parts:
        return " + ".join(CARD_LABEL[c] for c in halves) + " (being built)"
    return " + ".join(card_tree(state, c) for c in halves)


def to_text(state) -> str:
    """The public state: phase, draft row and discard, each player's monster tree, energy, tokens
    and inventory size (contents hidden), the graveyard top-first and the last attack."""
    n = int(state[H_NUM_PLAYERS])
    building = _building(state)
    status = "game over" if int(state[H_TERMINAL]) else f"phase: {phase_text(state)}"
    lines = [
        f"Monster Arena - {status} - step {int(state[H_STEPS])} - arena round {int(state[ROUND])}"
        + (f" ({max(int(state[QUIET]), 0)} quiet)" if int(state[ROUND]) > 0 else "")
    ]
    row = _cards(state, L_ROW)
    if row or PH_DEAL <= int(state[PHASE]) <= PH_PRIZE:
        high = int(state[HIGH])
        lines.append(
            f"dealer player_{int(state[DEALER])}; row: {' '.join(CARD_LABEL[c] for c in row) or '-'}; "
            f"bid {int(state[BID])}" + (f" by player_{high}" if high >= 0 else "")
        )
    torsos = _cards(state, L_TORSO)
    if torsos:
        lines.append("torso halves to draft: " + " ".join(CARD_LABEL[c] for c in torsos))
    for p in range(n):
        marks = ("*" if int(state[H_CURRENT]) == p else "") + ("W" if int(state[WINNER + p]) else "")
        if int(state[TURN_SEAT]) == p and int(state[H_CURRENT]) != p and not int(state[H_TERMINAL]):
            marks += "T"
        inv = len(_cards(state, L_INV, p))
        hidden_parts = [c for c in _cards(state, L_TABLE, p) if KIND[c] == KIND_PART]
        show = not building
        if building:
            inv += len(hidden_parts)
        seen = [CARD_LABEL[c] for c in _cards(state, L_INV, p) if int(state[KNOWN + c])]
        if building:
            seen += [CARD_LABEL[c] for c in hidden_parts if int(state[KNOWN + c])]
        status_p = (
            "out"
            if int(state[ROUND]) > 0 and not int(state[ALIVE + p])
            else ("done" if building and int(state[DONE + p]) else "")
        )
        lines.append(
            f"player_{p}{marks}: {monster_text(state, p, show)} | tokens {int(state[TOKENS + p])} "
            f"energy {int(state[ENERGY + p])} inventory {inv}"
            + (f" (seen: {' '.join(sorted(seen))})" if seen else "")
            + (f" {status_p}" if status_p else "")
        )
    target = int(state[TARGET])
    if target >= 0:
        attackers = [CARD_LABEL[c] for c in range(NUM_CARDS) if int(state[IN_ATTACK + c])]
        lines.append(f"attack on {CARD_LABEL[target]} with {' '.join(attackers) or '-'}")
    if int(state[LAST]) >= 0:
        lines.append(
            f"last attack: {CARD_LABEL[int(state[LAST])]} rolled {int(state[LAST + 4])}, total "
            f"{int(state[LAST + 1])} vs {int(state[LAST + 2])}: {'destroyed' if int(state[LAST + 3]) else 'missed'}"
        )
    grave = sorted(_cards(state, L_GRAVE), key=lambda c: -int(state[GRAVE_ORDER + c]))
    lines.append(
        f"deck {len(_cards(state, L_DECK))}, discard {' '.join(CARD_LABEL[c] for c in _cards(state, L_DISCARD)) or '-'}, "
        f"graveyard (top first) {' '.join(CARD_LABEL[c] for c in grave) or '-'}"
    )
    lines.append(
        "(* on move, T whose turn it is, W winner; card* used this round, card! pinched, - empty slot)"
    )
    return "\n".join(lines)


def private_text(state, player: int) -> str:
    """What only ``player`` sees: their inventory and, while building, their own monster."""
    inv = " ".join(CARD_LABEL[c] for c in _cards(state, L_INV, player)) or "-"
    text = f"your inventory: {inv}"
    if _building(state):
        text += f"\nyour monster: {monster_text(state, player)}"
    return text
