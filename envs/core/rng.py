"""Explicit, seedable random generator usable inside numba kernels.

Every game owns its generator as a ``uint64[1]`` array (splitmix64). Kernels never
touch ``np.random``: numba's generator is per thread, so results would depend on
the thread that ran a game under ``prange``. Keeping the generator outside the
game state also means a planner that clones a state cannot peek at future draws.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from .kernels import python_twin

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


def consecutive_rngs(first_seed: int, count: int, salt: int = 0) -> np.ndarray:
    """``make_rngs([((first_seed + i) mod 2**63) ^ salt for i in range(count)])`` computed with numpy,
    for batches of a million games (the GPU engine); ``first_seed`` and ``salt`` in ``[0, 2**63)``."""
    seeds = (np.uint64(first_seed) + np.arange(count, dtype=np.uint64)) & np.uint64(SEED_MASK)
    with np.errstate(over="ignore"):  # the additions and products wrap modulo 2**64 by design
        z = (seeds ^ np.uint64(salt)) + _GAMMA
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        z = z ^ (z >> np.uint64(31))
    return z.reshape(count, 1)


def entropy_seed() -> int:
    """A non-deterministic seed for ``reset()`` without a seed, in ``[0, 2**63)`` so that it
    fits the ``int64`` seed arrays of the training adapters."""
    return int(np.random.SeedSequence().entropy) & SEED_MASK


SEED_MASK = (1 << 63) - 1  # seeds are kept as non-negative int64


@njit(cache=True)
def rng_next(rng):
    """Advance the generator and return 64 random bits."""
    rng[0] += _GAMMA
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


# One signature: callers pass counts of every integer type (int32 state slots, int64 loop
# counts, literal constants), and each would otherwise compile a version of its own.
@njit(types.int64(types.uint64[::1], types.int64), cache=True)
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


WORD = 8  # mask entries (int8) read at once as one uint64
PICK_BLOCK = 4 * WORD  # entries counted at once while skipping towards the chosen one
_ONES = np.uint64(0x0101010101010101)
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)


@intrinsic
def _load_word(typingctx, mask, start):
    """The ``WORD`` entries of an int8 mask from index ``start`` as one uint64 (no bounds check:
    callers keep ``start + WORD <= len(mask)``). Only for C-contiguous one-byte arrays, where
    those entries are adjacent bytes."""
    if not (
        isinstance(mask, types.Array)
        and mask.ndim == 1
        and mask.layout == "C"
        and mask.dtype in (types.int8, types.uint8)
    ):
        return None

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        address = builder.gep(array.data, [args[1]])
        word = builder.load(builder.bitcast(address, ir.IntType(64).as_pointer()))
        word.align = 1  # masks start anywhere inside a batch's rows
        return word

    return types.uint64(mask, types.intp), codegen


@python_twin(_load_word)
def _load_word_in_python(mask, start):
    """What :func:`_load_word` reads, from Python (numba-cuda's simulator): little-endian, as on
    every target we compile for."""
    word = 0
    for b in range(WORD):
        word |= (int(mask[start + b]) & 0xFF) << (8 * b)
    return np.uint64(word)


@njit(cache=True, inline="always")
def _count_bytes(word):
    """The sum of the bytes of ``word`` (at most 255): the multiplication adds them all into
    the top byte. For mask words of 0/1 entries, their number of 1s."""
    return np.int64((word * _ONES) >> np.uint64(56))


@njit(cache=True, inline="always")
def _nonzero_flags(word):
    """1 in each byte of ``word`` that is non-zero, 0 elsewhere: adding 0x7F to the low seven
    bits carries into the top bit unless they are all 0."""
    return ((((word & _LOW7) + _LOW7) | word) >> np.uint64(7)) & _ONES


@njit(cache=True, inline="always")
def shuffle_range(values, start, count, rng):
    """Fisher-Yates shuffle of ``values[start:start + count]`` in place: the one shuffle of every
    deal and redeal, so that each draws from the generator in the same order."""
    for i in range(count - 1, 0, -1):
        j = rng_below(rng, i + 1)
        a, b = start + i, start + j
        values[a], values[b] = values[b], values[a]


@njit(cache=True)
def rng_pick_set(mask, rng):
    """Index of a uniformly chosen non-zero entry of ``mask`` (-1 when all are zero).

    Any non-zero value marks an entry (masks from users may hold 2 or -1); the fast pick of
    ``rng_pick_counted`` takes the common 0/1 masks, a plain scan the others.
    """
    n = mask.shape[0]
    count = np.int64(0)
    above_one = np.uint64(0)  # bits set above the lowest of some byte: an entry other than 0/1
    start = 0
    while start + WORD <= n:
        word = _load_word(mask, start)
        count += _count_bytes(_nonzero_flags(word))
        above_one |= word & ~_ONES
        start += WORD
    for i in range(start, n):
        count += mask[i] != 0
        above_one |= np.uint64(mask[i] != 0 and mask[i] != 1)
    if above_one == 0:
        return rng_pick_counted(mask, count, rng)
    if count == 0:
        return -1
    k = rng_below(rng, count)
    for i in range(n):
        if mask[i] != 0:
            if k == 0:
                return i
            k -= 1
    return n


@njit(cache=True)
def rng_pick_counted(mask, count, rng):
    """Like ``rng_pick_set`` for a mask of 0/1 entries (what every ``legal_mask`` writes) whose
    number of 1s is already known.

    The pick is the ``k``-th 1 (``k`` uniform below ``count``). The mask is read eight entries
    at a time as one 64-bit word, whose bytes one multiplication sums: whole blocks of
    :data:`PICK_BLOCK` entries are skipped while the chosen one lies beyond them, then single
    words, and the last few entries are counted branch-free, since a branch per entry would be
    mispredicted. Over Monster Arena's 437 actions this costs a third of counting entry by
    entry. A ``count`` above the mask's gives ``mask.shape[0]`` when ``k`` lands past its last
    1. Entries other than 0 and 1 are the caller's error (``rng_pick_set`` takes them).
    """
    if count == 0:
        return -1
    k = rng_below(rng, count)
    n = mask.shape[0]
    start = 0
    while start + PICK_BLOCK <= n:
        in_block = _count_bytes(
            _load_word(mask, start)
            + _load_word(mask, start + WORD)
            + _load_word(mask, start + 2 * WORD)
            + _load_word(mask, start + 3 * WORD)
        )
        if in_block > k:
            break
        k -= in_block
        start += PICK_BLOCK
    while start + WORD <= n:
        in_word = _count_bytes(_load_word(mask, start))
        if in_word > k:
            break
        k -= in_word
        start += WORD
    # The answer is ``start`` plus the entries of the word whose running count is still <= k.
    seen = 0
    index = start
    for i in range(start, min(start + WORD, n)):
        seen += mask[i] != 0
        index += seen <= k
    return index
