"""How torch's thread count moves the self-play trainer's network work, alone and beside busy processes.

    python -m monster_zoo.benchmarks.torch_threads              # 1, 2 and torch's default thread count
    python -m monster_zoo.benchmarks.torch_threads --busy 2 --repeats 7
    python -m monster_zoo.benchmarks.torch_threads --quick      # a smoke test; numbers mean little
    python -m monster_zoo.benchmarks.torch_threads --out docs/measurements/torch_threads_cpu.jsonl --other-load "none but this run"

The trainer (:mod:`monster_zoo.training.ppo.trainer`) with its default network and PPO settings
on its demo game (Marry the Monster, 2 players), greedy opponents, in this process. At each torch
thread count it times:

- **PPO update**: one ``model.train()`` of MaskablePPO over a full rollout (``num_envs`` x
  ``num_steps`` decisions, ``update_epochs`` passes in minibatches of ``batch_size``);
- **forward pass**: the policy's forward pass over one step of every game (``num_envs``
  observations with their masks, no gradient), as the rollout runs it, once per learner step;
- **rollout + update**: ``model.learn`` of one rollout, games and opponents included: the
  trainer's own timesteps per second.

Each is timed first with nothing of ours competing, then beside ``--busy`` processes that spin
on a core each (a stand-in for another job on a shared machine); thread counts are interleaved
within each repeat, so a slow spell hits them alike, and medians of ``--repeats`` are reported
with the range. The 1-minute load average is printed beside every condition: on a shared
machine it says what else ran. ``--out`` adds the medians to a JSON-lines file (a line per thread
count, with the date, host, git commit, loads and ``--other-load``, what else ran on the machine),
which the trainers' results page renders.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from monster_zoo.benchmarks.bench import measurement_header
from monster_zoo.envs.core.safe_writing import output_problem, write_atomic

GAME = "marry_the_monster-v0"
OPTIONS = {"num_players": 2}  # the demo's game (make demo)
SPIN = "while True: pass"


def thread_counts(default: int) -> list[int]:
    """1, 2 and torch's ``default`` count (a count listed once)."""
    return sorted({1, 2, default})


