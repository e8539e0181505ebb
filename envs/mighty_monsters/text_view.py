"""Text view of a Mighty Monsters state: the castle from the main gate and a table of players."""

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, H_STEPS, H_TERMINAL
from ..core.text_view import table
from .components import GUARD_LEVEL, KING_NAMES, NUM_CARDS, SIDES, card_name, guard_name
from .state_layout import (
    CARD_LOC,
    CASTLE,
    DECK_COUNT,
    GOLD,
    KING,
    LAST_GUARD,
    LAST_RESULT,
    LOC_CASTLE,
    LOC_DOWN,
    LOC_HAND,
    NUM_ROUNDS,
    PHASE,
    PHASE_NAMES,
    RES_LOST,
    RES_WON,
    RESULT,
    REVEALED,
    ROUND,
    SETUP_DONE,
    SPACE,
    START_PLAYER,
    WINNER,
)

# What the castle's symbols mean, for people at the terminal (``help`` / ``legend``).
LEGEND = """\
castle: one line per guard position, G1 nearest the main gate
  **?        a face-down guard: its level in stars, its strength and loot hidden
  **7/8 won  a revealed guard: level, strength 7, loot 8, and whether the monsters beat it
  p1:4       a strength-4 monster of player_1 in one of the guard's two spaces (a, b);
             -- an empty space
previous round: the last round's guards as everyone saw them
table: gold, monster cards in hand, cards face down (kept for later rounds), monsters placed;
  * marks the player on move, S the start player, W the winner
moves: 'play 4 at G2b' places your strength-4 monster in space b of guard 2"""

RESULT_TEXT = {RES_WON: "won", RES_LOST: "lost"}


def monster_label(state, space: int) -> str:
    """``p1:4`` for seat 1's strength-4 monster, ``--`` for an empty space."""
    occupant = int(state[SPACE + space])
    if occupant < 0:
        return "--"
    owner, k = divmod(occupant, NUM_CARDS)
    return f"p{owner}:{card_name(k)}"


def guard_label(state, g: int) -> str:
    """A face-down guard shows its back (level stars and ranges ``?``); a revealed one its values."""
    card = int(state[CASTLE + g])
    if state[REVEALED + g]:
        return f"{guard_name(card)} {RESULT_TEXT.get(int(state[RESULT + g]), '')}".rstrip()
    return f"{'*' * int(GUARD_LEVEL[card])}?"


def castle_lines(state) -> list:
    """One line per guard position: ``G1  *?    p0:3  p2:1``."""
    n = int(state[H_NUM_PLAYERS])
    lines = []
    for g in range(n):
        if int(state[CASTLE + g]) < 0:
            continue
        monsters = "  ".join(f"{monster_label(state, SIDES * g + s):<5}" for s in range(SIDES))
        lines.append(f"G{g + 1}  {guard_label(state, g):<14}{monsters}".rstrip())
    return lines


def last_round_line(state) -> str:
    """The previous round's guards from the main gate as everyone saw them, '' in round 1."""
    shown = []
    for g in range(int(state[H_NUM_PLAYERS])):
        code = int(state[LAST_GUARD + g])
        if code > 0:
            shown.append(f"{guard_name(code - 1)} {RESULT_TEXT[int(state[LAST_RESULT + g])]}")
        elif code < 0:
            shown.append(f"{'*' * -code}? face down")
    return "previous round: " + ", ".join(shown) if shown else ""


def phase_text(state) -> str:
    """The phase the game is in, in words ("game over" once it ended): the text view's status and
    the JSON view's ``phase``."""
    return "game over" if int(state[H_TERMINAL]) else PHASE_NAMES[int(state[PHASE])]


def to_text(state) -> str:
    """The public state as text: the castle (guards from the main gate, ``*``-``***`` levels, ``?``
    face down; monsters as ``p<seat>:<strength>``), then gold, hand sizes and face-down counts."""
    n = int(state[H_NUM_PLAYERS])
    players = []
    for p in range(n):
        locs = [int(state[CARD_LOC + p * NUM_CARDS + k]) for k in range(NUM_CARDS)]
        marks = (
            ("*" if int(state[H_CURRENT]) == p else "")
            + ("S" if int(state[START_PLAYER]) == p else "")
            + ("W" if int(state[WINNER + p]) else "")
        )
        setup = "" if int(state[PHASE]) != 0 else (" (chosen)" if state[SETUP_DONE + p] else "")
        players.append(
            (
                f"player_{p}{marks}",
                int(state[GOLD + p]),
                locs.count(LOC_HAND),
                f"{locs.count(LOC_DOWN)}{setup}",
                locs.count(LOC_CASTLE),
            )
        )
    king = int(state[KING])
    status = phase_text(state)
    head = (
        f"Mighty Monsters - {status} - round {min(int(state[ROUND]) + 1, int(state[NUM_ROUNDS]))}"
        f"/{int(state[NUM_ROUNDS])} - step {int(state[H_STEPS])}"
        + (f" - king: {KING_NAMES[king]}" if king >= 0 else "")
    )
    foot = f"guard deck {int(state[DECK_COUNT])} cards   (* on move, S start player, W winner)"
    last = last_round_line(state)
    return "\n".join(
        [
            head,
            *castle_lines(state),
            *([last] if last else []),
            table(("player", "gold", "hand", "face down", "placed"), players),
            foot,
        ]
    )


def private_text(state, player: int) -> str:
    """What only ``player`` sees: which of their cards are in hand and which face down."""

    def cards(loc):
        ks = [card_name(k) for k in range(NUM_CARDS) if int(state[CARD_LOC + player * NUM_CARDS + k]) == loc]
        return " ".join(ks) or "none"

    return f"your hand: {cards(LOC_HAND)}; face down: {cards(LOC_DOWN)}"


def explain_action(state, action: int) -> str:
    """Action ``action`` (legal in ``state``) in words for the person who takes it: which cards it
    lays face down, or which monster it plays beside which guard (and whom it replaces there)."""
    from .actions import PLAY0, SETUP0, SETUP_PAIRS
    from .components import NUM_SPACES, SIDES

    if action < PLAY0:
        a, b = SETUP_PAIRS[action - SETUP0]
        return (
            f"lay your strength-{card_name(a)} and strength-{card_name(b)} monsters face down for later "
            "rounds; the other three are your hand"
        )
    card, space = divmod(action - PLAY0, NUM_SPACES)
    guard = space // SIDES
    where = f"beside guard {guard + 1} ({guard_label(state, guard)}), space {'ab'[space % SIDES]}"
    occupant = int(state[SPACE + space])
    if occupant < 0:
        return f"place your strength-{card_name(card)} monster {where}"
    owner, old = divmod(occupant, NUM_CARDS)
    return (
        f"place your strength-{card_name(card)} monster {where}, replacing player_{owner}'s {card_name(old)}"
    )
