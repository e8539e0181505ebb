"""Picture of a MONSTArgh! state: the table of stacked monster cards, stars, hands and tokens.

The species tokens of the running scene and the monster cards in hand are private (MA-18):
a viewer sees their own token and cards (drawn as cards below the table), everyone else only
how many cards each seat holds.
Every play is public (the chosen card is shown while it waits for its cell). The table
spreads without bound (ruling MA2), so it is scaled to fit its area.
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
    fit_transform,
    frame,
    players_panel,
)
from .actions import FOCUS0, PLACE0, STEAL0, TARGET0, action_to_str
from .components import (
    CARD_NAMES,
    DX,
    DY,
    FOCUS_AMOUNTS,
    NUM_CARDS,
    NUM_DIRS,
    NUM_FOCUS,
    NUM_SPECIES,
    NUM_VALUES,
    SPECIES,
)
from .rules import neighbour_top
from .state_layout import (
    CARD_CELL,
    CELL_HEIGHT,
    CELL_TOP,
    CELL_X,
    CELL_Y,
    CHOSEN,
    DECK_LEFT,
    FOCUS,
    FOCUS_AMOUNT,
    HELD,
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
    WHERE,
    WINNER,
)
from .text_view import card_label, focus_text

CARD_W, CARD_H, GAP = 56, 76, 8
SCORE_LABEL = "stars"
SPECIES_COLORS = {
    "green": "#3fa34d",
    "blue": "#3b7dd8",
    "yellow": "#e0b400",
    "red": "#d64541",
    "pink": "#e577b3",
    "orange": "#ef8a2b",
}
# What a person clicks to play on this picture (the web page's "how to play here").
HOW_TO_PLAY = (
    "Your hand is drawn below the table: click a highlighted card of it to play it, then click the "
    "highlighted card on the table beside which it goes (a box asks on which side). A focus card "
    "(±1, ±2) is clicked the same way (a box asks whether to raise or lower), then the card it "
    "targets. To steal, click the highlighted card on the table."
)
HAND_SCALE = 0.75  # the viewer's own cards, below the table


def species_color(species: int) -> str:
    """The colour of a species by its name, grey for one without a named colour."""
    return SPECIES_COLORS.get(SPECIES[species], "#888888")


def public_scores(state) -> list:
    """Each seat's stars (the chart of the replay viewer)."""
    return [int(state[STARS + p]) for p in range(int(state[H_NUM_PLAYERS]))]


def describe_action(state, action: int, viewer: int | None = None) -> str:
    """The action's name in ``state`` (before it is applied): a played card is shown to all."""
    return action_to_str(action, state)


def action_place(state, action: int) -> str | None:
    """The ``data-place`` of the picture's element where ``action`` is made: the card of the
    viewer's hand a play plays, the visible card a placement is made beside or a focus card
    targets, the card a steal takes from, the focus card a focus play plays (raising or lowering:
    two moves at one place)."""
    if action < FOCUS0:
        return f"hand-{action}"
    if action < PLACE0:
        return f"focus-{(action - FOCUS0) // 2}"
    if action < TARGET0:
        return f"card-{(action - PLACE0) // NUM_DIRS}"
    if action < STEAL0:
        return f"card-{action - TARGET0}"
    victim = neighbour_top(state, int(state[PROTAGONIST]), action - STEAL0)
    return f"card-{victim}" if victim >= 0 else None


