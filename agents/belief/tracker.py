"""One seat's belief over one game: particles kept from the moves and views the seat was shown.

The game's loop tells the belief what its seat saw (:meth:`Belief.start` at the deal,
:meth:`Belief.heard` after every move). Of each call the belief keeps a redeal of the state for its
seat (the game's ``determinize``, whose result depends on what the seat can see alone, as
``tests/test_engine_properties.py`` checks) and the move as the game names it to the seat: a move
the game hides from the seat (a pair laid face down) is any of the moves named alike. It does its
work when the seat is next on move (:meth:`Belief.catch_up`), so the cost is paid in the seat's own
thinking time. Where the views it heard do not lead to the state it is asked about (a loop that
reports no moves), it starts again from that state's view: a uniform redeal, as a search without a
belief makes.
"""

import numpy as np

from monster_zoo.agents.belief.kernels import (
    deal_particles,
    effective_size,
    no_graft,
    resample_particles,
    update_particles,
)
from monster_zoo.agents.belief.opponent import OpponentModel
from monster_zoo.agents.belief.settings import BeliefSettings
from monster_zoo.envs.core.contract import H_CURRENT, H_NUM_PLAYERS, H_STEPS
from monster_zoo.envs.core.rng import make_rng, rng_next

START = -1  # the mover of the deal: no move, the belief starts from the view
NO_ACTIONS = np.zeros(0, np.int64)


class Belief:
    """The belief of one seat of one game of ``spec`` (a game declaration), with ``settings``, the
    opponent ``model`` and the generator ``rng`` (the owner's; the belief draws its own from it). After
    :meth:`catch_up`, ``particles[i]`` is a whole state the seat cannot tell from the game and
    ``weights[i]`` its probability."""

    def __init__(self, spec, settings: BeliefSettings, model: OpponentModel, rng: np.ndarray):
        self.spec, self.settings, self.model = spec, settings, model
        self._params, self._shapes = model.arrays(0)
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
        self.pending: list[tuple[int, np.ndarray, np.ndarray]] = []
        self._last: np.ndarray | None = None  # the seat's view of the last state it was told
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
        self._last = self._redeal(state, self.seat)
        self.pending = [(START, NO_ACTIONS, self._last)]

    def heard(self, mover: int, action: int, state: np.ndarray) -> None:
        """``mover`` played ``action``, and the game is now ``state``: the belief keeps the seat's
        view of it and the move as the game names it to the seat (see :meth:`candidates`)."""
        if self.seat is None or self._last is None:
            return
        candidates = self.candidates(self._last, int(mover), int(action))
        self._last = self._redeal(state, self.seat)
        self.pending.append((int(mover), candidates, self._last))

    def candidates(self, before: np.ndarray, mover: int, action: int) -> np.ndarray:
        """The actions the seat cannot tell ``mover``'s ``action`` from, in ``before`` (the seat's view
        of the state it was made in): the action alone where the seat knows it (its own, or one the
        game names to it in full), else every action the game names to the seat alike (the game's
        ``describe_action``: a pair laid face down is "lay two cards face down" to the others)."""
        describe = getattr(self.spec, "describe_action", None)
        if mover == self.seat or describe is None:
            return np.array([action], np.int64)
        seen = describe(before, action, self.seat)
        if seen == self.spec.action_to_str(action, before):
            return np.array([action], np.int64)
        alike = [a for a in range(self.spec.num_actions) if describe(before, a, self.seat) == seen]
        return np.array(alike, np.int64)

    def catch_up(self, state: np.ndarray) -> None:
        """Bring the particles to ``state``, the game as the seat on move sees it now: apply the
        moves heard since the last call, or start again from ``state``'s view where they do not
        lead to it."""
        seat = int(state[H_CURRENT])
        pending = self.pending
        reaches = self.seat == seat and (pending[-1][2][H_STEPS] if pending else self.steps) == state[H_STEPS]
        if not reaches:
            self.seat, self.evidence = seat, []
            self._last = self._redeal(state, seat)
            self.pending = [(START, NO_ACTIONS, self._last)]
        self.absorb()

    def absorb(self) -> None:
        """Apply the deal and the moves heard since the last call, whoever is on move now."""
        pending, self.pending = self.pending, []
        for mover, candidates, view in pending:
            if mover == START:
                self.deal(view)
            else:
                self.update(mover, candidates, view)
            self.steps = int(view[H_STEPS])

    def deal(self, view: np.ndarray) -> None:
        """Particles dealt afresh from ``view`` (a state that shows the seat what the game shows it),
        at equal weights, each with a generator of its own; the opponent model for its table."""
        self._params, self._shapes = self.model.arrays(int(view[H_NUM_PLAYERS]))
        for i in range(self.settings.particles):
            self.rngs[i, 0] = rng_next(self.rng)
        deal_particles(view, self.seat, self.particles, self.weights, self.rngs, self.spec.determinize)

    def update(self, mover: int, candidates, view: np.ndarray) -> None:
        """``mover`` played one of ``candidates`` (an action, or the actions the seat cannot tell the
        move from) and ``view`` shows the seat the game after it: every particle advanced and weighed
        (:func:`~monster_zoo.agents.belief.kernels.update_particles`), then resampled where the
        weights degenerated."""
        s = self.spec
        evidence = update_particles(
            self.particles,
            self.weights,
            self.rngs,
            self.seat,
            mover,
            np.atleast_1d(np.asarray(candidates, np.int64)),
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
            self.model.policy,
            self._params,
            self._shapes,
            self.model.temperature,
            self.settings.greedy_share,
            s.graft_hidden or no_graft,
            s.graft_hidden is not None,
        )
        self.evidence.append(evidence)
        if effective_size(self.weights) < self.settings.resample_below * self.settings.particles:
            resample_particles(self.particles, self.weights, self.rngs, self.rng)

    def cumulative(self) -> np.ndarray:
        """Running sums of the weights (the searches draw particles from them)."""
        return np.cumsum(self.weights)
