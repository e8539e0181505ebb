"""The batched engine's throughput: many games of one kind stepped together by numba kernels.

Steps ``--num-envs`` games with random legal actions in two ways and prints steps per second:
from Python (``engine.step(engine.random_actions())``, one call per step of every game, the
way a learner drives it) and inside numba (``engine.step_random``, no Python between steps,
the engine's ceiling). Finished games restart by themselves. The first call compiles or loads
the kernels and is not timed. Set ``MONSTER_ZOO_NUM_THREADS`` to use more cores on batches of
at least ``MONSTER_ZOO_PARALLEL_MIN_BATCH`` games (``envs/README.md``).

    python examples/batched_throughput.py --game monster_arena-v0 --num-envs 4096 --steps 500
"""

import argparse
import time

import numpy as np

import monster_zoo


def parse_args(argv=None) -> argparse.Namespace:
    """The command line: game, players, batch size, steps, seed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="marry_the_monster-v0", choices=monster_zoo.available())
    parser.add_argument("--num-players", type=int, default=None, help="players (default: the game's default)")
    parser.add_argument(
        "--num-envs", type=int, default=256, help="games stepped together (default %(default)s)"
    )
    parser.add_argument(
        "--steps", type=int, default=200, help="steps of every game per timing (default %(default)s)"
    )
    parser.add_argument("--seed", type=int, default=0, help="game i is seeded seed + i (default %(default)s)")
    return parser.parse_args(argv)


def from_python(engine, steps: int) -> tuple:
    """Step every game ``steps`` times from Python; returns ``(seconds, games finished)``."""
    finished = 0
    start = time.perf_counter()
    for _ in range(steps):
        _, _, _, terminated, truncated = engine.step(engine.random_actions())
        finished += int(np.count_nonzero(terminated | truncated))
    return time.perf_counter() - start, finished


def inside_numba(engine, steps: int) -> tuple:
    """Step every game ``steps`` times in one numba call; returns ``(seconds, games finished)``."""
    start = time.perf_counter()
    finished = engine.step_random(steps)
    return time.perf_counter() - start, finished


def main(argv=None) -> int:
    """Time both ways and print steps per second."""
    args = parse_args(argv)
    options = {} if args.num_players is None else {"num_players": args.num_players}
    engine = monster_zoo.make_batch(args.game, num_envs=args.num_envs, seed=args.seed, **options)
    obs, masks = engine.reset()
    print(
        f"{args.game}: {args.num_envs} games, {engine.num_players} players, observations {obs.shape}, "
        f"masks {masks.shape}"
    )
    from_python(engine, 1)  # compiles (or loads from numba's cache) before anything is timed
    inside_numba(engine, 1)
    for label, run in (("from Python", from_python), ("inside numba", inside_numba)):
        seconds, finished = run(engine, args.steps)
        steps = args.steps * args.num_envs
        print(
            f"{label:>13}: {steps:,} steps in {seconds:.3f} s = {steps / seconds:,.0f} steps/s "
            f"({finished} games finished)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
