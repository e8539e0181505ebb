"""Where a simulation of the learned search spends its time, measured inside the search itself.

    python -m monster_zoo.benchmarks.az_in_search                       # every game
    python -m monster_zoo.benchmarks.az_in_search --games monster_arena-v0,monstargh-v0
    python -m monster_zoo.benchmarks.az_in_search --quick               # a smoke test; numbers mean little

:mod:`monster_zoo.benchmarks.az_simulation` times each piece of a simulation alone, in a loop over
root positions; its pieces add up to 2.8-4.4 us less than a simulation. This one times the pieces where the search runs them: :func:`timed_search` is
:func:`~monster_zoo.agents.az.search.gumbel_search` (same pieces, same order, same draws: it
chooses what the search chooses, ``tests/test_az_benchmarks.py`` holds it to that) with the CPU's
cycle counter read around each piece, so every piece is timed on the leaves the search really
reaches, with the tree and the network sharing the caches as they do in play.

Per game, over ``--positions`` live positions at its smallest player count (the positions of
:func:`~monster_zoo.benchmarks.az_simulation.positions`) with its shipped network, searched with
``--simulations`` and no rollouts, it prints the microseconds per simulation of:

- **search**: the plain :func:`gumbel_search`, whole, called from Python once a position (the
  fastest of ``--repeats``), as ``az_simulation`` times it;
- **timed**: :func:`timed_search`, whole: the search plus the counter's reads;
- each piece, summed over a simulation, less one empty piece's cycles a call (two reads back to
  back): ``root choice`` (``_root_scores`` and ``_root_action``), ``copy+redeal``,
  ``apply_action`` (every action of the descent), ``legal_mask`` (below the root and at the leaf),
  ``legal list`` (the legal actions listed from the mask), ``puct``, ``new node``, ``observe``
  (the leaf's observation and player count), ``network`` (``forward_legal``), ``priors``
  (``_leaf_output``), ``backup``;
- ``per search``: what runs once a search, inside numba (its arrays, the root's pass, preparation
  and the improved policy), spread over its simulations; ``call``: Python's call into numba (the
  timed copy's whole less its time inside), spread likewise (self-play calls numba once a move
  for all its games, so it pays this once for 32 or 64 searches); ``rest``: **search** less all
  of the above (the loop's own work between the pieces, less the counter's reads where they
  overlap);
- the leaves: mean depth (actions applied a simulation), the share of simulations whose leaf the
  network evaluated, its legal actions, and the share of the network's inputs and first-layer
  units that are non-zero (what the sparse pass's cost follows), at the leaves and at the roots.

The cycle counter is converted with its rate measured against ``time.perf_counter``; the CPU and
the 1-minute load are printed, since a shared machine moves every figure.
"""

from __future__ import annotations

import os
import time

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from monster_zoo import envs
from monster_zoo.agents.az.network import (
    MAX_SEATS,
    PARAMS,
    SHAPES,
    count_input,
    forward,
    forward_legal,
    network_input,
    nonzero_indices,
    random_network,
    read_network,
)
from monster_zoo.agents.az.search import (
    CHILDREN,
    COUNTS,
    PRIORS,
    S_C_PUCT,
    S_C_SCALE,
    S_C_VISIT,
    S_MIN_SPREAD,
    S_SIMULATIONS,
    SETTINGS,
    VALUES,
    SearchSettings,
    _leaf_output,
    _new_node,
    _puct_action,
    _root_action,
    _root_finish,
    _root_legal,
    _root_prepare,
    _root_scores,
    gumbel_search,
    trees,
)
from monster_zoo.agents.az.shipped import shipped_network_path
from monster_zoo.agents.search.tree import UNTRIED, backup, no_determinize, start_simulation
from monster_zoo.agents.search.tuned import tuned_rollout
from monster_zoo.benchmarks.az_forward import chosen_games
from monster_zoo.benchmarks.az_simulation import positions, simulation_arguments
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
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.evaluation.host import cpu_name

