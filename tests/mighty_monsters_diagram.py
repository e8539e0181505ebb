"""Build Mighty Monsters states from castle diagrams, so a rules test reads like a rulebook picture.

A diagram has one line per guard position, from the main gate::

    G1  *        p1:2  p2:2
    G2  **6/8    p0:2  --
    G3  ***

* the label ``G1``.. is optional; then the guard: its level as stars (``*``, ``**``, ``***``),
  which deals an unnamed card of that level, or stars with ``strength/loot`` naming a card of
  the guard table (ruling MM4);
* then up to two monster spaces: ``p<seat>:<strength>`` or ``--`` (empty).

Everything else (gold, hands, the king tile, round, who is on move) is a keyword of
:func:`state_from_castle`. The state starts from ``rules.init_state`` and is then overwritten
field by field through the offsets of ``state_layout.py``.
"""

import re
from collections.abc import Sequence

import numpy as np

from monster_zoo.envs.core.contract import H_CURRENT, H_STEPS, H_TERMINAL, REWARD_SCORE, REWARD_WIN
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.mighty_monsters import rules
from monster_zoo.envs.mighty_monsters.actions import NUM_ACTIONS, action_to_str, str_to_action
from monster_zoo.envs.mighty_monsters.components import (
    GUARD_LEVEL,
    GUARD_LOOT,
    GUARD_STRENGTH,
    KING_NAMES,
    MAX_PLAYERS,
    NUM_CARDS,
    NUM_GUARDS,
    NUM_SPACES,
    SIDES,
    STARTING_GOLD,
    STRENGTH,
)
from monster_zoo.envs.mighty_monsters.state_layout import (
    CARD_LOC,
    CASTLE,
    DECK,
    DECK_COUNT,
    G_CASTLE,
    G_DECK,
    GOLD,
    GUARD_STATUS,
    KING,
    KING_ORDER,
    KINGS,
    KINGS_FLIPPED,
    KNOWN,
    LOC_CASTLE,
    LOC_DOWN,
    LOC_HAND,
    PH_PLACE,
    PHASE,
    REVEALED,
    ROUND,
    SETUP_DONE,
    SPACE,
    START_PLAYER,
    STATE_SIZE,
)

_GUARD = re.compile(r"(\*{1,3})(?:(\d+)/(\d+))?$")
_MONSTER = re.compile(r"p(\d):(\d)$")


def strength_card(strength: int) -> int:
    """The card index of a strength."""
    return [int(s) for s in STRENGTH].index(strength)


def parse_castle(castle: str):
    """``(guards, spaces)`` from a diagram: per position a (level, strength, loot) with None for an
    unnamed card, and per space ``(seat, strength)`` or None."""
    guards, spaces = [], []
    for line in castle.strip("\n").splitlines():
        toks = line.split()
        if toks and re.fullmatch(r"G\d", toks[0]):
            toks = toks[1:]
        if not toks:
            continue
        m = _GUARD.match(toks[0])
        if not m:
            raise ValueError(f"cannot read guard {toks[0]!r} in line {line!r}")
        level = len(m.group(1))
        guards.append(
            (
                level,
                None if m.group(2) is None else int(m.group(2)),
                None if m.group(3) is None else int(m.group(3)),
            )
        )
        monsters = toks[1:] + ["--"] * (SIDES - len(toks[1:]))
        for tok in monsters:
            if tok == "--":
                spaces.append(None)
            else:
                mm = _MONSTER.match(tok)
                if not mm:
                    raise ValueError(f"cannot read monster {tok!r} in line {line!r}")
                spaces.append((int(mm.group(1)), int(mm.group(2))))
    return guards, spaces


def pick_guard(level: int, strength, loot, used: set[int]) -> int:
    """The first unused guard card of ``level`` (with that strength and loot when given)."""
    for card in range(NUM_GUARDS):
        if card in used or GUARD_LEVEL[card] != level:
            continue
        if strength is not None and (GUARD_STRENGTH[card] != strength or GUARD_LOOT[card] != loot):
            continue
        return card
    raise ValueError(f"no unused level-{level} guard {strength}/{loot}")


