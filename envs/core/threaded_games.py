"""Learner games stepped by several threads at once, playing exactly the games of one
:class:`~monster_zoo.envs.core.selfplay.LearnerGames`.

:class:`ThreadedLearnerGames` splits ``num_envs`` slots into ``threads`` contiguous parts, each a
``LearnerGames`` that knows where its slots lie in the whole (``first_slot``, ``all_slots``), so
its seeds, seats and opponent draws are those of the same slots of one ``LearnerGames``. A step
checks every part's actions first (a refused action changes nothing anywhere), then steps the
parts side by side: the drivers of the learner games and of in-numba opponents release the GIL,
so on a machine with two free cores two parts take about the time of one. Each part writes its
rows of the learner's arrays when it is done.

With opponents that play inside numba (a ``policy_kernel`` or a ``policy_mlp``), the games, and so
a trainer's results, never depend on the thread count: every slot's games depend only on its own
generators. An opponent acting from Python (e.g. ``mcts``) may hold state shared across its calls,
so while one is in the pool or at a table the parts step one after the other, in order. It is
called once per part for that part's slots, so its draws may differ from those it makes in one
``LearnerGames``: they are the same from run to run for one thread count, and a caller that needs
them independent of the count uses one thread, as ``device-train`` does. The parts also step in
order when the batched kernels themselves use more than one numba thread
(``MONSTER_ZOO_NUM_THREADS``), whose pool serves one calling thread at a time.
"""

import weakref
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from .batch import read_only
from .illegal import batch_actions
from .inputs import check_num_envs
from .selfplay import LearnerGames
from .threads import get_num_threads

# The learner's arrays, copied from each part into the whole after the part's step.
GATHERED = (
    "observations",
    "_shown_masks",
    "rewards",
    "terminated",
    "truncated",
    "illegal",
    "final_observations",
    "final_returns",
    "final_seats",
    "final_game_seeds",
    "learner_seats",
    "game_seeds",
)


def plays_in_numba(opponent) -> bool:
    """Whether ``opponent`` is stepped inside numba by the learner games (so it holds no state that
    a call from another thread could change)."""
    return (
        getattr(opponent, "policy_kernel", None) is not None
        or getattr(opponent, "policy_mlp", None) is not None
    )


