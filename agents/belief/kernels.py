"""The belief's numba kernels: particles dealt from one seat's view, advanced by the moves the seat
saw, weighted by an opponent model and resampled when their weights degenerate.

A particle is a whole engine state that agrees with everything the seat has seen: its observation
of the particle equals its observation of the game. The kernels know no game: they call the game's
own kernels (``legal_mask``, ``apply_action``, ``observe_into``, ``determinize``) and the greedy
policy (``POLICY_SIG``) as first-class numba functions, and a policy network as its flat
parameters, so one compiled copy serves every game.

**The update after a move.** The seat knows the move as the game names it to the seat: the action
itself, or, where the game hides which it was (Mighty Monsters' pair laid face down), any of the
actions named alike; these are the move's candidates. For each particle with weight, and each
candidate:

* the candidate must be legal in the particle (else it adds nothing);
* a move by another seat multiplies the weight by that seat's likelihood of the move under the
  opponent model run in the particle: a mixture of a uniform choice among the legal moves
  (``eps / legal moves``), the game's greedy kernel's choice (share ``g``) and a policy
  network's softmax over the legal moves at a temperature, read from the mover's own observation
  of the particle (what that seat would see were the particle the game; share ``1 - eps - g``).
  Without a network the greedy choice takes ``1 - eps``. Both parts read only what the mover sees,
  so the model is asked once per view of the mover in an update and particles the mover cannot
  tell apart share its answer; the greedy kernel breaks its ties with the generator of the first
  particle to show the mover that view, so over those draws a tied move gets its share;
* the move is applied with the particle's own generator, which deals any chance it holds (a card
  drawn). Where the move drew on chance, it is applied ``tries`` times from the same particle and
  the weight is multiplied by the share of tries whose result shows the seat what the game showed
  it, an unbiased estimate of the probability of what the seat saw (the candidate's result is the
  first such replay). A move that drew on nothing (its generator untouched) is applied once: what the seat
  sees after it is then certain or impossible.
* where a game keeps in its state what no seat has seen (Mighty Monsters' guard deck, face-down
  guards and king tiles), replaying the move whole would hold the particle's guess at those
  against what the move turns up, and a fight would rule out nearly every particle for a guess no
  seat's play depends on. Such a game declares a ``graft_hidden`` kernel: the move is applied once,
  and its result is a fresh redeal of the seat's view after the move holding the particle's guess
  at the other seats' own cards; the share is 1 where that guess fits the view, else 0.

The particle's factor sums its candidates' (likelihood times share), and the particle becomes the
result of one of them, drawn in proportion.

Particles that die are dealt again from the view after the move and share a small weight
(``refresh``), so the belief mixes its posterior with the uniform redeal; where no particle keeps any
weight, the belief starts again from that view.
"""

import math

import numpy as np
from numba import njit, types

from monster_zoo.agents.network import MAX_SEATS, PARAMS, SHAPES, forward_legal, network_input
from monster_zoo.envs.core.contract import (
    APPLY_ACTION_T,
    DETERMINIZE_T,
    FLOATS,
    GRAFT_HIDDEN_SIG,
    GRAFT_HIDDEN_T,
    H_NUM_PLAYERS,
    LEGAL_MASK_T,
    MASK,
    OBSERVE_T,
    POLICY_T,
    RNG,
    STATE,
)
from monster_zoo.envs.core.kernels import copy_vector
from monster_zoo.envs.core.rng import rng_next

PARTICLES = types.int32[:, ::1]
WEIGHTS = types.float64[::1]
PARTICLE_RNGS = types.uint64[:, ::1]
UNIT = 2.0**-53  # a 53-bit random integer times this is uniform in [0, 1)


@njit(cache=True)
def uniform_01(rng):
    """A uniform float in ``[0, 1)`` from ``rng``."""
    return (rng_next(rng) >> np.uint64(11)) * UNIT


@njit(types.void(STATE, types.int64, PARTICLES, WEIGHTS, PARTICLE_RNGS, DETERMINIZE_T), cache=True)
def deal_particles(view, seat, particles, weights, rngs, determinize):
    """Fill ``particles`` with redeals of ``view`` (a state that shows ``seat`` what the game shows it)
    for ``seat``, each with its own generator, at equal weights."""
    count = particles.shape[0]
    for i in range(count):
        copy_vector(particles[i], view)
        determinize(particles[i], seat, rngs[i])
        weights[i] = 1.0 / count


