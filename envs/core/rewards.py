"""Final rewards of ruling C3, shared by every game's ``returns`` kernel.

Every game marks its winners with one flag per seat in its state and knows each
seat's final score; the conversion into rewards is the same everywhere, so it is
written once here.
"""

from numba import njit

from .contract import H_NUM_PLAYERS, H_REWARD_MODE, H_TERMINAL, REWARD_WIN


@njit(cache=True)
def c3_returns_scored(state, winner, scores, out):
    """Rewards per seat into ``out`` from the winner flags at offset ``winner`` of the state and
    the final ``scores`` per seat (an integer array, e.g. a slice of the state); zeros while
    the game runs (ruling C3).

    ``reward="win"``: the k winners get +1/k, the others -1/(n-k), and 0 for all when everyone
    (or nobody) wins. ``reward="score"``: each seat's score minus the mean score.
    """
    out[:] = 0.0
    if state[H_TERMINAL] == 0:
        return
    n = state[H_NUM_PLAYERS]
    if state[H_REWARD_MODE] == REWARD_WIN:
        k = 0
        for p in range(n):
            k += state[winner + p] != 0
        if k == 0 or k == n:
            return
        for p in range(n):
            out[p] = 1.0 / k if state[winner + p] != 0 else -1.0 / (n - k)
    else:
        mean = 0.0
        for p in range(n):
            mean += scores[p]
        mean /= n
        for p in range(n):
            out[p] = scores[p] - mean


@njit(cache=True, inline="always")  # one line: inlined into each game's returns, not compiled apart
def c3_returns(state, winner, score, out):
    """:func:`c3_returns_scored` for a game keeping its final scores in the state at offset ``score``."""
    c3_returns_scored(state, winner, state[score : score + state[H_NUM_PLAYERS]], out)
