"""How many decisions per second each game's greedy kernel makes on one thread.

    python -m monster_zoo.benchmarks.greedy_speed                       # every game, smallest count
    python -m monster_zoo.benchmarks.greedy_speed --games marry_the_monster-v0 --baseline main
    python -m monster_zoo.benchmarks.greedy_speed --quick               # a smoke test; numbers mean little

Per game, at its smallest player count (or ``--players``), ``--positions`` positions are reached by
seeded play in which each move is greedy's or a random legal one with even odds (what a trainer's
greedy opponents meet is of that kind), and the game's ``greedy_action`` kernel is timed over all of
them in one numba loop (no Python call per decision), ``--repeats`` times; the median gives
decisions per second and microseconds per decision.

With ``--baseline REV`` the greedy module of git revision ``REV`` (its ``envs/<game>/greedy.py``,
read with ``git show``, compiled beside today's rules and shared kernels) is timed over the same
positions in the same repeats, interleaved with today's, and the line adds its figures and
``speedup`` (baseline time / today's): a before/after measured under the same load. Both must decide
alike there: the run stops where they do not (``tests/test_greedy_decisions.py`` is the full check).

With ``--learner`` it also times the learner-seat games the trainers play (``--learner-envs`` games
of :class:`~monster_zoo.envs.core.selfplay.LearnerGames`, the learner's moves uniformly random,
``--learner-steps`` steps a repeat) against greedy opponents only and against random ones only, and
reports microseconds per learner decision of each and greedy's share of the greedy games' time
(what the greedy opponents' searches cost a trainer beside the rest of the games' work).

One JSON line per game: the CPU (``lscpu``'s model name), cores, the 1-minute load before and after,
positions, repeats and the figures.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import numpy as np
from numba import njit, types

from monster_zoo import envs
from monster_zoo.envs.core.contract import H_MAX_STEPS, H_STEPS, H_TERMINAL, POLICY_T
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.core.selfplay import LearnerGames
from monster_zoo.evaluation.host import host_facts

ROOT = Path(__file__).resolve().parents[1]
GREEDY_SHARE = 0.5  # share of the seeded play's moves that are greedy's


@njit(
    types.int64(types.int32[:, ::1], types.int8[:, ::1], types.uint64[::1], types.int64[::1], POLICY_T),
    cache=True,
)
def decide_all(states, masks, rng, out, policy):
    """``policy``'s action for every row of ``states`` (its generator ``rng``) into ``out``; returns
    their sum, so the loop cannot be dropped."""
    total = 0
    for i in range(states.shape[0]):
        out[i] = policy(states[i], masks[i], rng)
        total += out[i]
    return total


def greedy_module(game_id: str) -> ModuleType:
    """Today's greedy module of ``game_id``."""
    return importlib.import_module(envs.spec(game_id).baselines["greedy"].module)


def baseline_module(game_id: str, revision: str, folder: Path) -> ModuleType:
    """The greedy module of ``game_id`` as git revision ``revision`` has it, imported from a copy in
    ``folder`` as a sibling of today's (its relative imports reach today's rules and shared kernels)."""
    name = envs.spec(game_id).baselines["greedy"].module
    relative = Path(*name.split(".")[1:]).with_suffix(".py")
    try:
        source = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{revision}:{relative.as_posix()}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        raise SystemExit(
            f"cannot read {relative} at revision {revision!r}: "
            f"{getattr(error, 'stderr', '') or error}".strip()
        ) from error
    module_name = f"{name}_at_{''.join(ch if ch.isalnum() else '_' for ch in revision)}"
    path = folder / f"{module_name.rpartition('.')[2]}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def positions(game_id: str, players: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` (states, masks) of seeded play, half greedy's moves and half random ones."""
    spec = envs.spec(game_id)
    config = envs.config(game_id, {"num_players": players})
    greedy = greedy_module(game_id).greedy_action
    states = np.zeros((count, spec.state_size), np.int32)
    masks = np.zeros((count, spec.num_actions), np.int8)
    state = np.zeros(spec.state_size, np.int32)
    game_rng, greedy_rng, driver = make_rng(seed), make_rng(seed + 1), np.random.default_rng(seed)
    spec.init_state(state, config, game_rng)
    for i in range(count):
        spec.legal_mask(state, masks[i])
        states[i] = state
        if driver.random() < GREEDY_SHARE:
            action = greedy(state, masks[i], greedy_rng)
        else:
            action = int(driver.choice(np.flatnonzero(masks[i])))
        spec.apply_action(state, action, game_rng)
        if state[H_TERMINAL] != 0 or state[H_STEPS] >= state[H_MAX_STEPS]:
            spec.init_state(state, config, game_rng)
    return states, masks


