"""Where a simulation of the learned search spends its time, measured inside the search itself.

    python -m monster_zoo.benchmarks.az_in_search                       # every game
    python -m monster_zoo.benchmarks.az_in_search --games monster_arena-v0,monstargh-v0
    python -m monster_zoo.benchmarks.az_in_search --quick               # a smoke test; numbers mean little

:mod:`monster_zoo.benchmarks.az_simulation` times each kernel of a simulation alone, in a loop over
root positions. This one times the search's own parts where the search runs them:
:func:`timed_search` calls the parts of :func:`~monster_zoo.agents.az.search.belief_gumbel_search`
(``_root_prepare``, ``_descend``, ``_leaf_input``, ``forward_legal``, ``_leaf_output``,
``_finish_simulation``, ``_root_finish``) in the search's order with the CPU's cycle counter read
around each, so it chooses what the search chooses (``tests/test_az_benchmarks.py`` holds it to
that, to the bit) and every part is timed on the leaves the search really reaches, with the tree
and the network sharing the caches as they do in play.

Per game, over ``--positions`` live positions at its smallest player count (the positions of
:func:`~monster_zoo.benchmarks.az_simulation.positions`) with its shipped network, searched with
``--simulations`` and no rollouts, it prints the microseconds per simulation of:

- **search**: the plain :func:`gumbel_search`, whole, called from Python once a position (the
  fastest of ``--repeats``), as ``az_simulation`` times it;
- **timed**: :func:`timed_search`, whole: the search plus the counter's reads;
- each part, summed over a simulation, less one empty part's cycles a call (two reads back to
  back): ``descent`` (``_descend``: the root's action by sequential halving, the copy of the root
  redealt, every action down the tree with the legal masks and PUCT below the root, the new node),
  ``leaf input`` (``_leaf_input``: the leaf's legal actions and its observation), ``network``
  (``forward_legal``), ``priors`` (``_leaf_output``), ``backup`` (``_finish_simulation``);
- ``per search``: what runs once a search, inside numba (its arrays, the root's pass, preparation
  and the improved policy), spread over its simulations; ``call``: Python's call into numba (the
  timed search's whole less its time inside), spread likewise (self-play calls numba once a move
  for all its games, so it pays this once for 32 or 64 searches); ``rest``: **search** less all
  of the above (the loop's own work between the parts, less the counter's reads where they
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
from monster_zoo.agents.az.search import (
    CHILDREN,
    COUNTS,
    PRIORS,
    S_ROLLOUT,
    S_SIMULATIONS,
    SETTINGS,
    VALUES,
    SearchSettings,
    _descend,
    _finish_simulation,
    _leaf_input,
    _leaf_output,
    _root_finish,
    _root_legal,
    _root_prepare,
    gumbel_search,
    trees,
)
from monster_zoo.agents.az.shipped import shipped_network_path
from monster_zoo.agents.network import (
    MAX_SEATS,
    PARAMS,
    SHAPES,
    forward,
    forward_legal,
    network_input,
    random_network,
    read_network,
)
from monster_zoo.agents.search.tree import no_determinize
from monster_zoo.agents.search.tuned import tuned_rollout
from monster_zoo.benchmarks.az_forward import chosen_games
from monster_zoo.benchmarks.az_simulation import positions, simulation_arguments
from monster_zoo.envs.core.contract import (
    APPLY_ACTION_T,
    DETERMINIZE_T,
    FLOATS,
    H_CURRENT,
    H_NUM_PLAYERS,
    LEGAL_MASK_T,
    OBSERVE_T,
    POLICY_T,
    RETURNS_T,
    RNG,
    STATE,
)
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.evaluation.host import cpu_name

# The parts' rows of the ``ticks`` and ``calls`` arrays, in the order printed.
PARTS = ("descent", "leaf input", "network", "priors", "backup")
P_DESCENT, P_LEAF, P_NETWORK, P_PRIORS, P_BACKUP = range(len(PARTS))
# Rows of ``ticks`` past the parts': a search's loop of simulations, and the whole search.
LOOP, WHOLE = len(PARTS), len(PARTS) + 1
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
def _tally(ticks, calls, part, cycles):
    """Count one call of ``part`` that took ``cycles``."""
    ticks[part] += cycles
    calls[part] += 1


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
    """:func:`gumbel_search` from its own parts, each part of its simulations timed into ``ticks``
    (cycles, one row per part of :data:`PARTS`; ``calls`` counts them) and its leaves described
    in ``leaves`` (sums, the ``L_*`` entries); return the chosen action. The arrays and the calls
    are :func:`~monster_zoo.agents.az.search.belief_gumbel_search`'s without a belief."""
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
    rolled = np.zeros(n, np.float32)
    particles = np.empty((0, root.shape[0]), np.int32)
    cumulative = np.empty(0, np.float64)
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
        t = _clock()
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
        u = _clock()
        _tally(ticks, calls, P_DESCENT, u - t)
        if leaf < 0:
            break
        leaves[L_SIMULATIONS] += 1
        leaves[L_DEPTH] += depth - 1
        count = _leaf_input(sim, mask, legal_actions, x, result, legal_mask, returns, observe_into)
        t = _clock()
        _tally(ticks, calls, P_LEAF, t - u)
        if count > 0:
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
def empty_part(repeats):
    """Cycles an empty part measures (two reads back to back, the first's cost inside), the
    fastest of ``repeats``: taken off every timed part's calls."""
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
    """Microseconds per simulation of the whole search, of the timed search and of each part in
    it, and the leaves' statistics (see the module doc)."""
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
            np.zeros(len(PARTS), np.int64),
            np.zeros(L_ROOT_UNITS + 1, np.float64),
        )
        start = time.perf_counter()
        timed(ticks, calls, leaves)
        elapsed = time.perf_counter() - start
        if elapsed < best_timed:
            best_timed, kept = elapsed, (ticks, calls, leaves)
    ticks, calls, leaves = kept
    sims = leaves[L_SIMULATIONS]
    bias = empty_part(10_000)
    micro = 1e6 / rate / sims  # microseconds per simulation of a tick count
    out = {"search": best_plain * 1e6 / sims, "timed": best_timed * 1e6 / sims}
    for k, name in enumerate(PARTS):
        out[name] = max(0.0, ticks[k] - calls[k] * bias) * micro
    out["call"] = out["timed"] - ticks[WHOLE] * micro
    out["per search"] = (ticks[WHOLE] - ticks[LOOP]) * micro
    out["rest"] = out["search"] - out["call"] - out["per search"] - sum(out[name] for name in PARTS)
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
    *PARTS,
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
    """Print, per game, a simulation's microseconds as a whole and part by part inside the search."""
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
        "microseconds per simulation (search, timed, the parts, per search, call, rest); the leaves: mean depth, share "
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
