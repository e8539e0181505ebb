"""Learned search over engine states: a policy-value network guides a max^n tree (``az``).

The search is the open-loop, single-observer information-set search of
:mod:`monster_zoo.agents.search.tree` with the random rollouts replaced by the network of
:mod:`monster_zoo.agents.az.network`:

* **Per-seat values (max^n).** A node sums every seat's value; each node chooses by the value of
  the seat on move in the current simulation. A leaf is worth the game's returns when the game
  is over, 0 to everyone when it is cut off (ruling C4), else the value head's entries turned
  from "k seats after the mover" into absolute seats.
* **Determinized per simulation.** Every simulation starts from a copy of the root redealt by the
  game's ``determinize`` for the seat on move, so the search never reads what that seat cannot
  see; the tree is keyed by action sequences, since chance and the redeal make the states behind
  one sequence differ between simulations.
* **Below the root: PUCT.** ``Q + c_puct * P * sqrt(N) / (1 + n)``, the prior ``P`` being the
  policy head's softmax over the actions legal when the node was first reached, renormalised over
  the actions legal now; an unvisited action is valued at its parent's mean (first-play urgency).
* **At the root: Gumbel sequential halving** (Danihelka et al., ICLR 2022), which improves on the
  policy even at a few dozen simulations: the ``considered`` actions with the highest
  ``g + logits`` (``g`` Gumbel noise scaled by ``gumbel_scale``; 0 plays without noise) share the
  budget in rounds that halve them by ``g + logits + sigma(completed Q)``, and the choice is the
  best of the most visited. ``sigma(q) = (c_visit + max visits) * c_scale * q`` over Q completed
  for unvisited actions by the network's mixed value and rescaled to [0, 1] among the legal
  actions. The improved policy ``softmax(logits + sigma(completed Q))`` is the training target.
* **Rollouts mixed in, at play** (``rollout_weight`` ``lambda``, 0 by default and in self-play):
  a new leaf is also played to its end by the game's rollout policy (the tuned ``mcts``'s:
  uniform or the greedy kernel) and is worth ``(1 - lambda) * value head + lambda * rollout``, as
  AlphaGo mixed its value network with fast rollouts. The network's priors still guide the tree;
  the rollout corrects a value head that has seen too few positions like this one.

The search is one numba function over the game's kernels as first-class functions (the
signatures of :mod:`monster_zoo.envs.core.contract`) and the network's flat arrays, so one
compiled search, cached on disk, serves every game and every network; :func:`search_and_play`
runs one search per game over a batch of games (self-play), a thread per game where threads
are allowed (:mod:`monster_zoo.envs.core.threads`).
"""
from dataclasses import dataclass

import numpy as np
from numba import njit, prange, types

from monster_zoo.envs.core.kernels import copy_vector
from monster_zoo.envs.core.batch import FLOATS2, INTS, MASKS, RNGS, STATES
from monster_zoo.envs.core.contract import (APPLY_ACTION_T, DETERMINIZE_T, FLOATS, H_CURRENT, H_NUM_PLAYERS,
                                            H_TERMINAL, LEGAL_MASK_T, OBSERVE_T, POLICY_T, RETURNS_T, RNG,
                                            STATE)
from monster_zoo.envs.core.header import running, truncated
from monster_zoo.envs.core.opponents import masked_exp
from monster_zoo.envs.core.rng import rng_next
from monster_zoo.envs.core.threads import batch_kernel

from monster_zoo.agents.az.network import MAX_SEATS, PARAMS, SHAPES, forward, network_input
from monster_zoo.agents.search.evaluator import rollout_returns
from monster_zoo.agents.search.tree import UNTRIED, backup

CHILDREN = types.int32[:, ::1]
COUNTS = types.int32[::1]
VALUES = types.float64[:, ::1]
PRIORS = types.float32[:, ::1]
SETTINGS = types.float64[::1]

# Entries of the settings vector (see SearchSettings).
S_SIMULATIONS, S_CONSIDERED, S_GUMBEL, S_C_PUCT, S_C_VISIT, S_C_SCALE, S_MIN_SPREAD, S_ROLLOUT = range(8)
UNIT = 1.0 / 9007199254740992.0  # 2**-53