class ThreadedLearnerGames:
    """:class:`~monster_zoo.envs.core.selfplay.LearnerGames`' interface and games, the slots stepped
    in ``threads`` parts side by side (``threads`` from 1 to ``num_envs``; 1 steps one part).

    The arguments and the learner's arrays are ``LearnerGames``'; ``parts`` are the games themselves
    (``parts[k]`` holds slots ``bounds[k]:bounds[k + 1]``). The worker threads are made once and end
    with the object.
    """

    def __init__(
        self,
        spec,
        config: np.ndarray,
        num_envs: int,
        opponents: Sequence = None,
        weights: Sequence[float] | None = None,
        seed: int = 0,
        seats: Sequence[int] | None = None,
        illegal_action: str = "raise",
        threads: int = 2,
    ):
        num_envs = check_num_envs(num_envs, spec.env_id)
        if (
            isinstance(threads, bool)
            or not isinstance(threads, (int, np.integer))
            or not 1 <= threads <= num_envs
        ):
            raise ValueError(f"threads must be an integer from 1 to num_envs ({num_envs}), got {threads!r}")
        seats = None if seats is None else np.asarray(seats, np.int64)
        if seats is not None and seats.shape != (num_envs,):
            raise ValueError(
                f"seats must be {num_envs} seats, got {seats.shape[0] if seats.ndim else seats!r}"
            )
        self.bounds = np.linspace(0, num_envs, int(threads) + 1).astype(np.int64)
        self.parts = [
            LearnerGames(
                spec,
                config,
                int(b - a),
                opponents,
                weights,
                seed,
                None if seats is None else seats[a:b],
                illegal_action,
                first_slot=int(a),
                all_slots=num_envs,
            )
            for a, b in zip(self.bounds[:-1], self.bounds[1:])
        ]
        first = self.parts[0]
        self.spec, self.config, self.num_envs, self.num_players = (
            spec,
            first.config,
            num_envs,
            first.num_players,
        )
        self.illegal_action, self.fixed_seats = first.illegal_action, seats
        for name in GATHERED:
            part_array = getattr(first, name)
            setattr(self, name, np.zeros((num_envs, *part_array.shape[1:]), part_array.dtype))
        self.masks = read_only(self._shown_masks)
        self._views = tuple(
            read_only(a)
            for a in (self.observations, self._shown_masks, self.rewards, self.terminated, self.truncated)
        )
        self._workers = ThreadPoolExecutor(max_workers=len(self.parts) - 1) if len(self.parts) > 1 else None
        if self._workers is not None:
            weakref.finalize(self, self._workers.shutdown, wait=False)
        self._in_order = not all(plays_in_numba(o) for o in first.opponents)
        self._gather_all()

    # --- what LearnerGames has ------------------------------------------------------------
    @property
    def opponents(self) -> list:
        """The opponent pool (every part's)."""
        return self.parts[0].opponents

    @property
    def slot_opponents(self) -> list:
        """The opponent at each slot's table."""
        return [o for part in self.parts for o in part.slot_opponents]

    @property
    def states(self) -> np.ndarray:
        """Every slot's game state (a copy)."""
        return np.concatenate([part.states for part in self.parts])

    @property
    def base_seed(self) -> int:
        """The seed the slots were seeded from."""
        return self.parts[0].base_seed

    def set_opponents(self, opponents: Sequence | None, weights: Sequence[float] | None = None) -> None:
        """``LearnerGames.set_opponents`` for every part (a refused pool changes no part: the
        first part refuses it before any part changes)."""
        for part in self.parts:
            part.set_opponents(opponents, weights)
        self._in_order = self._in_order or not all(plays_in_numba(o) for o in self.opponents)

    def seed(self, seed: int) -> None:
        """Reseed every slot (takes effect at the next :meth:`reset`)."""
        for part in self.parts:
            part.seed(seed)

    def reset(self):
        """Start a game in every slot and play the opponents up to the learner's first turn."""
        self._run(lambda k: self.parts[k].reset())
        return self._views[:2]

    def step(self, actions):
        """``LearnerGames.step`` over all slots: every part's actions are checked before any part moves."""
        checked = [
            part.checked_actions(actions_of_part)
            for part, actions_of_part in zip(self.parts, self._split(actions))
        ]
        self._run(lambda k: self.parts[k].apply_checked(*checked[k]))
        return self._views

    def restart(self, slots: Sequence[int]) -> None:
        """Abandon the games in ``slots`` (indices into all slots) and start their next games."""
        slots = np.asarray(slots, np.int64).reshape(-1)
        if ((slots < 0) | (slots >= self.num_envs)).any():
            raise ValueError(f"slots must lie in 0..{self.num_envs - 1}, got {slots.tolist()}")
        for k, part in enumerate(self.parts):
            mine = slots[(slots >= self.bounds[k]) & (slots < self.bounds[k + 1])] - self.bounds[k]
            if mine.size:
                part.restart(mine)
        self._gather_all()

    # --- the parts side by side ------------------------------------------------------------------
    def _split(self, actions) -> list:
        """``actions`` (checked for their shape against all slots) cut into the parts' rows."""
        column = batch_actions(actions, self.num_envs)
        return [column[a:b] for a, b in zip(self.bounds[:-1], self.bounds[1:])]

    def _run(self, work) -> None:
        """``work(k)`` for every part ``k``, then its rows gathered: in the worker threads and this one
        at once, or in order when an opponent plays from Python."""

        def job(k):
            work(k)
            self._gather(k)

        if self._in_order:
            self._in_order = not all(plays_in_numba(o) for o in [*self.opponents, *self.slot_opponents])
        # numba's workqueue pool serves one calling thread at a time (envs/core/threads.py)
        if self._workers is None or self._in_order or get_num_threads() > 1:
            for k in range(len(self.parts)):
                job(k)
            return
        futures = [self._workers.submit(job, k) for k in range(len(self.parts) - 1)]
        try:
            job(len(self.parts) - 1)
        finally:  # no part is left running when this returns or raises
            wait(futures)
        for future in futures:
            future.result()

    def _gather(self, k: int) -> None:
        """Copy part ``k``'s learner arrays into its rows of the whole."""
        part, rows = self.parts[k], slice(self.bounds[k], self.bounds[k + 1])
        for name in GATHERED:
            getattr(self, name)[rows] = getattr(part, name)

    def _gather_all(self) -> None:
        for k in range(len(self.parts)):
            self._gather(k)
