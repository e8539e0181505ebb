"""Picture of a Monster Arena state: the draft, every monster as a tree of cards, the graveyard.

Cards are drawn with their numbers (Defense ``D``, attack dice and bonus, its energy cost after
``⚡``, slots, ability): the row or the torso halves being drafted, the viewer's own inventory,
the graveyard's top card and every monster's cards, each the place where the moves on it are
made; the bids the seat on move can make are chips to click.

Hidden (AR-5, AR-19): the cards in another seat's inventory (only their number and the ones
everyone has seen are drawn), the deck, and while monsters are being built the parts another
seat has attached (counted with its inventory) and which part it attached where. The
viewer's own inventory and monster are always drawn in full.
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
from .actions import ABILITY0, BID0, ROLL, SLOT0, TARGET0, action_to_str
from .components import (
    AB_NONE,
    ABILITY,
    ABILITY_NAMES,
    CARD_LABEL,
    CARD_NAME,
    COST,
    DEFENSE,
    DICE,
    DRAFT_TOKENS,
    KIND,
    KIND_PART,
    MAX_SLOTS,
    MOD,
    NUM_CARDS,
    SLOTS,
)
from .observation import is_building
from .state_layout import (
    ALIVE,
    BID,
    CHILD,
    DEALER,
    DONE,
    ENERGY,
    FROZEN,
    GRAVE_ORDER,
    HIGH,
    IN_ATTACK,
    KNOWN,
    L_DECK,
    L_DISCARD,
    L_GRAVE,
    L_INV,
    L_ROW,
    L_TABLE,
    L_TORSO,
    LAST,
    LOC,
    OWNER,
    PH_AUCTION,
    PH_BUILD,
    PHASE,
    PHASE_NAMES,
    QUIET,
    ROUND,
    TARGET,
    TOKENS,
    TURN_SEAT,
    USED,
    WINNER,
)

CARD_W, CARD_H, INDENT = 200, 24, 20
FACE_W, FACE_H = 106, 38  # a card drawn face up in the draft, inventory and graveyard strips
SCORE_LABEL = "energy"
# What a person clicks to play on this picture (the web page's "how to play here").
HOW_TO_PLAY = (
    "Click a highlighted card on the picture to take it from the row, choose it from your inventory, "
    "attack with it, target it or use it, and a highlighted empty slot to put a part there; a chip "
    "'bid k' bids k tokens. The roll and passing are the buttons beside the picture. On a card, "
    "D is its Defense, 2d6+1 its attack (⚡ its energy cost), ▢ its slots."
)


def public_scores(state) -> list:
    """Each seat's energy (the chart of the replay viewer)."""
    return [int(state[ENERGY + p]) for p in range(int(state[H_NUM_PLAYERS]))]


def describe_action(state, action: int, viewer: int | None = None) -> str:
    """The action's name in ``state`` (before it is applied) as ``viewer`` may know it: while
    monsters are being built, which part a seat attaches, and where, is its own secret (AR-19)."""
    if is_building(state) and viewer != int(state[H_CURRENT]) and action < BID0:
        return "choose a part to attach" if action < SLOT0 else "attach the chosen part"
    return action_to_str(action, state)


def action_place(state, action: int) -> str | None:
    """The ``data-place`` of the picture's element where ``action`` is made: the card it takes,
    targets, attacks with or uses, the empty slot a part goes into; None for bids, the roll and
    pass. Cards the picture draws as text (the row, inventories) have no element: their moves
    are listed by name."""
    if BID0 <= action < TARGET0:
        return f"bid-{action - BID0 + 1}"
    if action >= ROLL:
        return None
    if SLOT0 <= action < BID0:
        return "slot-{}-{}".format(*divmod(action - SLOT0, MAX_SLOTS))
    return f"card-{(action - TARGET0) % NUM_CARDS if action >= TARGET0 else action}"


def _cards(state, loc, owner=None):
    """Ids of the cards at ``loc`` (of ``owner`` when given)."""
    return [
        c
        for c in range(NUM_CARDS)
        if int(state[LOC + c]) == loc and (owner is None or int(state[OWNER + c]) == owner)
    ]


def _marked_card(last: LastAction | None) -> int:
    """The card the last action took, targeted, attacked with, used or attached to; -1 if none."""
    if last is None or last.action >= ROLL or BID0 <= last.action < TARGET0:
        return -1
    if last.action < SLOT0:
        return last.action
    if last.action < BID0:
        return (last.action - SLOT0) // MAX_SLOTS
    return (last.action - TARGET0) % NUM_CARDS if last.action < ABILITY0 else last.action - ABILITY0


def numbers(c: int) -> str:
    """Card ``c``'s numbers in short: Defense, attack (dice, bonus, energy cost), slots."""
    attack = f" {int(DICE[c])}d6+{int(MOD[c])}⚡{int(COST[c])}" if COST[c] >= 0 else ""
    return f"D{int(DEFENSE[c])}{attack}" + (f" ▢{int(SLOTS[c])}" if SLOTS[c] else "")