@dataclass(frozen=True)
class SearchSettings:
    """How one search searches. Defaults: the Gumbel paper's ``c_visit``/``c_scale``, AlphaZero's
    ``c_puct`` range, 16 considered root actions. At the root, completed Q values are mapped to
    [0, 1] by subtracting the lowest and dividing by their spread, or by ``min_spread`` when the
    spread is smaller: the default 2 is the span of win-mode returns (ruling C3: from -1 to 1), a
    fixed scale. A tiny ``min_spread`` gives mctx's min-max rescaling, which stretches any
    difference between the root's values to the full range; with values from one determinized
    simulation each, that let noise outweigh the policy (in Monster Arena, 16 simulations with it
    won 0.22 of 60 games against greedy, the policy alone 0.70, the fixed scale 0.62).
    ``rollout_weight`` is the share of a leaf's value that comes from a rollout (0: the value head
    alone)."""

    simulations: int = 64
    considered: int = 16
    gumbel_scale: float = 0.0
    c_puct: float = 1.25
    c_visit: float = 50.0
    c_scale: float = 0.1
    min_spread: float = 2.0
    rollout_weight: float = 0.0

    def __post_init__(self):
        problems = [f"{name} must be {what}, got {value!r}" for name, value, ok, what in (
            ("simulations", self.simulations, self.simulations >= 1, "at least 1"),
            ("considered", self.considered, self.considered >= 1, "at least 1"),
            ("gumbel_scale", self.gumbel_scale, self.gumbel_scale >= 0, ">= 0"),
            ("c_puct", self.c_puct, self.c_puct > 0, "> 0"),
            ("c_visit", self.c_visit, self.c_visit >= 0, ">= 0"),
            ("c_scale", self.c_scale, self.c_scale > 0, "> 0"),
            ("min_spread", self.min_spread, self.min_spread > 0, "> 0"),
            ("rollout_weight", self.rollout_weight, 0 <= self.rollout_weight <= 1, "from 0 to 1")) if not ok]
        if problems:
            raise ValueError("; ".join(problems))

    def as_array(self) -> np.ndarray:
        """The settings vector the numba search reads."""
        return np.array([self.simulations, self.considered, self.gumbel_scale, self.c_puct, self.c_visit,
                         self.c_scale, self.min_spread, self.rollout_weight], np.float64)


class AZTree:
    """The arrays of one search tree (node 0 the root), reused by searches that fit in them.

    ``children[node, action]`` is the child's row or ``UNTRIED``; ``visits[node]`` counts the
    simulations through the node; ``values[node, seat]`` sums each seat's value over them;
    ``priors[node]`` is the policy over the actions legal when the node was first evaluated.
    """

    def __init__(self, capacity: int, num_actions: int):
        self.children = np.full((capacity, num_actions), UNTRIED, np.int32)
        self.visits = np.zeros(capacity, np.int32)
        self.values = np.zeros((capacity, MAX_SEATS), np.float64)
        self.priors = np.zeros((capacity, num_actions), np.float32)

    def fits(self, simulations: int, num_actions: int) -> bool:
        """Whether a search of ``simulations`` (at most one new node each) fits these arrays."""
        return self.children.shape[0] > simulations and self.children.shape[1] == num_actions

    def root_visits(self) -> np.ndarray:
        """Simulations through each root action of the last search (0 for actions not tried)."""
        kids = self.children[0]
        return np.where(kids >= 0, self.visits[np.maximum(kids, 0)], 0).astype(np.int64)

    def root_values(self) -> np.ndarray:
        """Mean value of every seat after each root action, ``[actions, MAX_SEATS]`` (0 if untried)."""
        kids = self.children[0]
        tried = kids >= 0
        means = np.zeros((kids.shape[0], MAX_SEATS))
        means[tried] = self.values[kids[tried]] / np.maximum(self.visits[kids[tried]], 1)[:, None]
        return means


def trees(count: int, capacity: int, num_actions: int):
    """``count`` trees' arrays stacked (children, visits, values, priors), for :func:`search_and_play`."""
    return (np.full((count, capacity, num_actions), UNTRIED, np.int32), np.zeros((count, capacity), np.int32),
            np.zeros((count, capacity, MAX_SEATS), np.float64), np.zeros((count, capacity, num_actions), np.float32))


# --- pieces of the search -----------------------------------------------------------------------
@njit(cache=True)
def _new_node(node, children, visits, values, priors):
    """Make row ``node`` an unvisited node without children or priors."""
    children[node, :] = UNTRIED
    visits[node] = 0
    values[node, :] = 0.0
    priors[node, :] = 0.0