def build_trainer_model(seed: int = 0):
    """MaskablePPO with the trainer's defaults (network, rollout, minibatch, epochs) on the demo
    game against greedy opponents, its rollout buffer filled by one ``learn`` of one rollout."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from monster_zoo import envs
    from monster_zoo.agents import make_agent
    from monster_zoo.evaluation.arg_checks import int_list
    from monster_zoo.training.ppo.trainer import Args

    args = Args()
    vec_env = envs.make_vec_env(
        GAME, args.num_envs, opponents=[make_agent("greedy", GAME, seed, OPTIONS)], seed=seed, **OPTIONS
    )
    model = MaskablePPO(
        "MlpPolicy",
        VecMonitor(vec_env),
        learning_rate=args.learning_rate,
        n_steps=args.num_steps,
        batch_size=args.batch_size,
        n_epochs=args.update_epochs,
        gamma=args.gamma,
        gae_lambda=args.gae_lambda,
        clip_range=args.clip_coef,
        ent_coef=args.ent_coef,
        policy_kwargs={"net_arch": int_list("--net-arch", args.net_arch)[0]},
        seed=seed,
        device="cpu",
        verbose=0,
    )
    model.learn(args.num_envs * args.num_steps)
    return model, vec_env


def workloads(model, vec_env) -> dict[str, Callable[[], float]]:
    """Each timed piece of work as ``run() -> seconds``."""
    import torch

    rollout = model.n_envs * model.n_steps
    obs = torch.as_tensor(vec_env.reset(), dtype=torch.float32)
    masks = torch.as_tensor(vec_env.action_masks())

    def update() -> float:
        start = time.perf_counter()
        model.train()
        return time.perf_counter() - start

    def forward() -> float:
        start = time.perf_counter()
        with torch.no_grad():
            model.policy(obs, action_masks=masks)
        return time.perf_counter() - start

    def cycle() -> float:
        start = time.perf_counter()
        model.learn(rollout)
        return time.perf_counter() - start

    return {"update": update, "forward": forward, "cycle": cycle}


def start_busy(count: int) -> list[subprocess.Popen]:
    """``count`` processes that spin on a core each until stopped."""
    return [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(count)]


def stop_busy(processes: list[subprocess.Popen]) -> None:
    """Stop the processes of :func:`start_busy`."""
    for process in processes:
        process.kill()
        process.wait()


def measure(
    run: dict[str, Callable[[], float]], counts: list[int], repeats: int
) -> dict[int, dict[str, list[float]]]:
    """Seconds of every workload at every thread count, ``repeats`` times, thread counts interleaved."""
    import torch

    times = {count: {name: [] for name in run} for count in counts}
    for _ in range(repeats):
        for count in counts:
            torch.set_num_threads(count)
            for name, work in run.items():
                times[count][name].append(work())
    return times


def table(results: list[dict], rollout: int) -> str:
    """The markdown table of every (load, threads) row: medians with the range."""
    lines = [
        "| competing load | load avg (1 min), start-end | torch threads | PPO update, s | forward pass, ms | "
        "rollout + update, steps/s |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for result in results:
        for count, times in result["times"].items():
            steps_per_s = [rollout / seconds for seconds in times["cycle"]]
            lines.append(
                f"| {result['label']} | {result['load'][0]:.2f}-{result['load'][1]:.2f} | {count} | "
                f"{_spread(times['update'], '.3f')} | {_spread([1000 * t for t in times['forward']], '.2f')} | "
                f"{_spread(steps_per_s, ',.0f')} |"
            )
    return "\n".join(lines)


def _spread(values: list[float], form: str) -> str:
    """``median (min-max)`` of ``values`` in the format ``form``."""
    return f"{statistics.median(values):{form}} ({min(values):{form}}-{max(values):{form}})"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.benchmarks.torch_threads",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument(
        "--repeats", type=int, default=5, help="timed repeats of every workload and thread count"
    )
    parser.add_argument(
        "--busy", type=int, default=1, help="spinning processes beside the loaded measurement"
    )
    parser.add_argument("--quick", action="store_true", help="one repeat, for a smoke test")
    parser.add_argument("--out", default=None, help="JSON-lines file the medians are added to")
    parser.add_argument(
        "--other-load", default="not said", help="what else ran on the machine, for the --out records"
    )
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    if args.busy < 1:
        parser.error(f"--busy must be at least 1, got {args.busy}")
    if args.quick:
        args.repeats = 1
    if args.out is not None and (problem := output_problem("--out", args.out, overwrite=True)):
        parser.error(problem)
    return args


def records(results: list[dict], rollout: int, args: argparse.Namespace) -> list[dict]:
    """A record per thread count: the medians alone and beside the busy processes, and the run's
    facts (for the results pages)."""
    alone, beside = results
    header = measurement_header()
    loads = [round(v, 2) for v in (alone["load"][0], beside["load"][1])]
    out = []
    for count, times in alone["times"].items():
        out.append(
            {
                "time": header["time"],
                "git": header["git"],
                "git_dirty": header["git_dirty"],
                "host": header["host"],
                "other_load": args.other_load,
                "load_range": loads,
                "torch_threads": count,
                "ppo_update_s": round(statistics.median(times["update"]), 4),
                "forward_ms": round(1000 * statistics.median(times["forward"]), 3),
                "trainer_steps_per_s": round(statistics.median([rollout / t for t in times["cycle"]])),
                "trainer_steps_per_s_beside_busy": round(
                    statistics.median([rollout / t for t in beside["times"][count]["cycle"]])
                ),
                "busy": args.busy,
                "repeats": args.repeats,
                "runs": 1,
                "command": "python -m monster_zoo.benchmarks.torch_threads " + " ".join(header["argv"]),
            }
        )
    return out


def timed_condition(label: str, run: dict[str, Callable[[], float]], counts: list[int], repeats: int) -> dict:
    """One condition's times, with the 1-minute load average before and after."""
    before = os.getloadavg()[0]
    times = measure(run, counts, repeats)
    return {"label": label, "load": (before, os.getloadavg()[0]), "times": times}


def main(argv: list[str] | None = None) -> int:
    """Time every workload alone and beside busy processes; print the table; return 0."""
    import torch

    args = parse_args(argv)
    default = torch.get_num_threads()  # read before anything sets the count
    counts = thread_counts(default)
    model, vec_env = build_trainer_model()
    run = workloads(model, vec_env)
    measure(run, counts, 1)  # warm-up: first calls allocate and fill caches
    results = [timed_condition("none", run, counts, args.repeats)]
    busy = start_busy(args.busy)
    try:
        time.sleep(1.0)  # let the spinning processes start
        label = f"{args.busy} busy process{'es' if args.busy > 1 else ''}"
        results.append(timed_condition(label, run, counts, args.repeats))
    finally:
        stop_busy(busy)
    print(
        f"{os.cpu_count()} cores, torch's default {default} threads; {GAME} {OPTIONS}, the trainer's "
        f"default network and PPO settings; medians of {args.repeats} repeats (min-max)"
    )
    print(table(results, model.n_envs * model.n_steps))
    if args.out is not None:
        lines = records(results, model.n_envs * model.n_steps, args)
        path = Path(args.out)
        kept = path.read_text() if path.exists() else ""
        write_atomic(path, kept + "".join(json.dumps(line) + "\n" for line in lines))
        print(f"added {len(lines)} records to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
