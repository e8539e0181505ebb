"""Offsets of Monster Noughts' state after the shared header."""

from monster_zoo.envs.core.state_layout import Layout

NUM_CELLS = 9
NUM_ROUNDS = 7  # NC-1
NO_MONSTER = -1

_lay = Layout()
BOARD = _lay.block("board", NUM_CELLS)  # 0 empty, 1 + seat of the mark
MONSTER = _lay.block("monster")  # the cell the monster sits on, or NO_MONSTER (NC-3)
ROUND = _lay.block("round")  # rounds finished
WINS = _lay.block("wins", 2)  # rounds won per seat
WINNER = _lay.block("winner", 2)  # 1 for each seat that won the match (NC-6)
STATE_SIZE = _lay.size
