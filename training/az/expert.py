"""The tuned search as the expert of expert iteration.

Expert iteration learns from a search stronger than the network (Anthony et al. 2017): here the
game's tuned search ``mcts`` (:mod:`monster_zoo.agents.search.tuned`) plays every seat of many
games at once, and each decision's **policy target is the search's root visit distribution** for
the state it saw (visits of each legal root action over their sum), its **value targets the
game's final per-seat returns** rotated to the mover, as in self-play
(:func:`monster_zoo.training.az.learner.value_targets`). The move is the search's own: its most
visited legal action, ties broken with its generator exactly as the ``mcts`` agent breaks them
(:class:`monster_zoo.agents.search.agent.MCTSAgent`), or with probability ``epsilon`` a uniformly
drawn legal action (the target stays the search's), so the games cover more positions.

The budget is :func:`expert_simulations`: ``mcts-fast``'s (a tenth of the tuned ``mcts``) unless
one is given. The searches run in numba over the self-play loop
(:func:`monster_zoo.training.az.selfplay.play_with`), one tree and one generator per game slot,
spread over the cores by :func:`monster_zoo.envs.core.threads.batch_kernel`: game ``g`` is
seeded from ``(seed, g)`` alone, so the decisions do not depend on the thread count or on how
many games run side by side.
"""

from collections.abc import Sequence

import numpy as np
from numba import prange, types

from monster_zoo import envs
from monster_zoo.agents.network import MAX_SEATS
from monster_zoo.agents.search.tree import UNTRIED, no_determinize, search
from monster_zoo.agents.search.tuned import FAST_FRACTION, rollout_kernel, search_config
from monster_zoo.envs.core.batch import FLOATS2, INTS, MASKS, RNGS, STATES
from monster_zoo.envs.core.contract import (
    APPLY_ACTION_T,
    DETERMINIZE_T,
    H_CURRENT,
    LEGAL_MASK_T,
    OBSERVE_T,
    POLICY_T,
    RETURNS_T,
)
from monster_zoo.envs.core.rng import rng_below
from monster_zoo.envs.core.threads import batch_kernel

from .selfplay import play_with
from .warmstart import PROBABILITY_SCALE, explore_and_play

MAX_EXPERT_SIMULATIONS = 1_000_000  # a bound on the simulations a run may ask for
MAX_TREE_BYTES = 4 * 2**30  # and on the trees of all its searches together