@njit(cache=True)
def _masked_softmax(logits, mask, out):
    """``out`` = softmax of ``logits`` over the legal actions of ``mask``, 0 elsewhere."""
    total = masked_exp(logits, mask, out)
    for a in range(mask.shape[0]):
        out[a] /= total


@njit(cache=True)
def _evaluate_leaf(state, node, mask, params, shapes, obs, x, scratch, logits, relative, result, priors,
                   legal_mask, returns, observe_into):
    """Every seat's value of ``state`` into ``result`` (absolute seats); while the game goes on,
    the mover's policy into ``priors[node]``."""
    if state[H_TERMINAL] != 0:
        returns(state, result)
        return
    if truncated(state):
        result[:] = 0.0
        return
    n = state[H_NUM_PLAYERS]
    mover = state[H_CURRENT]
    legal_mask(state, mask)
    observe_into(state, mover, obs)
    network_input(obs, n, x)
    forward(params, shapes, x, scratch, logits, relative)
    _masked_softmax(logits, mask, priors[node])
    for k in range(n):
        result[(mover + k) % n] = relative[k]


@njit(cache=True)
def _puct_action(node, mask, seat, c_puct, children, visits, values, priors):
    """The legal action of ``node`` with the highest PUCT score for ``seat``."""
    total = 0.0
    count = 0
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            total += priors[node, a]
            count += 1
    parent = visits[node]
    first_play = values[node, seat] / parent if parent > 0 else 0.0
    explore = c_puct * np.sqrt(parent)
    best = -np.inf
    best_action = -1
    for a in range(mask.shape[0]):
        if mask[a] == 0:
            continue
        prior = priors[node, a] / total if total > 0.0 else 1.0 / count
        child = children[node, a]
        n = visits[child] if child != UNTRIED else 0
        q = values[child, seat] / n if n > 0 else first_play
        score = q + explore * prior / (1.0 + n)
        if score > best:
            best = score
            best_action = a
    return best_action


