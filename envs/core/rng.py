"""Explicit, seedable random generator usable inside numba kernels.

Every game owns its generator as a ``uint64[1]`` array (splitmix64). Kernels never
touch ``np.random``: numba's generator is per thread, so results would depend on
the thread that ran a game under ``prange``. Keeping the generator outside the
game state also means a planner that clones a state cannot peek at future draws.
"""
import numpy as np
from numba import njit

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_MASK64 = (1 << 64) - 1
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


def _mix(z: int) -> int:
    """splitmix64's finaliser on a Python int, used to spread user seeds."""
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & _MASK64
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & _MASK64
    return z ^ (z >> 31)


def make_rng(seed: int) -> np.ndarray:
    """Return a fresh generator state for an integer seed (any size, negative allowed)."""
    return np.array([_mix((int(seed) + 0x9E3779B97F4A7C15) & _MASK64)], dtype=np.uint64)


def make_rngs(seeds) -> np.ndarray:
    """Return one generator row per seed, shape ``[len(seeds), 1]``."""
    return np.stack([make_rng(s) for s in seeds])


def entropy_seed() -> int:
    """A non-deterministic seed for ``reset()`` without a seed, in ``[0, 2**63)`` so that it
    fits the ``int64`` seed arrays of the training adapters."""
    return int(np.random.SeedSequence().entropy) & SEED_MASK


SEED_MASK = (1 << 63) - 1  # seeds are kept as non-negative int64
_PICK_STRIDE = 8  # mask entries counted together by rng_pick_counted


@njit(cache=True)
def rng_next(rng):
    """Advance the generator and return 64 random bits."""
    rng[0] += _GAMMA
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def rng_below(rng, n):
    """Uniform integer in ``[0, n)`` for ``1 <= n < 2**32``, without bias.

    Lemire's multiply-and-shift on 32 random bits: a multiplication instead of a
    division per draw; the rare rejection step keeps every value equally likely.
    """
    bound = np.uint64(n)
    product = (rng_next(rng) >> np.uint64(32)) * bound
    low = product & _LOW32
    if low < bound:
        threshold = (_TWO32 - bound) % bound  # 2**32 mod n
        while low < threshold:
            product = (rng_next(rng) >> np.uint64(32)) * bound
            low = product & _LOW32
    return np.int64(product >> np.uint64(32))


@njit(cache=True)
def rng_pick_set(mask, rng):
    """Index of a uniformly chosen non-zero entry of ``mask`` (-1 when all are zero)."""
    count = 0
    for i in range(mask.shape[0]):
        count += mask[i] != 0
    return rng_pick_counted(mask, count, rng)


@njit(cache=True)
def rng_pick_counted(mask, count, rng):
    """Like ``rng_pick_set`` when the number of non-zero entries is already known."""
    if count == 0:
        return -1
    k = rng_below(rng, count)
    # Count down the set entries until the chosen one: 8 entries per step (independent reads,
    # one branch), then one by one within the 8 that hold it. A game whose legal actions sit
    # early in a long mask reads only that far.
    size = mask.shape[0]
    start = 0
    while start + _PICK_STRIDE <= size:
        found = 0
        for i in range(start, start + _PICK_STRIDE):
            found += mask[i] != 0
        if k < found:
            break
        k -= found
        start += _PICK_STRIDE
    for i in range(start, size):
        k -= mask[i] != 0
        if k < 0:
            return i
    return -1
