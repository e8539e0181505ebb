"""Monster Noughts' rules as numba kernels: the single source of truth of the test-only game.

Rule ids (NC-n) refer to ``rules.md`` beside this file. The sections follow the order every
game's ``rules.py`` keeps: reasons, queries, legality, turn flow, the kernel contract; what a seat
sees is in ``observation.py``.
"""

import numpy as np

from monster_zoo.envs.core.contract import (
    APPLY_ACTION_SIG,
    H_CURRENT,
    H_STEPS,
    H_TERMINAL,
    INIT_STATE_SIG,
    LEGAL_MASK_SIG,
    RETURNS_SIG,
)
from monster_zoo.envs.core.header import start_game
from monster_zoo.envs.core.kernels import helper, inlined, kernel
from monster_zoo.envs.core.rewards import c3_returns
from monster_zoo.envs.core.rng import rng_below

from .actions import NUM_ACTIONS
from .state_layout import BOARD, MONSTER, NO_MONSTER, NUM_CELLS, NUM_ROUNDS, ROUND, WINNER, WINS

# --- reasons an action is illegal (codes for illegal_reason) ------------------------------------
OK = 0
R_OUT_OF_RANGE = 1
R_GAME_OVER = 2
R_TAKEN = 3
R_MONSTER = 4
REASONS = {
    R_OUT_OF_RANGE: "there is no such cell",
    R_GAME_OVER: "the match is over",
    R_TAKEN: "the cell is already marked (NC-4)",
    R_MONSTER: "the monster sits on that cell this turn (NC-3)",
}

# the rows, columns and diagonals of the board (NC-5)
LINES = np.array(
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]], dtype=np.int64
)


# --- queries --------------------------------------------------------------------------------------
@inlined
def empty_cells(state):
    """How many cells carry no mark."""
    count = 0
    for c in range(NUM_CELLS):
        count += state[BOARD + c] == 0
    return count


@inlined
def has_line(state, mark):
    """Whether the marks ``mark`` fill a row, a column or a diagonal (NC-5)."""
    for k in range(LINES.shape[0]):
        if (
            state[BOARD + LINES[k, 0]] == mark
            and state[BOARD + LINES[k, 1]] == mark
            and state[BOARD + LINES[k, 2]] == mark
        ):
            return True
    return False


# --- legality -------------------------------------------------------------------------------------
@helper
def illegal_reason(state, action):
    """0 if marking cell ``action`` is legal for the player on move, else a code of ``REASONS``."""
    if action < 0 or action >= NUM_ACTIONS:
        return R_OUT_OF_RANGE
    if state[H_TERMINAL] != 0:
        return R_GAME_OVER
    if state[BOARD + action] != 0:
        return R_TAKEN
    if state[MONSTER] == action:
        return R_MONSTER
    return OK


@kernel(LEGAL_MASK_SIG)
def legal_mask(state, out):
    """Fill ``out`` with 1 for each cell the player on move may mark (NC-3, NC-4); return the count."""
    out[:] = 0
    if state[H_TERMINAL] != 0:
        return 0
    count = 0
    for c in range(NUM_CELLS):
        ok = state[BOARD + c] == 0 and state[MONSTER] != c
        out[c] = ok
        count += ok
    return count


# --- turn flow ------------------------------------------------------------------------------------
@helper
def monster_moves(state, rng):
    """The monster settles on an empty cell drawn by chance, or stays away while only one is
    empty (NC-3)."""
    state[MONSTER] = NO_MONSTER
    free = empty_cells(state)
    if free < 2:
        return
    k = rng_below(rng, free)
    for c in range(NUM_CELLS):
        if state[BOARD + c] == 0:
            if k == 0:
                state[MONSTER] = c
                return
            k -= 1


@helper
def start_round(state, rng):
    """Clear the board, let chance pick who opens (NC-2), and place the monster (NC-3)."""
    for c in range(NUM_CELLS):
        state[BOARD + c] = 0
    state[H_CURRENT] = rng_below(rng, 2)
    monster_moves(state, rng)


@helper
def end_match(state):
    """The match is over: the most round wins take it, equal numbers share it (NC-6)."""
    state[H_TERMINAL] = 1
    state[H_CURRENT] = -1
    state[MONSTER] = NO_MONSTER
    best = max(state[WINS], state[WINS + 1])
    for p in range(2):
        state[WINNER + p] = state[WINS + p] == best


# --- the kernel contract --------------------------------------------------------------------------
@kernel(INIT_STATE_SIG)
def init_state(state, config, rng):
    """A new match for ``config`` = (num_players, max_steps, reward_mode) (NC-1)."""
    start_game(state, config)
    start_round(state, rng)


@kernel(APPLY_ACTION_SIG)
def apply_action(state, action, rng):
    """The player on move marks cell ``action`` (NC-4); a line or a full board ends the round (NC-5)."""
    state[H_STEPS] += 1
    p = state[H_CURRENT]
    state[BOARD + action] = p + 1
    won = has_line(state, p + 1)
    if won or empty_cells(state) == 0:
        if won:
            state[WINS + p] += 1
        state[ROUND] += 1
        if state[ROUND] == NUM_ROUNDS:
            end_match(state)
        else:
            start_round(state, rng)
        return
    state[H_CURRENT] = 1 - p
    monster_moves(state, rng)


@kernel(RETURNS_SIG)
def returns(state, out):
    """Final rewards per seat (NC-7, ruling C3); zeros while the match runs."""
    c3_returns(state, WINNER, WINS, out)
