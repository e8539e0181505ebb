"""The player count a view was written for, read from the view itself.

No observation holds the player count as a number, and adding one would change every game's
observation and so its id. But every game's view has, for each relative seat, an entry that
reads 1 while that seat is at the table and 0 beyond the player count (the game's
``seated_slots``, declared beside its ``observe_into``): counting them gives the player count of
any seat's view at any step, the last one and the first after an auto-reset included
(``tests/test_seated_view.py`` checks this over random games of every game and count). This is
what lets a trained policy refuse, from the observation alone, a table of another size
(:meth:`monster_zoo.agents.base.Agent.check_view`).
"""

from collections.abc import Sequence

import numpy as np


def seated_index(slots: Sequence[int] | None) -> np.ndarray | None:
    """``slots`` (a game's ``seated_slots``) as an index array, read once where views are checked
    often; None stays None (the game's view does not say its player count)."""
    return None if slots is None else np.asarray(slots, dtype=np.intp)


def players_in_view(index: np.ndarray, observation):
    """The player count of each observation row (one view, or a batch of views with the seat
    entries last): how many of the seat entries ``index`` are nonzero. An int for one view."""
    view = np.asarray(observation)
    if view.ndim == 1:
        return np.count_nonzero(view.take(index))
    return np.count_nonzero(view[..., index], axis=-1)


def other_player_count(index: np.ndarray, observation, num_players: int) -> int | None:
    """The player count of the first view of ``observation`` (one view or a batch) whose seat
    entries ``index`` say another count than ``num_players``; None where every view says it."""
    view = np.asarray(observation)
    if view.size == view.shape[-1]:  # one view, as every act is shown (even as a batch of one): a few reads
        seated = np.count_nonzero(view.reshape(-1).take(index))
        return None if seated == num_players else seated
    seated = np.ravel(players_in_view(index, view))
    other = np.flatnonzero(seated != num_players)
    return int(seated[other[0]]) if other.size else None
