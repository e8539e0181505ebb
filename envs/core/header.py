"""The state header every game shares (see ``contract``): setting it up, and whether the game
still goes on, each written once.

Whether a game goes on is read from the header alone, in every adapter, search and trainer: the
rules ended it (``H_TERMINAL``) or it reached its step limit (``H_MAX_STEPS``, written from the
config when the game starts; ruling C4). Kernels call :func:`running` and :func:`truncated`
(inlined); Python calls their ``py_func`` (the same source, without numba's dispatch), and whole
batches of states :func:`running_rows` and :func:`truncated_rows`.
"""

import numpy as np
from numba import njit

from .contract import (
    C_MAX_STEPS,
    C_NUM_PLAYERS,
    C_REWARD_MODE,
    H_MAX_STEPS,
    H_NUM_PLAYERS,
    H_REWARD_MODE,
    H_STEPS,
    H_TERMINAL,
)


@njit(cache=True)
def start_game(state, config):
    """Zero ``state`` and write the shared header from ``config``; return the number of players."""
    state[:] = 0
    n = config[C_NUM_PLAYERS]
    state[H_NUM_PLAYERS] = n
    state[H_MAX_STEPS] = config[C_MAX_STEPS]
    state[H_REWARD_MODE] = config[C_REWARD_MODE]
    return n


@njit(cache=True, inline="always")
def running(state):
    """Whether the game in ``state`` goes on: the rules have not ended it and it is short of its
    step limit."""
    return state[H_TERMINAL] == 0 and state[H_STEPS] < state[H_MAX_STEPS]


@njit(cache=True, inline="always")
def truncated(state):
    """Whether the game in ``state`` was cut off at its step limit before the rules ended it (worth
    0 to every seat, ruling C4)."""
    return state[H_TERMINAL] == 0 and state[H_STEPS] >= state[H_MAX_STEPS]


def running_rows(states: np.ndarray) -> np.ndarray:
    """:func:`running` of every row of ``states``, as a bool array."""
    return (states[:, H_TERMINAL] == 0) & (states[:, H_STEPS] < states[:, H_MAX_STEPS])


def truncated_rows(states: np.ndarray) -> np.ndarray:
    """:func:`truncated` of every row of ``states``, as a bool array."""
    return (states[:, H_TERMINAL] == 0) & (states[:, H_STEPS] >= states[:, H_MAX_STEPS])