def _card(
    svg, x, y, card: int, under: int = 0, marked: bool = False, acting: bool = False, place: str | None = None
) -> None:
    """Monster card ``card`` with ``under`` cards beneath it in its stack; ``place`` names it as
    where moves are made (the ``data-place`` of :func:`action_place`)."""
    for k in range(min(under, 3), 0, -1):
        svg.rect(x + 3 * k, y - 3 * k, CARD_W, CARD_H, fill="#dddddd", stroke="#999999", rx=5)
    colour = species_color(card // NUM_VALUES)
    svg.rect(
        x,
        y,
        CARD_W,
        CARD_H,
        fill=colour,
        stroke=HIGHLIGHT if marked else INK,
        stroke_width=5 if marked else 1.2,
        rx=5,
        data_place=place,
    )
    svg.text(
        x + CARD_W / 2,
        y + 44,
        str(card % NUM_VALUES + 1),
        size=26,
        fill="#ffffff",
        anchor="middle",
        weight="bold",
    )
    svg.text(x + CARD_W / 2, y + 66, SPECIES[card // NUM_VALUES], size=10, fill="#ffffff", anchor="middle")
    if under:
        svg.text(x + CARD_W - 4, y + 12, f"+{under}", size=10, fill="#ffffff", anchor="end")
    if acting:
        svg.text(x + CARD_W / 2, y - 6, "acting", size=11, fill="#a05a00", anchor="middle", weight="bold")


def _hand(svg, cards, focus, x, y) -> None:
    """The viewer's own monster cards from ``(x, y)``, then its focus cards (``focus``: the indices
    it holds), each the place where its play is made."""
    svg.text(x, y - 4, "your hand:", size=11, fill=MUTED)
    for i, card in enumerate(cards):
        with svg.group(f"translate({x + i * (CARD_W * HAND_SCALE + 5)},{y}) scale({HAND_SCALE})"):
            _card(svg, 0, 0, card, place=f"hand-{card}")
    for i, f in enumerate(focus, len(cards)):
        with svg.group(f"translate({x + i * (CARD_W * HAND_SCALE + 5)},{y}) scale({HAND_SCALE})"):
            svg.rect(
                0,
                0,
                CARD_W,
                CARD_H,
                fill="#ffffff",
                stroke=INK,
                stroke_width=1.2,
                rx=5,
                data_place=f"focus-{f}",
            )
            svg.text(CARD_W / 2, 44, f"±{int(FOCUS_AMOUNTS[f])}", size=24, anchor="middle", weight="bold")
            svg.text(CARD_W / 2, 66, "focus", size=10, fill=MUTED, anchor="middle")


def _marked_cell(state, last: LastAction | None):
    """The cell (x, y) the last action placed a card on or targeted, or None."""
    if last is None or not PLACE0 <= last.action < STEAL0:
        return None
    if last.action < TARGET0:
        t, d = divmod(last.action - PLACE0, NUM_DIRS)
        slot = int(state[CARD_CELL + t])
        return int(state[CELL_X + slot]) + int(DX[d]), int(state[CELL_Y + slot]) + int(DY[d])
    slot = int(state[CARD_CELL + last.action - TARGET0])
    return int(state[CELL_X + slot]), int(state[CELL_Y + slot])


def draw(state, viewer: int | None = None, last: LastAction | None = None) -> str:
    """SVG of ``state`` as ``viewer`` (a seat, or None for the public view) sees it."""
    n = int(state[H_NUM_PLAYERS])
    over = bool(state[H_TERMINAL])
    status = "game over" if over else PHASE_NAMES[int(state[PHASE])]
    svg = frame("MONSTArgh!", f"scene {int(state[SCENE])} · {status} · step {int(state[H_STEPS])}")
    cells = [k for k in range(NUM_CARDS) if int(state[CELL_TOP + k]) >= 0]
    ax, ay, aw, ah = AREA
    marked = _marked_cell(state, last)
    table_box = (ax, ay, aw, ah - 100)
    if cells:
        xs = [int(state[CELL_X + k]) for k in cells]
        ys = [int(state[CELL_Y + k]) for k in cells]
        pitch_x, pitch_y = CARD_W + GAP, CARD_H + GAP
        bbox = (
            min(xs) * pitch_x - 10,
            min(ys) * pitch_y - 20,
            (max(xs) - min(xs) + 1) * pitch_x + 20,
            (max(ys) - min(ys) + 1) * pitch_y + 30,
        )
        with svg.group(fit_transform(bbox, table_box, max_scale=1.4)):
            for k in cells:
                x, y = int(state[CELL_X + k]), int(state[CELL_Y + k])
                top = int(state[CELL_TOP + k])
                _card(
                    svg,
                    x * pitch_x,
                    y * pitch_y,
                    top,
                    int(state[CELL_HEIGHT + k]) - 1,
                    marked == (x, y),
                    top == int(state[PROTAGONIST]),
                    f"card-{top}",
                )
    else:
        svg.text(ax + aw / 2, ay + ah / 2 - 50, "the table is empty", size=15, fill=MUTED, anchor="middle")
    y = ay + ah - 90
    chosen = int(state[CHOSEN])
    if chosen >= 0:
        svg.text(ax + 10, y + 14, "waiting for its cell:", size=12, fill=MUTED)
        _card(svg, ax + 150, y - 20, chosen)
    if int(state[PROTAGONIST]) >= 0:
        svg.text(
            ax + 10,
            y + 34,
            f"protagonist {CARD_NAMES[int(state[PROTAGONIST])]} acting as {int(state[PROT_VALUE])}",
            size=12,
        )
    elif int(state[FOCUS_AMOUNT]) != 0:
        svg.text(ax + 10, y + 34, f"focus {int(state[FOCUS_AMOUNT]):+d} waiting for its target", size=12)
    in_play = [s for s in range(NUM_SPECIES) if int(state[IN_PLAY + s])]
    svg.text(ax + 10, y + 84, "species in play:", size=12, fill=MUTED)
    for i, s in enumerate(in_play):
        svg.rect(ax + 110 + 70 * i, y + 72, 14, 14, fill=species_color(s), rx=3)
        svg.text(ax + 128 + 70 * i, y + 84, SPECIES[s], size=12)
    rows = []
    for p in range(n):
        token = int(state[LAST_TOKEN + p])
        last_scene = f"{SPECIES[token]} +{int(state[LAST_STARS + p])}" if token >= 0 else "-"
        rows.append(
            PlayerRow(
                p,
                f"{int(state[STARS + p])} stars",
                f"cards in hand {int(state[HELD + p])} · focus {focus_text(state, p)} · "
                f"last scene {last_scene}" + (" · starter" if int(state[STARTER]) == p else ""),
                on_move=not over and int(state[H_CURRENT]) == p,
                winner=bool(state[WINNER + p]),
            )
        )
    private = []
    if viewer is not None and not over:
        token = int(state[TOKEN + viewer])
        hand = [card_label(c) for c in range(NUM_CARDS) if int(state[WHERE + c]) == viewer]
        private = [
            f"your species: {SPECIES[token] if 0 <= token < NUM_SPECIES else '-'}",
            "your cards: " + (" ".join(hand) or "none"),
        ]
        _hand(
            svg,
            [c for c in range(NUM_CARDS) if int(state[WHERE + c]) == viewer],
            [f for f in range(NUM_FOCUS) if int(state[FOCUS + viewer * NUM_FOCUS + f])],
            ax + 260,
            y - 8,
        )
    players_panel(svg, rows, viewer, private, [f"deck: {int(state[DECK_LEFT])} cards"])
    caption(svg, last)
    return svg.to_string()