@njit(cache=True)
def same_view(a, b):
    """Whether two observations are equal entry by entry."""
    for j in range(a.shape[0]):
        if a[j] != b[j]:
            return False
    return True


ACTIONS = types.int64[::1]


@njit(cache=True)
def replay_share(particle, seat, action, seen, tries, rng, trial, kept, view, apply_action, observe_into):
    """The share of ``tries`` replays of ``action`` from ``particle`` (one where it drew on no chance)
    whose result shows ``seat`` the observation ``seen``; the first such result is left in ``kept``."""
    hits = 0
    done = 0
    for _ in range(tries):
        copy_vector(trial, particle)
        before = rng[0]
        apply_action(trial, action, rng)
        done += 1
        observe_into(trial, seat, view)
        if same_view(view, seen):
            if hits == 0:
                copy_vector(kept, trial)
            hits += 1
        if rng[0] == before:  # the move drew on no chance: one application says it all
            break
    return hits / done


@njit(cache=True)
def graft_share(
    particle,
    seat,
    action,
    seen,
    rng,
    trial,
    kept,
    view,
    view_after,
    apply_action,
    observe_into,
    determinize,
    graft,
):
    """1 where ``action`` played in ``particle`` leaves a guess at the other seats' own cards that
    fits ``view_after`` (a state showing ``seat`` what the game shows it after the move), else 0;
    the particle's result, left in ``kept``, is a redeal of ``view_after`` for ``seat`` holding that
    guess (the game's ``graft`` kernel). For a game that keeps what no seat has seen (a guard deck's
    order): the particle's own guess at those is never held against the seat's view, since no
    seat's move depends on it."""
    copy_vector(trial, particle)
    apply_action(trial, action, rng)
    copy_vector(kept, view_after)
    determinize(kept, seat, rng)
    if graft(kept, trial, seat) == 0:
        return 0.0
    observe_into(kept, seat, view)
    return 1.0 if same_view(view, seen) else 0.0


@njit(GRAFT_HIDDEN_SIG, cache=True)
def no_graft(target, source, seat):
    """The stand-in graft of a game that keeps nothing no seat has seen; the update never asks it."""
    return 0


LISTED = types.int32[::1]
FLOATS_2D = types.float32[:, ::1]
#: The opponent model's network and its work space, as :func:`network_model` makes it.
NETWORK_MODEL = types.Tuple(
    (PARAMS, SHAPES, types.float64, types.float64, FLOATS, FLOATS_2D, LISTED, FLOATS, FLOATS)
)
#: The opponent model's answers kept through one update, one per view of the mover met (see
#: :func:`cached_model`): the views, the legal masks, a checksum of each view, the probabilities,
#: and how many are kept.
MODEL_CACHE = types.Tuple(
    (FLOATS_2D, types.int8[:, ::1], types.float64[::1], types.float64[:, ::1], types.int64[::1])
)


@njit(cache=True)
def model_probabilities(
    particle,
    mask,
    legal,
    epsilon,
    greedy_share,
    greedy,
    params,
    shapes,
    temperature,
    obs,
    x,
    scratch,
    listed,
    logits,
    values,
    out,
):
    """The opponent model's probability of each legal action of the mover in ``particle`` (``mask``
    its legal actions, ``legal`` their count) into ``out``: ``epsilon / legal``, plus ``greedy_share``
    on ``greedy`` (the greedy policy's choice there; -1 where its share is 0), plus the rest on the softmax at
    ``temperature`` of the network ``params``/``shapes`` over the legal actions, read from
    ``obs``, the mover's observation of the particle; where ``params`` is empty (no network), the greedy
    choice takes all but ``epsilon``. ``x``, ``scratch``, ``listed``, ``logits`` and
    ``values`` are the network's work space."""
    for a in range(mask.shape[0]):
        out[a] = epsilon / legal if mask[a] != 0 else 0.0
    network_share = 1.0 - epsilon - greedy_share if params.shape[0] > 0 else 0.0
    if greedy >= 0:
        out[greedy] += 1.0 - epsilon - network_share
    if network_share <= 0.0:
        return
    count = 0
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            listed[count] = a
            count += 1
    network_input(obs, np.int64(particle[H_NUM_PLAYERS]), x)
    forward_legal(params, shapes, x, scratch, listed, count, logits, values)
    top = -np.inf
    for i in range(count):
        top = max(top, logits[listed[i]] / temperature)
    total = 0.0
    for i in range(count):
        total += math.exp(logits[listed[i]] / temperature - top)
    for i in range(count):
        a = listed[i]
        out[a] += network_share * math.exp(logits[a] / temperature - top) / total


