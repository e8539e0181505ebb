"""Self-play training throughput against the PettingZoo SB3 Connect Four tutorial setup.

    python -m monster_zoo.benchmarks.training_throughput            # ~2 minutes on two cores
    python -m monster_zoo.benchmarks.training_throughput --quick    # a smoke test; numbers mean little

Both sides train MaskablePPO on CPU in this process's machine, one after the other,
and report learner timesteps per second of ``model.learn`` (model construction and
evaluation excluded):

* **tutorial**: PettingZoo's "SB3: Action Masked PPO for Connect Four" setup - one
  ``connect_four_v3`` AEC env behind a gymnasium-style wrapper in which the same
  policy plays both seats, ``ActionMasker``, MaskablePPO with its default
  hyperparameters. The wrapper is re-stated here (the tutorial pins gymnasium 0.29).
* **ours, pure self-play**: ``monster_zoo.training.ppo.trainer --opponents snapshots:1``, the
  same kind of training as the tutorial's (the learner against itself), on 128 games
  stepped by the batched kernels, run as a subprocess;
* **ours, default mix**: ``monster_zoo.training.ppo.trainer`` with its defaults, whose opponents
  are also the random and greedy baselines (greedy's one-ply search on every move
  is the costliest opponent).

Each side is timed ``--repeats`` times and the medians are compared; the result is
printed as markdown and appended as a JSON line to ``benchmarks/results/training.jsonl``.

``--versus-device-ppo MINUTES`` compares instead the SB3 trainer with the array-side one
(``monster_zoo.training.device_ppo``, the ``device-train`` extra) on Marry the Monster with 2 players:
each trains for the same wall time (``--time-limit``), the two alternated ``--repeats`` times under
the same load, and each run's timesteps/s and final win rate against greedy (200 games, seats
rotated, 95% Wilson interval) are reported, with the load average and the CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from monster_zoo.evaluation.host import cpu_name

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = REPO_ROOT / "benchmarks" / "results" / "training.jsonl"
TARGET_RATIO = 5.0


def tutorial_timesteps_per_second(timesteps: int, seed: int) -> float:
    """Train the tutorial's setup for ``timesteps``; return timesteps per second of ``learn``."""
    import gymnasium as gym
    from pettingzoo.classic import connect_four_v3
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    class BothSeats(gym.Env):
        """The tutorial's wrapper: the observation of the next agent, the reward of the last."""

        def __init__(self, aec):
            self.aec = aec
            first = aec.possible_agents[0]
            self.observation_space = aec.observation_space(first)["observation"]
            self.action_space = aec.action_space(first)

        def reset(self, seed=None, options=None):
            self.aec.reset(seed=seed, options=options)
            return self.aec.observe(self.aec.agent_selection)["observation"], {}

        def step(self, action):
            acting = self.aec.agent_selection
            self.aec.step(action)
            return (
                self.aec.observe(self.aec.agent_selection)["observation"],
                self.aec._cumulative_rewards[acting],
                self.aec.terminations[acting],
                self.aec.truncations[acting],
                self.aec.infos[acting],
            )

        def action_mask(self):
            return self.aec.observe(self.aec.agent_selection)["action_mask"]

    env = BothSeats(connect_four_v3.env())
    env.reset(seed=seed)
    env = ActionMasker(env, lambda e: e.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, env, verbose=0, seed=seed, device="cpu")
    start = time.perf_counter()
    model.learn(total_timesteps=timesteps)
    return model.num_timesteps / (time.perf_counter() - start)


SETUPS = {"pure self-play": ["--opponents", "snapshots:1"], "default mix": []}


def our_timesteps_per_second(timesteps: int, seed: int, extra: list[str]) -> float:
    """Run the self-play trainer with its defaults; return its measured timesteps per second."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [
            sys.executable,
            "-m",
            "monster_zoo.training.ppo",
            "--total-timesteps",
            str(timesteps),
            "--seed",
            str(seed),
            "--eval-every",
            "0",
            "--eval-games",
            "2",
            "--checkpoint-every",
            "0",
            "--no-progress",
            "--no-plot",
            "--out-dir",
            out,
            *extra,
        ]
        subprocess.run(cmd, cwd=REPO_ROOT, check=True, capture_output=True, text=True)
        (summary,) = Path(out).glob("*/summary.json")
        return json.loads(summary.read_text())["timesteps_per_second"]


VERSUS_SCRIPTS = {
    "sb3 MaskablePPO": "monster_zoo.training.ppo",
    "array-side PPO": "monster_zoo.training.device_ppo",
}


def equal_time_run(module: str, minutes: float, seed: int, extra: list[str]) -> dict:
    """Train ``module`` for ``minutes`` of wall time on 2-player Marry the Monster; its summary.json."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [
            sys.executable,
            "-m",
            module,
            "--total-timesteps",
            "1000000000",
            "--time-limit",
            str(minutes),
            "--seed",
            str(seed),
            "--eval-every",
            "0",
            "--eval-games",
            "200",
            "--checkpoint-every",
            "0",
            "--option",
            "num_players=2",
            "--no-progress",
            "--no-plot",
            "--out-dir",
            out,
            *extra,
        ]
        subprocess.run(cmd, cwd=REPO_ROOT, check=True, capture_output=True, text=True)
        (summary,) = Path(out).glob("*/summary.json")
        return json.loads(summary.read_text())


