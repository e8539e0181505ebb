"""The shared random pick (``monster_zoo.envs.core.rng``): every seeded result depends on which
entry a generator state picks, so the word-reading pick must equal the plain scan it replaced,
draw for draw, for every mask (any length; 0/1 entries for ``rng_pick_counted``, any non-zero
values for ``rng_pick_set``) and every count."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from monster_zoo.envs.core.rng import PICK_BLOCK, make_rng, rng_below, rng_pick_counted, rng_pick_set


def reference_pick(mask: np.ndarray, count: int, rng: np.ndarray) -> int:
    """The pick as it was first written: the number of entries whose running count of non-zero
    entries is still <= k, for k uniform below ``count`` (-1 when ``count`` is 0)."""
    if count == 0:
        return -1
    k = rng_below(rng, count)
    running = np.cumsum(mask != 0)
    return int((running <= k).sum())


def mask_lists(values):
    """Masks of any length up to five blocks and a few entries beyond, holding ``values``."""
    return st.lists(st.sampled_from(values), max_size=5 * PICK_BLOCK + 11).map(
        lambda entries: np.array(entries, np.int8)
    )


legal_masks = mask_lists([0, 0, 0, 0, 0, 1])
any_masks = mask_lists([0, 0, 0, 1, 1, 2, -1, -128])


@settings(max_examples=400, deadline=None)
@given(mask=legal_masks, seed=st.integers(0, 2**63 - 1), count_shift=st.sampled_from([0, 0, 0, 1, 7, -1]))
def test_pick_equals_the_plain_scan_draw_for_draw(mask, seed, count_shift):
    count = max(int((mask != 0).sum()) + count_shift, 0)
    ours, theirs = make_rng(seed), make_rng(seed)
    assert rng_pick_counted(mask, count, ours) == reference_pick(mask, count, theirs)
    assert ours[0] == theirs[0]  # the same number of draws, so what follows is unchanged too
    ours, theirs = make_rng(seed), make_rng(seed)
    assert rng_pick_set(mask, ours) == reference_pick(mask, int((mask != 0).sum()), theirs)
    assert ours[0] == theirs[0]


@settings(max_examples=400, deadline=None)
@given(mask=any_masks, seed=st.integers(0, 2**63 - 1))
def test_pick_set_takes_any_non_zero_value_as_an_entry(mask, seed):
    ours, theirs = make_rng(seed), make_rng(seed)
    assert rng_pick_set(mask, ours) == reference_pick(mask, int((mask != 0).sum()), theirs)
    assert ours[0] == theirs[0]


def test_every_legal_entry_is_picked_and_no_other():
    mask = np.zeros(437, np.int8)  # Monster Arena's action count: many blocks skipped
    legal = [0, 15, 16, 17, 200, 436]
    mask[legal] = 1
    rng = make_rng(3)
    picks = [rng_pick_set(mask, rng) for _ in range(3000)]
    assert sorted(set(picks)) == legal
    assert min(np.bincount(picks)[legal]) > 3000 / len(legal) * 0.8  # roughly uniform
    assert rng_pick_set(np.zeros(437, np.int8), rng) == -1


def test_shuffle_range_permutes_only_its_range_and_is_uniform():
    from numba import njit

    from monster_zoo.envs.core.rng import shuffle_range

    @njit
    def shuffled(values, start, count, rng):
        shuffle_range(values, start, count, rng)

    rng = make_rng(7)
    seen = {}
    for _ in range(6000):
        values = np.arange(10, dtype=np.int32)
        shuffled(values, 3, 3, rng)
        assert values[:3].tolist() == [0, 1, 2] and values[6:].tolist() == [6, 7, 8, 9]
        assert sorted(values[3:6].tolist()) == [3, 4, 5]
        key = tuple(values[3:6].tolist())
        seen[key] = seen.get(key, 0) + 1
    # all 3! orders, each near 1000 (a biased swap, e.g. j drawn below i, misses some)
    assert len(seen) == 6 and all(850 < c < 1150 for c in seen.values())
    # a range of 0 or 1 draws nothing from the generator
    before = rng.copy()
    shuffled(np.arange(4), 2, 1, rng)
    shuffled(np.arange(4), 0, 0, rng)
    assert rng.tolist() == before.tolist()


def test_consecutive_rngs_are_the_rows_of_each_seed_and_of_its_action_generator():
    from monster_zoo.envs.core.batch import ACTION_SEED_SALT, action_rng
    from monster_zoo.envs.core.rng import SEED_MASK, consecutive_rngs, make_rngs

    for first in (0, 7, SEED_MASK - 2, 2**62 + 1):  # SEED_MASK - 2: the seeds wrap to 0 as make_batch's do
        seeds = [(first + i) & SEED_MASK for i in range(5)]
        assert np.array_equal(consecutive_rngs(first, 5), make_rngs(seeds))
        assert np.array_equal(
            consecutive_rngs(first, 5, salt=ACTION_SEED_SALT), np.stack([action_rng(s) for s in seeds])
        )