@njit(cache=True)
def network_model(params, shapes, temperature, greedy_share, num_actions):
    """The opponent model's network as :func:`advance_particle` reads it: ``params``/``shapes``
    (empty: the greedy model) at ``temperature``, the greedy choice's share beside it, and the
    network's work space for a game of ``num_actions`` actions."""
    layers = shapes.shape[0]
    width = 1
    for layer in range(layers):
        width = max(width, shapes[layer, 0], shapes[layer, 1])
    inputs = shapes[0, 0] if layers > 0 else MAX_SEATS
    return (
        params,
        shapes,
        temperature,
        greedy_share,
        np.zeros(inputs, np.float32),
        np.zeros((2, width), np.float32),
        np.zeros(num_actions, np.int32),
        np.zeros(num_actions, np.float32),
        np.zeros(MAX_SEATS, np.float32),
    )


@njit(cache=True)
def model_cache(count, obs_size, num_actions):
    """Room for the opponent model's answers to ``count`` views of ``obs_size`` entries, in a game
    of ``num_actions`` actions (:data:`MODEL_CACHE`), none kept yet."""
    return (
        np.zeros((count, obs_size), np.float32),
        np.zeros((count, num_actions), np.int8),
        np.zeros(count, np.float64),
        np.zeros((count, num_actions), np.float64),
        np.zeros(1, np.int64),
    )


@njit(cache=True)
def cached_model(particle, mover, mask, legal, epsilon, rng, view, observe_into, policy, model, cache, out):
    """The opponent model's probabilities of ``mover``'s legal actions in ``particle`` into ``out``
    (:func:`model_probabilities`; ``mask`` the legal actions, ``legal`` their count), asked once per
    view of the mover: both parts of the model read only what the mover sees (the greedy kernel is
    blind to what its seat cannot see, as ``tests/test_baselines.py`` checks, and the network reads
    the mover's observation), and particles often differ only in what the mover cannot see (in
    Mighty Monsters, 64 particles show the mover two views on average), so a view met before takes
    the answer it got then, greedy tie break included. ``view`` is work space."""
    params, shapes, temperature, greedy_share, x, scratch, listed, logits, values = model
    views, masks, sums, answers, kept = cache
    observe_into(particle, mover, view)
    checksum = 0.0
    for j in range(view.shape[0]):
        checksum += view[j] * (j + 1)
    for k in range(kept[0]):
        if sums[k] == checksum and same_view(views[k], view) and same_view(masks[k], mask):
            copy_vector(out, answers[k])
            return
    weighs_greedy = greedy_share > 0.0 or params.shape[0] == 0
    greedy = policy(particle, mask, rng) if weighs_greedy else -1
    model_probabilities(
        particle,
        mask,
        legal,
        epsilon,
        greedy_share,
        greedy,
        params,
        shapes,
        temperature,
        view,
        x,
        scratch,
        listed,
        logits,
        values,
        out,
    )
    k = kept[0]
    if k < sums.shape[0]:
        copy_vector(views[k], view)
        copy_vector(masks[k], mask)
        sums[k] = checksum
        copy_vector(answers[k], out)
        kept[0] = k + 1


