"""Open-loop information-set UCT over engine states, written once for every game.

The tree is keyed by action sequences, not by states: chance (card draws) and the
resampled hidden information make the state an action sequence reaches differ from
one simulation to the next, so a node stands for "these actions from the root".
Every simulation starts from a fresh copy of the root state, determinized for the
seat on move when the game hides information (single-observer information-set
MCTS), and re-applies the actions of the path. Because the legal actions of a node
then vary between simulations, a child counts how often it was *available* and UCB
uses that count in place of its parent's visits (SO-ISMCTS, Cowling et al. 2012).

Values are backed up per seat (max^n): a node sums the returns of every seat, and
selection maximizes the value of the seat on move in the current simulation.

Storage is a set of preallocated arrays (``SearchTree``), one row per node; node 0
is the root and a simulation adds at most one node, so ``simulations + 1`` rows
always suffice. The whole search is one numba function that takes the game's
kernels as first-class functions with the contract's signatures, so one compiled
search, cached on disk, serves every game.
"""

import numpy as np
from numba import njit, types

from monster_zoo.agents.belief.kernels import PARTICLES, WEIGHTS, pick_weighted
from monster_zoo.agents.search.evaluator import rollout_returns
from monster_zoo.envs.core.contract import (
    APPLY_ACTION_T,
    DETERMINIZE_SIG,
    DETERMINIZE_T,
    H_CURRENT,
    H_NUM_PLAYERS,
    LEGAL_MASK_T,
    POLICY_T,
    RETURNS_T,
    RNG,
    STATE,
)
from monster_zoo.envs.core.header import running
from monster_zoo.envs.core.kernels import copy_vector
from monster_zoo.envs.core.rng import rng_below, rng_next

CHILDREN = types.int32[:, ::1]
COUNTS = types.int32[::1]
VALUES = types.float64[:, ::1]
UNTRIED = -1  # child index of an action never expanded from its node


class SearchTree:
    """The arrays of one search tree, reused between searches that fit in them.

    ``children[node, action]`` is the child's row or ``UNTRIED``; ``visits[node]``
    counts simulations through the node, ``available[node]`` those in which its
    action was legal at its parent, ``values[node, seat]`` sums the seat's returns.
    """

    def __init__(self, capacity: int, num_actions: int, num_players: int):
        self.children = np.full((capacity, num_actions), UNTRIED, np.int32)
        self.visits = np.zeros(capacity, np.int32)
        self.available = np.zeros(capacity, np.int32)
        self.values = np.zeros((capacity, num_players), np.float64)
        self.size = 0

    def fits(self, capacity: int, num_actions: int, num_players: int) -> bool:
        """Whether these arrays hold a search of ``capacity`` nodes over these actions and seats."""
        return (
            self.children.shape[0] >= capacity
            and self.children.shape[1] == num_actions
            and self.values.shape[1] == num_players
        )

    def child_visits(self, node: int) -> np.ndarray:
        """Simulations through each action of ``node`` (0 for actions never tried there)."""
        kids = self.children[node]
        return np.where(kids >= 0, self.visits[np.maximum(kids, 0)], 0).astype(np.int64)

    def child_values(self, node: int) -> np.ndarray:
        """Mean return of every seat after each action of ``node``, shape ``[actions, seats]`` (0 if untried)."""
        kids = self.children[node]
        tried = kids >= 0
        means = np.zeros((kids.shape[0], self.values.shape[1]))
        means[tried] = self.values[kids[tried]] / self.visits[kids[tried]][:, None]
        return means

    def root_visits(self) -> np.ndarray:
        """Simulations through each root action: what the agent's choice is made from."""
        return self.child_visits(0)

    def root_values(self) -> np.ndarray:
        """Mean return of every seat after each root action."""
        return self.child_values(0)


@njit(DETERMINIZE_SIG, cache=True)
def no_determinize(state, player, rng):
    """Resample nothing: stands in for ``determinize`` in a perfect-information search."""


@njit(cache=True)
def clear_node(node, children, visits, available, values):
    """Make row ``node`` an unvisited node without children."""
    children[node, :] = UNTRIED
    visits[node] = 0
    available[node] = 0
    values[node, :] = 0.0


@njit(cache=True)
def count_availability(node, mask, children, available):
    """Count one availability for each legal child of ``node``; return the number of untried legal actions."""
    untried = 0
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            child = children[node, a]
            if child == UNTRIED:
                untried += 1
            else:
                available[child] += 1
    return untried


@njit(cache=True)
def pick_untried(node, mask, untried, children, rng):
    """A uniformly chosen legal action of ``node`` that has no child yet."""
    k = rng_below(rng, untried)
    for a in range(mask.shape[0]):
        if mask[a] != 0 and children[node, a] == UNTRIED:
            if k == 0:
                return a
            k -= 1
    return -1


@njit(cache=True)
def best_ucb(node, mask, seat, exploration, children, visits, available, values):
    """The legal child of ``node`` with the highest UCB1 value for ``seat``.

    The child's availability replaces the parent's visits: a child legal in only some
    simulations is explored in proportion to the chances it had.
    """
    best = -np.inf
    best_action = -1
    for a in range(mask.shape[0]):
        if mask[a] == 0:
            continue
        child = children[node, a]
        n = visits[child]
        score = values[child, seat] / n + exploration * np.sqrt(np.log(available[child]) / n)
        if score > best:
            best = score
            best_action = a
    return best_action