# The pieces' rows of the ``ticks`` and ``calls`` arrays, in the order printed.
PIECES = (
    "root choice",
    "copy+redeal",
    "apply_action",
    "legal_mask",
    "legal list",
    "puct",
    "new node",
    "observe",
    "network",
    "priors",
    "backup",
)
(P_ROOT, P_START, P_APPLY, P_LEGAL, P_LIST, P_PUCT, P_NODE, P_OBSERVE, P_NETWORK, P_PRIORS, P_BACKUP) = range(
    len(PIECES)
)
# Rows of ``ticks`` past the pieces': a search's loop of simulations, and the whole search.
LOOP, WHOLE = len(PIECES), len(PIECES) + 1
# Entries of the ``leaves`` statistics: sums over the simulations (and over the searches' roots).
(
    L_SIMULATIONS,
    L_DEPTH,
    L_LEGAL,
    L_INPUTS,
    L_UNITS,
    L_EVALUATED,
    L_ROOTS,
    L_ROOT_INPUTS,
    L_ROOT_UNITS,
) = range(9)
TICKS = types.int64[::1]
STATS = types.float64[::1]


@intrinsic
def _clock(typingctx):
    """The CPU's cycle counter (``rdtsc`` on x86: a few dozen cycles, not serializing)."""

    def codegen(context, builder, signature, args):
        counter = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter"
        )
        return builder.call(counter, [])

    return types.int64(), codegen


@njit(cache=True)
def _nonzero_share(x, units):
    """How many entries of ``x`` are not zero, and how many of the first layer's units a pass of
    ``x`` leaves above zero (``units`` scratch for them)."""
    inputs = 0
    for k in range(x.shape[0]):
        if x[k] != 0.0:
            inputs += 1
    live = 0
    for o in range(units.shape[0]):
        if units[o] > 0.0:
            live += 1
    return inputs, live


@njit(cache=True)
def _tally(ticks, calls, piece, cycles):
    """Count one call of ``piece`` that took ``cycles``."""
    ticks[piece] += cycles
    calls[piece] += 1


@njit(cache=True)
def _timed_legal_list(state, mask, legal, legal_mask, ticks, calls):
    """``state``'s legal mask into ``mask`` and its list into ``legal`` (their count returned),
    each timed."""
    t = _clock()
    legal_mask(state, mask)
    u = _clock()
    count = nonzero_indices(mask, legal)
    _tally(ticks, calls, P_LEGAL, u - t)
    _tally(ticks, calls, P_LIST, _clock() - u)
    return count


@njit(cache=True)
def _timed_descent(
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
    ticks,
    calls,
):
    """``search._descend`` with each piece timed into ``ticks`` (and counted in ``calls``)."""
    player = root[H_CURRENT]
    t = _clock()
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
    u = _clock()
    _tally(ticks, calls, P_ROOT, u - t)
    if action < 0:
        return -1, 0, size
    start_simulation(root, player, resample, rng, sim, sim_rng, determinize)
    t = _clock()
    _tally(ticks, calls, P_START, t - u)
    node = path[0]
    depth = 1
    while True:
        t = _clock()
        apply_action(sim, action, sim_rng)
        u = _clock()
        _tally(ticks, calls, P_APPLY, u - t)
        child = children[node, action]
        if child == UNTRIED:
            child = size
            _new_node(child, children, visits, values, priors)
            children[node, action] = child
            path[depth] = child
            t = _clock()
            _tally(ticks, calls, P_NODE, t - u)
            return child, depth + 1, size + 1
        node = child
        path[depth] = node
        depth += 1
        if not running(sim):
            return node, depth, size
        count = _timed_legal_list(sim, mask, legal, legal_mask, ticks, calls)
        t = _clock()
        action = _puct_action(
            node, legal, count, sim[H_CURRENT], settings[S_C_PUCT], children, visits, values, priors
        )
        _tally(ticks, calls, P_PUCT, _clock() - t)


