"""Picture of a Marry the Monster state: the hex board with buildings and the fachan, the players.

Everything on the board, the scores, pieces and hand sizes are public; the cards in a hand
are drawn only for their own seat (a pile per kind of card, where the plays of that kind are
clicked), and the deck only as a count (its make-up follows from the hidden hands). Every
action is public, so its name is shown to everyone.
"""

import math

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, H_STEPS, H_TERMINAL
from ..core.picture import (
    AREA,
    HIGHLIGHT,
    INK,
    MUTED,
    LastAction,
    PlayerRow,
    caption,
    fit_transform,
    frame,
    hexagon,
    players_panel,
    seat_color,
)
from .actions import END, MOVE0, PLAY0, action_to_str
from .components import (
    CARD_NAMES,
    CELL_NAMES,
    COORDS,
    MAX_RAY,
    NUM_CARD_TYPES,
    NUM_CELLS,
    PLAY_KIND,
    RAY,
    VALUE,
)
from .state_layout import (
    DECK,
    DISCARD,
    FACHAN,
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

HEX = 40  # circumradius of a cell
SCORE_LABEL = "points"
# What a person clicks to play on this picture (the web page's "how to play here").
HOW_TO_PLAY = (
    "Click a highlighted cell of the board: where to build at the start, where the fachan goes on "
    "your turn, the cell a card targets. Your cards are the piles at the top left: click one to play "
    "that kind of card (a box asks how to pay when several ways are open). Ending your turn is the "
    "button beside the picture; the log names every move as you saw it."
)
PILE_W, PILE_H = 44, 56  # a pile of the viewer's cards of one kind


def cell_centre(c: int):
    """Centre of cell ``c`` on a pointy-top axial grid (board units)."""
    q, r = int(COORDS[c, 0]), int(COORDS[c, 1])
    return HEX * math.sqrt(3) * (q + r / 2), HEX * 1.5 * r


def hand_size(state, p: int) -> int:
    """Cards in seat ``p``'s hand (public)."""
    return sum(int(state[HAND + p * NUM_CARD_TYPES + t]) for t in range(NUM_CARD_TYPES))


def public_scores(state) -> list:
    """Each seat's points (the chart of the replay viewer)."""
    return [int(state[SCORE + p]) for p in range(int(state[H_NUM_PLAYERS]))]


def describe_action(state, action: int, viewer: int | None = None) -> str:
    """The action's name in ``state`` (before it is applied): every play is public."""
    return action_to_str(action, state)


def action_place(state, action: int) -> str | None:
    """The ``data-place`` of the picture's element where ``action`` (legal in ``state``) is made:
    the cell a cell choice names, the cell a fachan move ends on, the pile of the kind of card a
    play plays (however it is paid); None for ``end``."""
    if action < MOVE0:
        return f"cell-{action}"
    if action < PLAY0:
        direction, k = divmod(action - MOVE0, MAX_RAY)
        return f"cell-{int(RAY[int(state[FACHAN]), direction, k])}"
    if action < END:
        return f"cards-{CARD_NAMES[int(PLAY_KIND[action - PLAY0])]}"
    return None


def _piles(svg, state, viewer: int, x, y) -> None:
    """The viewer's cards as a pile per kind (its count on it), each the place of that kind's plays."""
    for t, name in enumerate(CARD_NAMES):
        top = y + t * (PILE_H + 8)
        held = int(state[HAND + viewer * NUM_CARD_TYPES + t])
        svg.rect(
            x,
            top,
            PILE_W,
            PILE_H,
            fill="#ffffff" if held else "#eeeeee",
            stroke=INK,
            stroke_width=1.2,
            rx=5,
            data_place=f"cards-{name}",
        )
        svg.text(x + PILE_W / 2, top + 30, str(held), size=20, anchor="middle", weight="bold")
        svg.text(x + PILE_W / 2, top + 48, name, size=10, fill=MUTED, anchor="middle")


def _building(svg, x, y, height: int, colour: str) -> None:
    """A house (small), manor (larger) or tower (tall, crenellated) in ``colour``."""
    w = (14, 22, 18)[height - 1]
    h = (12, 16, 30)[height - 1]
    top = y + 10 - h
    if height == 3:
        svg.rect(x - w / 2, top, w, h, fill=colour, stroke=INK, stroke_width=1.2)
        for k in range(3):
            svg.rect(
                x - w / 2 + k * w / 3 + 1, top - 5, w / 3 - 2, 5, fill=colour, stroke=INK, stroke_width=1
            )
        return
    svg.polygon(
        [(x - w / 2, y + 10), (x - w / 2, top + 6), (x, top - 4), (x + w / 2, top + 6), (x + w / 2, y + 10)],
        fill=colour,
        stroke=INK,
        stroke_width=1.2,
    )


def draw(state, viewer: int | None = None, last: LastAction | None = None) -> str:
    """SVG of ``state`` as ``viewer`` (a seat, or None for the public view) sees it."""
    n = int(state[H_NUM_PLAYERS])
    over = bool(state[H_TERMINAL])
    status = "game over" if over else PHASE_NAMES[int(state[PHASE])]
    svg = frame("Marry the Monster", f"{status} · step {int(state[H_STEPS])}")
    marked = -1
    if last is not None and last.action < MOVE0:
        marked = last.action
    elif last is not None and last.action < MOVE0 + 36:
        marked = int(state[FACHAN])
    xs = [cell_centre(c)[0] for c in range(NUM_CELLS)]
    ys = [cell_centre(c)[1] for c in range(NUM_CELLS)]
    bbox = (min(xs) - HEX, min(ys) - HEX, max(xs) - min(xs) + 2 * HEX, max(ys) - min(ys) + 2 * HEX)
    with svg.group(fit_transform(bbox, AREA)):
        for c in range(NUM_CELLS):
            x, y = cell_centre(c)
            height = int(state[HEIGHT + c])
            owner = int(state[OWNER + c])
            fill = "#e9e2cf" if height == 0 else "#f6f1e4"
            svg.polygon(
                hexagon(x, y, HEX - 1), fill=fill, stroke="#b9ae94", stroke_width=1.5, data_place=f"cell-{c}"
            )
            svg.text(x, y - 20, CELL_NAMES[c], size=9, fill=MUTED, anchor="middle")
            if height:
                _building(svg, x, y + 6, height, seat_color(owner))
            else:
                svg.text(x, y + 6, str(int(VALUE[c])), size=15, fill="#9a8f74", anchor="middle")
        for c in (marked,) if marked >= 0 else ():
            x, y = cell_centre(c)
            svg.polygon(hexagon(x, y, HEX - 3), stroke=HIGHLIGHT, stroke_width=5)
        fx, fy = cell_centre(int(state[FACHAN]))
        svg.circle(fx, fy + 4, 15, fill="#5b2a86", stroke=INK, stroke_width=1.5)
        for dx in (-5, 5):
            svg.circle(fx + dx, fy, 3.5, fill="#ffffff")
            svg.circle(fx + dx, fy, 1.5, fill=INK)
        svg.text(fx, fy + 32, "fachan", size=9, fill="#5b2a86", anchor="middle")
    if viewer is not None:
        _piles(svg, state, viewer, AREA[0] + 4, AREA[1] + 4)
    rows = []
    for p in range(n):
        towers = sum(
            1 for c in range(NUM_CELLS) if int(state[OWNER + c]) == p and int(state[HEIGHT + c]) == 3
        )
        rows.append(
            PlayerRow(
                p,
                f"{int(state[SCORE + p])} points",
                f"towers {towers} · pieces {int(state[POOL + p])} · stomped {int(state[PENDING + p])}"
                f" · hand {hand_size(state, p)}",
                on_move=not over and int(state[H_CURRENT]) == p,
                winner=bool(state[WINNER + p]),
            )
        )
    private = []
    if viewer is not None:
        private = [
            "hand: "
            + ", ".join(
                f"{int(state[HAND + viewer * NUM_CARD_TYPES + t])} {name}"
                for t, name in enumerate(CARD_NAMES)
            )
        ]
    deck = sum(int(state[DECK + t]) for t in range(NUM_CARD_TYPES))
    discard = ", ".join(f"{int(state[DISCARD + t])} {name}" for t, name in enumerate(CARD_NAMES))
    players_panel(svg, rows, viewer, private, [f"deck: {deck} cards", f"discard: {discard}"])
    caption(svg, last)
    return svg.to_string()
