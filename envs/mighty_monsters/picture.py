"""Picture of a Mighty Monsters state: the castle from the main gate, the monsters beside each
guard, gold and cards per player.

What a viewer knows of a seat's cards comes from the rules' own ``seen_by`` (the
observation's source, MM-21): a card is drawn in hand or face down only where the viewer
knows it to lie there. A face-down guard shows its back (its level); the deck, the king
tiles' order and the pair another seat lays face down (its setup action) are never shown.
"""

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, H_STEPS, H_TERMINAL
from ..core.picture import (
    AREA,
    HIGHLIGHT,
    INK,
    MUTED,
    LastAction,
    PlayerRow,
    caption,
    frame,
    players_panel,
    seat_color,
)
from .actions import PLAY0, action_to_str
from .components import (
    GUARD_LEVEL,
    GUARD_LOOT,
    GUARD_STRENGTH,
    KING_NAMES,
    NUM_CARDS,
    NUM_SPACES,
    SIDES,
    card_name,
)
from .rules import count_at, seen_by
from .state_layout import (
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

SCORE_LABEL = "gold"
RESULT_TEXT = {RES_WON: "won", RES_LOST: "lost"}
# What a person clicks to play on this picture (the web page's "how to play here").
HOW_TO_PLAY = (
    "At the start click your hand (drawn below the castle) and choose the two cards you lay face "
    "down. Then click a highlighted space beside a guard to play a monster there; if several of your "
    "cards fit that space, a box asks which. Other players' face-down cards stay hidden from you."
)


def public_scores(state) -> list:
    """Each seat's gold (the chart of the replay viewer)."""
    return [int(state[GOLD + p]) for p in range(int(state[H_NUM_PLAYERS]))]


def describe_action(state, action: int, viewer: int | None = None) -> str:
    """The action's name in ``state`` (before it is applied) as ``viewer`` may know it: the
    pair a seat lays face down is known to that seat alone."""
    actor = int(state[H_CURRENT])
    if action < PLAY0 and viewer != actor:
        return "lay two cards face down"
    return action_to_str(action, state)


def action_place(state, action: int) -> str | None:
    """The ``data-place`` of the picture's element where ``action`` is made: the space a monster
    is played on; the seat's hand for the setup choices (which pair to lay face down)."""
    if action < PLAY0:
        return "hand"
    return f"space-{(action - PLAY0) % NUM_SPACES}"


def _hand(svg, state, viewer: int, x, y) -> None:
    """The viewer's own monster cards in hand; while it still has to choose its face-down pair, the
    hand is the place of that choice."""
    cards = [k for k in range(NUM_CARDS) if seen_by(state, viewer, viewer, k) == LOC_HAND]
    choosing = int(state[PHASE]) == 0 and not state[SETUP_DONE + viewer]
    svg.rect(
        x,
        y,
        84 + 46 * max(len(cards), 1),
        52,
        fill="#ffffff",
        stroke="#cccccc",
        rx=8,
        data_place="hand" if choosing else None,
    )
    svg.text(x + 8, y + 30, "your hand", size=11, fill=MUTED)
    for i, k in enumerate(cards):
        svg.circle(x + 104 + 46 * i, y + 26, 18, fill=seat_color(viewer), stroke=INK, stroke_width=1.5)
        svg.text(
            x + 104 + 46 * i, y + 33, card_name(k), size=18, fill="#ffffff", anchor="middle", weight="bold"
        )


def known_cards(state, viewer: int | None, q: int, loc: int) -> str:
    """Seat ``q``'s cards that ``viewer`` (None: everyone) knows to lie at ``loc``, and a ``?``
    per card there that the viewer cannot tell."""
    who = -1 if viewer is None else viewer
    known = [card_name(k) for k in range(NUM_CARDS) if seen_by(state, who, q, k) == loc]
    unknown = count_at(state, q, loc) - len(known)
    return " ".join(known + ["?"] * unknown) or "-"


def _guard(svg, x, y, w, state, g: int) -> None:
    """Guard position ``g``: its card (back or face) and the result of this round's fight."""
    card = int(state[CASTLE + g])
    svg.text(
        x + w / 2,
        y - 8,
        f"guard {g + 1}" + (" (main gate)" if g == 0 else ""),
        size=12,
        fill=MUTED,
        anchor="middle",
    )
    if card < 0:
        svg.rect(x, y, w, 90, fill="none", stroke="#cccccc", rx=8, stroke_dasharray="4 3")
        return
    level = int(GUARD_LEVEL[card])
    if not state[REVEALED + g]:
        svg.rect(x, y, w, 90, fill="#6d5a8a", stroke=INK, rx=8)
        svg.text(x + w / 2, y + 42, "★" * level, size=18, fill="#ffd966", anchor="middle")
        svg.text(x + w / 2, y + 70, "face down", size=11, fill="#e8e0ff", anchor="middle")
        return
    result = int(state[RESULT + g])
    fill = {RES_WON: "#d4f0d4", RES_LOST: "#f5d0d0"}.get(result, "#f3ead2")
    svg.rect(x, y, w, 90, fill=fill, stroke=INK, rx=8)
    svg.text(x + w / 2, y + 24, "★" * level, size=14, fill="#b08900", anchor="middle")
    svg.text(x + w / 2, y + 50, f"strength {int(GUARD_STRENGTH[card])}", size=13, anchor="middle")
    svg.text(x + w / 2, y + 68, f"loot {int(GUARD_LOOT[card])}", size=13, anchor="middle")
    if result in RESULT_TEXT:
        svg.text(x + w / 2, y + 84, f"fight {RESULT_TEXT[result]}", size=11, fill=MUTED, anchor="middle")


def draw(state, viewer: int | None = None, last: LastAction | None = None) -> str:
    """SVG of ``state`` as ``viewer`` (a seat, or None for the public view) sees it."""
    n = int(state[H_NUM_PLAYERS])
    over = bool(state[H_TERMINAL])
    rounds = int(state[NUM_ROUNDS])
    status = "game over" if over else PHASE_NAMES[int(state[PHASE])]
    svg = frame(
        "Mighty Monsters",
        f"{status} · round {min(int(state[ROUND]) + 1, rounds)}/{rounds} · step {int(state[H_STEPS])}",
    )
    ax, ay, aw, _ = AREA
    marked = (last.action - PLAY0) % NUM_SPACES if last is not None and last.action >= PLAY0 else -1
    w = min(120, (aw - 20) / n - 12)
    svg.rect(ax, ay, aw, 36, fill="#8c7b6b", rx=6)
    svg.text(
        ax + aw / 2,
        ay + 24,
        "the castle: guards from the main gate inwards",
        size=14,
        fill="#ffffff",
        anchor="middle",
    )
    for g in range(n):
        x = ax + 10 + g * (w + 12)
        _guard(svg, x, ay + 70, w, state, g)
        for s in range(SIDES):
            space = SIDES * g + s
            y = ay + 180 + s * 80
            occupant = int(state[SPACE + space])
            svg.rect(
                x,
                y,
                w,
                66,
                fill="#ffffff",
                stroke=HIGHLIGHT if space == marked else "#cccccc",
                stroke_width=5 if space == marked else 1,
                rx=8,
                data_place=f"space-{space}",
            )
            svg.text(x + 8, y + 16, f"G{g + 1}{'ab'[s]}", size=10, fill=MUTED)
            if occupant >= 0:
                owner, k = divmod(occupant, NUM_CARDS)
                svg.circle(x + w / 2, y + 36, 22, fill=seat_color(owner), stroke=INK, stroke_width=1.5)
                svg.text(
                    x + w / 2, y + 43, card_name(k), size=20, fill="#ffffff", anchor="middle", weight="bold"
                )
    y = ay + 360
    king = int(state[KING])
    svg.text(ax + 10, y, f"king tile: {KING_NAMES[king] if king >= 0 else '-'}", size=14)
    shown = []
    for g in range(n):
        code = int(state[LAST_GUARD + g])
        if code > 0:
            shown.append(
                f"G{g + 1} {'★' * int(GUARD_LEVEL[code - 1])}{int(GUARD_STRENGTH[code - 1])}/"
                f"{int(GUARD_LOOT[code - 1])} {RESULT_TEXT.get(int(state[LAST_RESULT + g]), '')}"
            )
        elif code < 0:
            shown.append(f"G{g + 1} {'★' * -code} face down")
    if shown:
        svg.text(ax + 10, y + 24, "previous round: " + ", ".join(shown[:3]), size=12, fill=MUTED)
        if len(shown) > 3:
            svg.text(ax + 10, y + 42, ", ".join(shown[3:]), size=12, fill=MUTED)
    if viewer is not None and not over:
        _hand(svg, state, viewer, ax + 10, y + 56)
    rows = []
    for p in range(n):
        setup = " (chosen)" if int(state[PHASE]) == 0 and state[SETUP_DONE + p] else ""
        detail = (
            f"hand: {known_cards(state, viewer, p, LOC_HAND)} · "
            f"face down: {known_cards(state, viewer, p, LOC_DOWN)}{setup} · "
            f"placed {count_at(state, p, LOC_CASTLE)}"
            + (" · start player" if int(state[START_PLAYER]) == p else "")
        )
        rows.append(
            PlayerRow(
                p,
                f"{int(state[GOLD + p])} gold",
                detail,
                on_move=not over and int(state[H_CURRENT]) == p,
                winner=bool(state[WINNER + p]),
            )
        )
    players_panel(svg, rows, viewer, (), [f"guard deck: {int(state[DECK_COUNT])} cards"])
    caption(svg, last)
    return svg.to_string()
