"""Leaf evaluation for the tree search: play the game out and read its returns.

Kept apart from the tree (``monster_zoo.agents.search.tree``) in OpenSpiel's manner, so a better
evaluator replaces this one without touching the search. The evaluator only calls
the game's kernels and a rollout policy, all as first-class numba functions, so it
knows no game.
"""

from numba import njit, types

from monster_zoo.envs.core.contract import (
    APPLY_ACTION_T,
    FLOATS,
    H_TERMINAL,
    LEGAL_MASK_T,
    MASK,
    POLICY_SIG,
    POLICY_T,
    RETURNS_T,
    RNG,
    STATE,
)
from monster_zoo.envs.core.header import running
from monster_zoo.envs.core.rng import rng_pick_set


@njit(POLICY_SIG, cache=True)
def uniform_policy(state, mask, rng):
    """A uniformly random legal action: the default rollout policy."""
    return rng_pick_set(mask, rng)


@njit(types.void(STATE, RNG, MASK, FLOATS, LEGAL_MASK_T, APPLY_ACTION_T, RETURNS_T, POLICY_T), cache=True)
def rollout_returns(state, rng, mask, out, legal_mask, apply_action, returns, policy):
    """Play ``state`` to its end with ``policy`` in every seat; write each seat's return into ``out``.

    ``rng`` serves both the policy and the game's chance: it is the simulation's own
    generator, never a live game's. A rollout cut off at the game's step limit is worth
    0 to every seat, as truncation is in the env (ruling C4).
    """
    while running(state):
        legal_mask(state, mask)
        apply_action(state, policy(state, mask, rng), rng)
    if state[H_TERMINAL] != 0:
        returns(state, out)
    else:
        out[:] = 0.0