@njit(cache=True)
def state_over(state, result, returns):
    """``search._leaf_input``'s first half: at the end of the game (or cut off) every seat's value
    into ``result`` and True; else False."""
    if state[H_TERMINAL] != 0:
        returns(state, result)
        return True
    if truncated(state):
        result[:] = 0.0
        return True
    return False


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
        TICKS,
        TICKS,
        STATS,
    ),
    cache=True,
)
def timed_search(
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
    ticks,
    calls,
    leaves,
):
    """:func:`gumbel_search` without rollouts (``rollout`` unused), every piece of its simulations
    timed into ``ticks`` (cycles, one row per piece of :data:`PIECES`; ``calls`` counts them) and
    its leaves described in ``leaves`` (sums, the ``L_*`` entries); return the chosen action."""
    start = _clock()
    simulations = np.int64(settings[S_SIMULATIONS])
    num_actions = children.shape[1]
    n = root[H_NUM_PLAYERS]
    mask = np.zeros(num_actions, np.int8)
    root_mask = np.zeros(num_actions, np.int8)
    legal = legal_mask(root, root_mask)
    obs = np.zeros(shapes[0, 0] - MAX_SEATS, np.float32)
    x = np.zeros(shapes[0, 0], np.float32)
    legal_actions = np.zeros(num_actions, np.int32)
    scratch = np.zeros((2, shapes.max()), np.float32)
    logits = np.zeros(num_actions, np.float32)
    relative = np.zeros(MAX_SEATS, np.float32)
    result = np.zeros(n, np.float32)
    observe_into(root, root[H_CURRENT], obs)
    network_input(obs, n, x)
    root_logits = np.zeros(num_actions, np.float32)
    forward(params, shapes, x, scratch, root_logits, relative)
    inputs, units = _nonzero_share(x, scratch[0, : shapes[0, 1]])
    leaves[L_ROOTS] += 1
    leaves[L_ROOT_INPUTS] += inputs
    leaves[L_ROOT_UNITS] += units
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
        ticks[WHOLE] += _clock() - start
        return only
    sigma = np.zeros(num_actions, np.float64)
    scores = np.zeros(num_actions, np.float64)
    root_legal = np.zeros(num_actions, np.int32)
    root_count = _root_legal(root_mask, root_legal, sigma, scores)
    sim = np.empty(root.shape[0], np.int32)
    sim_rng = np.empty(1, np.uint64)
    path = np.zeros(simulations + 1, np.int64)
    size = 1
    loop = _clock()
    for k in range(simulations):
        leaf, depth, size = _timed_descent(
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
            ticks,
            calls,
        )
        if leaf < 0:
            break
        leaves[L_SIMULATIONS] += 1
        leaves[L_DEPTH] += depth - 1
        # search._leaf_input, its pieces timed apart.
        count = 0
        if state_over(sim, result, returns):
            pass
        else:
            count = _timed_legal_list(sim, mask, legal_actions, legal_mask, ticks, calls)
            t = _clock()
            n_obs = x.shape[0] - MAX_SEATS
            observe_into(sim, sim[H_CURRENT], x[:n_obs])
            count_input(n_obs, sim[H_NUM_PLAYERS], x)
            _tally(ticks, calls, P_OBSERVE, _clock() - t)
        if count > 0:
            t = _clock()
            forward_legal(params, shapes, x, scratch, legal_actions, count, logits, relative)
            u = _clock()
            _leaf_output(sim, leaf, legal_actions, count, logits, relative, result, priors)
            _tally(ticks, calls, P_NETWORK, u - t)
            _tally(ticks, calls, P_PRIORS, _clock() - u)
            inputs, units = _nonzero_share(x, scratch[0, : shapes[0, 1]])
            leaves[L_EVALUATED] += 1
            leaves[L_LEGAL] += count
            leaves[L_INPUTS] += inputs
            leaves[L_UNITS] += units
        t = _clock()
        backup(path, depth, result, visits, values)
        _tally(ticks, calls, P_BACKUP, _clock() - t)
    ticks[LOOP] += _clock() - loop
    action = _root_finish(
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
    ticks[WHOLE] += _clock() - start
    return action


@njit(types.int64(), cache=True)
def read_clock():
    """The cycle counter, read once (from Python: its rate is measured against ``perf_counter``)."""
    return _clock()


@njit(types.float64(types.int64), cache=True)
def empty_piece(repeats):
    """Cycles an empty piece measures (two reads back to back, the first's cost inside), the
    fastest of ``repeats``: taken off every timed piece's calls."""
    best = np.inf
    for _ in range(repeats):
        t = _clock()
        u = _clock()
        best = min(best, np.float64(u - t))
    return best


def cycle_rate() -> float:
    """Cycles of the counter per second, measured against ``time.perf_counter`` over 0.2 s."""
    start_ticks, start = read_clock(), time.perf_counter()
    while time.perf_counter() - start < 0.2:
        pass
    return (read_clock() - start_ticks) / (time.perf_counter() - start)


def profile(game_id: str, simulations: int, count: int, repeats: int) -> dict:
    """Microseconds per simulation of the whole search, of the timed copy and of each piece in it,
    and the leaves' statistics (see the module doc)."""
    spec = envs.spec(game_id)
    path = shipped_network_path(game_id)
    network = read_network(path) if path.is_file() else random_network(game_id, (256, 256))
    roots = positions(game_id, network.player_counts[0], count)
    determinize = spec.determinize or no_determinize
    resample = spec.determinize is not None
    rollout = tuned_rollout(game_id)
    settings = SearchSettings(simulations=simulations).as_array()
    children, visits, values, priors = trees(count, simulations + 1, spec.num_actions)
    policy = np.zeros(spec.num_actions, np.float32)
    kernels = (spec.legal_mask, spec.apply_action, spec.returns, spec.observe_into, determinize, rollout)

    def plain():
        for p in range(count):
            gumbel_search(
                roots[p],
                settings,
                resample,
                make_rng(p),
                network.params,
                network.shapes,
                children[p],
                visits[p],
                values[p],
                priors[p],
                policy,
                *kernels,
            )

    def timed(ticks, calls, leaves):
        for p in range(count):
            timed_search(
                roots[p],
                settings,
                resample,
                make_rng(p),
                network.params,
                network.shapes,
                children[p],
                visits[p],
                values[p],
                priors[p],
                policy,
                *kernels,
                ticks,
                calls,
                leaves,
            )

    plain()  # compiled and warm
    rate = cycle_rate()
    best_plain, best_timed, kept = np.inf, np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        plain()
        best_plain = min(best_plain, time.perf_counter() - start)
        ticks, calls, leaves = (
            np.zeros(WHOLE + 1, np.int64),
            np.zeros(len(PIECES), np.int64),
            np.zeros(L_ROOT_UNITS + 1, np.float64),
        )
        start = time.perf_counter()
        timed(ticks, calls, leaves)
        elapsed = time.perf_counter() - start
        if elapsed < best_timed:
            best_timed, kept = elapsed, (ticks, calls, leaves)
    ticks, calls, leaves = kept
    sims = leaves[L_SIMULATIONS]
    bias = empty_piece(10_000)
    micro = 1e6 / rate / sims  # microseconds per simulation of a tick count
    out = {"search": best_plain * 1e6 / sims, "timed": best_timed * 1e6 / sims}
    for k, name in enumerate(PIECES):
        out[name] = max(0.0, ticks[k] - calls[k] * bias) * micro
    out["call"] = out["timed"] - ticks[WHOLE] * micro
    out["per search"] = (ticks[WHOLE] - ticks[LOOP]) * micro
    out["rest"] = out["search"] - out["call"] - out["per search"] - sum(out[name] for name in PIECES)
    out["depth"] = leaves[L_DEPTH] / sims
    evaluated = max(leaves[L_EVALUATED], 1)
    n_input, n_units = int(network.shapes[0, 0]), int(network.shapes[0, 1])
    out["leaf legal"] = leaves[L_LEGAL] / evaluated
    out["leaf inputs"] = leaves[L_INPUTS] / evaluated / n_input
    out["leaf units"] = leaves[L_UNITS] / evaluated / n_units
    out["root inputs"] = leaves[L_ROOT_INPUTS] / leaves[L_ROOTS] / n_input
    out["root units"] = leaves[L_ROOT_UNITS] / leaves[L_ROOTS] / n_units
    out["evaluated"] = leaves[L_EVALUATED] / sims
    return out


COLUMNS = (
    "search",
    "timed",
    *PIECES,
    "per search",
    "call",
    "rest",
    "depth",
    "evaluated",
    "leaf legal",
    "leaf inputs",
    "root inputs",
    "leaf units",
    "root units",
)


def main(argv: list[str] = None) -> int:
    """Print, per game, a simulation's microseconds as a whole and piece by piece inside the search."""
    parser = simulation_arguments(__doc__)
    args = parser.parse_args(argv)
    games = chosen_games(parser, args.games)
    simulations, count, repeats = (
        (8, 4, 1) if args.quick else (args.simulations, args.positions, args.repeats)
    )
    print(
        f"CPU: {cpu_name()}; 1-minute load {os.getloadavg()[0]:.2f}; {simulations} simulations, {count} positions"
    )
    print(
        "microseconds per simulation (search, timed, the pieces, per search, rest); the leaves: mean depth, share "
        "evaluated by the network, legal actions, share of non-zero inputs and first-layer units (leaf and root)"
    )
    print(f"{'game':<22} " + " ".join(f"{name:>{max(7, len(name))}}" for name in COLUMNS))
    for game_id in games:
        out = profile(game_id, simulations, count, repeats)
        print(
            f"{game_id:<22} " + " ".join(f"{out[name]:{max(7, len(name))}.2f}" for name in COLUMNS),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
