"""Learned search over engine states: a policy-value network guides a max^n tree (``az``).

The search is the open-loop, single-observer information-set search of
:mod:`monster_zoo.agents.search.tree` with the random rollouts replaced by the network of
:mod:`monster_zoo.agents.network`:

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
* **Other selection rules** (``SearchSettings.selection``): ``"uct"`` picks by UCT at every node,
  the root included, the priors only ordering equals (an untried action first by its prior), and
  plays the most visited root action; ``"gumbel"`` keeps the root's halving and below it picks the
  action whose visits lag furthest behind the node's improved policy (the paper's rule for
  non-root nodes). They are options to measure against the default, PUCT below the root.
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

The loops over a node's actions run over the list of its legal actions
(:func:`~monster_zoo.agents.network.nonzero_indices` of the mask), not over every action with
a test of the mask: most actions are illegal in most states (Monster Arena: about 6 of 437 in
play), and the same actions in the same order give the same sums and choices to the bit.
"""

import math
from dataclasses import dataclass

import numpy as np
from numba import njit, prange, types

from monster_zoo.agents.belief.kernels import PARTICLES, WEIGHTS
from monster_zoo.agents.network import (
    MAX_SEATS,
    PARAMS,
    SHAPES,
    count_input,
    forward,
    forward_legal,
    forward_many,
    network_input,
    nonzero_indices,
)
from monster_zoo.agents.search.evaluator import rollout_returns
from monster_zoo.agents.search.tree import UNTRIED, backup, start_from_belief
from monster_zoo.envs.core.batch import FLOATS2, INTS, MASKS, RNGS, STATES
from monster_zoo.envs.core.contract import (
    APPLY_ACTION_T,
    DETERMINIZE_T,
    FLOATS,
    H_CURRENT,
    H_NUM_PLAYERS,
    H_TERMINAL,
    LEGAL_MASK_T,
    OBSERVE_T,
    POLICY_T,
    RETURNS_T,
    RNG,
    STATE,
)
from monster_zoo.envs.core.header import running, truncated
from monster_zoo.envs.core.kernels import copy_vector, lazy_njit
from monster_zoo.envs.core.opponents import masked_exp
from monster_zoo.envs.core.rng import rng_next
from monster_zoo.envs.core.threads import batch_kernel

CHILDREN = types.int32[:, ::1]
COUNTS = types.int32[::1]
VALUES = types.float64[:, ::1]
PRIORS = types.float32[:, ::1]
SETTINGS = types.float64[::1]

