"""Opponents the training engine plays inside numba: numba policies and frozen MLP networks.

Both kinds play every seat but the learner's, whole turns at a time, with the
slot's own generator (so results do not depend on the thread count). See
:mod:`monster_zoo.envs.core.selfplay` for how opponents are chosen per game.
"""

import math

import numpy as np
from numba import njit, prange, types

from .batch import FLOATS2, INTS, MASKS, RNGS, STATES
from .contract import APPLY_ACTION_T, H_CURRENT, LEGAL_MASK_T, OBSERVE_T, POLICY_SIG, POLICY_T
from .header import running
from .kernels import copy_vector
from .rng import make_rng, rng_next, rng_pick_set
from .threads import batch_kernel


@njit(POLICY_SIG, cache=True)
def random_policy(state, mask, rng):
    """A uniformly random legal action: the default opponent."""
    return rng_pick_set(mask, rng)


class RandomOpponent:
    """The default opponent: uniformly random legal actions, stepped inside numba."""

    name = "random"
    policy_kernel = staticmethod(random_policy)  # a dispatcher would bind as a method

    def __init__(self, seed: int = 0):
        self.rng = make_rng(seed)

    def act_batch(self, observations, masks, states=None) -> np.ndarray:
        """A random legal action per row (used when called outside the numba path)."""
        return np.array(
            [rng_pick_set(np.ascontiguousarray(m, dtype=np.int8), self.rng) for m in masks], dtype=np.int64
        )


@njit(cache=True, inline="always")
def opponent_on_move(s, learner):
    """True while the game goes on and a seat other than the learner's must act."""
    return running(s) and s[H_CURRENT] != learner


# Whole opponent turns are worth threads (unlike the per-round helpers of selfplay.py).
@batch_kernel(
    types.void(STATES, INTS, INTS, RNGS, RNGS, MASKS, POLICY_T, LEGAL_MASK_T, APPLY_ACTION_T),
    batch_arg=1,
    first_class_args=True,
    nogil=True,
)
def advance_with_policy(
    states, slots, learner, game_rngs, policy_rngs, masks, policy, legal_mask, apply_action
):
    """Let ``policy`` play every seat but the learner's in ``slots`` until the learner is on
    move or the game ends."""
    for j in prange(slots.shape[0]):
        i = slots[j]
        s = states[i]
        while opponent_on_move(s, learner[i]):
            legal_mask(s, masks[i])
            apply_action(s, policy(s, masks[i], policy_rngs[i]), game_rngs[i])


ACT_NONE, ACT_TANH, ACT_RELU = 0, 1, 2
UNIT = 1.0 / 9007199254740992.0  # 2**-53: 53 random bits to a float in [0, 1)


class MLPWeights:
    """A frozen multilayer perceptron policy as flat arrays that numba kernels can read.

    ``layers`` is a sequence of ``(weight[in, out], bias[out], activation)`` with
    activation one of ``ACT_NONE``, ``ACT_TANH``, ``ACT_RELU``; the last layer gives the
    action logits. An opponent that carries one as ``policy_mlp`` is played inside
    numba (observation, forward pass, masked softmax, a draw from the slot's
    generator), which is how frozen self-play snapshots cost little more than random play.
    """

    def __init__(self, layers):
        # Weights are stored transposed (out x in), so each output is one contiguous dot
        # product, and in float32: half the memory traffic of a forward pass, which
        # measured 3x faster for a pool of 8 snapshots.
        self.params = np.concatenate(
            [np.concatenate([np.ravel(np.transpose(w)), np.ravel(b)]) for w, b, _ in layers]
        ).astype(np.float32)
        self.shapes = np.array([w.shape for w, _, _ in layers], np.int64)
        self.activations = np.array([a for _, _, a in layers], np.int64)
        self.width = int(self.shapes.max())