@njit(
    types.float64(
        STATE,
        types.int64,
        ACTIONS,
        FLOATS,
        types.float64,
        types.int64,
        RNG,
        STATE,
        STATE,
        STATE,
        MASK,
        FLOATS,
        LEGAL_MASK_T,
        APPLY_ACTION_T,
        OBSERVE_T,
        types.int64,
        types.float64[::1],
        POLICY_T,
        NETWORK_MODEL,
        MODEL_CACHE,
        STATE,
        DETERMINIZE_T,
        GRAFT_HIDDEN_T,
        types.boolean,
    ),
    cache=True,
)
def advance_particle(
    particle,
    seat,
    candidates,
    seen,
    epsilon,
    tries,
    rng,
    trial,
    kept,
    chosen,
    mask,
    view,
    legal_mask,
    apply_action,
    observe_into,
    mover,
    probabilities,
    policy,
    model,
    cache,
    view_after,
    determinize,
    graft,
    grafts,
):
    """Advance ``particle`` by the move the seat saw (see the module doc) and return the factor its
    weight is multiplied by: the sum, over the ``candidates`` (the actions the seat cannot tell from
    the move: the move itself, unless the game hides which it was) legal in the particle, of the
    opponent model's likelihood of each times the share of its replays that show ``seat`` the
    observation ``seen``; 0 where none does. The particle becomes the result of one of them, drawn
    in proportion. ``epsilon`` below 0 skips the opponent model (``seat``'s own move); ``policy`` is
    the greedy model, ``model`` the network model and its work space (:func:`network_model`),
    ``cache`` the model's answers so far in this update (:func:`cached_model`), ``mover`` the seat
    that moved. Where ``grafts`` (the game keeps what no seat has seen), a candidate's result is a
    redeal of ``view_after`` holding the particle's guess at the other seats' cards
    (:func:`graft_share`). ``trial``, ``kept``, ``chosen``, ``mask``, ``view`` and ``probabilities`` are work space."""
    legal = legal_mask(particle, mask)
    # The opponent model waits until some candidate's replay keeps the particle alive: where the
    # seat's view rules the particle out (most particles, after a card is turned up), neither the
    # greedy kernel nor the forward pass runs.
    modelled = epsilon < 0.0
    total = 0.0
    for c in range(candidates.shape[0]):
        action = candidates[c]
        if mask[action] == 0:
            continue
        if grafts:
            share = graft_share(
                particle,
                seat,
                action,
                seen,
                rng,
                trial,
                kept,
                view,
                view_after,
                apply_action,
                observe_into,
                determinize,
                graft,
            )
        else:
            share = replay_share(
                particle, seat, action, seen, tries, rng, trial, kept, view, apply_action, observe_into
            )
        if share <= 0.0:
            continue
        if not modelled:
            cached_model(
                particle,
                mover,
                mask,
                legal,
                epsilon,
                rng,
                view,
                observe_into,
                policy,
                model,
                cache,
                probabilities,
            )
            modelled = True
        part = share * (probabilities[action] if epsilon >= 0.0 else 1.0)
        if part <= 0.0:
            continue
        total += part
        if total == part or uniform_01(rng) * total < part:
            copy_vector(chosen, kept)
    if total > 0.0:
        copy_vector(particle, chosen)
    return total


