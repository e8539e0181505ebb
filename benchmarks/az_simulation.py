"""What one simulation of the learned search costs, piece by piece, per game.

    python -m monster_zoo.benchmarks.az_simulation                      # every game
    python -m monster_zoo.benchmarks.az_simulation --games monster_arena-v0 --simulations 64
    python -m monster_zoo.benchmarks.az_simulation --quick              # a smoke test; numbers mean little

For each game, over ``--positions`` live positions at its smallest player count (random play from
the start), with the game's shipped network (a random 256x256 one where none ships):

- **search**: a whole :func:`~monster_zoo.agents.az.search.gumbel_search` of ``--simulations``,
  without rollouts and with the rollout weight the game's shipped ``az`` plays with (where it has
  one), in microseconds per simulation, called from a numba loop over the positions (called from
  Python once a position, the call into numba adds 2.0-2.4 us a simulation that self-play does not
  pay); and the mean depth of its leaves (actions applied per
  simulation);
- **pieces**: each piece a simulation runs, timed alone in a numba loop over the same positions
  (microseconds per call): the root's copy and redeal (``start_simulation``), the root's
  scoring (``_root_scores`` and ``_root_action``, once per simulation) and PUCT (``_puct_action``)
  on the tree that search left (PUCT with the legal list made from the mask first, as below the
  root), ``legal_mask``, ``apply_action`` (on a copy; the copy's own cost subtracted), the leaf's
  input (``_leaf_input``: its legal list, observation and player count; ``legal_mask`` subtracted),
  the network (``forward_legal``: the legal actions' logits), the leaf's priors (the legal list and ``_legal_softmax``), a new node,
  the backup, and a rollout from the position to the end of its game;
- **sum**: the pieces as a simulation of that mean depth calls them (one copy and redeal, one root
  scoring, ``depth`` actions, ``depth - 1`` PUCT choices and legal masks below the root and one at
  the leaf, one input, network pass, priors, new node and backup), to compare with the whole.

Each figure is the fastest of ``--repeats`` timings, on one thread; the CPU and the 1-minute load
are printed, since a shared machine moves every figure. Run it before and after a change to the
search to see where a simulation's time goes.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np
from numba import njit, types

from monster_zoo import envs
from monster_zoo.agents.az.search import (
    SETTINGS,
    SearchSettings,
    _leaf_input,
    _legal_softmax,
    _new_node,
    _puct_action,
    _root_action,
    _root_scores,
    gumbel_search,
    trees,
)
from monster_zoo.agents.az.shipped import play_settings, shipped_network_path
from monster_zoo.agents.network import (
    MAX_SEATS,
    PARAMS,
    SHAPES,
    forward,
    forward_legal,
    network_input,
    nonzero_indices,
    random_network,
    read_network,
)
from monster_zoo.agents.search.evaluator import rollout_returns
from monster_zoo.agents.search.tree import UNTRIED, backup, start_simulation
from monster_zoo.agents.search.tuned import tuned_rollout
from monster_zoo.benchmarks.az_forward import chosen_games
from monster_zoo.envs.core.batch import INTS, RNGS, STATES, random_playout
from monster_zoo.envs.core.contract import (
    APPLY_ACTION_T,
    DETERMINIZE_T,
    FLOATS,
    H_CURRENT,
    H_NUM_PLAYERS,
    LEGAL_MASK_T,
    MASK,
    OBSERVE_T,
    POLICY_T,
    RETURNS_T,
    RNG,
    STATE,
)
from monster_zoo.envs.core.header import running
from monster_zoo.envs.core.kernels import copy_vector
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.evaluation.host import cpu_name

PIECES = (
    "copy+redeal",
    "root scoring",
    "puct",
    "legal_mask",
    "apply_action",
    "leaf input",
    "network",
    "priors",
    "new node",
    "backup",
    "rollout",
)


# --- the pieces, each looped over the positions in numba ----------------------------------------
# The loops that call the game's kernels take them as first-class functions of the contract's
# types (explicit signatures), as the search does: typed by dispatcher instead, a cached loop
# failed in a process where an earlier dispatcher had been collected ("underlying object has
# vanished").
@njit(
    types.void(
        STATES,
        SETTINGS,
        types.boolean,
        RNGS,
        PARAMS,
        SHAPES,
        types.int32[:, :, ::1],
        types.int32[:, ::1],
        types.float64[:, :, ::1],
        types.float32[:, :, ::1],
        FLOATS,
        LEGAL_MASK_T,
        APPLY_ACTION_T,
        RETURNS_T,
        OBSERVE_T,
        DETERMINIZE_T,
        POLICY_T,
    ),
    cache=True,
)
def _time_search(
    roots,
    settings,
    resample,
    rngs,
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
    """A search from each position, called from numba: Python's call into numba (130-155 us a
    search) is left out, as self-play pays it once a move for all
    its games."""
    for p in range(roots.shape[0]):
        gumbel_search(
            roots[p],
            settings,
            resample,
            rngs[p],
            params,
            shapes,
            children[p],
            visits[p],
            values[p],
            priors[p],
            policy,
            legal_mask,
            apply_action,
            returns,
            observe_into,
            determinize,
            rollout,
        )


@njit(types.void(STATES, RNG, STATE, RNG, DETERMINIZE_T, types.int64), cache=True)
def _time_start(roots, rng, sim, sim_rng, determinize, loops):
    for _ in range(loops):
        for p in range(roots.shape[0]):
            start_simulation(roots[p], roots[p][H_CURRENT], True, rng, sim, sim_rng, determinize)


@njit(cache=True)
def _time_copy(roots, sim, loops):
    for _ in range(loops):
        for p in range(roots.shape[0]):
            copy_vector(sim, roots[p])


@njit(types.void(STATES, INTS, RNG, STATE, APPLY_ACTION_T, types.int64), cache=True)
def _time_apply(roots, actions, rng, sim, apply_action, loops):
    for _ in range(loops):
        for p in range(roots.shape[0]):
            copy_vector(sim, roots[p])
            apply_action(sim, actions[p], rng)


@njit(types.void(STATES, MASK, LEGAL_MASK_T, types.int64), cache=True)
def _time_legal(roots, mask, legal_mask, loops):
    for _ in range(loops):
        for p in range(roots.shape[0]):
            legal_mask(roots[p], mask)


@njit(
    types.void(
        STATES, MASK, types.int32[::1], FLOATS, FLOATS, LEGAL_MASK_T, RETURNS_T, OBSERVE_T, types.int64
    ),
    cache=True,
)
def _time_input(roots, mask, legal, x, result, legal_mask, returns, observe_into, loops):
    """The leaf's evaluation input (its legal mask and list, observation and count), less the
    legal mask timed on its own."""
    for _ in range(loops):
        for p in range(roots.shape[0]):
            _leaf_input(roots[p], mask, legal, x, result, legal_mask, returns, observe_into)


@njit(cache=True)
def _time_forward(params, shapes, xs, scratch, legal, counts, logits, values, loops):
    """The leaf's pass: its legal actions' logits only (``forward_legal``), as the search makes it."""
    for _ in range(loops):
        for p in range(xs.shape[0]):
            forward_legal(params, shapes, xs[p], scratch, legal[p], counts[p], logits, values)


@njit(cache=True)
def _time_softmax(logits, masks, legal, out, loops):
    for _ in range(loops):
        for p in range(masks.shape[0]):
            count = nonzero_indices(masks[p], legal)
            _legal_softmax(logits[p], legal, count, out)


@njit(cache=True)
def _time_tree(
    legal, counts, seats, settings, logits, probs, noise, children, visits, values, sigma, scores, loops
):
    """Root scoring on each position's finished tree (the root's legal list made once per search,
    not timed); returns a checksum (kept live)."""
    check = 0
    for _ in range(loops):
        for p in range(legal.shape[0]):
            _root_scores(
                legal[p],
                counts[p],
                logits[p],
                probs[p],
                noise,
                0.0,
                seats[p],
                settings[4],
                settings[5],
                settings[6],
                children[p],
                visits[p],
                values[p],
                sigma,
                scores,
            )
            check += _root_action(legal[p], counts[p], 1, scores, children[p], visits[p])
    return check


@njit(cache=True)
def _time_puct(masks, legal, seats, c_puct, children, visits, values, priors, loops):
    """PUCT at each position's root node, its legal list made from the mask first (as below the root)."""
    check = 0
    for _ in range(loops):
        for p in range(masks.shape[0]):
            count = nonzero_indices(masks[p], legal)
            check += _puct_action(
                0, legal, count, seats[p], c_puct, children[p], visits[p], values[p], priors[p]
            )
    return check


