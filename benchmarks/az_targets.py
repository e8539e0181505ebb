"""How fast expert iteration makes training targets, per game: decisions per second.

    python -m monster_zoo.benchmarks.az_targets                   # every game, 1 and 2 threads
    python -m monster_zoo.benchmarks.az_targets --games marry_the_monster-v0 --threads 1
    python -m monster_zoo.benchmarks.az_targets --threads 1 --parallel 32,64 --selfplay-games 128 --expert-games 0
    python -m monster_zoo.benchmarks.az_targets --quick           # a smoke test; numbers mean little

For each game it plays, at its smallest player count, with the same seeds in one run:

- **self-play**: the learned search over the game's shipped network (a random 256x256 one where
  none ships) at ``--simulations`` per move (default 64, the self-play budget so far) and
  ``--rollout-weight`` (default 0), at each count of ``--parallel`` games side by side
  (:func:`monster_zoo.training.az.selfplay.play_games`), one search per game (**self-play**) and
  the searches in lock step with their leaves evaluated as one batch (**batched**,
  ``batched_leaves=True``), every way and count interleaved over ``--repeats`` timings whose
  medians are printed, with ``batched / self-play`` and the tree arrays' memory per game;
- **expert**: the tuned search ``mcts`` at ``mcts-fast``'s budget, its root visits the targets
  (:func:`monster_zoo.training.az.expert.play_expert_games`); ``--expert-games 0`` leaves it out.

Each is timed at every ``--threads`` count (numba threads over the games), after an untimed
call that compiles that count's build of the kernels; the CPU (``lscpu``) and the 1-minute load are printed, since a
shared machine moves every figure. Run it before and after a change to compare.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

from monster_zoo import envs
from monster_zoo.agents.az.search import SearchSettings, trees
from monster_zoo.agents.az.shipped import shipped_network_path
from monster_zoo.agents.network import random_network, read_network
from monster_zoo.benchmarks.az_forward import chosen_games
from monster_zoo.envs.core import threads
from monster_zoo.evaluation.host import cpu_name
from monster_zoo.training.az.expert import expert_simulations, play_expert_games
from monster_zoo.training.az.selfplay import play_games


def rate(play, games: int) -> float:
    """Decisions per second of ``play(games)``, which returns ``(batch, stats)``."""
    start = time.perf_counter()
    _, stats = play(games)
    return stats.decisions / (time.perf_counter() - start)


def tree_bytes(simulations: int, num_actions: int) -> int:
    """Bytes of one game's search tree arrays at ``simulations`` per move (``simulations + 1`` nodes)."""
    return sum(array.nbytes for array in trees(1, simulations + 1, num_actions))


def int_list(text: str):
    """The positive integers of a comma-separated ``text``, or None if it is not one."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        return None
    return values if min(values) >= 1 else None


def median_rates(plays: dict[str, Callable], games: int, repeats: int) -> dict[str, float]:
    """The median decisions per second of each of ``plays`` over ``repeats`` interleaved timings
    (a busy spell on a shared machine hits them alike)."""
    rates = {name: [] for name in plays}
    for _ in range(repeats):
        for name, play in plays.items():
            rates[name].append(rate(play, games))
    return {name: statistics.median(values) for name, values in rates.items()}


def main(argv: list[str] = None) -> int:
    """Print decisions per second of self-play and of the expert, per game and thread count."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="all", help="comma-separated game ids (default: all)")
    parser.add_argument("--threads", default="1,2", help="numba thread counts (default 1,2)")
    parser.add_argument(
        "--simulations", type=int, default=64, help="self-play simulations per move (default 64)"
    )
    parser.add_argument(
        "--parallel",
        default="32",
        help="games side by side, comma-separated counts timed interleaved (default 32)",
    )
    parser.add_argument(
        "--rollout-weight",
        type=float,
        default=0.0,
        help="self-play's share of a leaf's value from a rollout (default 0)",
    )
    parser.add_argument(
        "--selfplay-games",
        type=int,
        default=64,
        help="self-play games timed (default 64, the trainer's games per round)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="interleaved timings of each self-play way, the median kept (default 3)",
    )
    parser.add_argument("--expert-games", type=int, default=4, help="expert games timed (default 4; 0: none)")
    parser.add_argument("--quick", action="store_true", help="2 games each, 8 simulations: a smoke test")
    args = parser.parse_args(argv)
    games = chosen_games(parser, args.games)
    counts, parallels = int_list(args.threads), int_list(args.parallel)
    for flag, value, ok in (("--threads", args.threads, counts), ("--parallel", args.parallel, parallels)):
        if ok is None:
            parser.error(f"{flag} {value!r} is not a comma-separated list of integers of at least 1")
    if min(args.simulations, args.selfplay_games, args.repeats) < 1 or args.expert_games < 0:
        parser.error(
            "--simulations, --repeats and --selfplay-games must be at least 1, --expert-games at least 0"
        )
    if not 0 <= args.rollout_weight <= 1:
        parser.error(f"--rollout-weight must be from 0 to 1, got {args.rollout_weight}")
    simulations = 8 if args.quick else args.simulations
    selfplay_games, expert_games = (
        (2, min(2, args.expert_games)) if args.quick else (args.selfplay_games, args.expert_games)
    )
    repeats = 1 if args.quick else args.repeats
    print(f"CPU: {cpu_name()}; 1-minute load {os.getloadavg()[0]:.2f}")
    print(
        f"{'game':<24} {'threads':>7} {'parallel':>8} {'self-play/s':>12} {'batched/s':>10} "
        f"{'batched/self-play':>17} {'tree KB/game':>12} {'expert/s':>9} {'expert sims':>11}"
    )
    settings = SearchSettings(simulations=simulations, rollout_weight=args.rollout_weight)
    for game_id in games:
        path = shipped_network_path(game_id)
        network = read_network(path) if path.is_file() else random_network(game_id, (256, 256))
        n = network.player_counts[0]
        sims = 8 if args.quick else expert_simulations(game_id)

        def way(parallel, batched):
            return lambda count: play_games(
                network,
                count,
                [n],
                settings,
                seed=1,
                parallel=parallel,
                batched_leaves=batched,
            )

        def expert(count):
            return play_expert_games(game_id, count, [n], seed=1, simulations=sims, parallel=parallels[0])

        plays = {(p, batched): way(p, batched) for p in parallels for batched in (False, True)}
        kilobytes = tree_bytes(simulations, envs.spec(game_id).num_actions) / 1024
        for t in counts:
            with threads.using(t, min_batch=2):
                for play in plays.values():
                    play(2)  # compiled (serial or parallel build) and warm
                if expert_games:
                    expert(2)
                rates = median_rates(plays, selfplay_games, repeats)
                expert_rate = f"{rate(expert, expert_games):9.0f}" if expert_games else f"{'-':>9}"
                for p in parallels:
                    one, batched = rates[p, False], rates[p, True]
                    print(
                        f"{game_id:<24} {t:>7} {p:>8} {one:12.0f} {batched:10.0f} {batched / one:17.2f} "
                        f"{kilobytes:12.0f} {expert_rate} {sims:>11}",
                        flush=True,
                    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