@njit(
    types.float64(
        PARTICLES,
        WEIGHTS,
        PARTICLE_RNGS,
        types.int64,
        types.int64,
        ACTIONS,
        STATE,
        types.float64,
        types.int64,
        types.float64,
        MASK,
        FLOATS,
        FLOATS,
        LEGAL_MASK_T,
        APPLY_ACTION_T,
        OBSERVE_T,
        DETERMINIZE_T,
        POLICY_T,
        PARAMS,
        SHAPES,
        types.float64,
        types.float64,
        GRAFT_HIDDEN_T,
        types.boolean,
    ),
    cache=True,
)
def update_particles(
    particles,
    weights,
    rngs,
    seat,
    mover,
    candidates,
    view_after,
    epsilon,
    tries,
    refresh,
    mask,
    seen,
    view,
    legal_mask,
    apply_action,
    observe_into,
    determinize,
    policy,
    params,
    shapes,
    temperature,
    greedy_share,
    graft,
    grafts,
):
    """Advance every particle by ``mover``'s move and reweight it (see the module doc): the move is one
    of ``candidates``, the actions the seat cannot tell it from (the move alone, unless the game
    hides which it was); ``view_after`` is a state that shows ``seat`` what the game shows it after the move. ``mask``
    (the game's actions), ``seen`` and ``view`` (its observation) are work space. The opponent
    model mixes the greedy ``policy`` (its choice gets ``greedy_share``) and the network
    ``params``/``shapes`` at ``temperature``, or is the greedy policy alone where ``params`` is
    empty (:func:`model_probabilities`). ``graft`` is the game's ``graft_hidden`` kernel where
    ``grafts`` (:func:`graft_share`; else :func:`no_graft`). Weights end normalised; return the evidence of the move (the weighted mean factor), 0 where every particle
    died and the belief was dealt again from ``view_after``.

    The particles that died are dealt again from ``view_after`` and share the weight ``refresh``,
    the survivors the rest: the belief is a mixture of the posterior and the uniform redeal, so
    that a few survivors, copied by the resampling, never make it certain of a deal the next moves
    contradict (where the model was wrong, or the particles too few to hold the truth)."""
    count = particles.shape[0]
    size = particles.shape[1]
    trial = np.empty(size, np.int32)
    kept = np.empty(size, np.int32)
    chosen = np.empty(size, np.int32)
    observe_into(view_after, seat, seen)
    model = network_model(params, shapes, temperature, greedy_share, mask.shape[0])
    cache = model_cache(count, seen.shape[0], mask.shape[0])
    probabilities = np.zeros(mask.shape[0], np.float64)
    own = epsilon if mover != seat else -1.0
    total = 0.0
    for i in range(count):
        if weights[i] <= 0.0:
            continue
        weights[i] *= advance_particle(
            particles[i],
            seat,
            candidates,
            seen,
            own,
            tries,
            rngs[i],
            trial,
            kept,
            chosen,
            mask,
            view,
            legal_mask,
            apply_action,
            observe_into,
            mover,
            probabilities,
            policy,
            model,
            cache,
            view_after,
            determinize,
            graft,
            grafts,
        )
        total += weights[i]
    if total <= 0.0:
        deal_particles(view_after, seat, particles, weights, rngs, determinize)
        return 0.0
    dead = 0
    for i in range(count):
        dead += weights[i] <= 0.0
    kept = 1.0 - refresh if dead > 0 else 1.0
    for i in range(count):
        if weights[i] > 0.0:
            weights[i] *= kept / total
        elif refresh > 0.0:
            copy_vector(particles[i], view_after)
            determinize(particles[i], seat, rngs[i])
            weights[i] = refresh / dead
    return total


@njit(types.float64(WEIGHTS), cache=True)
def effective_size(weights):
    """The effective sample size of normalised ``weights``, ``1 / sum(w^2)``."""
    squares = 0.0
    for w in weights:
        squares += w * w
    return 1.0 / squares if squares > 0.0 else 0.0


@njit(types.void(PARTICLES, WEIGHTS, PARTICLE_RNGS, RNG), cache=True)
def resample_particles(particles, weights, rngs, rng):
    """Systematic resampling: each particle is copied in proportion to its weight (one draw from
    ``rng`` places the comb), and the copies get equal weights. A copy keeps its state and gets a
    generator of its own from ``rng``, so copies part ways at the next chance."""
    count = particles.shape[0]
    chosen = np.empty(count, np.int64)
    step = 1.0 / count
    point = uniform_01(rng) * step
    cumulative = weights[0]
    source = 0
    for i in range(count):
        while point > cumulative and source < count - 1:
            source += 1
            cumulative += weights[source]
        chosen[i] = source
        point += step
    copies = particles.copy()
    for i in range(count):
        copy_vector(particles[i], copies[chosen[i]])
        rngs[i, 0] = rng_next(rng)
        weights[i] = step


@njit(types.int64(WEIGHTS, RNG), cache=True)
def pick_weighted(cumulative, rng):
    """An index drawn with probability proportional to its weight, from ``cumulative`` (running sums
    of the weights, the last the total)."""
    point = uniform_01(rng) * cumulative[cumulative.shape[0] - 1]
    low, high = 0, cumulative.shape[0] - 1
    while low < high:
        middle = (low + high) // 2
        if cumulative[middle] > point:
            high = middle
        else:
            low = middle + 1
    return low
