"""Environment steps per second of the RLlib league with 0, 1, 2, ... env runners.

    python -m monster_zoo.benchmarks.rllib_throughput                          # 1 and 2 env runners
    python -m monster_zoo.benchmarks.rllib_throughput --env-runners 0,1,2,4 --league snapshots:1
    python -m monster_zoo.benchmarks.rllib_throughput --address HEAD:6379 --env-runners 8,16,32
    python -m monster_zoo.benchmarks.rllib_throughput --quick                  # a smoke test

For each env-runner count the league of :mod:`monster_zoo.training.rllib.league` is built with the
same settings (2-player Marry the Monster and the league's default mix unless told otherwise), one
round of sampling warms it up (Ray actors, numba caches, torch), and then two figures are timed
``--repeats`` times each, medians reported:

* **sampling**: env steps per second of one synchronous sampling round of ``--steps`` env steps
  over all env runners (RLlib's ``synchronous_parallel_sample``): the games, the modules'
  forward passes and the embedded baselines, without learning;
* **training**: env steps per second of whole ``Algorithm.train()`` iterations (sampling plus the
  PPO update of the learner), where the learner shows up as the limit once sampling is fast.

An env step is one decision of a seat played by an RLlib module; moves of embedded baselines are
played inside the step. The result is printed as markdown and appended as a JSON line to
``benchmarks/results/rllib.jsonl``. Needs the ``distributed`` extra. Timings need a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = REPO_ROOT / "benchmarks" / "results" / "rllib.jsonl"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.benchmarks.rllib_throughput",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--env-runners", default="1,2", help="comma-separated env-runner counts to time")
    parser.add_argument("--envs-per-runner", type=int, default=1, help="games per env runner")
    parser.add_argument(
        "--steps", type=int, default=4000, help="env steps per sampling round and per training iteration"
    )
    parser.add_argument("--repeats", type=int, default=5, help="timed rounds of each kind; medians reported")
    parser.add_argument("--league", default=None, help="the league mix (default: the league trainer's)")
    parser.add_argument(
        "--option",
        action="append",
        default=["num_players=2"],
        metavar="KEY=VALUE",
        help="game option, repeatable",
    )
    parser.add_argument("--game", default="marry_the_monster-v0", help="registry id of the game")
    parser.add_argument("--address", default="", help="a running Ray cluster to join (empty: a local Ray)")
    parser.add_argument("--quick", action="store_true", help="tiny rounds for a smoke test")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="JSON-lines file to append to")
    return parser.parse_args(argv)


def league_args(args: argparse.Namespace, env_runners: int):
    """The league trainer's :class:`~monster_zoo.training.rllib.league.Args` for one timed setup."""
    from monster_zoo.training.rllib.league import Args

    fields = {
        "game": args.game,
        "option": list(args.option),
        "num_env_runners": env_runners,
        "num_envs_per_env_runner": args.envs_per_runner,
        "train_batch_size": args.steps,
        "minibatch_size": min(512, args.steps),
    }
    if args.league:
        fields["league"] = args.league
    return Args(**fields)


def time_setup(args: argparse.Namespace, env_runners: int) -> dict:
    """Sampling and training env steps per second (lists of ``repeats``) with ``env_runners``."""
    from ray.rllib.execution.rollout_ops import synchronous_parallel_sample
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED

    from monster_zoo.training.rllib.league import build_config
    from monster_zoo.training.run_start import parse_mix, parse_options

    run = league_args(args, env_runners)
    algo = build_config(run, parse_options(run.option), parse_mix(run.league)).build_algo()
    try:

        def sample_round() -> float:
            start = time.perf_counter()
            episodes = synchronous_parallel_sample(
                worker_set=algo.env_runner_group,
                max_env_steps=args.steps,
                concat=False,
                _uses_new_env_runners=True,
            )
            # one list of episodes per env runner
            steps = sum(episode.env_steps() for runner in episodes for episode in runner)
            return steps / (time.perf_counter() - start)

        def train_round() -> float:
            start = time.perf_counter()
            result = algo.train()
            return result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED] / (time.perf_counter() - start)

        sample_round()  # warm-up: actors, numba caches, torch
        sampling = [sample_round() for _ in range(args.repeats)]
        train_round()
        training = [train_round() for _ in range(args.repeats)]
    finally:
        algo.stop()
    return {"env_runners": env_runners, "sampling_steps_per_s": sampling, "training_steps_per_s": training}


def main(argv: list[str] | None = None) -> int:
    """Time every env-runner count, print the markdown table, append the JSON record; return 0."""
    args = parse_args(argv)
    if args.quick:
        args.steps, args.repeats = 200, 1
    counts = [int(n) for n in args.env_runners.split(",")]
    import ray

    ray.init(address=args.address or None, include_dashboard=False, log_to_driver=False)
    try:
        resources = ray.cluster_resources()
        setups = []
        for n in counts:
            setups.append(time_setup(args, n))
            print(
                f"{n} env runner(s): sampling {statistics.median(setups[-1]['sampling_steps_per_s']):,.0f} "
                f"steps/s, training {statistics.median(setups[-1]['training_steps_per_s']):,.0f} steps/s",
                flush=True,
            )
    finally:
        ray.shutdown()
    record = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "cpus": os.cpu_count(),
        "cluster_cpus": resources.get("CPU"),
        "load_average": os.getloadavg()[0],
        "quick": args.quick,
        "game": args.game,
        "options": args.option,
        "league": args.league,
        "envs_per_runner": args.envs_per_runner,
        "steps": args.steps,
        "setups": setups,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    with args.json.open("a") as f:
        f.write(json.dumps(record) + "\n")
    print(
        "\n| env runners | sampling env steps/s (median) | training env steps/s (median) |\n| ---: | ---: | ---: |"
    )
    for setup in setups:
        print(
            f"| {setup['env_runners']} | {statistics.median(setup['sampling_steps_per_s']):,.0f} | "
            f"{statistics.median(setup['training_steps_per_s']):,.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
