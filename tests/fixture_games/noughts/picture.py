"""Monster Noughts as an SVG picture on the library's frame (everything is public, NC-8)."""

from monster_zoo.envs.core.contract import H_CURRENT, H_NUM_PLAYERS, H_STEPS, H_TERMINAL
from monster_zoo.envs.core.picture import (
    AREA,
    HIGHLIGHT,
    LastAction,
    PlayerRow,
    caption,
    frame,
    players_panel,
)

from .actions import action_to_str
from .state_layout import BOARD, MONSTER, NUM_ROUNDS, ROUND, WINNER, WINS
from .text_view import MARKS

SCORE_LABEL = "rounds won"


def public_scores(state) -> list:
    """Each seat's round wins (the replay viewer's chart)."""
    return [int(state[WINS + p]) for p in range(int(state[H_NUM_PLAYERS]))]


def describe_action(state, action: int, viewer: int | None = None) -> str:
    """The cell marked: public to everyone."""
    return f"marks {action_to_str(action, state)}"


def draw(state, viewer: int | None = None, last: LastAction | None = None) -> str:
    """SVG of ``state``, the same for every viewer; the last marked cell is highlighted."""
    over = bool(state[H_TERMINAL])
    status = "match over" if over else f"round {int(state[ROUND]) + 1}/{NUM_ROUNDS}"
    svg = frame("Monster Noughts", f"{status} · step {int(state[H_STEPS])}")
    ax, ay, aw, ah = AREA
    side = min(aw, ah) / 3
    for cell in range(9):
        x, y = ax + (cell % 3) * side, ay + (cell // 3) * side
        lit = last is not None and last.action == cell
        svg.rect(x + 2, y + 2, side - 4, side - 4, fill=HIGHLIGHT if lit else "#ffffff", stroke="#333333")
        mark = "M" if int(state[MONSTER]) == cell else MARKS[int(state[BOARD + cell])].replace(".", "")
        if mark:
            svg.text(x + side / 2, y + side / 2 + side / 6, mark, size=int(side / 2), anchor="middle")
    rows = [
        PlayerRow(
            p,
            f"{int(state[WINS + p])} rounds won",
            f"marks {MARKS[p + 1]}",
            on_move=not over and int(state[H_CURRENT]) == p,
            winner=over and bool(state[WINNER + p]),
        )
        for p in range(2)
    ]
    players_panel(svg, rows, viewer, (), ["M: the monster; its cell may not be marked this turn"])
    caption(svg, last)
    return svg.to_string()