# fastmath lets numba vectorise the dot products' sums (SIMD); np.dot would call BLAS,
# which numba only reaches through SciPy, and the core install has no SciPy.
@njit(cache=True, fastmath=True)
def mlp_logits_rows(params, shapes, activations, rows, xs, outs):
    """Forward pass of one MLP (parameters flat, as :class:`MLPWeights`) for the input
    ``xs[r]`` of each ``r`` in ``rows``, into ``outs[r]``.

    Each weight row is read once for all the rows, which keeps it in the first-level cache:
    a pool of snapshots does not fit in the second level, so reading the weights once per
    input made the forward passes the costliest part of a self-play step. ``xs`` is
    overwritten layer by layer.
    """
    offset = 0
    n = 0
    for layer in range(shapes.shape[0]):
        n_in, n_out = shapes[layer, 0], shapes[layer, 1]
        bias = offset + n_in * n_out
        act = activations[layer]
        for o in range(n_out):
            weights = params[offset + o * n_in : offset + (o + 1) * n_in]
            for r in rows:
                total = params[bias + o]
                for k in range(n_in):
                    total += weights[k] * xs[r, k]
                if act == ACT_TANH:
                    total = np.tanh(total)
                elif act == ACT_RELU:
                    total = max(total, np.float32(0.0))
                outs[r, o] = total
        for r in rows:
            copy_vector(xs[r], outs[r, :n_out])
        offset = bias + n_out
        n = n_out
    for r in rows:
        copy_vector(outs[r], xs[r, :n])


@njit(cache=True)
def masked_exp(logits, mask, out):
    """``out[a]`` = exp(``logits[a]`` - the largest legal logit) for the legal actions of ``mask``, 0
    elsewhere (``out`` may be ``logits``); returns their sum: softmax's weights, unnormalised."""
    top = -np.inf
    for a in range(mask.shape[0]):
        if mask[a] != 0 and logits[a] > top:
            top = logits[a]
    total = 0.0
    for a in range(mask.shape[0]):
        # math.exp, not np.exp: numba-cuda has no np.exp, and on the CPU both compile to llvm.exp
        out[a] = math.exp(logits[a] - top) if mask[a] != 0 else 0.0
        total += out[a]
    return total


@njit(cache=True)
def _sample_masked(logits, mask, rng):
    """A draw from softmax(logits) over the legal actions of ``mask``."""
    total = masked_exp(logits, mask, logits)
    u = (rng_next(rng) >> np.uint64(11)) * UNIT * total
    last = -1
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            last = a
            u -= logits[a]
            if u < 0.0:
                return a
    return last


@batch_kernel(
    types.void(
        STATES,
        INTS,
        INTS,
        RNGS,
        RNGS,
        INTS,
        types.float32[:, ::1],
        types.int64[:, ::1],
        INTS,
        MASKS,
        FLOATS2,
        LEGAL_MASK_T,
        OBSERVE_T,
        APPLY_ACTION_T,
    ),
    batch_arg=1,
    first_class_args=True,
    nogil=True,
)
def advance_with_mlps(
    states,
    slots,
    learner,
    game_rngs,
    policy_rngs,
    members,
    params,
    shapes,
    activations,
    masks,
    obs,
    legal_mask,
    observe_into,
    apply_action,
):
    """Let slot ``slots[j]``'s MLP (row ``members[j]`` of ``params``) play every seat but the
    learner's until the learner is on move or the game ends.

    The slots move in rounds: every slot whose opponent is on move observes, then each MLP
    runs one forward pass over all its slots' inputs, then every such slot draws and applies
    its action. A slot's moves, generators and results are those of playing it alone.
    """
    width = 0
    for layer in range(shapes.shape[0]):
        width = max(width, shapes[layer, 0], shapes[layer, 1])
    n = slots.shape[0]
    pool = params.shape[0]
    xs = np.empty((n, width), np.float32)
    logits = np.empty((n, max(width, masks.shape[1])), np.float32)
    moving = np.zeros(n, np.bool_)
    while True:
        for j in prange(n):
            i = slots[j]
            s = states[i]
            moving[j] = opponent_on_move(s, learner[i])
            if moving[j]:
                legal_mask(s, masks[i])
                observe_into(s, s[H_CURRENT], obs[i])
                copy_vector(xs[j], obs[i])
        # The moving slots grouped by MLP (a counting sort), in slot order within a group.
        starts = np.zeros(pool + 1, np.int64)
        for j in range(n):
            starts[members[j] + 1] += moving[j]
        if starts.sum() == 0:
            return
        starts = np.cumsum(starts)
        order = np.empty(starts[pool], np.int64)
        filled = starts[:pool].copy()
        for j in range(n):
            if moving[j]:
                order[filled[members[j]]] = j
                filled[members[j]] += 1
        for m in prange(pool):
            mlp_logits_rows(params[m], shapes, activations, order[starts[m] : starts[m + 1]], xs, logits)
        for j in prange(n):
            if moving[j]:
                i = slots[j]
                apply_action(states[i], _sample_masked(logits[j], masks[i], policy_rngs[i]), game_rngs[i])
