"""Readable MONSTArgh! positions for the rules tests.

A table diagram is rows of cells separated by spaces: ``.`` is an empty cell and a
stack is its cards from the top down joined by ``/`` with species initial and value,
so ``G5/B4`` is green 5 lying on blue 4. Column and row numbers become the cells'
coordinates (x east, y south), which only matter relative to each other.

``position`` builds a live state from a diagram through the engine's own
``init_state`` and then moves cards where the diagram says; ``diagram`` reads a
state back in the same notation, so a test compares the table before and after a
play as two pictures.
"""

import numpy as np

from monster_zoo import envs
from monster_zoo.envs.core.contract import H_CURRENT
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.monstargh import rules
from monster_zoo.envs.monstargh.actions import NUM_ACTIONS, str_to_action
from monster_zoo.envs.monstargh.components import NUM_CARDS, NUM_VALUES, SPECIES
from monster_zoo.envs.monstargh.state_layout import (
    ACTIVE,
    CARD_CELL,
    CARD_LEVEL,
    CELL_HEIGHT,
    CELL_TOP,
    CELL_X,
    CELL_Y,
    FOCUS,
    PH_CHOOSE,
    PHASE,
    TOKEN,
    W_DECK,
    W_OUT,
    W_TABLE,
    WHERE,
)
from monster_zoo.envs.monstargh.text_view import card_label

GAME = "monstargh-v0"
SPEC = envs.spec(GAME)
_INITIALS = {s[0].upper(): i for i, s in enumerate(SPECIES)}


def card(label: str) -> int:
    """Card id of a short label such as ``R5`` (red 5)."""
    return _INITIALS[label[0].upper()] * NUM_VALUES + int(label[1:]) - 1


def parse_table(text: str) -> dict[tuple, list[int]]:
    """``{(x, y): [card ids from the top down]}`` of a table diagram."""
    cells = {}
    rows = [r for r in text.strip("\n").splitlines() if r.strip()]
    for y, row in enumerate(rows):
        for x, token in enumerate(row.split()):
            if token != ".":
                cells[(x, y)] = [card(t) for t in token.split("/")]
    return cells


def position(
    table: str,
    hands: dict[int, list[str]],
    tokens: list[str],
    num_players: int = 2,
    species: str = "green,blue,yellow,red",
    on_move: int = 0,
    seed: int = 0,
    focus: dict[int, list[int]] | None = None,
    **options,
) -> np.ndarray:
    """A state with ``table`` on the table, ``hands`` (seat -> card labels), ``tokens`` (species
    per seat), ``on_move`` choosing a card; every other card in play lies in the deck.

    ``focus`` (seat -> [±1 held, ±2 held]) overrides the focus cards, all held by default."""
    config = envs.config(GAME, {"num_players": num_players, "species": species, **options})
    state = np.zeros(SPEC.state_size, np.int32)
    rules.init_state(state, config, make_rng(seed))
    for c in range(NUM_CARDS):
        state[CARD_CELL + c] = -1
        state[CARD_LEVEL + c] = 0
        if state[WHERE + c] != W_OUT:
            state[WHERE + c] = W_DECK
    for k in range(NUM_CARDS):
        rules.empty_cell(state, k)
    for k, ((x, y), stack) in enumerate(sorted(parse_table(table).items())):
        state[CELL_X + k], state[CELL_Y + k] = x, y
        state[CELL_TOP + k] = stack[0]
        state[CELL_HEIGHT + k] = len(stack)
        for level, c in enumerate(reversed(stack)):
            assert state[WHERE + c] == W_DECK, f"{card_label(c)} is not in play or used twice"
            state[WHERE + c], state[CARD_CELL + c], state[CARD_LEVEL + c] = W_TABLE, k, level
    for seat, labels in hands.items():
        for label in labels:
            c = card(label)
            assert state[WHERE + c] == W_DECK, f"{label} is not in play or used twice"
            state[WHERE + c] = seat
    for seat, name in enumerate(tokens):
        state[TOKEN + seat] = SPECIES.index(name)
    for seat, held in (focus or {}).items():
        state[FOCUS + 2 * seat : FOCUS + 2 * seat + 2] = held
    state[H_CURRENT] = state[ACTIVE] = on_move
    state[PHASE] = PH_CHOOSE
    rules.recount(state)
    return state


def diagram(state) -> str:
    """The table of ``state`` in the diagram notation, trimmed to its occupied bounding box."""
    cells = {}
    for c in range(NUM_CARDS):
        if state[WHERE + c] == W_TABLE:
            k = int(state[CARD_CELL + c])
            cells.setdefault((int(state[CELL_X + k]), int(state[CELL_Y + k])), []).append(
                (int(state[CARD_LEVEL + c]), c)
            )
    if not cells:
        return ""
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    rows = []
    for y in range(min(ys), max(ys) + 1):
        row = []
        for x in range(min(xs), max(xs) + 1):
            stack = sorted(cells.get((x, y), []), reverse=True)
            row.append("/".join(card_label(c) for _, c in stack) or ".")
        rows.append(" ".join(row))
    return "\n".join(rows)


def same_table(text: str) -> str:
    """A diagram normalised like :func:`diagram` (for comparing against one)."""
    cells = parse_table(text)
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    return "\n".join(
        " ".join(
            "/".join(card_label(c) for c in cells.get((x, y), [])) or "." for x in range(min(xs), max(xs) + 1)
        )
        for y in range(min(ys), max(ys) + 1)
    )


def play(state, *moves: str, seed: int = 1) -> np.ndarray:
    """Apply ``moves`` (action names) in turn, each checked legal first; returns the state."""
    rng = make_rng(seed)
    for move in moves:
        action = str_to_action(move)
        reason = rules.illegal_reason(state, action)
        assert reason == 0, f"{move}: {SPEC.reasons[reason]}"
        rules.apply_action(state, action, rng)
    return state


def legal(state) -> list[str]:
    """Names of the legal actions of the seat on move."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    rules.legal_mask(state, mask)
    return [SPEC.action_to_str(a, state) for a in np.flatnonzero(mask)]