def expert_simulations(game_id: str, simulations: int | None = None) -> int:
    """Simulations per move of the expert: ``simulations`` if given, else ``mcts-fast``'s budget
    for ``game_id``; ValueError for a count outside 1 to :data:`MAX_EXPERT_SIMULATIONS`."""
    if simulations is None:
        return max(1, search_config(game_id).simulations // FAST_FRACTION)
    if not isinstance(simulations, (int, np.integer)) or not 1 <= simulations <= MAX_EXPERT_SIMULATIONS:
        raise ValueError(
            f"expert simulations must be an integer from 1 to {MAX_EXPERT_SIMULATIONS:,}, not {simulations!r}"
        )
    return int(simulations)


@batch_kernel(
    types.void(
        STATES,
        INTS,
        RNGS,
        RNGS,
        types.int64,
        types.float64,
        types.boolean,
        types.int64,
        types.int32[:, :, ::1],
        types.int32[:, ::1],
        types.int32[:, ::1],
        types.float64[:, :, ::1],
        FLOATS2,
        INTS,
        FLOATS2,
        MASKS,
        LEGAL_MASK_T,
        APPLY_ACTION_T,
        RETURNS_T,
        OBSERVE_T,
        DETERMINIZE_T,
        POLICY_T,
    ),
    batch_arg=1,
)
def expert_and_play(
    states,
    slots,
    game_rngs,
    expert_rngs,
    simulations,
    exploration,
    resample,
    epsilon_scaled,
    children,
    visits,
    available,
    values,
    policies,
    actions,
    observations,
    masks,
    legal_mask,
    apply_action,
    returns,
    observe_into,
    determinize,
    rollout,
):
    """In each game ``i = slots[j]``: record the mover's observation and mask (row ``j``), search
    the state with tree ``i`` and generator ``expert_rngs[i]``, write the root visit distribution
    over the legal actions into row ``j`` of ``policies``, and play the most visited legal action
    (or a random one, see :func:`~monster_zoo.training.az.warmstart.explore_and_play`) with the
    game's own generator ``game_rngs[i]``, writing it into ``actions[j]``."""
    for j in prange(slots.shape[0]):
        i = slots[j]
        s = states[i]
        mask = masks[j]
        observe_into(s, s[H_CURRENT], observations[j])
        legal_mask(s, mask)
        search(
            s,
            simulations,
            exploration,
            resample,
            expert_rngs[i],
            children[i],
            visits[i],
            available[i],
            values[i],
            legal_mask,
            apply_action,
            returns,
            determinize,
            rollout,
        )
        policy = policies[j]
        total = 0
        most = 0
        ties = 0
        for a in range(mask.shape[0]):
            child = children[i, 0, a]
            n = visits[i, child] if mask[a] != 0 and child != UNTRIED else 0
            policy[a] = n
            total += n
            if mask[a] != 0:
                if n > most:
                    most, ties = n, 1
                elif n == most:
                    ties += 1
        pick = rng_below(expert_rngs[i], ties)  # the mcts agent's tie break
        choice = -1
        for a in range(mask.shape[0]):
            if mask[a] != 0 and policy[a] == most:
                if pick == 0:
                    choice = a
                    break
                pick -= 1
        for a in range(mask.shape[0]):
            policy[a] /= total
        actions[j] = explore_and_play(
            s, mask, choice, epsilon_scaled, expert_rngs[i], game_rngs[i], apply_action
        )


def trees_problem(parallel: int, simulations: int, num_actions: int) -> str | None:
    """Why the trees of ``parallel`` expert searches of ``simulations`` cannot be allocated (more
    than :data:`MAX_TREE_BYTES`), or None."""
    needed = parallel * (simulations + 1) * (4 * num_actions + 4 + 4 + 8 * MAX_SEATS)
    if needed <= MAX_TREE_BYTES:
        return None
    return (
        f"{parallel} expert searches of {simulations:,} simulations need {needed / 2**30:.1f} GiB of trees "
        f"(at most {MAX_TREE_BYTES / 2**30:.0f}): play fewer games at once or give fewer --expert-simulations"
    )


def expert_trees(parallel: int, simulations: int, num_actions: int):
    """Tree arrays of ``parallel`` searches of ``simulations``: children, visits, availability, seat
    values; ValueError, before anything is allocated, where they would pass :data:`MAX_TREE_BYTES`."""
    problem = trees_problem(parallel, simulations, num_actions)
    if problem:
        raise ValueError(problem)
    capacity = simulations + 1
    return (
        np.zeros((parallel, capacity, num_actions), np.int32),
        np.zeros((parallel, capacity), np.int32),
        np.zeros((parallel, capacity), np.int32),
        np.zeros((parallel, capacity, MAX_SEATS), np.float64),
    )


def expert_mover(game_id: str, simulations: int, parallel: int, epsilon: float = 0.0):
    """The ``move`` of :func:`~monster_zoo.training.az.selfplay.play_with` that plays ``game_id``'s tuned
    search (its exploration and rollout policy) at ``simulations`` in up to ``parallel`` games."""
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon must lie in [0, 1], got {epsilon}")
    spec = envs.spec(game_id)
    config = search_config(game_id)
    rollout = rollout_kernel(game_id, config.rollout)
    resample = spec.determinize is not None
    determinize = spec.determinize if resample else no_determinize
    children, visits, available, values = expert_trees(parallel, simulations, spec.num_actions)
    epsilon_scaled = int(round(epsilon * PROBABILITY_SCALE))

    def expert_moves(states, slots, game_rngs, expert_rngs, policies, actions, observations, masks):
        expert_and_play(
            states,
            slots,
            game_rngs,
            expert_rngs,
            simulations,
            config.exploration,
            resample,
            epsilon_scaled,
            children,
            visits,
            available,
            values,
            policies,
            actions,
            observations,
            masks,
            spec.legal_mask,
            spec.apply_action,
            spec.returns,
            spec.observe_into,
            determinize,
            rollout,
        )

    return expert_moves


def play_expert_games(
    game_id: str,
    games: int,
    player_counts: Sequence[int],
    seed: int,
    simulations: int | None = None,
    epsilon: float = 0.0,
    parallel: int = 32,
    options: dict = None,
):
    """Play ``games`` games of ``game_id`` with its tuned search in every seat at ``simulations``
    per move (:func:`expert_simulations`); return the decisions (policy targets: the root visit
    distributions) and stats as :func:`~monster_zoo.training.az.selfplay.play_games` does."""
    simulations = expert_simulations(game_id, simulations)
    parallel = max(1, min(parallel, games))
    return play_with(
        game_id,
        expert_mover(game_id, simulations, parallel, epsilon),
        games,
        player_counts,
        seed,
        parallel,
        options,
    )
