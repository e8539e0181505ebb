"""Picture of a Monster Factory state: every monster as its tiles, the tile in hand, the supply
and the scores.

Nothing is hidden in Monster Factory (MF-18): every seat and the public see the same
picture. Monsters grow without bound, so each is scaled to fit its own box; the monsters
in progress come first, the complete ones after them, as in the text view. Below them a strip
shows the tile in hand as a tile, or, while start tiles are chosen, every kind the supply still
holds (each one a place where its start move is made). :func:`move_preview` draws a placement
where it would go: the tile in hand, turned, among its neighbours.
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
    Svg,
    caption,
    fit_transform,
    frame,
    players_panel,
    seat_color,
)
from .actions import PLACE0, START0, action_to_str, decode_place
from .components import EDGES, KIND_EYE, KIND_NAMES, NUM_KINDS
from .queries import key_cell, key_monster
from .state_layout import (
    CELL_KEY,
    CURRENT_MONSTER,
    DISCARDED,
    FIRST_PLAYER,
    HAND,
    LAST_PLACED,
    MON_DONE,
    MON_OWNER,
    MON_SIZE,
    NUM_CELLS,
    NUM_MONSTERS,
    NUM_PLACED,
    PHASE,
    PHASE_NAMES,
    SCORE,
    SUPPLY,
    TILE_KIND,
    TILE_MONSTER,
    TILE_ROT,
    TILE_X,
    TILE_Y,
    WINNER,
)
from .text_view import monster_name

TILE = 40
STRIP_H = 64  # the strip below the monsters: the tile in hand, or the kinds to start with
KIND_TILE = 20  # a kind's tile in that strip
PREVIEW = 3 * TILE  # a placement's preview: the cell and its eight neighbours
SCORE_LABEL = "points"
EDGE_WIDTH = (0, 3, 8)  # blank, thin, thick
# Side d's edge as a segment of the unit square, N E S W.
SIDE_SEGMENTS = (((0, 0), (1, 0)), ((1, 0), (1, 1)), ((0, 1), (1, 1)), ((0, 0), (0, 1)))
# What a person clicks to play on this picture (the web page's "how to play here").
HOW_TO_PLAY = (
    "At the start choose your first tile by the buttons beside the picture. On your turn the tile "
    "you drew is shown beside the board: click a highlighted open cell of a monster, and a box shows "
    "each way the tile may be turned there; choose one."
)


def public_scores(state) -> list:
    """Each seat's points (the chart of the replay viewer)."""
    return [int(state[SCORE + p]) for p in range(int(state[H_NUM_PLAYERS]))]


def describe_action(state, action: int, viewer: int | None = None) -> str:
    """The action's name in ``state`` (before it is applied): everything is public (MF-18)."""
    return action_to_str(action, state)


def action_place(state, action: int) -> str | None:
    """The ``data-place`` of the picture's element where ``action`` is made: the open cell a
    placement fills (each orientation is one action there); None for the start tiles."""
    if action < PLACE0:
        return f"kind-{action - START0}"
    return f"cell-{decode_place(action)[0]}"


def move_preview(state, action: int) -> str | None:
    """A small SVG of placement ``action`` where it would go: the tile in hand turned as the action
    turns it, on its cell (marked), among the monster's tiles around that cell; None for other
    actions."""
    if action < PLACE0 or int(state[HAND]) < 0:
        return None
    cell, rotation = decode_place(action)
    if cell >= int(state[NUM_CELLS]):
        return None
    key = int(state[CELL_KEY + cell])
    m, (cx, cy) = key_monster(key), key_cell(key)
    colour = seat_color(int(state[MON_OWNER + m]))
    svg = Svg(PREVIEW, PREVIEW, background="#ffffff")
    for i in range(int(state[NUM_PLACED])):
        dx, dy = int(state[TILE_X + i]) - int(cx), int(state[TILE_Y + i]) - int(cy)
        if int(state[TILE_MONSTER + i]) == m and abs(dx) <= 1 and abs(dy) <= 1:
            _tile(
                svg,
                (dx + 1) * TILE,
                (dy + 1) * TILE,
                int(state[TILE_KIND + i]),
                int(state[TILE_ROT + i]),
                colour,
                False,
            )
    _tile(svg, TILE, TILE, int(state[HAND]), rotation, colour, False)
    svg.rect(TILE - 3, TILE - 3, TILE + 6, TILE + 6, stroke=HIGHLIGHT, stroke_width=3, rx=3)
    return svg.to_string()


