"""The learner-seat games on the GPU: :class:`~monster_zoo.envs.core.selfplay.LearnerGames` with every
array on the device and every slot stepped by its own CUDA thread.

The same games as on the CPU (the drivers of :mod:`~monster_zoo.envs.gpu.learner_drivers` follow
``LearnerGames`` slot by slot): for the same seed, opponents, weights and learner actions both give
the same states, learner seats, masks, observations, rewards and ends, bit for bit where the
opponents are random, and where they are frozen networks as far as both forward passes give the same
logits (``tests/test_gpu_learner_games.py`` checks both under numba-cuda's simulator).

Opponents, per game, drawn by weight from the pool as on the CPU:

* random play: an opponent whose ``policy_kernel`` is ``opponents.random_policy`` (the ``random``
  agent, :class:`~monster_zoo.envs.core.opponents.RandomOpponent`), played inside the thread;
* greedy: an opponent whose ``policy_kernel`` is the game's greedy kernel (the ``greedy`` agent),
  played inside the thread too (its one-ply search included: its work arrays are ``scratch``
  arrays, per-thread local memory on the GPU);
* a torch policy: an opponent with ``policy_logits``, a callable from a float32 tensor of
  observations ``[k, obs_size]`` on the policy's device to logits ``[k, num_actions]`` (a frozen
  snapshot of the learner). Each round, the slots whose such opponent is on move are grouped by
  opponent (one ``bincount`` and one ``argsort`` on the device; the counts are the round's one read
  back to the host, a few bytes), each opponent's network runs once on its rows, and a kernel draws
  and applies the actions.

Any other opponent (another numba policy kernel, an agent acting from Python) is refused by
:meth:`GpuLearnerGames.set_opponents` with the reason.

Arrays handed out (``observations``, ``masks``, ``rewards``, ``terminated``, ``truncated`` and the
``final_*`` ones) are numba-cuda device arrays, overwritten by the next call; :func:`tensor_view`
makes torch tensors of them without a copy, and :meth:`GpuLearnerGames.step` takes a torch tensor of
actions on the device. Under numba-cuda's simulator (``NUMBA_ENABLE_CUDASIM=1``) the arrays live in
host memory and torch runs on the CPU (:data:`TORCH_DEVICE`), still without copies.
"""
from typing import Optional, Sequence

import numpy as np
from numba import config as numba_config, cuda

from ..core.contract import H_CURRENT
from ..core.illegal import IllegalActionError, batch_refusals
from ..core.inputs import check_num_envs, check_seed
from ..core.opponents import RandomOpponent, random_policy
from ..core.rng import consecutive_rngs
from ..core.selfplay import OPPONENT_SALT, SEAT_SALT, pool_cumulative
from . import require_gpu
from .drivers import driver_sources as engine_driver_sources
from .engine import THREADS_PER_BLOCK, _as_device_array, compiled_drivers
from .learner_drivers import (BEGIN, KIND_GREEDY, KIND_RANDOM, KIND_TORCH, LEARNER, OPPONENTS, READY, WAITING,
                              driver_sources, greedy_kernel)

SIMULATED = bool(getattr(numba_config, "ENABLE_CUDASIM", False))
TORCH_DEVICE = "cpu" if SIMULATED else "cuda"  # where torch reads the games' arrays without a copy

def tensor_view(array):
    """A torch tensor sharing ``array``'s memory (a numba-cuda device array; under the simulator its
    host memory, on :data:`TORCH_DEVICE`)."""
    import torch

    if SIMULATED:
        return torch.from_numpy(np.asarray(array))
    return torch.as_tensor(array, device="cuda")


def numba_view(tensor):
    """What a kernel takes for a torch ``tensor`` on :data:`TORCH_DEVICE`, sharing its memory."""
    return tensor.numpy() if SIMULATED else cuda.as_cuda_array(tensor)


def opponent_kind(opponent, spec) -> int:
    """:data:`KIND_RANDOM`, :data:`KIND_GREEDY` or :data:`KIND_TORCH` of an opponent in ``spec``'s
    games; ValueError naming why any other opponent cannot play on the GPU."""
    if getattr(opponent, "policy_logits", None) is not None:
        return KIND_TORCH
    kernel = getattr(opponent, "policy_kernel", None)
    if kernel is random_policy:
        return KIND_RANDOM
    if kernel is not None and kernel is greedy_kernel(spec):
        return KIND_GREEDY
    name = getattr(opponent, "name", type(opponent).__name__)
    raise ValueError(f"opponent {name!r} cannot play on the GPU: the GPU learner-seat games take random play "
                     f"(policy_kernel opponents.random_policy), the game's greedy kernel and torch policies "
                     f"(policy_logits); another numba policy kernel has no GPU build here")


