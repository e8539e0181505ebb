"""Text view of a MONSTArgh! state: the table as a grid and a table of players.

A cell shows its visible card as species letter and value (``R5``: red 5), followed
by ``+k`` when k more cards lie under it; ``[..]`` marks the protagonist or the card
waiting for its cell. Rows and columns are numbered relative to the scene's origin.
"""

import re

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, H_STEPS, H_TERMINAL
from ..core.text_view import table
from .components import CARD_NAMES, FOCUS_AMOUNTS, NUM_CARDS, NUM_FOCUS, NUM_SPECIES, NUM_VALUES, SPECIES
from .state_layout import (
    CELL_HEIGHT,
    CELL_TOP,
    CELL_X,
    CELL_Y,
    CHOSEN,
    FOCUS,
    FOCUS_AMOUNT,
    IN_PLAY,
    LAST_STARS,
    LAST_TOKEN,
    PHASE,
    PHASE_NAMES,
    PROT_VALUE,
    PROTAGONIST,
    SCENE,
    STARS,
    STARTER,
    TOKEN,
    W_DECK,
    WHERE,
    WINNER,
)

# What the table's symbols mean, for people at the terminal (``help`` / ``legend``).
LEGEND = """\
table grid: columns and rows counted from the scene's first card (x to the right, y down)
  R5     the visible card of a cell: species initial (Green, Blue, Red, Pink, Orange...) and value
  R5+2   the same with 2 more cards under it
  [R5]   the protagonist, the card now acting
  .      an empty cell inside the grid
table: stars, your last scene's species and stars, monsters in hand, focus cards (±1, ±2 shift a
  value); * marks the player on move, W the winner. Your own species is secret: only you see it
  (under 'your species'), and nobody sees the others'.
moves: 'play red 4' plays a monster card, then a cell is chosen for it; 'focus +2' plays a focus card"""

CELL_WIDTH = 7


def card_label(card: int) -> str:
    """``R5`` for red 5: species initial (upper case) and value."""
    return f"{SPECIES[card // NUM_VALUES][0].upper()}{card % NUM_VALUES + 1}"


def code_words(text: str) -> dict[str, str]:
    """Each card label ``text`` uses (``R5``), in words (``red 5``: a monster card)."""
    labels = {card_label(c): c for c in range(NUM_SPECIES * NUM_VALUES)}
    return {
        label: f"{SPECIES[labels[label] // NUM_VALUES]} {labels[label] % NUM_VALUES + 1}: a monster card"
        for label in dict.fromkeys(re.findall(r"\b[A-Z][0-9]+\b", text))
        if label in labels
    }


def table_grid(state) -> str:
    """The occupied cells in their bounding box, row by row (y down), with coordinates."""
    cells = {}
    acting = int(state[PROTAGONIST])
    for k in range(NUM_CARDS):
        top = int(state[CELL_TOP + k])
        if top >= 0:
            label = card_label(top)
            under = int(state[CELL_HEIGHT + k]) - 1
            label += f"+{under}" if under else ""
            cells[(int(state[CELL_X + k]), int(state[CELL_Y + k]))] = f"[{label}]" if top == acting else label
    if not cells:
        return "   (the table is empty)"
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    cols = range(min(xs), max(xs) + 1)
    lines = ["     " + "".join(f"{x:^{CELL_WIDTH}}" for x in cols)]
    for y in range(min(ys), max(ys) + 1):
        row = "".join(f"{cells.get((x, y), '.'):^{CELL_WIDTH}}" for x in cols)
        lines.append(f"{y:>4} {row}".rstrip())
    return "\n".join(lines)


def focus_text(state, p: int) -> str:
    """The focus cards seat ``p`` still holds, e.g. ``±1 ±2``, or ``-``."""
    held = [f"±{int(FOCUS_AMOUNTS[f])}" for f in range(NUM_FOCUS) if int(state[FOCUS + p * NUM_FOCUS + f])]
    return " ".join(held) or "-"


def phase_text(state) -> str:
    """The phase the game is in, in words ("game over" once it ended): the text view's status and
    the JSON view's ``phase``."""
    return "game over" if int(state[H_TERMINAL]) else PHASE_NAMES[int(state[PHASE])]


def to_text(state) -> str:
    """The public state as text: the table, then stars, last scene, hand per player.

    Species tokens of the running scene and hands are never shown (MA-18)."""
    n = int(state[H_NUM_PLAYERS])
    over = bool(state[H_TERMINAL])
    status = "game over" if over else f"phase: {phase_text(state)}"
    in_play = ", ".join(s for i, s in enumerate(SPECIES) if int(state[IN_PLAY + i]))
    head = (
        f"MONSTArgh! - scene {int(state[SCENE])} - {status} - step {int(state[H_STEPS])} - "
        f"starter player_{int(state[STARTER])} - species in play: {in_play}"
    )
    rows = []
    for p in range(n):
        marks = ("*" if int(state[H_CURRENT]) == p else "") + ("W" if int(state[WINNER + p]) else "")
        last = int(state[LAST_TOKEN + p])
        last_text = f"{SPECIES[last]} +{int(state[LAST_STARS + p])}" if last >= 0 else "-"
        monsters = sum(1 for c in range(NUM_CARDS) if int(state[WHERE + c]) == p)
        rows.append((f"player_{p}{marks}", int(state[STARS + p]), last_text, monsters, focus_text(state, p)))
    deck = sum(1 for c in range(NUM_CARDS) if int(state[WHERE + c]) == W_DECK)
    foot = [f"deck {deck} cards   (* on move, W winner; [..] protagonist)"]
    chosen = int(state[CHOSEN])
    if chosen >= 0:
        foot.append(f"{CARD_NAMES[chosen]} is waiting for its cell")
    if int(state[PROTAGONIST]) >= 0:
        foot.append(f"protagonist {CARD_NAMES[int(state[PROTAGONIST])]} acting as {int(state[PROT_VALUE])}")
    elif int(state[FOCUS_AMOUNT]) != 0:
        foot.append(f"focus {int(state[FOCUS_AMOUNT]):+d} waiting for its target")
    players = table(("player", "stars", "last scene", "monsters in hand", "focus cards"), rows)
    return "\n".join([head, table_grid(state), players, *foot])


def private_text(state, player: int) -> str:
    """What only ``player`` sees: their species this scene and the monster cards in hand."""
    cards = ", ".join(CARD_NAMES[c] for c in range(NUM_CARDS) if int(state[WHERE + c]) == player) or "none"
    token = int(state[TOKEN + player])
    species = SPECIES[token] if 0 <= token < NUM_SPECIES and not int(state[H_TERMINAL]) else "-"
    return f"your species: {species}; your monsters: {cards}; focus cards: {focus_text(state, player)}"
