"""Text view of a Monster Factory state: every monster drawn as a grid, then the supply and scores.

A tile is a 5x3 block: its N edge on top, W and E edges beside its index in the
monster (the order its tiles were laid) and an ``e`` for an eye, its S edge below.
Edges read ``.`` blank, ``1`` thin, ``2`` thick; ``*`` marks the tile just placed.
An open cell shows its number ``cN``, the ``c`` of the placement actions (MF-19).
:func:`plain_text` tells the same in words, a line per tile and per open cell, for readers of text.
"""

import re

from ..core.contract import H_CURRENT, H_NUM_PLAYERS, H_STEPS, H_TERMINAL
from ..core.text_view import table
from .components import EDGES, KIND_BY_NAME, KIND_EYE, KIND_NAMES, NUM_KINDS
from .queries import key_cell, key_monster
from .state_layout import (
    CELL_KEY,
    CURRENT_MONSTER,
    DISCARDED,
    FIRST_PLAYER,
    HAND,
    LAST_PLACED,
    MON_DONE,
    MON_EYES,
    MON_ORDINAL,
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

# What the drawings mean, for people at the terminal (``help`` / ``legend``).
LEGEND = """\
monsters: each monster is drawn north up, one tile as a 5x3 block:
     2        the tile's north edge
   1 4e2      west edge, the tile's number in the monster (4), e if it has an eye, east edge
     .        the south edge
  edges: . blank, 1 thin, 2 thick; *  marks the tile just placed
  c7   an open cell, where 'place c7 r1' puts the tile in hand (r = quarter turns clockwise)
tile names: four edge digits N, E, S, W plus e for an eye, e.g. 2110e; the supply lists name:count
table: score, whether the first monster is complete, tiles in monsters still in progress;
  * marks the player on move, W the winner"""

# The same for :func:`plain_text`, the monsters listed in words (what the JSON view shows).
PLAIN_LEGEND = """\
monsters: a line per tile, 'tile 4 at 1,0: 2110e turned 90° clockwise (thick right, ...)': its number
  in the monster, its place (x columns east, y rows south of the first tile), its name and its edges
  as it lies; a line per open cell, 'open cell c7 at 0,1', where 'place c7 r1' puts the tile in hand
  (r = quarter turns clockwise), and the edges of the tiles it touches
tile names: four edge digits N, E, S, W (0 blank, 1 thin, 2 thick) plus e for an eye, e.g. 2110e;
  the supply lists name:count
table: score, whether the first monster is complete, tiles in monsters still in progress;
  * marks the player on move, W the winner"""

EDGE_GLYPHS = ".12"


def monster_name(state, m: int) -> str:
    """``player_1's first monster`` or ``player_1's minion 2``."""
    ordinal = int(state[MON_ORDINAL + m])
    what = "first monster" if ordinal == 0 else f"minion {ordinal}"
    return f"player_{int(state[MON_OWNER + m])}'s {what}"


def monster_grid(state, m: int) -> str:
    """Monster ``m`` as text blocks, north up (rows of 3 lines, 5 characters per cell), its
    open cells numbered."""
    tiles = {}
    t = 0
    for i in range(int(state[NUM_PLACED])):
        if int(state[TILE_MONSTER + i]) == m:
            tiles[(int(state[TILE_X + i]), int(state[TILE_Y + i]))] = (i, t)
            t += 1
    cells = {}
    for j in range(int(state[NUM_CELLS])):
        key = int(state[CELL_KEY + j])
        if key_monster(key) == m:
            cells[tuple(int(v) for v in key_cell(key))] = j
    xs = [x for x, _ in [*tiles, *cells]]
    ys = [y for _, y in [*tiles, *cells]]
    lines = []
    for y in range(min(ys), max(ys) + 1):
        rows = ["", "", ""]
        for x in range(min(xs), max(xs) + 1):
            if (x, y) in cells:
                rows = [rows[0] + "     ", rows[1] + f" c{cells[(x, y)]:<3}", rows[2] + "     "]
                continue
            if (x, y) not in tiles:
                rows = [r + "     " for r in rows]
                continue
            slot, index = tiles[(x, y)]
            k, r = int(state[TILE_KIND + slot]), int(state[TILE_ROT + slot])
            n, e, s, w = (EDGE_GLYPHS[int(EDGES[k, r, d])] for d in range(4))
            mark = "*" if int(state[LAST_PLACED]) == slot else " "
            eye = "e" if KIND_EYE[k] else " "
            rows[0] += f" {mark}{n}  "
            rows[1] += f"{w}{index:>2}{eye}{e}"
            rows[2] += f"  {s}  "
        lines += rows
    return "\n".join(("    " + line).rstrip() for line in lines)


def phase_text(state) -> str:
    """The phase the game is in, in words ("game over" once it ended): the text view's status and
    the JSON view's ``phase``."""
    return "game over" if int(state[H_TERMINAL]) else PHASE_NAMES[int(state[PHASE])]


def monsters_on_table(state) -> list[int]:
    """The monsters with tiles, those in progress first, each owner's in seat order."""
    monsters = [m for m in range(int(state[NUM_MONSTERS])) if int(state[MON_SIZE + m]) > 0]
    monsters.sort(key=lambda m: (int(state[MON_DONE + m]), int(state[MON_OWNER + m]), m))
    return monsters


def monster_heading(state, m: int) -> str:
    """``player_0's first monster: in progress, 5 tiles, 2 with an eye``."""
    size = int(state[MON_SIZE + m])
    return (
        f"{monster_name(state, m)}: {'complete' if int(state[MON_DONE + m]) else 'in progress'}, "
        f"{size} tile{'s' if size != 1 else ''}, {int(state[MON_EYES + m])} with an eye"
    )


def header(state) -> str:
    """The first line: the phase or game over, the step, the first player and the tile in hand."""
    over = int(state[H_TERMINAL]) != 0
    status = "game over" if over else f"phase: {phase_text(state)}"
    hand = int(state[HAND])
    head = (
        f"Monster Factory - {status} - step {int(state[H_STEPS])} - first player "
        f"player_{int(state[FIRST_PLAYER])}"
    )
    return head + (f" - tile in hand: {KIND_NAMES[hand]}" if hand >= 0 else "")


def supply_and_scores(state) -> list[str]:
    """The lines after the monsters: the supply, the tiles out of the game and the score table."""
    n = int(state[H_NUM_PLAYERS])
    over = int(state[H_TERMINAL]) != 0
    supply = " ".join(
        f"{KIND_NAMES[k]}:{int(state[SUPPLY + k])}" for k in range(NUM_KINDS) if int(state[SUPPLY + k])
    )
    discarded = " ".join(
        f"{KIND_NAMES[k]}:{int(state[DISCARDED + k])}" for k in range(NUM_KINDS) if int(state[DISCARDED + k])
    )
    out = [
        f"supply ({sum(int(state[SUPPLY + k]) for k in range(NUM_KINDS))}): {supply or '-'}",
        f"left the game: {discarded or '-'}",
    ]
    rows = []
    for p in range(n):
        marks = ("*" if int(state[H_CURRENT]) == p else "") + ("W" if over and int(state[WINNER + p]) else "")
        m = int(state[CURRENT_MONSTER + p])
        rows.append(
            (
                f"player_{p}{marks}",
                int(state[SCORE + p]),
                "complete"
                if int(state[MON_DONE + p])
                else ("in progress" if int(state[MON_SIZE + p]) else "no start tile yet"),
                "-" if m < 0 else int(state[MON_SIZE + m]),
            )
        )
    out.append(table(("player", "score", "first monster", "tiles in progress"), rows))
    out.append("(* on move, W winner)")
    return out


def to_text(state) -> str:
    """The whole public state: header, each monster (in progress first), supply and scores."""
    out = [
        header(state),
        "(tiles: N edge above, W and E beside the tile's index, S below; edges . blank, "
        "1 thin, 2 thick; e an eye, * just placed; cN: open cell N of 'place cN rR')",
    ]
    for m in monsters_on_table(state):
        out.append(monster_heading(state, m))
        out.append(monster_grid(state, m))
    return "\n".join(out + supply_and_scores(state))


STEPS = ((0, -1), (1, 0), (0, 1), (-1, 0))  # from a cell to its neighbour on its top, right, bottom, left


def monster_listing(state, m: int) -> list[str]:
    """Monster ``m`` in words, one line per tile and per open cell: where it lies (x east, y south
    of the monster's first tile), a tile's edges as turned, and the edges an open cell touches."""
    tiles = {}
    index = 0
    for i in range(int(state[NUM_PLACED])):
        if int(state[TILE_MONSTER + i]) == m:
            tiles[(int(state[TILE_X + i]), int(state[TILE_Y + i]))] = (i, index)
            index += 1
    lines = []
    for (x, y), (slot, index) in sorted(tiles.items(), key=lambda item: item[1][1]):
        k, r = int(state[TILE_KIND + slot]), int(state[TILE_ROT + slot])
        turned = "" if r == 0 else f" turned {90 * r}° clockwise"
        last = ", just placed" if int(state[LAST_PLACED]) == slot else ""
        lines.append(f"  tile {index} at {x},{y}: {KIND_NAMES[k]}{turned} ({tile_words(k, r)}){last}")
    for j in range(int(state[NUM_CELLS])):
        key = int(state[CELL_KEY + j])
        if key_monster(key) != m:
            continue
        x, y = (int(v) for v in key_cell(key))
        touches = []
        for side, (dx, dy) in enumerate(STEPS):
            if (x + dx, y + dy) in tiles:
                slot, index = tiles[(x + dx, y + dy)]
                facing = (side + 2) % len(STEPS)
                edge = int(EDGES[int(state[TILE_KIND + slot]), int(state[TILE_ROT + slot]), facing])
                touches.append(
                    f"its {SIDE_WORDS[side]} meets tile {index}'s {EDGE_WORDS[edge]} {SIDE_WORDS[facing]} edge"
                )
        lines.append(f"  open cell c{j} at {x},{y}: {'; '.join(touches)}")
    return lines


def plain_text(state) -> str:
    """The whole public state as :func:`to_text` tells it, each monster listed in words instead of
    drawn (what a reader of text, such as a language model, is shown): a tile's place and edges,
    an open cell's place (``c`` of ``place cN rR``) and the edges it touches."""
    out = [header(state), "(x, y: columns east and rows south of a monster's first tile, at 0,0)"]
    for m in monsters_on_table(state):
        out.append(monster_heading(state, m))
        out += monster_listing(state, m)
    return "\n".join(out + supply_and_scores(state))


def private_text(state, player: int) -> str:
    """Nothing is private in Monster Factory (MF-18)."""
    return "nothing is private: every tile on the table and in hand is public"


EDGE_WORDS = ("blank", "thin", "thick")
SIDE_WORDS = ("top", "right", "bottom", "left")


def tile_words(kind: int, rotation: int = 0) -> str:
    """A tile kind turned ``rotation`` quarter turns, in words: its edges that are not blank, side
    by side, and its eye (``2000e``: "thick top, eye")."""
    edges = [
        f"{EDGE_WORDS[int(EDGES[kind, rotation, d])]} {SIDE_WORDS[d]}"
        for d in range(len(SIDE_WORDS))
        if int(EDGES[kind, rotation, d])
    ]
    return ", ".join(edges + (["eye"] if KIND_EYE[kind] else [])) or "all blank"


TILE_CODE = re.compile(r"\b[0-2]{4}e?\b")


def code_words(text: str) -> dict[str, str]:
    """Each tile name ``text`` uses (``2110e``), in words as the tile lies unturned."""
    return {
        name: f"tile, unturned: {tile_words(KIND_BY_NAME[name])}"
        for name in dict.fromkeys(TILE_CODE.findall(text))
        if name in KIND_BY_NAME
    }


def explain_action(state, action: int) -> str:
    """Action ``action`` (legal in ``state``) in words for the person who takes it: the tile it
    starts with or where and how it lays the tile in hand (everything here is public, MF-18)."""
    from .actions import PLACE0, START0, decode_place
    from .queries import open_cell

    if action < PLACE0:
        kind = action - START0
        return f"start your monster with tile {KIND_NAMES[kind]} ({tile_words(kind)})"
    cell, rotation = decode_place(action)
    seat, x, y = open_cell(state, cell)
    turned = "unturned" if rotation == 0 else f"turned {90 * rotation}° clockwise"
    return (
        f"lay tile {KIND_NAMES[int(state[HAND])]} {turned} ({tile_words(int(state[HAND]), rotation)}) on open "
        f"cell c{cell} of player_{seat}'s monster, {x},{y} from its first tile"
    )
