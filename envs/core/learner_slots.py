"""The per-slot draws of the learner-seat games, shared by the CPU driver and the GPU driver.

:class:`monster_zoo.envs.core.selfplay.LearnerGames` (CPU) and
:class:`monster_zoo.envs.gpu.learner_games.GpuLearnerGames` (one CUDA thread per slot) start each
game the same way: its seed, its generator, the learner's seat and the opponent. These functions
are that one way, compiled by numba for the CPU and, from the same Python source, as CUDA device
functions (:func:`monster_zoo.envs.core.kernels.device_functions`), so for the same seeds both
drivers play the same games.
"""

import numpy as np
from numba import njit

from .rng import SEED_MASK, rng_below, rng_next

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
UNIT = 1.0 / 9007199254740992.0  # 2**-53: 53 random bits to a float in [0, 1)


@njit(cache=True)
def game_seed(base_seed, slot, games_started, num_envs):
    """The seed of game ``games_started`` of ``slot``: ``(base_seed + slot + games_started * num_envs)
    mod 2**63``, so that the first games match ``env.reset(seed=base_seed + slot)``. Unsigned
    arithmetic wraps modulo 2**64, which the mask reduces to the same value as exact arithmetic."""
    total = np.uint64(base_seed) + np.uint64(slot) + np.uint64(games_started) * np.uint64(num_envs)
    return np.int64(total & np.uint64(SEED_MASK))


@njit(cache=True)
def seed_rng(rng, seed):
    """Set generator ``rng`` (``uint64[1]``) to the fresh state ``rng.make_rng(seed)`` gives, for a
    seed in ``[0, 2**63)``."""
    z = np.uint64(seed) + _GAMMA
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    rng[0] = z ^ (z >> np.uint64(31))


@njit(cache=True)
def draw_seat_and_opponent(seat_rng, num_players, cumulative):
    """``(learner seat, opponent index)`` for a new game, both drawn from the slot's ``seat_rng``:
    the seat uniform below ``num_players``, the opponent by its weight (``cumulative``: the pool's
    normalised cumulative weights, so the index is the first whose cumulative weight exceeds a
    uniform draw in [0, 1), the last one if rounding leaves none)."""
    seat = rng_below(seat_rng, num_players)
    draw = (rng_next(seat_rng) >> np.uint64(11)) * UNIT
    pick = 0
    while pick < cumulative.shape[0] - 1 and cumulative[pick] <= draw:
        pick += 1
    return seat, pick