def _face(svg, x, y, state, c: int, colour: str) -> None:
    """Card ``c`` face up: its label and name, its numbers, its ability; the place of its moves."""
    svg.rect(
        x, y, FACE_W, FACE_H, fill="#ffffff", stroke=colour, stroke_width=1.5, rx=4, data_place=f"card-{c}"
    )
    svg.text(x + 4, y + 12, f"{CARD_LABEL[c]} {CARD_NAME[c]}"[:17], size=10, weight="bold")
    svg.text(x + 4, y + 24, numbers(c), size=10)
    if ABILITY[c] != AB_NONE:
        svg.text(x + 4, y + 35, ABILITY_NAMES[int(ABILITY[c])].replace("_", " "), size=9, fill=MUTED)


def _strip(svg, state, label: str, cards, x, y, w, colour: str = INK) -> float:
    """``label`` and ``cards`` face up in lines from ``(x, y)`` within width ``w``; the next free y."""
    svg.text(x, y + 11, label, size=11, fill=MUTED)
    y += 15
    per_line = max(1, int(w // (FACE_W + 4)))
    for k, c in enumerate(cards):
        _face(svg, x + (k % per_line) * (FACE_W + 4), y + (k // per_line) * (FACE_H + 4), state, c, colour)
    return y + math.ceil(len(cards) / per_line) * (FACE_H + 4) + 2


def _bids(svg, state, x, y) -> float:
    """The bids the seat on move can make, as chips ``bid k`` (the places of the bid moves)."""
    seat = int(state[H_CURRENT])
    most = min(int(state[TOKENS + seat]), DRAFT_TOKENS)
    for k in range(int(state[BID]) + 1, most + 1):
        cx = x + (k - int(state[BID]) - 1) * 46
        svg.rect(cx, y, 42, 20, fill="#fff7e0", stroke=INK, rx=10, data_place=f"bid-{k}")
        svg.text(cx + 21, y + 14, f"bid {k}", size=10, anchor="middle")
    return y + 26


def _card(svg, x, y, state, c: int, colour: str, marked: bool) -> None:
    """One card as a labelled box: ``*`` used this round, ``!`` pinched, red while under attack."""
    fill = "#f8d7d7" if int(state[TARGET]) == c else ("#fff2cc" if int(state[IN_ATTACK + c]) else "#ffffff")
    svg.rect(
        x,
        y,
        CARD_W,
        CARD_H - 4,
        fill=fill,
        stroke=HIGHLIGHT if marked else colour,
        stroke_width=4 if marked else 1.5,
        rx=4,
        data_place=f"card-{c}",
    )
    marks = ("*" if int(state[USED + c]) else "") + ("!" if int(state[FROZEN + c]) else "")
    svg.text(x + 5, y + 14, f"{CARD_LABEL[c]}{marks} {CARD_NAME[c]}"[:18], size=10, fill=INK)
    svg.text(x + CARD_W - 4, y + 14, numbers(c), size=9, fill=MUTED, anchor="end")


def _tree(svg, state, c: int, x, y, colour: str, marked: int) -> float:
    """Card ``c`` and, indented below it, the cards in its slots; returns the next free y."""
    _card(svg, x, y, state, c, colour, c == marked)
    y += CARD_H
    for s in range(int(SLOTS[c])):
        child = int(state[CHILD + c * MAX_SLOTS + s])
        svg.line(x + 8, y - 4, x + 8, y + CARD_H / 2 - 2, stroke="#bbbbbb")
        if child < 0:
            svg.text(x + INDENT, y + 12, "· empty slot", size=10, fill=MUTED, data_place=f"slot-{c}-{s}")
            y += CARD_H * 0.7
        else:
            y = _tree(svg, state, child, x + INDENT, y, colour, marked)
    return y


def _monster(svg, state, p: int, viewer: int | None, box, marked: int) -> None:
    """Seat ``p``'s monster in ``box``; while building, others' parts stay hidden (AR-19)."""
    x, y, w, h = box
    colour = seat_color(p)
    svg.rect(x, y, w, h, fill="#ffffff", stroke=colour, rx=6)
    out = int(state[ROUND]) > 0 and not int(state[ALIVE + p])
    svg.text(x + 6, y + 15, f"player_{p}'s monster" + (" (destroyed)" if out else ""), size=11, fill=MUTED)
    halves = [c for c in _cards(state, L_TABLE, p) if KIND[c] != KIND_PART]
    if not halves:
        return
    show_parts = not is_building(state) or viewer == p
    tree = Svg(background=None)
    bottom = 0.0
    for c in halves:
        if show_parts:
            bottom = _tree(tree, state, c, 0, bottom, colour, marked) + 6
        else:
            _card(tree, 0, bottom, state, c, colour, c == marked)
            bottom += CARD_H + 6
    svg.place(tree, fit_transform((0, 0, CARD_W + 4 * INDENT, bottom), (x + 6, y + 22, w - 12, h - 28)))
    if not show_parts:
        svg.text(x + 6, y + h - 8, "parts attached while building stay hidden", size=10, fill=MUTED)


def draw(state, viewer: int | None = None, last: LastAction | None = None) -> str:
    """SVG of ``state`` as ``viewer`` (a seat, or None for the public view) sees it."""
    n = int(state[H_NUM_PLAYERS])
    over = bool(state[H_TERMINAL])
    building = is_building(state)
    status = "game over" if over else PHASE_NAMES[PH_BUILD if building else int(state[PHASE])]
    rnd = int(state[ROUND])
    svg = frame(
        "Monster Arena",
        f"{status} · arena round {rnd}"
        + (f" ({max(int(state[QUIET]), 0)} quiet)" if rnd else "")
        + f" · step {int(state[H_STEPS])}",
    )
    ax, ay, aw, ah = AREA
    lines = []
    y = ay
    row = _cards(state, L_ROW)
    if row:
        high = int(state[HIGH])
        y = _strip(
            svg,
            state,
            f"row (dealer player_{int(state[DEALER])}, bid {int(state[BID])}"
            + (f" by player_{high})" if high >= 0 else ")"),
            row,
            ax + 6,
            y,
            aw - 12,
        )
        if int(state[PHASE]) == PH_AUCTION and not over:
            y = _bids(svg, state, ax + 6, y)
    torsos = _cards(state, L_TORSO)
    if torsos:
        y = _strip(svg, state, "torso halves to draft", torsos, ax + 6, y, aw - 12)
    mine = _cards(state, L_INV, viewer) if viewer is not None else []
    if mine:
        y = _strip(svg, state, "your inventory", mine, ax + 6, y, aw - 12, seat_color(viewer))
    if int(state[TARGET]) >= 0:
        attackers = [CARD_LABEL[c] for c in range(NUM_CARDS) if int(state[IN_ATTACK + c])]
        lines.append(f"attack on {CARD_LABEL[int(state[TARGET])]} with {' '.join(attackers) or '-'}")
    if int(state[LAST]) >= 0:
        lines.append(
            f"last attack: {CARD_LABEL[int(state[LAST])]} rolled {int(state[LAST + 4])}, total "
            f"{int(state[LAST + 1])} vs {int(state[LAST + 2])}: "
            f"{'destroyed' if int(state[LAST + 3]) else 'missed'}"
        )
    grave = sorted(_cards(state, L_GRAVE), key=lambda c: -int(state[GRAVE_ORDER + c]))
    lines.append(f"graveyard (top first): {' '.join(CARD_LABEL[c] for c in grave[:12]) or '-'}")
    if grave:
        _face(svg, ax + aw - FACE_W - 6, y + 4, state, grave[0], MUTED)
    for k, line in enumerate(lines):
        svg.text(ax + 6, y + 14 + 18 * k, line, size=12)
    top = max(y + 18 * len(lines) + 10, y + FACE_H + 10 if grave else 0)
    cols = min(n, 3)
    rows_n = math.ceil(n / cols)
    w, h = aw / cols, (ay + ah - top) / rows_n
    marked = _marked_card(last)
    for p in range(n):
        _monster(
            svg, state, p, viewer, (ax + (p % cols) * w + 2, top + (p // cols) * h + 2, w - 4, h - 4), marked
        )
    players = []
    for p in range(n):
        inventory = _cards(state, L_INV, p)
        hidden = (
            [c for c in _cards(state, L_TABLE, p) if KIND[c] == KIND_PART] if building and viewer != p else []
        )
        if viewer == p:
            held = "inventory: " + (" ".join(CARD_LABEL[c] for c in inventory) or "-")
        else:
            seen = sorted(CARD_LABEL[c] for c in inventory + hidden if int(state[KNOWN + c]))
            held = f"inventory {len(inventory) + len(hidden)}" + (
                f" (seen: {' '.join(seen)})" if seen else ""
            )
        turn = int(state[TURN_SEAT]) == p and int(state[H_CURRENT]) != p and not over
        players.append(
            PlayerRow(
                p,
                f"energy {int(state[ENERGY + p])}",
                f"tokens {int(state[TOKENS + p])} · {held}"
                + (" · built" if building and int(state[DONE + p]) else "")
                + (" · their turn" if turn else ""),
                on_move=not over and int(state[H_CURRENT]) == p,
                winner=bool(state[WINNER + p]),
            )
        )
    discard = _cards(state, L_DISCARD)
    notes = [
        f"deck: {len(_cards(state, L_DECK))} cards",
        "discard: " + (" ".join(CARD_LABEL[c] for c in discard) or "-"),
    ]
    players_panel(svg, players, viewer, (), notes)
    caption(svg, last)
    return svg.to_string()