def timed(kernel, states: np.ndarray, masks: np.ndarray, seed: int) -> tuple[float, np.ndarray]:
    """Seconds ``kernel`` takes over every position, and its actions."""
    out = np.zeros(states.shape[0], np.int64)
    rng = make_rng(seed)
    start = time.perf_counter()
    decide_all(states, masks, rng, out, kernel)
    return time.perf_counter() - start, out


def measure(
    game_id: str, players: int, count: int, repeats: int, seed: int, baseline: ModuleType | None
) -> dict:
    """One game's figures (today's and, with ``baseline``, the baseline's in the same repeats)."""
    states, masks = positions(game_id, players, count, seed)
    kernels = {"now": greedy_module(game_id).greedy_action}
    if baseline is not None:
        kernels["baseline"] = baseline.greedy_action
    for kernel in kernels.values():  # compiled and warm before timing
        timed(kernel, states[:8], masks[:8], seed)
    seconds: dict[str, list[float]] = {name: [] for name in kernels}
    for _ in range(repeats):
        actions = {}
        for name, kernel in kernels.items():
            elapsed, actions[name] = timed(kernel, states, masks, seed)
            seconds[name].append(elapsed)
        if baseline is not None and not np.array_equal(actions["now"], actions["baseline"]):
            first = int(np.flatnonzero(actions["now"] != actions["baseline"])[0])
            raise SystemExit(
                f"{game_id}: today's greedy and the baseline's decide differently at position {first}"
            )
    record: dict = {"game": game_id, "players": players, "positions": count, "repeats": repeats}
    for name, times in seconds.items():
        median = statistics.median(times)
        record[f"{name}_decisions_per_s"] = round(count / median, 1)
        record[f"{name}_us_per_decision"] = round(1e6 * median / count, 3)
    if baseline is not None:
        record["speedup"] = round(
            statistics.median(seconds["baseline"]) / statistics.median(seconds["now"]), 3
        )
    return record


class KernelOpponent:
    """A learner-games opponent played inside numba by ``policy_kernel`` (a ``POLICY_SIG`` kernel)."""

    def __init__(self, policy_kernel):
        self.policy_kernel = policy_kernel

    def act_batch(self, observations, masks, states):
        """Never called: an opponent with a ``policy_kernel`` is stepped inside numba."""
        raise NotImplementedError("a kernel opponent is stepped inside numba")