def versus_device_ppo(args: argparse.Namespace) -> int:
    """The SB3 trainer against the array-side one at equal wall time, alternated; print and record."""
    runs = []
    for k in range(args.repeats):
        order = list(VERSUS_SCRIPTS.items()) if k % 2 == 0 else list(VERSUS_SCRIPTS.items())[::-1]
        for name, module in order:
            load = os.getloadavg()[0]
            both = ["--opponents", args.versus_opponents] if args.versus_opponents else []
            summary = equal_time_run(
                module,
                args.versus_device_ppo,
                args.seed + k,
                both + (args.trainer_arg if module.endswith("device_ppo") else []),
            )
            greedy = summary["winrate_vs_greedy"]
            runs.append(
                {
                    "trainer": name,
                    "repeat": k,
                    "load_average_before": load,
                    "timesteps": summary["timesteps"],
                    "timesteps_per_s": summary["timesteps_per_second"],
                    "winrate_vs_greedy": greedy["rate"],
                    "interval": greedy["interval"],
                }
            )
            print(
                f"repeat {k + 1}/{args.repeats} {name}: {summary['timesteps_per_second']:,.0f} timesteps/s, "
                f"vs greedy {greedy['rate']:.3f} [{greedy['interval'][0]:.3f}, {greedy['interval'][1]:.3f}] "
                f"(load {load:.1f})",
                flush=True,
            )
    record = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "cpu": cpu_name(),
        "cpus": os.cpu_count(),
        "minutes_each": args.versus_device_ppo,
        "game": "marry_the_monster-v0 (2 players)",
        "opponents": args.versus_opponents or "each trainer's default",
        "device_ppo_args": args.trainer_arg,
        "runs": runs,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    with args.json.open("a") as f:
        f.write(json.dumps(record) + "\n")
    print(
        f"\n{record['cpu']}, {args.versus_device_ppo} min of training each, opponents {record['opponents']}\n"
    )
    print(
        "| trainer | timesteps/s (median) | win rate vs greedy, 200 games (each run, 95% interval) |\n"
        "| --- | ---: | --- |"
    )
    for name in VERSUS_SCRIPTS:
        mine = [r for r in runs if r["trainer"] == name]
        rates = ", ".join(
            f"{r['winrate_vs_greedy']:.3f} [{r['interval'][0]:.3f}, {r['interval'][1]:.3f}]" for r in mine
        )
        print(f"| {name} | {statistics.median(r['timesteps_per_s'] for r in mine):,.0f} | {rates} |")
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.benchmarks.training_throughput",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument(
        "--tutorial-timesteps",
        type=int,
        default=20_480,
        help="timesteps per tutorial run (the tutorial trains 20,480)",
    )
    parser.add_argument("--our-timesteps", type=int, default=262_144, help="timesteps per run of ours")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each side; medians compared")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first run (then +1 per repeat)")
    parser.add_argument(
        "--trainer-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra argument for our trainer, repeatable (e.g. --trainer-arg=--num-envs=32)",
    )
    parser.add_argument(
        "--versus-device-ppo",
        type=float,
        default=0.0,
        metavar="MINUTES",
        help="instead: SB3 against the array-side trainer, MINUTES of training each "
        "(--trainer-arg then goes to the array-side trainer)",
    )
    parser.add_argument(
        "--versus-opponents",
        default="",
        metavar="MIX",
        help="with --versus-device-ppo: the opponent mix of both trainers (default: each one's "
        "default, random:0.1,greedy:0.5,snapshots:0.4)",
    )
    parser.add_argument("--quick", action="store_true", help="tiny runs for a smoke test")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="JSON-lines file to append to")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Time both setups, print the markdown table, append the JSON record; return 0."""
    args = parse_args(argv)
    if args.versus_device_ppo < 0:
        raise SystemExit(f"--versus-device-ppo {args.versus_device_ppo}: minutes must be >= 0")
    if args.versus_device_ppo:
        return versus_device_ppo(args)
    if args.quick:
        args.tutorial_timesteps, args.our_timesteps, args.repeats = 2048, 8192, 1
    tutorial, ours = [], {name: [] for name in SETUPS}
    for k in range(args.repeats):
        tutorial.append(tutorial_timesteps_per_second(args.tutorial_timesteps, args.seed + k))
        for name, flags in SETUPS.items():
            ours[name].append(
                our_timesteps_per_second(args.our_timesteps, args.seed + k, flags + args.trainer_arg)
            )
        print(
            f"repeat {k + 1}/{args.repeats}: tutorial {tutorial[-1]:,.0f}/s, "
            + ", ".join(f"{name} {v[-1]:,.0f}/s" for name, v in ours.items()),
            flush=True,
        )
    t = statistics.median(tutorial)
    medians = {name: statistics.median(v) for name, v in ours.items()}
    record = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg()[0],
        "quick": args.quick,
        "tutorial_timesteps_per_s": tutorial,
        "ours_timesteps_per_s": ours,
        "trainer_args": args.trainer_arg,
        "ratios": {n: m / t for n, m in medians.items()},
        "target": TARGET_RATIO,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    with args.json.open("a") as f:
        f.write(json.dumps(record) + "\n")
    print("\n| setup | timesteps/s (median) | ratio |\n| --- | ---: | ---: |")
    print(f"| PettingZoo SB3 connect-four tutorial (1 env, MaskablePPO defaults) | {t:,.0f} | 1.0x |")
    for name, m in medians.items():
        print(f"| monster-zoo self-play trainer, {name} | {m:,.0f} | {m / t:.1f}x |")
    print(f"\ntarget {TARGET_RATIO:.0f}x for self-play training")
    return 0


if __name__ == "__main__":
    sys.exit(main())
