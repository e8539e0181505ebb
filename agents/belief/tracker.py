"""One seat's belief over one game: particles kept from the moves and views the seat was shown.

The game's loop tells the belief what its seat saw (:meth:`Belief.start` at the deal,
:meth:`Belief.heard` after every move); the belief keeps of each call only a redeal of the state for
its seat (the game's ``determinize``, whose result depends on what the seat can see alone, as
``tests/test_engine_properties.py`` checks) and the move, and does its work when the seat is next
on move (:meth:`Belief.catch_up`), so the cost is paid in the seat's own thinking time. Where the
views it heard do not lead to the state it is asked about (a loop that reports no moves), it starts
again from that state's view: a uniform redeal, as a search without a belief makes.
"""

import numpy as np

from monster_zoo.agents.belief.kernels import (
    deal_particles,
    effective_size,
    resample_particles,
    update_particles,
)
from monster_zoo.agents.belief.settings import BeliefSettings
from monster_zoo.envs.core.contract import H_CURRENT, H_STEPS
from monster_zoo.envs.core.rng import make_rng, rng_next

START = -1  # the mover of the deal: no move, the belief starts from the view


class Belief:
    """The belief of one seat of one game of ``spec`` (a game declaration), with ``settings`` and
    the generator ``rng`` (the owner's; the belief draws its own from it). After
    :meth:`catch_up`, ``particles[i]`` is a whole state the seat cannot tell from the game and
    ``weights[i]`` its probability."""

    def __init__(self, spec, settings: BeliefSettings, policy, rng: np.ndarray):
        self.spec, self.settings, self.policy = spec, settings, policy
        self.rng = make_rng(int(rng_next(rng)) & 0x7FFFFFFFFFFFFFFF)
        self.watch_rng = make_rng(int(rng_next(rng)) & 0x7FFFFFFFFFFFFFFF)
        count = settings.particles
        self.particles = np.zeros((count, spec.state_size), np.int32)
        self.weights = np.zeros(count, np.float64)
        self.rngs = np.zeros((count, 1), np.uint64)
        self._mask = np.zeros(spec.num_actions, np.int8)
        self._seen = np.zeros(spec.obs_size, np.float32)
        self._view = np.zeros(spec.obs_size, np.float32)
        self.seat: int | None = None
        self.steps = -1  # H_STEPS of the view the particles stand for (-1: none yet)
        self.pending: list[tuple[int, int, np.ndarray]] = []
        # each move's evidence (the probability the belief gave what the seat saw after it): its
        # log summed over games is the opponent model's log-likelihood, by which epsilon is fitted
        self.evidence: list[float] = []

    def _redeal(self, state: np.ndarray, seat: int) -> np.ndarray:
        """A copy of ``state`` with what ``seat`` cannot see redealt: all the belief keeps of it."""
        view = np.array(state, dtype=np.int32)
        self.spec.determinize(view, seat, self.watch_rng)
        return view

    def start(self, seat: int, state: np.ndarray) -> None:
        """The deal as ``seat`` sees it in ``state`` (the game's state; only its view is kept)."""
        self.seat = int(seat)
        self.steps = -1
        self.evidence = []
        self.pending = [(START, -1, self._redeal(state, self.seat))]

    def heard(self, mover: int, action: int, state: np.ndarray) -> None:
        """``mover`` played ``action``, and the game is now ``state`` (only the seat's view is kept)."""
        if self.seat is None:
            return
        self.pending.append((int(mover), int(action), self._redeal(state, self.seat)))

    def catch_up(self, state: np.ndarray) -> None:
        """Bring the particles to ``state``, the game as the seat on move sees it now: apply the
        moves heard since the last call, or start again from ``state``'s view where they do not
        lead to it."""
        seat = int(state[H_CURRENT])
        pending, self.pending = self.pending, []
        reaches = self.seat == seat and (pending[-1][2][H_STEPS] if pending else self.steps) == state[H_STEPS]
        if not reaches:
            self.seat, self.evidence = seat, []
            pending = [(START, -1, self._redeal(state, seat))]
        for mover, action, view in pending:
            if mover == START:
                self.deal(view)
            else:
                self.update(mover, action, view)
            self.steps = int(view[H_STEPS])

    def deal(self, view: np.ndarray) -> None:
        """Particles dealt afresh from ``view`` (a state that shows the seat what the game shows it),
        at equal weights, each with a generator of its own."""
        for i in range(self.settings.particles):
            self.rngs[i, 0] = rng_next(self.rng)
        deal_particles(view, self.seat, self.particles, self.weights, self.rngs, self.spec.determinize)

    def update(self, mover: int, action: int, view: np.ndarray) -> None:
        """``mover`` played ``action`` and ``view`` shows the seat the game after it: every particle
        advanced and weighed (:func:`~monster_zoo.agents.belief.kernels.update_particles`), then
        resampled where the weights degenerated."""
        s = self.spec
        evidence = update_particles(
            self.particles,
            self.weights,
            self.rngs,
            self.seat,
            mover,
            action,
            view,
            self.settings.epsilon,
            self.settings.chance_tries,
            self.settings.refresh,
            self._mask,
            self._seen,
            self._view,
            s.legal_mask,
            s.apply_action,
            s.observe_into,
            s.determinize,
            self.policy,
        )
        self.evidence.append(evidence)
        if effective_size(self.weights) < self.settings.resample_below * self.settings.particles:
            resample_particles(self.particles, self.weights, self.rngs, self.rng)

    def cumulative(self) -> np.ndarray:
        """Running sums of the weights (the searches draw particles from them)."""
        return np.cumsum(self.weights)