@njit(cache=True)
def considered_visits(considered, simulations, out):
    """The visit count an action must have to be searched in each simulation of sequential
    halving over ``considered`` actions (the schedule of the Gumbel paper): every considered action
    gets ``max(1, simulations / (log2(considered) * remaining))`` visits, then the better half
    stays, down to two."""
    if considered <= 1:
        for k in range(simulations):
            out[k] = k
        return
    rounds = int(np.ceil(np.log2(considered)))
    visits = 0
    k = 0
    remaining = considered
    while k < simulations:
        extra = max(1, int(simulations / (rounds * remaining)))
        for _ in range(extra):
            for _ in range(remaining):
                if k < simulations:
                    out[k] = visits
                    k += 1
            visits += 1
        remaining = max(2, remaining // 2)


@njit(cache=True)
def _root_scores(mask, logits, probs, noise, raw_value, seat, c_visit, c_scale, min_spread, children, visits,
                 values, sigma, scores):
    """``sigma(completed Q)`` of every legal root action into ``sigma`` and ``noise + logits + sigma``
    into ``scores`` (both ``-inf`` for illegal actions); return the most visits of a root action.

    Q is the mean value for ``seat``; an unvisited action's is the mixed value (the network's
    ``raw_value`` and the visited actions' Q weighted by their priors), and all are rescaled to
    [0, 1] among the legal actions, so ``c_scale`` means the same in every game.
    """
    most = 0
    total = 0
    weighted = 0.0
    weight = 0.0
    for a in range(mask.shape[0]):
        child = children[0, a]
        if mask[a] != 0 and child != UNTRIED and visits[child] > 0:
            n = visits[child]
            most = max(most, n)
            total += n
            weighted += probs[a] * values[child, seat] / n
            weight += probs[a]
    mixed = (raw_value + total * weighted / weight) / (1.0 + total) if weight > 0.0 else raw_value
    low = np.inf
    high = -np.inf
    for a in range(mask.shape[0]):
        if mask[a] == 0:
            continue
        child = children[0, a]
        n = visits[child] if child != UNTRIED else 0
        sigma[a] = values[child, seat] / n if n > 0 else mixed
        low = min(low, sigma[a])
        high = max(high, sigma[a])
    spread = max(high - low, min_spread)
    for a in range(mask.shape[0]):
        if mask[a] == 0:
            sigma[a] = -np.inf
            scores[a] = -np.inf
        else:
            sigma[a] = (c_visit + most) * c_scale * (sigma[a] - low) / spread
            scores[a] = noise[a] + logits[a] + sigma[a]
    return most


@njit(cache=True)
def _root_action(mask, visited, scores, children, visits):
    """The legal root action of highest score among those with exactly ``visited`` visits (-1: none)."""
    best = -1
    for a in range(mask.shape[0]):
        if mask[a] == 0:
            continue
        child = children[0, a]
        n = visits[child] if child != UNTRIED else 0
        if n == visited and (best < 0 or scores[a] > scores[best]):
            best = a
    return best


@njit(cache=True)
def _gumbel(rng):
    """A standard Gumbel draw from ``rng``."""
    u = ((rng_next(rng) >> np.uint64(11)) + 0.5) * UNIT
    return -np.log(-np.log(u))


@njit(types.int64(STATE, SETTINGS, types.boolean, RNG, PARAMS, SHAPES, CHILDREN, COUNTS, VALUES, PRIORS, FLOATS,
                  LEGAL_MASK_T, APPLY_ACTION_T, RETURNS_T, OBSERVE_T, DETERMINIZE_T, POLICY_T),
      cache=True, nogil=True)  # a search thinking in one thread leaves others (a web server) running
def gumbel_search(root, settings, resample, rng, params, shapes, children, visits, values, priors, policy,
                  legal_mask, apply_action, returns, observe_into, determinize, rollout):
    """Search from ``root`` (not modified) for its seat on move; return the chosen action and write
    the improved policy into ``policy`` (0 for illegal actions).

    ``settings`` is :meth:`SearchSettings.as_array`. Each simulation draws its own generator from
    ``rng`` (the searcher's), so neither the live game's generator nor future draws are touched.
    With ``resample`` each simulation's copy of the root is redealt for the seat on move first.
    ``rollout`` plays every seat of the rollouts mixed into new leaves' values (unused while
    ``settings``' rollout weight is 0). The tree arrays must hold ``simulations + 1`` nodes.
    """
    simulations = np.int64(settings[S_SIMULATIONS])
    if children.shape[0] <= simulations or priors.shape[0] <= simulations:
        raise ValueError("the search tree holds fewer nodes than simulations + 1")
    num_actions = children.shape[1]
    player = root[H_CURRENT]
    n = root[H_NUM_PLAYERS]
    mask = np.zeros(num_actions, np.int8)
    root_mask = np.zeros(num_actions, np.int8)
    legal = legal_mask(root, root_mask)
    # The root's prior and value come from the seat's own observation of the true root, which
    # holds only what it may know.
    obs = np.zeros(shapes[0, 0] - MAX_SEATS, np.float32)
    x = np.zeros(shapes[0, 0], np.float32)
    scratch = np.zeros((2, shapes.max()), np.float32)
    logits = np.zeros(num_actions, np.float32)
    relative = np.zeros(MAX_SEATS, np.float32)
    result = np.zeros(n, np.float32)
    rolled = np.zeros(n, np.float32)
    weight = settings[S_ROLLOUT]
    observe_into(root, player, obs)
    network_input(obs, n, x)
    root_logits = np.zeros(num_actions, np.float32)
    forward(params, shapes, x, scratch, root_logits, relative)
    raw_value = np.float64(relative[0])
    probs = np.zeros(num_actions, np.float32)
    _masked_softmax(root_logits, root_mask, probs)
    if legal == 1:
        only = -1
        for a in range(num_actions):
            policy[a] = probs[a]
            if root_mask[a] != 0:
                only = a
        return only
    noise = np.zeros(num_actions, np.float64)
    if settings[S_GUMBEL] > 0.0:
        for a in range(num_actions):
            if root_mask[a] != 0:
                noise[a] = settings[S_GUMBEL] * _gumbel(rng)
    considered = min(np.int64(settings[S_CONSIDERED]), legal)
    schedule = np.zeros(simulations, np.int64)
    considered_visits(considered, simulations, schedule)
    sigma = np.zeros(num_actions, np.float64)
    scores = np.zeros(num_actions, np.float64)
    sim = np.empty(root.shape[0], np.int32)
    sim_rng = np.empty(1, np.uint64)
    path = np.zeros(simulations + 1, np.int64)  # path[0] is the root, node 0
    _new_node(path[0], children, visits, values, priors)
    copy_vector(priors[0], probs)
    size = path[0] + 1
    for k in range(simulations):
        _root_scores(root_mask, root_logits, probs, noise, raw_value, player, settings[S_C_VISIT],
                     settings[S_C_SCALE], settings[S_MIN_SPREAD], children, visits, values, sigma, scores)
        action = _root_action(root_mask, schedule[k], scores, children, visits)
        if action < 0:  # the schedule asks for a count no action has: the budget is spent evenly
            break
        copy_vector(sim, root)
        sim_rng[0] = rng_next(rng)
        if resample:
            determinize(sim, player, sim_rng)
        node = path[0]
        depth = 1
        while True:
            apply_action(sim, action, sim_rng)
            child = children[node, action]
            if child == UNTRIED:
                child = size
                size += 1
                _new_node(child, children, visits, values, priors)
                children[node, action] = child
                path[depth] = child
                depth += 1
                _evaluate_leaf(sim, child, mask, params, shapes, obs, x, scratch, logits, relative, result,
                               priors, legal_mask, returns, observe_into)
                if weight > 0.0 and running(sim):
                    rollout_returns(sim, sim_rng, mask, rolled, legal_mask, apply_action, returns, rollout)
                    for seat in range(n):
                        result[seat] = (1.0 - weight) * result[seat] + weight * rolled[seat]
                break
            node = child
            path[depth] = node
            depth += 1
            if not running(sim):
                _evaluate_leaf(sim, node, mask, params, shapes, obs, x, scratch, logits, relative, result,
                               priors, legal_mask, returns, observe_into)
                break
            legal_mask(sim, mask)
            action = _puct_action(node, mask, sim[H_CURRENT], settings[S_C_PUCT], children, visits, values,
                                  priors)
        backup(path, depth, result, visits, values)
    most = _root_scores(root_mask, root_logits, probs, noise, raw_value, player, settings[S_C_VISIT],
                        settings[S_C_SCALE], settings[S_MIN_SPREAD], children, visits, values, sigma, scores)
    # The improved policy leaves the noise out: it is what the network should learn.
    for a in range(num_actions):
        sigma[a] += root_logits[a]
    top = -np.inf
    for a in range(num_actions):
        top = max(top, sigma[a])
    total = 0.0
    for a in range(num_actions):
        policy[a] = np.exp(sigma[a] - top) if root_mask[a] != 0 else 0.0
        total += policy[a]
    for a in range(num_actions):
        policy[a] /= total
    return _root_action(root_mask, most, scores, children, visits)


# --- many games at once (self-play) -------------------------------------------------------------
@batch_kernel(types.void(STATES, INTS, RNGS, RNGS, SETTINGS, types.boolean, PARAMS, SHAPES,
                         types.int32[:, :, ::1], types.int32[:, ::1], types.float64[:, :, ::1],
                         types.float32[:, :, ::1], FLOATS2, INTS, FLOATS2, MASKS,
                         LEGAL_MASK_T, APPLY_ACTION_T, RETURNS_T, OBSERVE_T, DETERMINIZE_T, POLICY_T), batch_arg=1)
def search_and_play(states, slots, game_rngs, search_rngs, settings, resample, params, shapes,
                    children, visits, values, priors, policies, actions, observations, masks,
                    legal_mask, apply_action, returns, observe_into, determinize, rollout):
    """In each game ``i = slots[j]``: record the mover's observation and mask (row ``j`` of
    ``observations`` and ``masks``), search with tree ``i`` and generator ``search_rngs[i]``, write
    the improved policy and the action into row ``j`` of ``policies`` and ``actions``, and apply the
    action with the game's own generator ``game_rngs[i]``.

    Each game owns its generators and tree, so the moves do not depend on the thread count.
    """
    for j in prange(slots.shape[0]):
        i = slots[j]
        s = states[i]
        observe_into(s, s[H_CURRENT], observations[j])
        legal_mask(s, masks[j])
        action = gumbel_search(s, settings, resample, search_rngs[i], params, shapes, children[i], visits[i],
                               values[i], priors[i], policies[j], legal_mask, apply_action, returns,
                               observe_into, determinize, rollout)
        actions[j] = action
        apply_action(s, action, game_rngs[i])


def schedule(considered: int, simulations: int) -> np.ndarray:
    """The visit schedule of sequential halving (see :func:`considered_visits`), for tests and docs."""
    out = np.zeros(simulations, np.int64)
    considered_visits(int(considered), int(simulations), out)
    return out