def random_legal(masks: np.ndarray, draws: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``masks``."""
    return np.argmax(np.where(masks != 0, draws.random(masks.shape), -1.0), axis=1)


def learner_decision_seconds(games: LearnerGames, steps: int, seed: int) -> float:
    """Seconds per learner decision over ``steps`` steps of ``games`` with random learner moves."""
    draws = np.random.default_rng(seed)
    _, masks = games.reset()
    start = time.perf_counter()
    for _ in range(steps):
        _, masks, *_ = games.step(random_legal(masks, draws))
    return (time.perf_counter() - start) / (steps * games.num_envs)


def learner_share(
    game_id: str, players: int, kernels: dict, envs_count: int, steps: int, repeats: int, seed: int
) -> dict:
    """Microseconds per learner decision against each opponent kernel of ``kernels`` and against
    random opponents, medians of ``repeats`` interleaved runs, and each kernel's share of its games' time."""
    config = envs.config(game_id, {"num_players": players})
    pools = {"random": None, **{name: [KernelOpponent(kernel)] for name, kernel in kernels.items()}}
    games = {
        name: LearnerGames(envs.spec(game_id), config, envs_count, opponents=pool, seed=seed)
        for name, pool in pools.items()
    }
    for name in games:  # compiled and warm before timing
        learner_decision_seconds(games[name], 2, seed)
    seconds: dict[str, list[float]] = {name: [] for name in games}
    for k in range(repeats):
        for name in games:
            seconds[name].append(learner_decision_seconds(games[name], steps, seed + k))
    medians = {name: statistics.median(times) for name, times in seconds.items()}
    record: dict = {
        "learner_envs": envs_count,
        "learner_steps": steps,
        "learner_us_vs_random": round(1e6 * medians["random"], 3),
    }
    for name in kernels:
        record[f"learner_us_vs_greedy_{name}"] = round(1e6 * medians[name], 3)
        record[f"greedy_share_{name}"] = round(1.0 - medians["random"] / medians[name], 3)
    return record


def parse_args(argv=None) -> argparse.Namespace:
    """The command line (``--help``)."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.benchmarks.greedy_speed", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--games", default="all", help="comma-separated game ids, or 'all' (default)")
    parser.add_argument(
        "--players", type=int, default=None, help="player count (default: each game's smallest)"
    )
    parser.add_argument("--positions", type=int, default=2000, help="positions per game (default 2000)")
    parser.add_argument(
        "--repeats", type=int, default=7, help="timed passes per kernel; the median counts (default 7)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the positions' play (default 0)")
    parser.add_argument(
        "--baseline",
        default=None,
        metavar="REV",
        help="also time the greedy modules of git revision REV, interleaved (e.g. main)",
    )
    parser.add_argument(
        "--learner",
        action="store_true",
        help="also time learner-seat games against greedy and against random opponents",
    )
    parser.add_argument("--learner-envs", type=int, default=512, help="learner games (default 512)")
    parser.add_argument("--learner-steps", type=int, default=40, help="learner steps a repeat (default 40)")
    parser.add_argument("--quick", action="store_true", help="200 positions, 3 repeats: a smoke test")
    args = parser.parse_args(argv)
    games = envs.available() if args.games == "all" else args.games.split(",")
    unknown = sorted(set(games) - set(envs.available()))
    if unknown:
        parser.error(f"unknown game {', '.join(unknown)}; valid: {', '.join(envs.available())}")
    args.games = games
    if args.quick:
        args.positions, args.repeats, args.learner_envs, args.learner_steps = 200, 3, 16, 4
    if min(args.positions, args.repeats, args.learner_envs, args.learner_steps) < 1:
        parser.error("--positions, --repeats, --learner-envs and --learner-steps must be at least 1")
    if args.seed < 0:
        parser.error("--seed must be a non-negative integer")
    for game_id in games:
        spec = envs.spec(game_id)
        if args.players is not None and not spec.min_players <= args.players <= spec.max_players:
            parser.error(f"--players {args.players}: {game_id} takes {spec.min_players}-{spec.max_players}")
    return args


def main(argv=None) -> int:
    """Print one JSON line per game."""
    args = parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        for game_id in args.games:
            players = args.players or envs.spec(game_id).min_players
            baseline = (
                None if args.baseline is None else baseline_module(game_id, args.baseline, Path(folder))
            )
            before = host_facts()
            record = measure(game_id, players, args.positions, args.repeats, args.seed, baseline)
            if args.learner:
                kernels = {"now": greedy_module(game_id).greedy_action}
                if baseline is not None:
                    kernels["baseline"] = baseline.greedy_action
                record.update(
                    learner_share(
                        game_id,
                        players,
                        kernels,
                        args.learner_envs,
                        args.learner_steps,
                        args.repeats,
                        args.seed,
                    )
                )
            line = {
                "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
                "cpu": before["cpu"],
                "cores": before["cores"],
                "load_1min_before": before["load_1min"],
                "load_1min_after": round(os.getloadavg()[0], 2),
                **({"baseline": args.baseline} if args.baseline else {}),
                **record,
            }
            print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