class GpuLearnerGames:
    """``num_envs`` games played from one learner seat each on the GPU (see the module docstring); the
    arguments are :class:`~monster_zoo.envs.core.selfplay.LearnerGames`' (an illegal learner action
    is always refused: ``illegal_action="raise"``)."""

    def __init__(self, spec, config: np.ndarray, num_envs: int, opponents: Sequence = None,
                 weights: Optional[Sequence[float]] = None, seed: int = 0, seats: Optional[Sequence[int]] = None):
        num_envs = check_num_envs(num_envs, spec.env_id)
        check_seed(seed, spec.env_id, allow_none=False)
        require_gpu()
        self.spec, self.num_envs = spec, num_envs
        self.config_host = np.ascontiguousarray(config, dtype=np.int64)
        self.num_players = int(self.config_host[0])
        fixed = np.full(num_envs, -1, np.int64)
        if seats is not None:
            fixed = np.asarray(seats, np.int64)
            if fixed.shape != (num_envs,) or ((fixed < 0) | (fixed >= self.num_players)).any():
                raise ValueError(f"seats must be {num_envs} seats in 0..{self.num_players - 1}, got {seats!r}")
        n, s = num_envs, spec
        self._kernels = compiled_drivers(spec, driver_sources)
        self._count_illegal = compiled_drivers(spec, engine_driver_sources)["count_illegal"]
        threads = min(THREADS_PER_BLOCK, n)  # a small batch starts no idle threads (the simulator runs each)
        self._grid = ((n + threads - 1) // threads, threads)
        self._config = cuda.to_device(self.config_host)
        self._fixed_seats = cuda.to_device(fixed)
        self._states = cuda.to_device(np.zeros((n, s.state_size), np.int32))
        self._masks = cuda.to_device(np.zeros((n, s.num_actions), np.int8))  # legality is checked against these
        self.masks = cuda.to_device(np.zeros((n, s.num_actions), np.int8))   # and this copy is what callers see
        self.observations = cuda.to_device(np.zeros((n, s.obs_size), np.float32))
        self.final_observations = cuda.to_device(np.zeros((n, s.obs_size), np.float32))
        self.rewards = cuda.to_device(np.zeros(n, np.float32))
        self.terminated = cuda.to_device(np.zeros(n, np.bool_))
        self.truncated = cuda.to_device(np.zeros(n, np.bool_))
        self.final_returns = cuda.to_device(np.zeros((n, self.num_players), np.float32))
        self.final_seats = cuda.to_device(np.zeros(n, np.int64))
        self.final_game_seeds = cuda.to_device(np.zeros(n, np.int64))
        self.learner_seats = cuda.to_device(np.zeros(n, np.int64))
        self.game_seeds = cuda.to_device(np.zeros(n, np.int64))
        self._members = cuda.to_device(np.zeros(n, np.int64))  # each slot's opponent, by table entry
        self._phase = cuda.to_device(np.zeros(n, np.int8))
        self._reported = cuda.to_device(np.zeros(n, np.int8))
        self._opp_masks = cuda.to_device(np.zeros((n, s.num_actions), np.int8))
        self._opp_obs = cuda.to_device(np.zeros((n, s.obs_size), np.float32))
        self._tally = cuda.to_device(np.zeros(1, np.int64))
        self._no_actions = cuda.to_device(np.zeros(1, np.int64))              # what a launch does not read
        self._no_logits = cuda.to_device(np.zeros((1, 1), np.float32))
        self._table: list = []  # every opponent a game may still be playing with; slots name entries
        self._torch = None      # torch views and buffers, made when a torch opponent first joins
        self.set_opponents(opponents, weights)
        self.seed(seed)

    # --- configuration -------------------------------------------------------------
    def set_opponents(self, opponents: Optional[Sequence], weights: Optional[Sequence[float]] = None) -> None:
        """Replace the opponent pool; games in progress keep the opponent they started with. An
        opponent that cannot play on the GPU or was made for another game is refused (ValueError,
        naming why) and the pool is left as it was."""
        opponents = [RandomOpponent()] if opponents is None else list(opponents)
        if not opponents:
            raise ValueError("the opponent pool is empty: pass at least one opponent")
        kinds = [opponent_kind(o, self.spec) for o in opponents]
        for o in opponents:
            check = getattr(o, "check_game", None)
            if check is not None:
                check(self.spec.env_id, self.config_host)
        cumulative = pool_cumulative(weights, len(opponents))
        if any(k == KIND_TORCH for k in kinds):
            self._make_torch_buffers()
        in_play = set(np.unique(self._members.copy_to_host()).tolist()) if self._table else set()
        self._table = [entry if k in in_play else None for k, entry in enumerate(self._table)]
        free = [k for k, entry in enumerate(self._table) if entry is None]  # reused, so the table stays small
        ids = []
        for opponent, kind in zip(opponents, kinds):
            ids.append(free.pop(0) if free else len(self._table))
            if ids[-1] == len(self._table):
                self._table.append(None)
            self._table[ids[-1]] = (opponent, kind)
        self.opponents = opponents
        self._pool_ids = cuda.to_device(np.array(ids, np.int64))
        self._cumulative = cuda.to_device(cumulative)
        self._kinds = cuda.to_device(np.array([KIND_RANDOM if e is None else e[1] for e in self._table], np.int8))

    def seed(self, seed: int) -> None:
        """Reseed every slot (takes effect at the next :meth:`reset`), as ``LearnerGames.seed``."""
        self.base_seed = check_seed(seed, self.spec.env_id, allow_none=False)
        n = self.num_envs
        self._started = cuda.to_device(np.zeros(n, np.int64))
        self._game_rngs = cuda.to_device(np.zeros((n, 1), np.uint64))
        self._seat_rngs = cuda.to_device(consecutive_rngs(self.base_seed, n, salt=SEAT_SALT))
        self._policy_rngs = cuda.to_device(consecutive_rngs(self.base_seed, n, salt=OPPONENT_SALT))

    # --- stepping ---------------------------------------------------------------------
    def _launch(self, name: str, *args) -> None:
        blocks, threads = self._grid
        self._kernels[name][blocks, threads](*args)

    def _slot_arrays(self) -> tuple:
        return (self._states, self._config, self._game_rngs, self._seat_rngs, self._policy_rngs, self.learner_seats,
                self._fixed_seats, self._members, self._pool_ids, self._cumulative, self._kinds, self._started,
                self.game_seeds, self.base_seed, self._phase, self._reported, self.rewards, self.terminated,
                self.truncated, self.final_observations, self.final_returns, self.final_seats,
                self.final_game_seeds, self._opp_masks, self._opp_obs)

    def reset(self):
        """Start a game in every slot and play the opponents up to the learner's first turn;
        ``(observations, masks)``."""
        self._launch("play", BEGIN, self._no_actions, self._no_logits, *self._slot_arrays())
        self._play_torch_opponents()
        self._refresh_view()
        return self.observations, self.masks

    def step(self, actions):
        """Apply the learner's action in every slot; opponents answer; finished games restart;
        ``(observations, masks, rewards, terminated, truncated)``. An action the learner may not take
        raises IllegalActionError naming the slot, the learner's seat, the action and the reason,
        changing nothing."""
        column = self._device_actions(actions)
        self._tally.copy_to_device(np.zeros(1, np.int64))
        self._count_illegal[self._grid](column, self._masks, self._tally)
        if int(self._tally.copy_to_host()[0]):
            self._refuse(column.copy_to_host())
        self._launch("play", LEARNER, column, self._no_logits, *self._slot_arrays())
        self._play_torch_opponents()
        self._refresh_view()
        return self.observations, self.masks, self.rewards, self.terminated, self.truncated

    @property
    def states(self) -> np.ndarray:
        """A host copy of every slot's state (hidden information included)."""
        return self._states.copy_to_host()

    def _device_actions(self, actions):
        column = _as_device_array(actions)
        if column is None and SIMULATED and hasattr(actions, "numpy"):
            column = cuda.to_device(actions.numpy())  # a CPU tensor standing for a device one
        if column is not None and column.shape == (self.num_envs,) and column.dtype == np.int64:
            return column
        host = column.copy_to_host() if column is not None else actions
        refused = self._refusals(host)
        if refused:
            raise IllegalActionError(next(iter(refused.values())))
        return cuda.to_device(np.ascontiguousarray(host, dtype=np.int64))

    def _refusals(self, actions) -> dict:
        learner = self.learner_seats.copy_to_host()

        def who(i):
            seat = f"player_{int(learner[i])} (the learner)"
            return f"slot {i}: {seat}" if self.num_envs > 1 else seat

        return batch_refusals(self.spec, self.states, self._masks.copy_to_host(), actions, who)[1]

    def _refuse(self, actions) -> None:
        refused = self._refusals(actions)
        raise IllegalActionError(next(iter(refused.values())))

    def _make_torch_buffers(self) -> None:
        if self._torch is None:
            import torch

            logits = torch.zeros((self.num_envs, self.spec.num_actions), dtype=torch.float32, device=TORCH_DEVICE)
            self._torch = {"logits": logits, "logits_numba": numba_view(logits), "obs": tensor_view(self._opp_obs),
                           "phase": tensor_view(self._phase), "members": tensor_view(self._members)}

    def _play_torch_opponents(self) -> None:
        """Rounds of torch opponents' moves until no slot waits for one: each opponent's network on
        its waiting slots' observations, then one launch that draws, applies and plays on."""
        if self._torch is None:
            return
        import torch

        t = self._torch
        size = len(self._table)
        while True:
            key = torch.where(t["phase"] == WAITING, t["members"], torch.full_like(t["members"], size))
            counts = torch.bincount(key, minlength=size + 1)[:size].tolist()  # the round's read-back
            if not any(counts):
                return
            order = torch.argsort(key, stable=True)
            start = 0
            with torch.no_grad():
                for entry, count in enumerate(counts):
                    if count:
                        rows = order[start:start + count]
                        t["logits"][rows] = self._table[entry][0].policy_logits(t["obs"][rows]).float()
                        start += count
            self._launch("play", OPPONENTS, self._no_actions, t["logits_numba"], *self._slot_arrays())

    def _refresh_view(self) -> None:
        self._launch("learner_view", self._states, self.learner_seats, self._masks, self.observations)
        self.masks.copy_to_device(self._masks)


__all__ = ["GpuLearnerGames", "tensor_view", "numba_view", "opponent_kind", "READY", "WAITING", "TORCH_DEVICE"]
