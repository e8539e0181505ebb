"""Monster Noughts as text: the board (``X`` player_0, ``O`` player_1, ``M`` the monster)."""

from monster_zoo.envs.core.contract import H_CURRENT, H_TERMINAL

from .state_layout import BOARD, MONSTER, NUM_ROUNDS, ROUND, WINNER, WINS

MARKS = ".XO"
LEGEND = "X: player_0's mark · O: player_1's mark · M: the monster (its cell may not be marked) · .: empty"


def cell_text(state, cell: int) -> str:
    """One cell's character."""
    return "M" if int(state[MONSTER]) == cell else MARKS[int(state[BOARD + cell])]


def to_text(state) -> str:
    """The public state: round, round wins, who is on move, and the board."""
    over = bool(state[H_TERMINAL])
    head = f"Monster Noughts · round {min(int(state[ROUND]) + 1, NUM_ROUNDS)}/{NUM_ROUNDS}"
    wins = " · ".join(
        f"player_{p} ({MARKS[p + 1]}) {int(state[WINS + p])} round wins"
        + (" · winner" if over and state[WINNER + p] else "")
        for p in range(2)
    )
    turn = "match over" if over else f"player_{int(state[H_CURRENT])} on move"
    rows = [f"{'abc'[r]}  " + " ".join(cell_text(state, 3 * r + c) for c in range(3)) for r in range(3)]
    return "\n".join([head, wins, turn, "   1 2 3", *rows])
