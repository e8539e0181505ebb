"""Setting up the state header every game shares (see ``contract``), written once."""
from numba import njit

from .contract import C_MAX_STEPS, C_NUM_PLAYERS, C_REWARD_MODE, H_MAX_STEPS, H_NUM_PLAYERS, H_REWARD_MODE


@njit(cache=True)
def start_game(state, config):
    """Zero ``state`` and write the shared header from ``config``; return the number of players."""
    state[:] = 0
    n = config[C_NUM_PLAYERS]
    state[H_NUM_PLAYERS] = n
    state[H_MAX_STEPS] = config[C_MAX_STEPS]
    state[H_REWARD_MODE] = config[C_REWARD_MODE]
    return n
