"""Build Monster Arena states from text diagrams, so a rules test reads like a table picture.

A monster is written as ``envs/monster_arena/text_view.py`` prints it: its two torso halves joined
by ``+``, each card followed by its slots in brackets, ``-`` for an empty slot::

    "U1[SA1[BC1],-,HO1] + L4[-,-,-]"

Card names are the labels of ``components.CARD_LABEL`` (``U1``, ``SA3``, ``BW2``...). A card with
slots must list all of them (the diagram then shows exactly which are empty). Everything else
(inventories, energy, the seat on move, the phase) is a keyword of :func:`arena_state` or
:func:`draft_state`. States start from ``rules.init_state`` (so every field has a valid value)
and are then overwritten field by field through the offsets of ``state_layout.py``; cards the diagram
does not place stay in the draft deck.
"""

import re
from collections.abc import Iterable

import numpy as np

from monster_zoo.envs.core.contract import H_CURRENT, REWARD_SCORE, REWARD_WIN
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.monster_arena import queries, rules
from monster_zoo.envs.monster_arena.actions import NUM_ACTIONS, action_to_str, str_to_action
from monster_zoo.envs.monster_arena.components import (
    CARD_LABEL,
    MAX_SLOTS,
    NUM_CARDS,
    NUM_TORSOS,
    SLOTS,
    card,
)
from monster_zoo.envs.monster_arena.state_layout import (
    ALIVE,
    CHILD,
    DEALER,
    ENERGY,
    FIRST_PLAYER,
    KNOWN,
    L_BOX,
    L_DISCARD,
    L_INV,
    L_ROW,
    L_TABLE,
    LOC,
    OWNER,
    PARENT,
    PH_DEAL,
    PH_MAIN,
    PHASE,
    PSLOT,
    ROUND,
    STATE_SIZE,
    TOKENS,
    TURN_SEAT,
)

_TOKEN = re.compile(r"\s*(\[|\]|,|\+|-|\w+)")


def _tokens(text: str):
    """Split a monster diagram into names and punctuation."""
    pos, out = 0, []
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"cannot read monster diagram at {text[pos:]!r}")
        out.append(m.group(1))
        pos = m.end()
    return out


def place_monster(state: np.ndarray, seat: int, diagram: str) -> None:
    """Put the monster of ``diagram`` on the table for ``seat``."""
    toks = _tokens(diagram)
    i = 0

    def card_at(parent: int, slot: int) -> None:
        nonlocal i
        c = card(toks[i])
        i += 1
        state[LOC + c] = L_TABLE
        state[OWNER + c] = seat
        state[KNOWN + c] = 1
        state[PARENT + c] = parent
        state[PSLOT + c] = slot
        if parent >= 0:
            state[CHILD + parent * MAX_SLOTS + slot] = c
        if SLOTS[c] == 0:
            return
        if toks[i] != "[":
            raise ValueError(f"{CARD_LABEL[c]} has {SLOTS[c]} slots: write them as [..] in the diagram")
        i += 1
        for s in range(int(SLOTS[c])):
            if s:
                assert toks[i] == ",", f"expected ',' in the slots of {CARD_LABEL[c]}"
                i += 1
            if toks[i] == "-":
                i += 1
            else:
                card_at(c, s)
        assert toks[i] == "]", f"{CARD_LABEL[c]} has exactly {SLOTS[c]} slots"
        i += 1

    halves = 0
    while i < len(toks):
        if toks[i] == "+":
            i += 1
        c = card(toks[i])
        assert c < NUM_TORSOS, f"a monster starts with torso halves, not {toks[i]}"
        card_at(-1, -1)
        halves += 1
    assert halves == 2, "a monster has two torso halves"


def base_state(
    num_players: int, seed: int = 0, reward: str = "win", quiet_ending_rounds: int = 0
) -> np.ndarray:
    """A freshly initialised state (torso draft) to overwrite."""
    state = np.zeros(STATE_SIZE, np.int32)
    mode = REWARD_WIN if reward == "win" else REWARD_SCORE
    config = np.array([num_players, 10**6, mode, quiet_ending_rounds], np.int64)
    rules.init_state(state, config, make_rng(seed))
    return state