# Entries of the settings vector (see SearchSettings).
(
    S_SIMULATIONS,
    S_CONSIDERED,
    S_GUMBEL,
    S_C_PUCT,
    S_C_VISIT,
    S_C_SCALE,
    S_MIN_SPREAD,
    S_ROLLOUT,
    S_SELECTION,
    S_EXPLORATION,
) = range(10)
UNIT = 1.0 / 9007199254740992.0  # 2**-53
# The selection rules (SearchSettings.selection), in the order of their codes in the settings vector.
SELECTIONS = ("puct", "uct", "gumbel")
PUCT, UCT, GUMBEL = range(len(SELECTIONS))


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
    alone).

    ``selection`` is the rule that picks a simulation's actions:

    * ``"puct"`` (the default): sequential halving at the root, PUCT below it (``c_puct``);
    * ``"uct"``: UCT at every node, the root included: an action never tried first, the most
      probable by the priors; then the highest ``Q + exploration * sqrt(ln N / n)``, equal scores
      going to the more probable action; the move is the most visited action (the priors again
      break ties), and the policy the root's visit shares. The priors only order equals, so the
      tree grows as the rollout search ``mcts`` grows its own (with ``N`` the parent's visits);
    * ``"gumbel"``: sequential halving at the root and, below it, the action that brings the
      node's visit shares closest to its improved policy ``softmax(log P + sigma(completed Q))``:
      the highest ``pi'(a) - n(a) / (1 + N)`` (Danihelka et al. 2022, section 5), Q completed for
      unvisited actions by the node's mean value, on the root's fixed scale."""

    simulations: int = 64
    considered: int = 16
    gumbel_scale: float = 0.0
    c_puct: float = 1.25
    c_visit: float = 50.0
    c_scale: float = 0.1
    min_spread: float = 2.0
    rollout_weight: float = 0.0
    selection: str = "puct"
    exploration: float = 1.0

    def __post_init__(self):
        if self.selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {', '.join(SELECTIONS)}; got {self.selection!r}")
        problems = [
            f"{name} must be {what}, got {value!r}"
            for name, value, ok, what in (
                ("simulations", self.simulations, self.simulations >= 1, "at least 1"),
                ("considered", self.considered, self.considered >= 1, "at least 1"),
                ("gumbel_scale", self.gumbel_scale, self.gumbel_scale >= 0, ">= 0"),
                ("c_puct", self.c_puct, self.c_puct > 0, "> 0"),
                ("c_visit", self.c_visit, self.c_visit >= 0, ">= 0"),
                ("c_scale", self.c_scale, self.c_scale > 0, "> 0"),
                ("min_spread", self.min_spread, self.min_spread > 0, "> 0"),
                ("rollout_weight", self.rollout_weight, 0 <= self.rollout_weight <= 1, "from 0 to 1"),
                ("exploration", self.exploration, self.exploration >= 0, ">= 0"),
            )
            if not ok
        ]
        if problems:
            raise ValueError("; ".join(problems))

    def as_array(self) -> np.ndarray:
        """The settings vector the numba search reads."""
        return np.array(
            [
                self.simulations,
                self.considered,
                self.gumbel_scale,
                self.c_puct,
                self.c_visit,
                self.c_scale,
                self.min_spread,
                self.rollout_weight,
                SELECTIONS.index(self.selection),
                self.exploration,
            ],
            np.float64,
        )


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
    return (
        np.full((count, capacity, num_actions), UNTRIED, np.int32),
        np.zeros((count, capacity), np.int32),
        np.zeros((count, capacity, MAX_SEATS), np.float64),
        np.zeros((count, capacity, num_actions), np.float32),
    )


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
def _legal_softmax(logits, legal, count, out):
    """``out`` = softmax of ``logits`` over the ``count`` actions of ``legal``, the other entries of
    ``out`` left as they are (0 in a new node); the sums of :func:`_masked_softmax`, in its order."""
    top = -np.inf
    for i in range(count):
        if logits[legal[i]] > top:
            top = logits[legal[i]]
    total = 0.0
    for i in range(count):
        a = legal[i]
        out[a] = math.exp(logits[a] - top)
        total += out[a]
    for i in range(count):
        out[legal[i]] /= total


@njit(cache=True)
def _leaf_input(state, mask, legal, x, result, legal_mask, returns, observe_into):
    """Start the evaluation of the leaf ``state``: at the end of the game its every seat's value
    into ``result`` (absolute seats) and 0; while it goes on, the mover's legal actions into
    ``legal`` (``mask`` the scratch of ``legal_mask``), the network input into ``x`` and their
    count (the network's outputs then go to :func:`_leaf_output`). The observation is written
    straight into ``x``'s first entries (every entry of it), the player count after it."""
    if state[H_TERMINAL] != 0:
        returns(state, result)
        return 0
    if truncated(state):
        result[:] = 0.0
        return 0
    legal_mask(state, mask)
    n_obs = x.shape[0] - MAX_SEATS
    observe_into(state, state[H_CURRENT], x[:n_obs])
    count_input(n_obs, state[H_NUM_PLAYERS], x)
    return nonzero_indices(mask, legal)


@njit(cache=True)
def _leaf_output(state, node, legal, count, logits, relative, result, priors):
    """End the evaluation of the live leaf ``state`` (a new node: its priors 0) from the network's
    outputs for it: the mover's policy over its ``count`` ``legal`` actions into ``priors[node]``,
    every seat's value into ``result`` (absolute seats)."""
    _legal_softmax(logits, legal, count, priors[node])
    n = state[H_NUM_PLAYERS]
    mover = state[H_CURRENT]
    for k in range(n):
        result[(mover + k) % n] = relative[k]


@njit(cache=True)
def _puct_action(node, legal, count, seat, c_puct, children, visits, values, priors):
    """The action of the ``count`` ``legal`` ones of ``node`` with the highest PUCT score for ``seat``
    (the first of equals)."""
    total = 0.0
    for i in range(count):
        total += priors[node, legal[i]]
    parent = visits[node]
    first_play = values[node, seat] / parent if parent > 0 else 0.0
    explore = c_puct * np.sqrt(parent)
    best = -np.inf
    best_action = -1
    for i in range(count):
        a = legal[i]
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
def _uct_action(node, legal, count, seat, exploration, children, visits, values, priors):
    """The action of the ``count`` ``legal`` ones of ``node`` that UCT picks for ``seat``: an untried
    one first, the most probable by the node's priors; else the highest
    ``Q + exploration * sqrt(ln N / n)``, an equal score going to the more probable action (the
    first of equals where the priors are equal too)."""
    log_parent = np.log(max(visits[node], 1))
    best = -np.inf
    best_prior = -1.0
    best_action = -1
    untried = False
    for i in range(count):
        a = legal[i]
        child = children[node, a]
        n = visits[child] if child != UNTRIED else 0
        prior = priors[node, a]
        if n == 0:
            if not untried or prior > best_prior:
                untried = True
                best_prior = prior
                best_action = a
            continue
        if untried:
            continue
        score = values[child, seat] / n + exploration * np.sqrt(log_parent / n)
        if score > best or (score == best and prior > best_prior):
            best = score
            best_prior = prior
            best_action = a
    return best_action


@njit(cache=True)
def _completed_q(node, a, seat, mean, children, visits, values):
    """``(Q, visits)`` of action ``a`` of ``node`` for ``seat``: its mean value, or ``mean`` (the
    completion of an unvisited action) and 0."""
    child = children[node, a]
    n = visits[child] if child != UNTRIED else 0
    return (values[child, seat] / n if n > 0 else mean), n


@njit(cache=True)
def _gumbel_action(node, legal, count, seat, c_visit, c_scale, min_spread, children, visits, values, priors):
    """The action of the ``count`` ``legal`` ones of ``node`` whose visits fall furthest behind the
    improved policy for ``seat``: the highest ``pi'(a) - n(a) / (1 + N)``, ``pi'`` the softmax of
    ``log P + sigma(completed Q)``, ``sigma`` as at the root (``(c_visit + most visits) * c_scale``
    times Q on the fixed scale of ``min_spread``) and an unvisited action's Q the node's mean
    value (the first of equals)."""
    total_prior = 0.0
    for i in range(count):
        total_prior += priors[node, legal[i]]
    mean = values[node, seat] / visits[node] if visits[node] > 0 else 0.0
    most = 0
    visited = 0
    low = np.inf
    high = -np.inf
    for i in range(count):
        q, n = _completed_q(node, legal[i], seat, mean, children, visits, values)
        most = max(most, n)
        visited += n
        low = min(low, q)
        high = max(high, q)
    scale = (c_visit + most) * c_scale / max(high - low, min_spread)
    # pi' is P * exp(sigma) normalised; exponents are taken from the largest sigma so none overflows
    top = scale * (high - low)
    norm = 0.0
    for i in range(count):
        a = legal[i]
        prior = priors[node, a] / total_prior if total_prior > 0.0 else 1.0 / count
        q, n = _completed_q(node, a, seat, mean, children, visits, values)
        norm += prior * np.exp(scale * (q - low) - top)
    best = -np.inf
    best_action = -1
    for i in range(count):
        a = legal[i]
        prior = priors[node, a] / total_prior if total_prior > 0.0 else 1.0 / count
        q, n = _completed_q(node, a, seat, mean, children, visits, values)
        improved = prior * np.exp(scale * (q - low) - top) / norm if norm > 0.0 else 1.0 / count
        score = improved - n / (1.0 + visited)
        if score > best:
            best = score
            best_action = a
    return best_action


@njit(cache=True)
def _tree_action(selection, node, legal, count, seat, settings, children, visits, values, priors):
    """The action the ``selection`` rule picks for ``seat`` among the ``count`` ``legal`` ones of
    ``node`` below the root (and at the root under UCT)."""
    if selection == UCT:
        return _uct_action(
            node, legal, count, seat, settings[S_EXPLORATION], children, visits, values, priors
        )
    if selection == GUMBEL:
        return _gumbel_action(
            node,
            legal,
            count,
            seat,
            settings[S_C_VISIT],
            settings[S_C_SCALE],
            settings[S_MIN_SPREAD],
            children,
            visits,
            values,
            priors,
        )
    return _puct_action(node, legal, count, seat, settings[S_C_PUCT], children, visits, values, priors)


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
def _root_scores(
    legal,
    count,
    logits,
    probs,
    noise,
    raw_value,
    seat,
    c_visit,
    c_scale,
    min_spread,
    children,
    visits,
    values,
    sigma,
    scores,
):
    """``sigma(completed Q)`` of each of the ``count`` ``legal`` root actions into ``sigma`` and
    ``noise + logits + sigma`` into ``scores`` (the illegal actions' entries are left as they are:
    ``-inf`` from :func:`_root_legal`); return the most visits of a root action.

    Q is the mean value for ``seat``; an unvisited action's is the mixed value (the network's
    ``raw_value`` and the visited actions' Q weighted by their priors), and all are rescaled to
    [0, 1] among the legal actions, so ``c_scale`` means the same in every game.
    """
    most = 0
    total = 0
    weighted = 0.0
    weight = 0.0
    for i in range(count):
        a = legal[i]
        child = children[0, a]
        if child != UNTRIED and visits[child] > 0:
            n = visits[child]
            most = max(most, n)
            total += n
            weighted += probs[a] * values[child, seat] / n
            weight += probs[a]
    mixed = (raw_value + total * weighted / weight) / (1.0 + total) if weight > 0.0 else raw_value
    low = np.inf
    high = -np.inf
    for i in range(count):
        a = legal[i]
        child = children[0, a]
        n = visits[child] if child != UNTRIED else 0
        sigma[a] = values[child, seat] / n if n > 0 else mixed
        low = min(low, sigma[a])
        high = max(high, sigma[a])
    spread = max(high - low, min_spread)
    for i in range(count):
        a = legal[i]
        sigma[a] = (c_visit + most) * c_scale * (sigma[a] - low) / spread
        scores[a] = noise[a] + logits[a] + sigma[a]
    return most


@njit(cache=True)
def _root_action(legal, count, visited, scores, children, visits):
    """The root action of the ``count`` ``legal`` ones of highest score among those with exactly
    ``visited`` visits (-1: none; the first of equals)."""
    best = -1
    for i in range(count):
        a = legal[i]
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


@njit(cache=True)
def _root_prepare(
    settings,
    legal,
    rng,
    root_mask,
    root_logits,
    probs,
    noise,
    schedule,
    policy,
    children,
    visits,
    values,
    priors,
):
    """Start a search from the root's ``legal`` count, mask and logits: its prior into ``probs``;
    with one legal action, the prior into ``policy`` and that action returned; else the Gumbel
    noise drawn from ``rng`` (the searcher's), the halving ``schedule`` and node 0 made, and -1."""
    _masked_softmax(root_logits, root_mask, probs)
    num_actions = root_mask.shape[0]
    if legal == 1:
        only = -1
        for a in range(num_actions):
            policy[a] = probs[a]
            if root_mask[a] != 0:
                only = a
        return only
    if settings[S_GUMBEL] > 0.0:
        for a in range(num_actions):
            if root_mask[a] != 0:
                noise[a] = settings[S_GUMBEL] * _gumbel(rng)
    considered = min(np.int64(settings[S_CONSIDERED]), legal)
    considered_visits(considered, schedule.shape[0], schedule)
    _new_node(0, children, visits, values, priors)
    copy_vector(priors[0], probs)
    return -1


@njit(cache=True)
def _root_legal(root_mask, root_legal, sigma, scores):
    """The root's legal actions into ``root_legal`` (their count returned), and ``sigma`` and
    ``scores`` ``-inf`` for every action: :func:`_root_scores` then writes only the legal ones."""
    sigma[:] = -np.inf
    scores[:] = -np.inf
    return nonzero_indices(root_mask, root_legal)


@njit(cache=True)
def _descend(
    root,
    k,
    resample,
    rng,
    settings,
    root_legal,
    root_count,
    root_logits,
    probs,
    noise,
    raw_value,
    schedule,
    sigma,
    scores,
    sim,
    sim_rng,
    mask,
    legal,
    path,
    size,
    children,
    visits,
    values,
    priors,
    apply_action,
    legal_mask,
    determinize,
    particles,
    cumulative,
):
    """Simulation ``k`` from ``root`` down to its leaf: the root action by sequential halving (by
    UCT under the ``"uct"`` selection), the selection rule's below, a new node for the first untried
    action. Return ``(leaf node, path depth, tree size)``, the leaf's state in ``sim``; the leaf is
    -1 when the schedule asks for a visit count no root action has (the budget is spent evenly: the
    search stops)."""
    player = root[H_CURRENT]
    selection = np.int64(settings[S_SELECTION])
    if selection == UCT:
        action = _tree_action(
            selection, path[0], root_legal, root_count, player, settings, children, visits, values, priors
        )
    else:
        _root_scores(
            root_legal,
            root_count,
            root_logits,
            probs,
            noise,
            raw_value,
            player,
            settings[S_C_VISIT],
            settings[S_C_SCALE],
            settings[S_MIN_SPREAD],
            children,
            visits,
            values,
            sigma,
            scores,
        )
        action = _root_action(root_legal, root_count, schedule[k], scores, children, visits)
        if action < 0:
            return -1, 0, size
    start_from_belief(root, player, resample, rng, sim, sim_rng, determinize, particles, cumulative)
    node = path[0]
    depth = 1
    while True:
        apply_action(sim, action, sim_rng)
        child = children[node, action]
        if child == UNTRIED:
            child = size
            _new_node(child, children, visits, values, priors)
            children[node, action] = child
            path[depth] = child
            return child, depth + 1, size + 1
        node = child
        path[depth] = node
        depth += 1
        if not running(sim):
            return node, depth, size
        legal_mask(sim, mask)
        count = nonzero_indices(mask, legal)
        action = _tree_action(
            selection, node, legal, count, sim[H_CURRENT], settings, children, visits, values, priors
        )


@njit(cache=True)
def _finish_simulation(
    sim,
    sim_rng,
    weight,
    mask,
    rolled,
    result,
    path,
    depth,
    visits,
    values,
    legal_mask,
    apply_action,
    returns,
    rollout,
):
    """Mix a rollout into a live leaf's ``result`` (``weight`` its share) and back the result up
    the simulation's ``path``."""
    if weight > 0.0 and running(sim):
        rollout_returns(sim, sim_rng, mask, rolled, legal_mask, apply_action, returns, rollout)
        for seat in range(result.shape[0]):
            result[seat] = (1.0 - weight) * result[seat] + weight * rolled[seat]
    backup(path, depth, result, visits, values)


@njit(cache=True)
def _most_visited(root_legal, root_count, probs, policy, children, visits):
    """The root's visit shares into ``policy`` (0 for illegal actions); return the most visited of
    the ``root_count`` ``root_legal`` actions, the more probable by ``probs`` among equals."""
    policy[:] = 0.0
    total = 0
    best = -1
    best_visits = -1
    for i in range(root_count):
        a = root_legal[i]
        child = children[0, a]
        n = visits[child] if child != UNTRIED else 0
        policy[a] = n
        total += n
        if n > best_visits or (n == best_visits and probs[a] > probs[best]):
            best = a
            best_visits = n
    for i in range(root_count):
        policy[root_legal[i]] /= max(total, 1)
    return best


@njit(cache=True)
def _root_finish(
    root,
    settings,
    root_mask,
    root_legal,
    root_count,
    root_logits,
    probs,
    noise,
    raw_value,
    sigma,
    scores,
    policy,
    children,
    visits,
    values,
):
    """End a search: the improved policy into ``policy`` (0 for illegal actions); return the
    chosen action, the best of the most visited. Under UCT the policy is the root's visit shares
    and the best of the most visited the most probable by the root's prior ``probs``."""
    if np.int64(settings[S_SELECTION]) == UCT:
        return _most_visited(root_legal, root_count, probs, policy, children, visits)
    most = _root_scores(
        root_legal,
        root_count,
        root_logits,
        probs,
        noise,
        raw_value,
        root[H_CURRENT],
        settings[S_C_VISIT],
        settings[S_C_SCALE],
        settings[S_MIN_SPREAD],
        children,
        visits,
        values,
        sigma,
        scores,
    )
    # The improved policy leaves the noise out: it is what the network should learn.
    num_actions = root_mask.shape[0]
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
    return _root_action(root_legal, root_count, most, scores, children, visits)


@njit(
    types.int64(
        STATE,
        SETTINGS,
        types.boolean,
        RNG,
        PARAMS,
        SHAPES,
        CHILDREN,
        COUNTS,
        VALUES,
        PRIORS,
        FLOATS,
        LEGAL_MASK_T,
        APPLY_ACTION_T,
        RETURNS_T,
        OBSERVE_T,
        DETERMINIZE_T,
        POLICY_T,
        PARTICLES,
        WEIGHTS,
    ),
    cache=True,
    nogil=True,
)  # a search thinking in one thread leaves others (a web server) running
def belief_gumbel_search(
    root,
    settings,
    resample,
    rng,
    params,
    shapes,
    children,
    visits,
    values,
    priors,
    policy,
    legal_mask,
    apply_action,
    returns,
    observe_into,
    determinize,
    rollout,
    particles,
    cumulative,
):
    """Search from ``root`` (not modified) for its seat on move; return the chosen action and write
    the improved policy into ``policy`` (0 for illegal actions).

    ``settings`` is :meth:`SearchSettings.as_array`. Each simulation draws its own generator from
    ``rng`` (the searcher's), so neither the live game's generator nor future draws are touched.
    With ``resample`` each simulation's copy of the root is redealt for the seat on move first;
    where ``particles`` holds any, each simulation starts instead from one of them drawn by its
    weight (``cumulative``: the weights' running sums), the seat's belief. ``rollout`` plays every seat of the rollouts mixed into new leaves' values (unused while
    ``settings``' rollout weight is 0). The tree arrays must hold ``simulations + 1`` nodes.
    """
    simulations = np.int64(settings[S_SIMULATIONS])
    if children.shape[0] <= simulations or priors.shape[0] <= simulations:
        raise ValueError("the search tree holds fewer nodes than simulations + 1")
    num_actions = children.shape[1]
    n = root[H_NUM_PLAYERS]
    mask = np.zeros(num_actions, np.int8)
    root_mask = np.zeros(num_actions, np.int8)
    legal = legal_mask(root, root_mask)
    # The root's prior and value come from the seat's own observation of the true root, which
    # holds only what it may know.
    obs = np.zeros(shapes[0, 0] - MAX_SEATS, np.float32)
    x = np.zeros(shapes[0, 0], np.float32)
    legal_actions = np.zeros(num_actions, np.int32)
    scratch = np.zeros((2, shapes.max()), np.float32)
    logits = np.zeros(num_actions, np.float32)
    relative = np.zeros(MAX_SEATS, np.float32)
    result = np.zeros(n, np.float32)
    rolled = np.zeros(n, np.float32)
    observe_into(root, root[H_CURRENT], obs)
    network_input(obs, n, x)
    root_logits = np.zeros(num_actions, np.float32)
    forward(params, shapes, x, scratch, root_logits, relative)
    raw_value = np.float64(relative[0])
    probs = np.zeros(num_actions, np.float32)
    noise = np.zeros(num_actions, np.float64)
    schedule = np.zeros(simulations, np.int64)
    only = _root_prepare(
        settings,
        legal,
        rng,
        root_mask,
        root_logits,
        probs,
        noise,
        schedule,
        policy,
        children,
        visits,
        values,
        priors,
    )
    if only >= 0:
        return only
    sigma = np.zeros(num_actions, np.float64)
    scores = np.zeros(num_actions, np.float64)
    root_legal = np.zeros(num_actions, np.int32)
    root_count = _root_legal(root_mask, root_legal, sigma, scores)
    sim = np.empty(root.shape[0], np.int32)
    sim_rng = np.empty(1, np.uint64)
    path = np.zeros(simulations + 1, np.int64)  # path[0] is the root, node 0
    size = 1
    for k in range(simulations):
        leaf, depth, size = _descend(
            root,
            k,
            resample,
            rng,
            settings,
            root_legal,
            root_count,
            root_logits,
            probs,
            noise,
            raw_value,
            schedule,
            sigma,
            scores,
            sim,
            sim_rng,
            mask,
            legal_actions,
            path,
            size,
            children,
            visits,
            values,
            priors,
            apply_action,
            legal_mask,
            determinize,
            particles,
            cumulative,
        )
        if leaf < 0:
            break
        count = _leaf_input(sim, mask, legal_actions, x, result, legal_mask, returns, observe_into)
        if count > 0:
            forward_legal(params, shapes, x, scratch, legal_actions, count, logits, relative)
            _leaf_output(sim, leaf, legal_actions, count, logits, relative, result, priors)
        _finish_simulation(
            sim,
            sim_rng,
            settings[S_ROLLOUT],
            mask,
            rolled,
            result,
            path,
            depth,
            visits,
            values,
            legal_mask,
            apply_action,
            returns,
            rollout,
        )
    return _root_finish(
        root,
        settings,
        root_mask,
        root_legal,
        root_count,
        root_logits,
        probs,
        noise,
        raw_value,
        sigma,
        scores,
        policy,
        children,
        visits,
        values,
    )


@njit(
    types.int64(
        STATE,
        SETTINGS,
        types.boolean,
        RNG,
        PARAMS,
        SHAPES,
        CHILDREN,
        COUNTS,
        VALUES,
        PRIORS,
        FLOATS,
        LEGAL_MASK_T,
        APPLY_ACTION_T,
        RETURNS_T,
        OBSERVE_T,
        DETERMINIZE_T,
        POLICY_T,
    ),
    cache=True,
    nogil=True,
)
def gumbel_search(
    root,
    settings,
    resample,
    rng,
    params,
    shapes,
    children,
    visits,
    values,
    priors,
    policy,
    legal_mask,
    apply_action,
    returns,
    observe_into,
    determinize,
    rollout,
):
    """:func:`belief_gumbel_search` with uniform redeals (no belief)."""
    return belief_gumbel_search(
        root,
        settings,
        resample,
        rng,
        params,
        shapes,
        children,
        visits,
        values,
        priors,
        policy,
        legal_mask,
        apply_action,
        returns,
        observe_into,
        determinize,
        rollout,
        np.empty((0, root.shape[0]), np.int32),
        np.empty(0, np.float64),
    )


# --- many games at once (self-play) -------------------------------------------------------------
@batch_kernel(
    types.void(
        STATES,
        INTS,
        RNGS,
        RNGS,
        SETTINGS,
        types.boolean,
        PARAMS,
        SHAPES,
        types.int32[:, :, ::1],
        types.int32[:, ::1],
        types.float64[:, :, ::1],
        types.float32[:, :, ::1],
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
def search_and_play(
    states,
    slots,
    game_rngs,
    search_rngs,
    settings,
    resample,
    params,
    shapes,
    children,
    visits,
    values,
    priors,
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
        action = gumbel_search(
            s,
            settings,
            resample,
            search_rngs[i],
            params,
            shapes,
            children[i],
            visits[i],
            values[i],
            priors[i],
            policies[j],
            legal_mask,
            apply_action,
            returns,
            observe_into,
            determinize,
            rollout,
        )
        actions[j] = action
        apply_action(s, action, game_rngs[i])


# Compiled at its first call (a LazyKernel): the batched pass's BLAS needs scipy, which only training installs.
@lazy_njit(
    types.void(
        STATES,
        INTS,
        RNGS,
        RNGS,
        SETTINGS,
        types.boolean,
        PARAMS,
        SHAPES,
        types.int32[:, :, ::1],
        types.int32[:, ::1],
        types.float64[:, :, ::1],
        types.float32[:, :, ::1],
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
    nogil=True,
)
def search_and_play_lockstep(
    states,
    slots,
    game_rngs,
    search_rngs,
    settings,
    resample,
    params,
    shapes,
    children,
    visits,
    values,
    priors,
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
    """:func:`search_and_play` with the games' searches in lock step, on one thread: the roots,
    then each simulation's leaves of every game, go through the network as one batch
    (:func:`~monster_zoo.agents.network.forward_many`: BLAS from 16 leaves up), then every game
    backs up.

    Each game's search is :func:`gumbel_search`'s, piece for piece and draw for draw from its
    own generators; only the network's outputs differ, by float rounding (the batched pass sums
    in another order), so the games' moves are the same but for a near tie that rounding tips.
    """
    games = slots.shape[0]
    num_actions = children.shape[2]
    simulations = np.int64(settings[S_SIMULATIONS])
    if children.shape[1] <= simulations or priors.shape[1] <= simulations:
        raise ValueError("the search trees hold fewer nodes than simulations + 1")
    n_input = shapes[0, 0]
    xs = np.zeros((games, n_input), np.float32)
    width = shapes.max()
    trunk_a = np.zeros(games * width, np.float32)
    trunk_b = np.zeros(games * width, np.float32)
    out_logits = np.zeros((games, num_actions), np.float32)
    out_values = np.zeros((games, MAX_SEATS), np.float32)
    for j in range(games):
        s = states[slots[j]]
        observe_into(s, s[H_CURRENT], observations[j])
        network_input(observations[j], s[H_NUM_PLAYERS], xs[j])
    scratch = np.zeros((2, width), np.float32)
    forward_many(params, shapes, xs, games, scratch, trunk_a, trunk_b, out_logits, out_values)
    # Each game's search state, one row per game (what gumbel_search keeps in local arrays).
    root_logits = out_logits.copy()
    raw_values = np.zeros(games, np.float64)
    probs = np.zeros((games, num_actions), np.float32)
    noise = np.zeros((games, num_actions), np.float64)
    schedules = np.zeros((games, simulations), np.int64)
    no_particles = np.empty((0, states.shape[1]), np.int32)  # self-play redeals uniformly
    no_weights = np.empty(0, np.float64)
    sigma = np.zeros((games, num_actions), np.float64)
    scores = np.zeros((games, num_actions), np.float64)
    sims = np.empty((games, states.shape[1]), np.int32)
    sim_rngs = np.empty((games, 1), np.uint64)
    leaf_masks = np.zeros((games, num_actions), np.int8)
    leaf_legal = np.zeros((games, num_actions), np.int32)
    leaf_counts = np.zeros(games, np.int64)
    root_legal = np.zeros((games, num_actions), np.int32)
    root_counts = np.zeros(games, np.int64)
    paths = np.zeros((games, simulations + 1), np.int64)
    depths = np.zeros(games, np.int64)
    sizes = np.ones(games, np.int64)
    leaves = np.full(games, -1, np.int64)
    results = np.zeros(games * MAX_SEATS, np.float32)
    rolled = np.zeros(MAX_SEATS, np.float32)
    row_game = np.zeros(games, np.int64)
    searching = np.zeros(games, np.bool_)
    for j in range(games):
        i = slots[j]
        raw_values[j] = out_values[j, 0]
        legal = legal_mask(states[i], masks[j])
        actions[j] = _root_prepare(
            settings,
            legal,
            search_rngs[i],
            masks[j],
            root_logits[j],
            probs[j],
            noise[j],
            schedules[j],
            policies[j],
            children[i],
            visits[i],
            values[i],
            priors[i],
        )
        searching[j] = actions[j] < 0
        root_counts[j] = _root_legal(masks[j], root_legal[j], sigma[j], scores[j])
    searched = searching.copy()
    for k in range(simulations):
        rows = 0
        for j in range(games):
            leaves[j] = -1
            if not searching[j]:
                continue
            i = slots[j]
            n = states[i][H_NUM_PLAYERS]
            result = results[j * MAX_SEATS : j * MAX_SEATS + n]
            leaves[j], depths[j], sizes[j] = _descend(
                states[i],
                k,
                resample,
                search_rngs[i],
                settings,
                root_legal[j],
                root_counts[j],
                root_logits[j],
                probs[j],
                noise[j],
                raw_values[j],
                schedules[j],
                sigma[j],
                scores[j],
                sims[j],
                sim_rngs[j],
                leaf_masks[j],
                leaf_legal[j],
                paths[j],
                sizes[j],
                children[i],
                visits[i],
                values[i],
                priors[i],
                apply_action,
                legal_mask,
                determinize,
                no_particles,
                no_weights,
            )
            if leaves[j] < 0:
                searching[j] = False
                continue
            leaf_counts[j] = _leaf_input(
                sims[j], leaf_masks[j], leaf_legal[j], xs[rows], result, legal_mask, returns, observe_into
            )
            if leaf_counts[j] > 0:
                row_game[rows] = j
                rows += 1
        forward_many(params, shapes, xs, rows, scratch, trunk_a, trunk_b, out_logits, out_values)
        for r in range(rows):
            j = row_game[r]
            n = sims[j][H_NUM_PLAYERS]
            _leaf_output(
                sims[j],
                leaves[j],
                leaf_legal[j],
                leaf_counts[j],
                out_logits[r],
                out_values[r],
                results[j * MAX_SEATS : j * MAX_SEATS + n],
                priors[slots[j]],
            )
        for j in range(games):
            if leaves[j] >= 0:
                i = slots[j]
                n = sims[j][H_NUM_PLAYERS]
                _finish_simulation(
                    sims[j],
                    sim_rngs[j],
                    settings[S_ROLLOUT],
                    leaf_masks[j],
                    rolled[:n],
                    results[j * MAX_SEATS : j * MAX_SEATS + n],
                    paths[j],
                    depths[j],
                    visits[i],
                    values[i],
                    legal_mask,
                    apply_action,
                    returns,
                    rollout,
                )
    for j in range(games):
        i = slots[j]
        if searched[j]:
            actions[j] = _root_finish(
                states[i],
                settings,
                masks[j],
                root_legal[j],
                root_counts[j],
                root_logits[j],
                probs[j],
                noise[j],
                raw_values[j],
                sigma[j],
                scores[j],
                policies[j],
                children[i],
                visits[i],
                values[i],
            )
        apply_action(states[i], actions[j], game_rngs[i])


def schedule(considered: int, simulations: int) -> np.ndarray:
    """The visit schedule of sequential halving (see :func:`considered_visits`), for tests and docs."""
    out = np.zeros(simulations, np.int64)
    considered_visits(int(considered), int(simulations), out)
    return out