@njit(cache=True)
def start_simulation(root, player, resample, rng, sim, sim_rng, determinize):
    """Start a simulation: ``sim`` a copy of ``root`` with its own generator ``sim_rng`` drawn from
    the searcher's ``rng``, redealt for ``player`` first when ``resample``."""
    copy_vector(sim, root)
    sim_rng[0] = rng_next(rng)
    if resample:
        determinize(sim, player, sim_rng)


@njit(cache=True)
def start_from_belief(root, player, resample, rng, sim, sim_rng, determinize, particles, cumulative):
    """Start a simulation as :func:`start_simulation` does, or, where ``particles`` holds any, from a
    particle of the seat's belief drawn by its weight (``cumulative``: the weights' running sums),
    which is already a whole state the seat cannot tell from the game."""
    if particles.shape[0] == 0:
        start_simulation(root, player, resample, rng, sim, sim_rng, determinize)
        return
    sim_rng[0] = rng_next(rng)
    copy_vector(sim, particles[pick_weighted(cumulative, sim_rng)])


@njit(cache=True)
def backup(path, depth, result, visits, values):
    """Add one visit and every seat's return to each node of the simulation's path."""
    for i in range(depth):
        node = path[i]
        visits[node] += 1
        for seat in range(result.shape[0]):
            values[node, seat] += result[seat]


@njit(
    types.int64(
        STATE,
        types.int64,
        types.float64,
        types.boolean,
        RNG,
        CHILDREN,
        COUNTS,
        COUNTS,
        VALUES,
        LEGAL_MASK_T,
        APPLY_ACTION_T,
        RETURNS_T,
        DETERMINIZE_T,
        POLICY_T,
        PARTICLES,
        WEIGHTS,
    ),
    cache=True,
    nogil=True,
)  # a search thinking in one thread leaves others (a web server) running
def belief_search(
    root,
    simulations,
    exploration,
    resample,
    rng,
    children,
    visits,
    available,
    values,
    legal_mask,
    apply_action,
    returns,
    determinize,
    policy,
    particles,
    cumulative,
):
    """Run ``simulations`` simulations from ``root`` (not modified); return the number of nodes used.

    Each simulation draws its own generator from ``rng`` (the agent's), so the live
    game's generator is never touched and future draws are not peeked at. With
    ``resample`` the simulation's copy of the root is first determinized for the seat
    on move, so the search never reads what that seat cannot see; where ``particles`` holds any,
    each simulation starts instead from one of them drawn by its weight (``cumulative``, the weights'
    running sums): the seat's belief (:mod:`monster_zoo.agents.belief`).
    """
    player = root[H_CURRENT]
    capacity = children.shape[0]
    sim = np.empty(root.shape[0], np.int32)
    sim_rng = np.empty(1, np.uint64)
    mask = np.zeros(children.shape[1], np.int8)
    result = np.zeros(root[H_NUM_PLAYERS], np.float32)
    # Node numbers are read from int64 arrays rather than written as constants, so numba
    # compiles each helper once instead of again for every literal argument.
    path = np.zeros(capacity, np.int64)  # path[0] is the root, node 0
    clear_node(path[0], children, visits, available, values)
    size = path[0] + 1
    for _ in range(simulations):
        start_from_belief(root, player, resample, rng, sim, sim_rng, determinize, particles, cumulative)
        node = path[0]
        depth = 1
        while running(sim):
            legal_mask(sim, mask)
            untried = count_availability(node, mask, children, available)
            if untried > 0:
                action = pick_untried(node, mask, untried, children, sim_rng)
            else:
                action = best_ucb(
                    node, mask, sim[H_CURRENT], exploration, children, visits, available, values
                )
            apply_action(sim, action, sim_rng)
            child = children[node, action]
            if child == UNTRIED:
                if size < capacity:  # a full tree still rolls out, it just stops growing
                    clear_node(size, children, visits, available, values)
                    available[size] = 1
                    children[node, action] = size
                    path[depth] = size
                    depth += 1
                    size += 1
                break
            node = child
            path[depth] = node
            depth += 1
        rollout_returns(sim, sim_rng, mask, result, legal_mask, apply_action, returns, policy)
        backup(path, depth, result, visits, values)
    return size


@njit(
    types.int64(
        STATE,
        types.int64,
        types.float64,
        types.boolean,
        RNG,
        CHILDREN,
        COUNTS,
        COUNTS,
        VALUES,
        LEGAL_MASK_T,
        APPLY_ACTION_T,
        RETURNS_T,
        DETERMINIZE_T,
        POLICY_T,
    ),
    cache=True,
    nogil=True,
)
def search(
    root,
    simulations,
    exploration,
    resample,
    rng,
    children,
    visits,
    available,
    values,
    legal_mask,
    apply_action,
    returns,
    determinize,
    policy,
):
    """:func:`belief_search` with uniform redeals (no belief): the search of ``mcts`` up to version 2."""
    return belief_search(
        root,
        simulations,
        exploration,
        resample,
        rng,
        children,
        visits,
        available,
        values,
        legal_mask,
        apply_action,
        returns,
        determinize,
        policy,
        np.empty((0, root.shape[0]), np.int32),
        np.empty(0, np.float64),
    )