def arena_state(
    monsters: dict[int, str],
    *,
    num_players: int | None = None,
    turn: int = 0,
    energy: dict[int, int] | None = None,
    inventory: dict[int, Iterable[str]] | None = None,
    graveyard: Iterable[str] = (),
    reward: str = "win",
    quiet_ending_rounds: int = 0,
) -> np.ndarray:
    """An arena state: ``monsters`` per seat as diagrams, seat ``turn`` on move in round 1 with
    ``energy`` (default 5 for everybody); unlisted torso halves in the box, other parts in the deck."""
    n = num_players or len(monsters)
    state = base_state(n, reward=reward, quiet_ending_rounds=quiet_ending_rounds)
    for c in range(NUM_TORSOS):
        state[LOC + c] = L_BOX
    for seat, diagram in monsters.items():
        place_monster(state, seat, diagram)
        state[ALIVE + seat] = 1
    for seat, labels in (inventory or {}).items():
        for label in labels:
            c = card(label)
            state[LOC + c] = L_INV
            state[OWNER + c] = seat
            state[KNOWN + c] = 1
    for order, label in enumerate(graveyard):
        from monster_zoo.envs.monster_arena.state_layout import GRAVE_ORDER, GRAVE_TOP, L_GRAVE

        c = card(label)
        state[LOC + c] = L_GRAVE
        state[KNOWN + c] = 1
        state[GRAVE_ORDER + c] = order + 1
        state[GRAVE_TOP] = order + 1
    for seat in range(n):
        state[ENERGY + seat] = (energy or {}).get(seat, 5)
    state[ROUND] = 1
    state[PHASE] = PH_MAIN
    state[TURN_SEAT] = turn
    state[H_CURRENT] = turn
    return state


def draft_state(
    num_players: int,
    row: Iterable[str],
    *,
    dealer: int = 0,
    tokens=None,
    torsos: dict[int, str] | None = None,
    discard: Iterable[str] = (),
) -> np.ndarray:
    """A drafting round at the dealer's pick: ``row`` face up, every seat with 15 tokens (or ``tokens``),
    each seat given two torso halves (``torsos``, default U1+L1, U2+L2, ...)."""
    state = base_state(num_players)
    for c in range(NUM_TORSOS):
        state[LOC + c] = L_BOX
    for seat in range(num_players):
        diagram = (
            (torsos or {}).get(seat)
            or f"U{seat + 1}[{','.join('-' * int(SLOTS[seat]))}] + "
            f"L{seat + 1}[{','.join('-' * int(SLOTS[6 + seat]))}]"
        )
        place_monster(state, seat, diagram)
        state[TOKENS + seat] = 15 if tokens is None else tokens[seat]
    for label in row:
        state[LOC + card(label)] = L_ROW
        state[KNOWN + card(label)] = 1
    for label in discard:
        state[LOC + card(label)] = L_DISCARD
        state[KNOWN + card(label)] = 1
    state[DEALER] = dealer
    state[FIRST_PLAYER] = dealer
    state[PHASE] = PH_DEAL
    state[H_CURRENT] = dealer
    return state


def legal(state: np.ndarray):
    """Names of the legal actions."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    rules.legal_mask(state, mask)
    return [action_to_str(a, state) for a in np.flatnonzero(mask)]


def act(state: np.ndarray, *names: str, rng=None) -> np.ndarray:
    """Apply actions by name, each checked legal first; returns ``state`` (changed in place)."""
    rng = make_rng(0) if rng is None else rng
    for name in names:
        a = str_to_action(name)
        code = rules.illegal_reason(state, a)
        assert code == 0, f"{name!r} is illegal: {queries.REASONS[code]}; legal: {legal(state)}"
        rules.apply_action(state, a, rng)
    return state


def reason(state: np.ndarray, name: str) -> int:
    """The illegal_reason code of the named action (0 when legal)."""
    return int(rules.illegal_reason(state, str_to_action(name)))


def where(state: np.ndarray, label: str):
    """(location, owner) of a card."""
    c = card(label)
    return int(state[LOC + c]), int(state[OWNER + c])


def cards_at(state: np.ndarray, loc: int, owner: int | None = None):
    """Labels of the cards at ``loc`` (of ``owner`` when given)."""
    return sorted(
        CARD_LABEL[c]
        for c in range(NUM_CARDS)
        if state[LOC + c] == loc and (owner is None or state[OWNER + c] == owner)
    )
