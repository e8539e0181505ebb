"""The GPU batched engine: :class:`~monster_zoo.envs.core.batch.BatchEngine`'s methods, one CUDA
thread per game, every array on the device.

Slot ``i`` is seeded ``(seed + i) mod 2**63`` and draws its random actions from
``batch.action_rng`` of that seed, as on the CPU, and the drivers call the same kernels compiled
for CUDA, so for the same seeds and actions both engines give the same states, masks,
observations, rewards and ends (``tests/test_gpu_engine.py`` checks it under numba-cuda's
simulator; ``benchmarks/gpu_device_check.py`` on a GPU).

The arrays handed out (``obs``, ``masks``, ``rewards``, ``terminated``, ``truncated``) are
numba-cuda device arrays with the CUDA array interface: ``torch.as_tensor(engine.obs,
device="cuda")``, ``cupy.asarray(engine.obs)`` or ``jax.dlpack`` take them without a copy. They are
overwritten by the next call. Legality is checked against the engine's own masks, which no caller
receives (``masks`` is a copy), so writing into a handed-out array cannot make a kernel apply an
illegal action.
"""

import numpy as np
from numba import cuda

from ..core.batch import ACTION_SEED_SALT
from ..core.contract import H_CURRENT
from ..core.illegal import IllegalActionError, batch_actions, batch_refusals
from ..core.inputs import check_num_envs, check_seed
from ..core.rng import consecutive_rngs
from . import require_gpu
from .drivers import THREADS_PER_BLOCK, driver_sources
from .tables import place_tables

_COMPILED = {}  # (game id, driver sources) -> {name: numba-cuda kernel}, each compiled at its first launch


def compiled_drivers(spec, sources=driver_sources) -> dict:
    """The game's drivers of ``sources`` (:func:`.drivers.driver_sources` or another module's) as
    numba-cuda kernels by name, made once per process."""
    key = (spec.env_id, sources)
    if key not in _COMPILED:
        place_tables()  # before the first GPU compile: numba-cuda keeps the device functions it compiled
        _COMPILED[key] = {name: cuda.jit(function) for name, (function, _) in sources(spec).items()}
    return _COMPILED[key]


def _as_device_array(value):
    """``value`` as a numba-cuda device array when it lives on the GPU (numba-cuda's own arrays, or
    torch/CuPy/JAX arrays through the CUDA array interface), else None."""
    if hasattr(value, "copy_to_host"):
        return value
    if hasattr(value, "__cuda_array_interface__"):
        return cuda.as_cuda_array(value)
    return None