@njit(cache=True)
def _time_new_node(children, visits, values, priors, loops):
    for _ in range(loops):
        for node in range(1, children.shape[0]):
            _new_node(node, children, visits, values, priors)


@njit(cache=True)
def _time_backup(path, depth, result, visits, values, loops):
    for _ in range(loops):
        backup(path, depth, result, visits, values)


@njit(
    types.void(
        STATES, RNG, STATE, MASK, FLOATS, LEGAL_MASK_T, APPLY_ACTION_T, RETURNS_T, POLICY_T, types.int64
    ),
    cache=True,
)
def _time_rollout(roots, rng, sim, mask, out, legal_mask, apply_action, returns, policy, loops):
    for _ in range(loops):
        for p in range(roots.shape[0]):
            copy_vector(sim, roots[p])
            rollout_returns(sim, rng, mask, out, legal_mask, apply_action, returns, policy)


@njit(cache=True)
def _mean_leaf_depth(children, size):
    """The mean depth (actions from the root) of the nodes 1..size-1 of a tree: the actions a
    simulation applies, on average, to reach the node it adds."""
    depth = np.zeros(children.shape[0], np.int64)
    total = 0
    for node in range(size):
        for a in range(children.shape[1]):
            child = children[node, a]
            if child != UNTRIED:
                depth[child] = depth[node] + 1
    for node in range(1, size):
        total += depth[node]
    return total / max(size - 1, 1)


