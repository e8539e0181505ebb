"""The actions of one game, from which the state the last action met is rebuilt when a picture
names it, so that a step copies no state.

A picture names the last action as each seat saw it and highlights where it was made, which needs
the state *before* that action (``describe_action(before, action, viewer)``). Copying the whole
state at every step for the few steps that are drawn would cost every user of the env; instead the
env records each action and its seat, and :meth:`ActionTrail.last` replays them. The kernels are
deterministic in ``(state, rng)``, so a replay from copies taken when the game started meets exactly
the states the game met. A checkpoint follows the game forward: drawing after every step replays
one action a step, and a first drawing after ``n`` steps replays ``n``.
"""

import numpy as np


class ActionTrail:
    """The ``(seat, action)`` pairs of one game in play order, and a checkpoint to replay them from."""

    def __init__(self, state: np.ndarray, rng: np.ndarray):
        """Begin the trail of the game that starts in ``state`` with generator ``rng`` (both copied)."""
        self.actions: list[tuple[int, int]] = []
        # the checkpoint: the state and generator after the first self._done actions (actions are
        # only ever appended, so it never has to go back)
        self._done, self._state, self._rng = 0, state.copy(), rng.copy()
        self._start = (state.copy(), rng.copy())  # to name past actions as a seat knew them (replayed)

    def record(self, seat: int, action: int) -> None:
        """Note that ``seat`` took ``action`` (call before the action is applied to the game)."""
        self.actions.append((seat, action))

    def last(self, apply_action) -> tuple[int, int, np.ndarray] | None:
        """``(seat, action, the state it applied to)`` of the last action, None before the first;
        ``apply_action`` is the game's kernel. The state is the trail's own: read it, do not change it."""
        if not self.actions:
            return None
        target = len(self.actions) - 1
        while self._done < target:
            apply_action(self._state, self.actions[self._done][1], self._rng)
            self._done += 1
        seat, action = self.actions[target]
        return seat, action, self._state

    def named(
        self, apply_action, describe_action, viewer: int | None, first: int = 0
    ) -> list[tuple[int, str]]:
        """``(seat, name as viewer knew it)`` of the actions from number ``first`` on, replayed from the
        start of the game (the JSON view asks this once a move, where replaying costs nothing to notice)."""
        state, rng = self._start[0].copy(), self._start[1].copy()
        named = []
        for index, (seat, action) in enumerate(self.actions):
            if index >= first:
                named.append((seat, describe_action(state, action, viewer)))
            apply_action(state, action, rng)
        return named