def state_from_castle(
    castle: str,
    *,
    current: int = 0,
    start: int = 0,
    gold=None,
    hands: dict[int, Sequence[int]] | None = None,
    known: bool = True,
    king: str | None = None,
    round_: int = 1,
    lineup: bool = False,
    max_steps: int = 1000,
    reward: str = "win",
) -> np.ndarray:
    """A live phase-1 state with the castle of ``castle``; one guard position per player.

    ``gold`` per seat (list or ``{seat: gold}``, default 8); ``hands`` gives the strengths a seat
    holds in hand (default: its strongest cards outside the castle, enough for 3 with the placed
    ones), the rest lie face down. ``known=False`` makes the cards outside the castle unknown to
    the others, as in round 1. ``king`` names the king tile in effect (the variant is on then);
    ``round_`` is the round being played (1-based).
    """
    guards, spaces = parse_castle(castle)
    n = len(guards)
    state = np.zeros(STATE_SIZE, np.int32)
    config = np.array(
        [
            n,
            max_steps,
            REWARD_WIN if reward == "win" else REWARD_SCORE,
            1,
            int(lineup),
            int(king is not None),
        ],
        np.int64,
    )
    rules.init_state(state, config, make_rng(0))
    state[H_CURRENT] = current
    state[H_TERMINAL] = 0
    state[H_STEPS] = 0
    state[PHASE] = PH_PLACE
    state[START_PLAYER] = start
    state[ROUND] = round_ - 1
    state[SETUP_DONE : SETUP_DONE + n] = 1
    state[KING] = -1
    if king is not None:
        tile = KING_NAMES.index(king)
        order = [tile] + [t for t in range(len(KING_NAMES)) if t != tile]
        state[KING_ORDER : KING_ORDER + len(order)] = order
        state[KING] = tile
        state[KINGS] = 1
        state[KINGS_FLIPPED] = 1
    # guards: the named or first free cards in the castle, the rest in the deck in card order
    used: set[int] = set()
    state[CASTLE : CASTLE + MAX_PLAYERS] = -1
    state[REVEALED : REVEALED + MAX_PLAYERS] = 0
    for g, (level, strength, loot) in enumerate(guards):
        card = pick_guard(level, strength, loot, used)
        used.add(card)
        state[CASTLE + g] = card
    deck = [c for c in range(NUM_GUARDS) if c not in used]
    state[GUARD_STATUS : GUARD_STATUS + NUM_GUARDS] = [
        G_CASTLE if c in used else G_DECK for c in range(NUM_GUARDS)
    ]
    state[DECK : DECK + NUM_GUARDS] = deck + [-1] * (NUM_GUARDS - len(deck))
    state[DECK_COUNT] = len(deck)
    # monsters
    state[SPACE : SPACE + NUM_SPACES] = -1
    in_castle = {p: [] for p in range(n)}
    for space, monster in enumerate(spaces):
        if monster is not None:
            seat, strength = monster
            k = strength_card(strength)
            state[SPACE + space] = seat * NUM_CARDS + k
            in_castle[seat].append(k)
    hands = hands or {}
    for p in range(n):
        if len(set(in_castle[p])) != len(in_castle[p]):
            raise ValueError(f"seat {p} has one card twice in the castle")
        rest = [k for k in range(NUM_CARDS) if k not in in_castle[p]]
        hand = [strength_card(s) for s in hands[p]] if p in hands else rest[::-1][: 3 - len(in_castle[p])]
        for k in range(NUM_CARDS):
            loc = LOC_CASTLE if k in in_castle[p] else (LOC_HAND if k in hand else LOC_DOWN)
            state[CARD_LOC + p * NUM_CARDS + k] = loc
            state[KNOWN + p * NUM_CARDS + k] = int(known or loc == LOC_CASTLE)
    state[GOLD : GOLD + MAX_PLAYERS] = 0
    for p in range(n):
        state[GOLD + p] = STARTING_GOLD if gold is None else gold[p]
    return state


def legal_actions(state) -> np.ndarray:
    """Indices of the legal actions of the seat on move."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    rules.legal_mask(state, mask)
    return np.flatnonzero(mask)


def legal_names(state) -> set[str]:
    """Names (as ``action_to_str`` prints them in this state) of the legal actions."""
    return {action_to_str(a, state) for a in legal_actions(state)}


def plays_at(state, space_name: str) -> set[int]:
    """Strengths the seat on move may legally play on ``space_name`` (e.g. ``G1a``)."""
    out = set()
    for a in legal_actions(state):
        name = action_to_str(a)
        if name.endswith(f" at {space_name}"):
            out.add(int(name.split()[1]))
    return out


def apply(state, *action_names: str, seed: int = 0) -> np.ndarray:
    """A copy of ``state`` after the named actions, each checked legal first; ``state`` is untouched."""
    state = state.copy()
    rng = make_rng(seed)
    for name in action_names:
        a = str_to_action(name)
        legal = legal_actions(state)
        assert a in legal, (
            f"{name!r} is not legal for seat {int(state[H_CURRENT])}; legal: {sorted(legal_names(state))}"
        )
        rules.apply_action(state, a, rng)
    return state


def cards_at(state, p: int, loc: int) -> list:
    """Strengths of seat ``p``'s cards at ``loc`` (LOC_HAND, LOC_DOWN, LOC_CASTLE), ascending."""
    return [int(STRENGTH[k]) for k in range(NUM_CARDS) if state[CARD_LOC + p * NUM_CARDS + k] == loc]


def golds(state) -> list:
    """Gold per seat."""
    return [int(state[GOLD + p]) for p in range(int(state[0]))]