def fastest(run: Callable[[], object], calls: int, repeats: int) -> float:
    """Microseconds per call of ``run()`` (which makes ``calls`` calls), the fastest of ``repeats``."""
    run()  # compiled and warm
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best * 1e6 / calls


def positions(game_id: str, num_players: int, count: int) -> np.ndarray:
    """``count`` live positions of ``game_id`` after 0 to 40 random actions from the start."""
    spec = envs.spec(game_id)
    config = envs.config(game_id, {"num_players": num_players})
    found, seed = [], 0
    while len(found) < count:
        state = random_playout(spec, config, (7 * seed) % 41, seed)[0]
        seed += 1
        if running.py_func(state):
            found.append(state.copy())
    return np.stack(found)


def profile(game_id: str, simulations: int, count: int, repeats: int, loops: int) -> dict:
    """Microseconds per simulation of the whole search (without rollouts, and with the shipped
    rollout weight), the mean leaf depth, and each piece's microseconds per call."""
    spec = envs.spec(game_id)
    path = shipped_network_path(game_id)
    network = read_network(path) if path.is_file() else random_network(game_id, (256, 256))
    roots = positions(game_id, network.player_counts[0], count)
    num_actions = spec.num_actions
    rollout = tuned_rollout(game_id)
    determinize = spec.determinize
    resample = determinize is not None
    if determinize is None:
        from monster_zoo.agents.search.tree import no_determinize as determinize
    children, visits, values, priors = trees(count, simulations + 1, num_actions)
    policy = np.zeros(num_actions, np.float32)
    out = {}

    def search(weight):
        settings = SearchSettings(simulations=simulations, rollout_weight=weight).as_array()
        rngs = np.stack([make_rng(p) for p in range(count)])

        def run():
            _time_search(
                roots,
                settings,
                resample,
                rngs,
                network.params,
                network.shapes,
                children,
                visits,
                values,
                priors,
                policy,
                spec.legal_mask,
                spec.apply_action,
                spec.returns,
                spec.observe_into,
                determinize,
                rollout,
            )

        return fastest(run, count * simulations, repeats)

    out["search"] = search(0.0)
    shipped_weight = play_settings(game_id).rollout_weight
    out["search, rollout weight"] = search(shipped_weight) if shipped_weight > 0 else None
    out["rollout weight"] = shipped_weight
    sizes = [1 + int((children[p] != UNTRIED).sum()) for p in range(count)]  # the trees of the last search
    out["depth"] = float(np.mean([_mean_leaf_depth(children[p], sizes[p]) for p in range(count)]))

    settings = SearchSettings(simulations=simulations).as_array()
    masks = np.zeros((count, num_actions), np.int8)
    for p in range(count):
        spec.legal_mask(roots[p], masks[p])
    actions = np.array([np.flatnonzero(m)[0] for m in masks], np.int64)
    seats = roots[:, H_CURRENT].astype(np.int64)
    obs = np.zeros((count, spec.obs_size), np.float32)
    xs = np.zeros((count, spec.obs_size + MAX_SEATS), np.float32)
    for p in range(count):
        spec.observe_into(roots[p], int(seats[p]), obs[p])
        network_input(obs[p], int(roots[p][H_NUM_PLAYERS]), xs[p])
    logits = np.zeros((count, num_actions), np.float32)
    value_row = np.zeros(MAX_SEATS, np.float32)
    sim, sim_rng, rng = np.empty(spec.state_size, np.int32), np.empty(1, np.uint64), make_rng(7)
    mask = np.zeros(num_actions, np.int8)
    calls = count * loops
    for p in range(count):
        forward(network.params, network.shapes, xs[p], network.scratch(), logits[p], value_row)
    copy = fastest(lambda: _time_copy(roots, sim, loops), calls, repeats)
    out["copy+redeal"] = fastest(
        lambda: _time_start(roots, rng, sim, sim_rng, determinize, loops), calls, repeats
    )
    out["apply_action"] = max(
        0.0,
        fastest(lambda: _time_apply(roots, actions, rng, sim, spec.apply_action, loops), calls, repeats)
        - copy,
    )
    out["legal_mask"] = fastest(lambda: _time_legal(roots, mask, spec.legal_mask, loops), calls, repeats)
    legal = np.zeros((count, num_actions), np.int32)
    counts = np.array([nonzero_indices(masks[p], legal[p]) for p in range(count)], np.int64)
    result = np.zeros(roots[0][H_NUM_PLAYERS], np.float32)
    out["leaf input"] = max(
        0.0,
        fastest(
            lambda: _time_input(
                roots,
                mask,
                legal[0].copy(),
                xs[0].copy(),
                result,
                spec.legal_mask,
                spec.returns,
                spec.observe_into,
                loops,
            ),
            calls,
            repeats,
        )
        - out["legal_mask"],
    )
    out["network"] = fastest(
        lambda: _time_forward(
            network.params,
            network.shapes,
            xs,
            network.scratch(),
            legal,
            counts,
            logits[0].copy(),
            value_row,
            loops,
        ),
        calls,
        repeats,
    )
    out["priors"] = fastest(
        lambda: _time_softmax(logits, masks, legal[0].copy(), policy, loops), calls, repeats
    )
    probs, noise = np.zeros((count, num_actions), np.float32), np.zeros(num_actions)
    sigma, scores = np.zeros(num_actions), np.zeros(num_actions)
    out["root scoring"] = fastest(
        lambda: _time_tree(
            legal,
            counts,
            seats,
            settings,
            logits,
            probs,
            noise,
            children,
            visits,
            values,
            sigma,
            scores,
            loops,
        ),
        calls,
        repeats,
    )
    out["puct"] = fastest(
        lambda: _time_puct(masks, legal[0].copy(), seats, 1.25, children, visits, values, priors, loops),
        calls,
        repeats,
    )
    spare = [array[0] for array in trees(1, simulations + 1, num_actions)]  # one tree's arrays
    out["new node"] = fastest(lambda: _time_new_node(*spare, loops), loops * simulations, repeats)
    path_nodes = np.arange(8, dtype=np.int64)
    out["backup"] = fastest(
        lambda: _time_backup(path_nodes, 1 + round(out["depth"]), result, spare[1], spare[2], calls),
        calls,
        repeats,
    )
    rolled = np.zeros(roots[0][H_NUM_PLAYERS], np.float32)
    out["rollout"] = fastest(
        lambda: _time_rollout(
            roots, rng, sim, mask, rolled, spec.legal_mask, spec.apply_action, spec.returns, rollout, 1
        ),
        count,
        repeats,
    )
    depth = out["depth"]
    out["sum"] = (
        out["copy+redeal"]
        + out["root scoring"]
        + depth * out["apply_action"]
        + (depth - 1) * (out["puct"] + out["legal_mask"])
        + out["legal_mask"]
        + out["leaf input"]
        + out["network"]
        + out["priors"]
        + out["new node"]
        + out["backup"]
    )
    return out


