"""Games in which every seat learns: each seat's view after every move, for self-play trainers.

:class:`SeatGames` steps ``num_envs`` games of one kind, one action per game from the seat on
move, and after every step holds every seat's observation (``observations[i, p]``: seat ``p``'s
view of game ``i``, hidden information hidden as in the AEC env), the legal actions of the seat on
move, every seat's reward (its final return in the step that ends a game, else 0) and the ends.
A game that ends stays as it ended (its final views readable) until :meth:`SeatGames.restart` starts the
slot's next game, which is how TorchRL's partial reset (``"_reset"``) wants it.

Seeding as :class:`~monster_zoo.envs.core.selfplay.LearnerGames`: game ``k`` of slot ``i`` plays
seed ``seed + i + k * num_envs``, so ``aec_env.reset(seed=...)`` with ``game_seeds[i]`` replays it.
Actions follow :mod:`monster_zoo.envs.core.illegal`: one per slot, legal for the seat on move,
else IllegalActionError naming the slot, the seat, the action and the reason, changing nothing.
"""

import numpy as np
from numba import types

from .batch import MASKS, STATES
from .contract import H_CURRENT, H_TERMINAL, LEGAL_MASK_T, OBSERVE_T
from .header import running_rows, truncated_rows
from .illegal import IllegalActionError, batch_refusals
from .inputs import check_num_envs, check_seed
from .kernels import lazy_njit
from .learner_slots import game_seed, seed_rng
from .selfplay import apply_in_slots

FLOATS3 = types.float32[:, :, ::1]


@lazy_njit(types.void(STATES, MASKS, FLOATS3, LEGAL_MASK_T, OBSERVE_T), first_class_args=True, nogil=True)
def every_seat_view(states, masks, obs, legal_mask, observe_into):
    """Every seat's observation of every slot, and the legal actions of the seat on move (zeros where
    the game is over)."""
    for i in range(states.shape[0]):
        s = states[i]
        masks[i, :] = 0
        if s[H_TERMINAL] == 0:
            legal_mask(s, masks[i])
        for p in range(obs.shape[1]):
            observe_into(s, p, obs[i, p])


class SeatGames:
    """``num_envs`` games from every seat (see the module docstring)."""

    def __init__(self, spec, config: np.ndarray, num_envs: int, seed: int = 0):
        self.spec = spec
        self.num_envs = check_num_envs(num_envs, spec.env_id)
        self.config = np.ascontiguousarray(config, dtype=np.int64)
        self.num_players = int(self.config[0])
        n, s = self.num_envs, spec
        self.states = np.zeros((n, s.state_size), np.int32)
        self.game_rngs = np.zeros((n, 1), np.uint64)
        self.observations = np.zeros((n, self.num_players, s.obs_size), np.float32)
        self._masks = np.zeros((n, s.num_actions), np.int8)  # legality is checked against these
        self.masks = np.zeros((n, s.num_actions), np.int8)  # and this copy is what callers see
        self.rewards = np.zeros((n, self.num_players), np.float32)
        self.terminated = np.zeros(n, np.bool_)
        self.truncated = np.zeros(n, np.bool_)
        self.game_seeds = np.zeros(n, np.int64)
        self._returns = np.zeros(self.num_players, np.float32)
        self.seed(seed)

    def seed(self, seed: int) -> None:
        """Reseed every slot (takes effect at the next :meth:`reset`)."""
        self.base_seed = check_seed(seed, self.spec.env_id, allow_none=False)
        self._games_started = np.zeros(self.num_envs, np.int64)

    def reset(self) -> None:
        """Start a game in every slot."""
        self.restart(np.arange(self.num_envs))

    def restart(self, slots) -> None:
        """Start the next game in ``slots`` (abandoning any game in progress there)."""
        slots = np.asarray(slots, np.int64).reshape(-1)
        for i in slots:
            self.game_seeds[i] = game_seed(self.base_seed, i, self._games_started[i], self.num_envs)
            self._games_started[i] += 1
            seed_rng(self.game_rngs[i], self.game_seeds[i])
            self.spec.init_state(self.states[i], self.config, self.game_rngs[i])
        self.rewards[slots] = 0.0
        self.terminated[slots] = False
        self.truncated[slots] = False
        self._refresh_view()

    @property
    def current_players(self) -> np.ndarray:
        """The seat on move in each slot."""
        return self.states[:, H_CURRENT].astype(np.int64)

    def step(self, actions) -> None:
        """Apply one action per slot for the seat on move (every game must be running)."""
        if not running_rows(self.states).all():
            ended = int(np.flatnonzero(~running_rows(self.states))[0])
            raise RuntimeError(
                f"{self.spec.env_id}: the game in slot {ended} is over; restart it before stepping"
            )
        acts, refused = batch_refusals(
            self.spec,
            self.states,
            self._masks,
            actions,
            lambda i: f"slot {i}: player_{int(self.states[i, H_CURRENT])}",
        )
        if refused:
            raise IllegalActionError(next(iter(refused.values())))
        apply_in_slots(self.states, np.arange(self.num_envs), acts, self.game_rngs, self.spec.apply_action)
        self.terminated[:] = self.states[:, H_TERMINAL] != 0
        self.truncated[:] = truncated_rows(self.states)
        self.rewards[:] = 0.0
        for i in np.flatnonzero(self.terminated):
            self.spec.returns(self.states[i], self._returns)
            self.rewards[i] = self._returns
        self._refresh_view()

    def _refresh_view(self) -> None:
        s = self.spec
        every_seat_view(self.states, self._masks, self.observations, s.legal_mask, s.observe_into)
        self.masks[:] = self._masks