class GpuBatchEngine:
    """``num_envs`` games of one kind stepped together on the GPU (one thread per game)."""

    def __init__(self, spec, config: np.ndarray, num_envs: int, seed: int = 0):
        num_envs = check_num_envs(num_envs, spec.env_id)
        check_seed(seed, spec.env_id, allow_none=False)
        require_gpu()
        self.spec = spec
        self.num_envs = num_envs
        self.config = cuda.to_device(np.ascontiguousarray(config, dtype=np.int64))
        self.num_players = int(config[0])
        self._kernels = compiled_drivers(spec)
        self._grid = ((num_envs + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK, THREADS_PER_BLOCK)
        # Written in full by reset before anything reads them (the kernel contract), so left unzeroed:
        # a million games' observations are gigabytes.
        self._states = cuda.device_array((num_envs, spec.state_size), np.int32)
        self._masks = cuda.device_array((num_envs, spec.num_actions), np.int8)  # legality: the engine's own
        self._counts = cuda.device_array(num_envs, np.int64)
        self.masks = cuda.device_array((num_envs, spec.num_actions), np.int8)  # the caller's copy
        self.obs = cuda.device_array((num_envs, spec.obs_size), np.float32)
        self.rewards = cuda.to_device(np.zeros((num_envs, self.num_players), np.float32))
        self.terminated = cuda.to_device(np.zeros(num_envs, np.bool_))
        self.truncated = cuda.to_device(np.zeros(num_envs, np.bool_))
        self._actions = cuda.to_device(np.zeros(num_envs, np.int64))
        self._tally = cuda.to_device(np.zeros(1, np.int64))
        self.seed(seed)

    def _launch(self, name: str, *args) -> None:
        blocks, threads = self._grid
        self._kernels[name][blocks, threads](*args)

    def seed(self, seed: int) -> None:
        """Reseed every slot: game generators ``(seed + i) mod 2**63``, action generators derived apart."""
        seed = check_seed(seed, self.spec.env_id, allow_none=False)
        self.rngs = cuda.to_device(consecutive_rngs(seed, self.num_envs))
        self.action_rngs = cuda.to_device(consecutive_rngs(seed, self.num_envs, salt=ACTION_SEED_SALT))

    def reset(self):
        """Start every game; return ``(obs, masks)`` of the seat on move (device arrays)."""
        self._launch("reset", self._states, self.config, self.rngs, self._masks, self._counts, self.obs)
        self.masks.copy_to_device(self._masks)
        return self.obs, self.masks

    @property
    def states(self) -> np.ndarray:
        """A host copy of every slot's state (hidden information included)."""
        return self._states.copy_to_host()

    @property
    def current_players(self) -> np.ndarray:
        """The seat on move in each slot (host array)."""
        return self.states[:, H_CURRENT].copy()

    def _refuse(self, actions) -> None:
        """Raise the IllegalActionError of the first refused slot of host ``actions``, if any."""
        states = self.states
        _, refused = batch_refusals(
            self.spec,
            states,
            self._masks.copy_to_host(),
            actions,
            lambda i: f"slot {i}: player_{int(states[i, H_CURRENT])}",
        )
        if refused:
            raise IllegalActionError(next(iter(refused.values())))

    def _device_actions(self, actions):
        """``actions`` as an int64 device vector of ``num_envs`` entries, or IllegalActionError for a
        batch of the wrong shape or type or an index out of range (legality is the caller's next check)."""
        column = _as_device_array(actions)
        if column is not None:
            if column.shape != (self.num_envs,) or column.dtype.kind not in "iu":
                raise IllegalActionError(
                    f"actions: expected {self.num_envs} integer action indices (a 1-d array "
                    f"of shape ({self.num_envs},)), got a device array of shape "
                    f"{column.shape} and dtype {column.dtype}"
                )
            if column.dtype == np.int64:
                return column
            actions = column.copy_to_host()
        column = batch_actions(actions, self.num_envs)
        if (
            not np.issubdtype(column.dtype, np.integer)
            or (column < 0).any()
            or (column >= self.spec.num_actions).any()
        ):
            self._refuse(
                column
            )  # what int64 could not hold or no action is: named as the CPU engine names it
        self._actions.copy_to_device(np.ascontiguousarray(column, dtype=np.int64))
        return self._actions

    def step(self, actions):
        """Apply one action per slot; return ``(obs, masks, rewards, terminated, truncated)``.

        ``actions``: ``num_envs`` integer action indices, a host array or list or a device array
        (torch, CuPy, numba). Raises IllegalActionError (a ValueError) naming the slot, the player,
        the action and the reason, changing nothing, if any action is refused.
        """
        acts = self._device_actions(actions)
        self._tally.copy_to_device(np.zeros(1, np.int64))
        self._launch("count_illegal", acts, self._masks, self._tally)
        if int(self._tally.copy_to_host()[0]):
            self._refuse(acts.copy_to_host())
        self._launch(
            "step",
            self._states,
            self.config,
            self.rngs,
            acts,
            self._masks,
            self._counts,
            self.obs,
            self.rewards,
            self.terminated,
            self.truncated,
        )
        self.masks.copy_to_device(self._masks)
        return self.obs, self.masks, self.rewards, self.terminated, self.truncated

    def random_actions(self):
        """A random legal action per slot from the engine's own action generators (a device array)."""
        out = cuda.device_array(self.num_envs, np.int64)
        self._launch("random_actions", self._masks, self._counts, self.action_rngs, out)
        return out

    def step_random(self, num_steps: int) -> int:
        """Run ``num_steps`` random steps per slot inside one launch; return games finished."""
        self._tally.copy_to_device(np.zeros(1, np.int64))
        self._launch(
            "random_steps",
            self._states,
            self.config,
            self.rngs,
            self.action_rngs,
            self._masks,
            self._counts,
            int(num_steps),
            self._tally,
        )
        self.masks.copy_to_device(self._masks)
        return int(self._tally.copy_to_host()[0])
