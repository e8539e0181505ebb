"""Monster Noughts' greedy baseline: complete a line, else block one, else the centre, else the
first free cell."""

from monster_zoo.envs.core.contract import H_CURRENT, POLICY_SIG
from monster_zoo.envs.core.kernels import helper, kernel

from .rules import LINES
from .state_layout import BOARD, NUM_CELLS

CENTRE = 4


@helper
def completing_cell(state, mask, mark):
    """A legal cell that completes a line of ``mark``, or -1."""
    for k in range(LINES.shape[0]):
        mine, free = 0, -1
        for j in range(3):
            cell = LINES[k, j]
            if state[BOARD + cell] == mark:
                mine += 1
            elif state[BOARD + cell] == 0 and mask[cell]:
                free = cell
        if mine == 2 and free >= 0:
            return free
    return -1


@kernel(POLICY_SIG)
def greedy_action(state, mask, rng):
    """The greedy choice among the legal cells of the player on move."""
    me = state[H_CURRENT] + 1
    for mark in (me, 3 - me):  # win first, then block
        cell = completing_cell(state, mask, mark)
        if cell >= 0:
            return cell
    if mask[CENTRE]:
        return CENTRE
    for cell in range(NUM_CELLS):
        if mask[cell]:
            return cell
    return -1
