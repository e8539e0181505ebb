"""Text view of a Marry the Monster state: the hex board and a table of players."""

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, H_STEPS, H_TERMINAL
from ..core.text_view import hex_rows, table
from .components import CARD_NAMES, CELL_NAMES, COORDS, NUM_CARD_TYPES, RADIUS, ROW_LETTERS, VALUE
from .state_layout import (
    DECK,
    DISCARD,
    FACHAN,
    FIRST_PLAYER,
    HAND,
    HEIGHT,
    OWNER,
    PENDING,
    PHASE,
    PHASE_NAMES,
    POOL,
    SCORE,
    WINNER,
)

# What the board's symbols mean, for people at the terminal (``help`` / ``legend``).
LEGEND = """\
board: the 37-cell hex valley, rows A (top) to G, cells counted from the left (A1..A4, D1..D7, G1..G4)
  .3   an empty cell; the digit is its value, scored each turn by whoever builds there
  0h   a house of player_0 (the digit is the owner's seat)
  1m   a manor of player_1 (a fortified house)
  2T   a tower of player_2 (a fortified manor)
  @@   the fachan, the monster every duke lures to stomp the others' buildings
table: score, towers held, pieces left in the pool, pieces stomped this turn (in the forest),
  cards in hand; * marks the player on move, W the winner
moves: 'house D4' / 'tower D4' place on a cell, 'move NE 2' moves the fachan (E, NE, NW, W,
  SW, SE), 'play build' / 'play fortify' play a card (or three of another type), 'stomp 2'
  stomps with that many units, 'end' stops (free houses, a Build, the turn)"""

BUILDING_LETTERS = " hmT"  # house, manor, tower


def cell_label(state, c: int) -> str:
    """Two characters: owner seat and building letter, ``@@`` the fachan, ``.v`` empty (value v)."""
    if int(state[FACHAN]) == c:
        return "@@"
    h = int(state[HEIGHT + c])
    if h == 0:
        return f".{VALUE[c]}"
    return f"{int(state[OWNER + c])}{BUILDING_LETTERS[h]}"


def phase_text(state) -> str:
    """The phase the game is in, in words ("game over" once it ended): the text view's status and
    the JSON view's ``phase``."""
    return "game over" if int(state[H_TERMINAL]) else PHASE_NAMES[int(state[PHASE])]


def to_text(state) -> str:
    """The public state as text: board (owner+h/m/T, @@ fachan, .v empty cell of value v),
    then scores, towers, pieces and hand sizes per player. Hands are never shown."""
    n = int(state[H_NUM_PLAYERS])
    rows = [[] for _ in range(2 * RADIUS + 1)]
    for c, (_, r) in enumerate(COORDS):
        rows[int(r) + RADIUS].append(cell_label(state, c))
    board = hex_rows(rows, ROW_LETTERS[: 2 * RADIUS + 1])
    players = []
    for p in range(n):
        towers = sum(
            1 for c in range(len(CELL_NAMES)) if int(state[OWNER + c]) == p and int(state[HEIGHT + c]) == 3
        )
        hand = sum(int(state[HAND + p * NUM_CARD_TYPES + t]) for t in range(NUM_CARD_TYPES))
        marks = ("*" if int(state[H_CURRENT]) == p else "") + ("W" if int(state[WINNER + p]) else "")
        players.append(
            (
                f"player_{p}{marks}",
                int(state[SCORE + p]),
                towers,
                int(state[POOL + p]),
                int(state[PENDING + p]),
                hand,
            )
        )
    deck = sum(int(state[DECK + t]) for t in range(NUM_CARD_TYPES))
    discard = "/".join(str(int(state[DISCARD + t])) for t in range(NUM_CARD_TYPES))
    status = "game over" if int(state[H_TERMINAL]) else f"phase: {phase_text(state)}"
    head = (
        f"Marry the Monster - {status} - step {int(state[H_STEPS])} - first player "
        f"player_{int(state[FIRST_PLAYER])} - fachan at {CELL_NAMES[int(state[FACHAN])]}"
    )
    foot = f"deck {deck} cards, discard stomp/build/fortify {discard}   (* on move, W winner)"
    return "\n".join(
        [head, board, table(("player", "score", "towers", "pool", "stomped", "hand"), players), foot]
    )


def private_text(state, player: int) -> str:
    """What only ``player`` sees: the cards in their hand, per type."""
    cards = ", ".join(
        f"{int(state[HAND + player * NUM_CARD_TYPES + t])} {name}" for t, name in enumerate(CARD_NAMES)
    )
    return f"your hand: {cards}"