def _tile(svg, x, y, kind: int, rot: int, colour: str, marked: bool) -> None:
    """One tile at ``(x, y)`` (top-left, board units): body, edges by width, an eye."""
    svg.rect(x, y, TILE, TILE, fill=colour, fill_opacity=0.35, stroke="#bbbbbb")
    for d, ((x1, y1), (x2, y2)) in enumerate(SIDE_SEGMENTS):
        edge = int(EDGES[kind, rot, d])
        if edge:
            inset = EDGE_WIDTH[edge] / 2
            sx = inset if d == 3 else -inset if d == 1 else 0
            sy = inset if d == 0 else -inset if d == 2 else 0
            svg.line(
                x + x1 * TILE + sx,
                y + y1 * TILE + sy,
                x + x2 * TILE + sx,
                y + y2 * TILE + sy,
                stroke=colour,
                stroke_width=EDGE_WIDTH[edge],
            )
    if KIND_EYE[kind]:
        svg.circle(x + TILE / 2, y + TILE / 2, 7, fill="#ffffff", stroke=INK)
        svg.circle(x + TILE / 2, y + TILE / 2, 3, fill=INK)
    if marked:
        svg.rect(x + 2, y + 2, TILE - 4, TILE - 4, stroke=HIGHLIGHT, stroke_width=4)


def _monster(svg, state, m: int, box) -> None:
    """Monster ``m`` with its open cells numbered, scaled into ``box`` (x, y, w, h)."""
    colour = seat_color(int(state[MON_OWNER + m]))
    tiles = [i for i in range(int(state[NUM_PLACED])) if int(state[TILE_MONSTER + i]) == m]
    cells = [
        (j, key_cell(int(state[CELL_KEY + j])))
        for j in range(int(state[NUM_CELLS]))
        if key_monster(int(state[CELL_KEY + j])) == m
    ]
    xs = [int(state[TILE_X + i]) for i in tiles] + [int(c[0]) for _, c in cells]
    ys = [int(state[TILE_Y + i]) for i in tiles] + [int(c[1]) for _, c in cells]
    x, y, w, h = box
    done = bool(state[MON_DONE + m])
    svg.rect(x, y, w, h, fill="#ffffff", stroke=colour if not done else "#cccccc", rx=6)
    svg.text(x + 6, y + 14, f"{monster_name(state, m)}{' (complete)' if done else ''}", size=11, fill=MUTED)
    bbox = (min(xs) * TILE, min(ys) * TILE, (max(xs) - min(xs) + 1) * TILE, (max(ys) - min(ys) + 1) * TILE)
    with svg.group(fit_transform(bbox, (x + 6, y + 20, w - 12, h - 26))):
        for j, (cx, cy) in cells:
            svg.rect(
                int(cx) * TILE + 3,
                int(cy) * TILE + 3,
                TILE - 6,
                TILE - 6,
                stroke="#aaaaaa",
                stroke_dasharray="4 3",
                data_place=f"cell-{j}",
            )
            svg.text(
                int(cx) * TILE + TILE / 2,
                int(cy) * TILE + TILE / 2 + 4,
                f"c{j}",
                size=11,
                fill=MUTED,
                anchor="middle",
            )
        for i in tiles:
            _tile(
                svg,
                int(state[TILE_X + i]) * TILE,
                int(state[TILE_Y + i]) * TILE,
                int(state[TILE_KIND + i]),
                int(state[TILE_ROT + i]),
                colour,
                int(state[LAST_PLACED]) == i,
            )