def int_at_least_1(text: str) -> int:
    """argparse type: an integer of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def simulation_arguments(doc: str) -> argparse.ArgumentParser:
    """The command line of the simulation benchmarks (this one and ``az_in_search``), described by
    the first paragraph of ``doc``: games, simulations, positions, repeats, quick."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--games", default="all", help="comma-separated game ids (default: all)")
    parser.add_argument(
        "--simulations", type=int_at_least_1, default=64, help="simulations per search (default 64)"
    )
    parser.add_argument(
        "--positions", type=int_at_least_1, default=32, help="positions per game (default 32)"
    )
    parser.add_argument(
        "--repeats", type=int_at_least_1, default=5, help="timings, the fastest kept (default 5)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="4 positions, 8 simulations, 1 timing: a smoke test"
    )
    return parser


def main(argv: list[str] = None) -> int:
    """Print, per game, a simulation's microseconds as a whole and piece by piece."""
    parser = simulation_arguments(__doc__)
    args = parser.parse_args(argv)
    games = chosen_games(parser, args.games)
    simulations, count, repeats, loops = (
        (8, 4, 1, 2) if args.quick else (args.simulations, args.positions, args.repeats, 50)
    )
    print(
        f"CPU: {cpu_name()}; 1-minute load {os.getloadavg()[0]:.2f}; {simulations} simulations, {count} positions"
    )
    print("microseconds per simulation (search, sum) and per call (the pieces)")
    print(
        f"{'game':<22} {'search':>7} {'+rollout':>8} {'depth':>5} {'sum':>6} "
        + " ".join(f"{name:>{max(7, len(name))}}" for name in PIECES)
    )
    for game_id in games:
        out = profile(game_id, simulations, count, repeats, loops)
        with_rollouts = out["search, rollout weight"]
        rolled = f"{with_rollouts:8.2f}" if with_rollouts is not None else f"{'-':>8}"
        print(
            f"{game_id:<22} {out['search']:7.2f} {rolled} "
            f"{out['depth']:5.2f} {out['sum']:6.2f} "
            + " ".join(f"{out[name]:{max(7, len(name))}.2f}" for name in PIECES),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