def _strip(svg, state, box) -> None:
    """The tile in hand drawn as a tile; while start tiles are chosen, every kind left in the supply
    (each the place of its start move), with how many of it are left."""
    x, y, w, h = box
    svg.rect(x, y, w, h, fill="#ffffff", stroke="#d8d2c4", rx=6)
    hand = int(state[HAND])
    if hand >= 0:
        svg.text(x + 10, y + h / 2 + 4, "tile in hand:", size=13, fill=MUTED)
        with svg.group(f"translate({x + 105},{y + (h - TILE) / 2})"):
            _tile(svg, 0, 0, hand, 0, seat_color(int(state[H_CURRENT])), False)
        svg.text(
            x + 155,
            y + h / 2 + 4,
            f"{KIND_NAMES[hand]} · click an open cell to see it turned there",
            size=12,
            fill=MUTED,
        )
        return
    if int(state[PHASE]) != 0:
        return
    svg.text(x + 8, y + 13, "start tiles left in the supply (a number: how many)", size=11, fill=MUTED)
    for k in range(NUM_KINDS):
        left = int(state[SUPPLY + k])
        kx = x + 8 + k * (KIND_TILE + 3)
        if left:
            with svg.group(f"translate({kx},{y + 20}) scale({KIND_TILE / TILE})"):
                _tile(svg, 0, 0, k, 0, INK, False)
                svg.rect(0, 0, TILE, TILE, data_place=f"kind-{k}")
            svg.text(
                kx + KIND_TILE / 2, y + 20 + KIND_TILE + 12, str(left), size=10, fill=MUTED, anchor="middle"
            )


def draw(state, viewer: int | None = None, last: LastAction | None = None) -> str:
    """SVG of ``state``: the same for every ``viewer``, since nothing is hidden (MF-18)."""
    n = int(state[H_NUM_PLAYERS])
    over = bool(state[H_TERMINAL])
    status = "game over" if over else PHASE_NAMES[int(state[PHASE])]
    svg = frame("Monster Factory", f"{status} · step {int(state[H_STEPS])}")
    monsters = [m for m in range(int(state[NUM_MONSTERS])) if int(state[MON_SIZE + m]) > 0]
    monsters.sort(key=lambda m: (int(state[MON_DONE + m]), int(state[MON_OWNER + m]), m))
    ax, ay, aw, ah = AREA
    ah -= STRIP_H + 6
    _strip(svg, state, (ax, ay + ah + 6, aw, STRIP_H))
    if monsters:
        cols = max(1, math.ceil(math.sqrt(len(monsters) * aw / ah)))
        rows = math.ceil(len(monsters) / cols)
        w, h = aw / cols, ah / rows
        for k, m in enumerate(monsters):
            _monster(svg, state, m, (ax + (k % cols) * w + 2, ay + (k // cols) * h + 2, w - 4, h - 4))
    else:
        svg.text(
            ax + aw / 2,
            ay + ah / 2,
            "no monster yet: each player picks a start tile",
            size=15,
            fill=MUTED,
            anchor="middle",
        )
    players = []
    for p in range(n):
        m = int(state[CURRENT_MONSTER + p])
        first = (
            "complete"
            if int(state[MON_DONE + p])
            else "in progress"
            if int(state[MON_SIZE + p])
            else "no start tile yet"
        )
        players.append(
            PlayerRow(
                p,
                f"{int(state[SCORE + p])} points",
                f"first monster {first} · tiles in progress {'-' if m < 0 else int(state[MON_SIZE + m])}"
                + (" · first player" if int(state[FIRST_PLAYER]) == p else ""),
                on_move=not over and int(state[H_CURRENT]) == p,
                winner=over and bool(state[WINNER + p]),
            )
        )
    hand = int(state[HAND])
    supply = sum(int(state[SUPPLY + k]) for k in range(NUM_KINDS))
    discarded = sum(int(state[DISCARDED + k]) for k in range(NUM_KINDS))
    notes = [
        f"tile in hand: {KIND_NAMES[hand] if hand >= 0 else '-'}",
        f"supply: {supply} tiles face down",
        f"left the game: {discarded} tiles",
        "tiles: thin/thick edges, ◉ an eye,",
        "c<N>: open cell N",
    ]
    players_panel(svg, players, viewer, (), notes)
    caption(svg, last)
    return svg.to_string()
