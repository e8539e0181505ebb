"""Does a process keep its speed when another one runs beside it? One workload alone, then
several copies at once, each timing itself; the ratio says what sharing the machine costs.

    python -m monster_zoo.benchmarks.side_by_side                       # learner env, 2 copies
    python -m monster_zoo.benchmarks.side_by_side --workload batch --seconds 20
    python -m monster_zoo.benchmarks.side_by_side -- python my_script.py  # any command

The file needs nothing but the standard library: run it as a plain script
(``python path/to/side_by_side.py``) from any checkout, so the same measurement runs on
code that predates it. A workload prints a last line ``{"steps_per_s": ..., "busy_cores":
...}`` about its timed loop; for any other command the speed is 1 / its wall time and the
busy cores its CPU time over wall time. So the report gives the speed per busy core too (threads that spin while they wait burn cores
without adding speed). Run it on a quiet machine: the point is the ratio between the two
modes, which other load distorts.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

# The workloads use only APIs that every version of monster_zoo has had (make_learner_env,
# make_batch, make_vec_env, all seeded), so before/after comparisons run the same code.
_TIMED_LOOP = """
import json, time
import numpy as np
import monster_zoo
seconds, game = {seconds!r}, {game!r}
rng = np.random.default_rng(0)
{setup}
for _ in range(50):  # warm-up, untimed: kernels loaded, first games played
    step()
steps, start, cpu = 0, time.perf_counter(), time.process_time()
while time.perf_counter() - start < seconds:
    steps += step()
wall = time.perf_counter() - start
print(json.dumps({{"steps_per_s": steps / wall, "busy_cores": (time.process_time() - cpu) / wall}}))
"""

WORKLOADS = {
    # one learner env, the way a single-agent RL library drives it
    "learner": """
env = monster_zoo.make_learner_env(game)
games = iter(range(1 << 62))
env.reset(seed=next(games))
def step():
    _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    if terminated or truncated:
        env.reset(seed=next(games))
    return 1
""",
    # the batched engine stepped from Python at a training-sized batch
    "batch": """
engine = monster_zoo.make_batch(game, 256, seed=0)
engine.reset()
def step():
    engine.step(engine.random_actions())
    return 256
""",
    # the SB3 vec env that training uses (needs the train extra)
    "vec": """
vec = monster_zoo.make_vec_env(game, 64, seed=0)
vec.reset()
def step():
    masks = vec.action_masks()
    vec.step(np.argmax(masks * rng.random(masks.shape), axis=1))
    return 64
""",
}


def workload_command(name: str, game: str, seconds: float) -> list[str]:
    """The command that runs workload ``name`` on ``game`` for ``seconds`` and prints its speed."""
    code = _TIMED_LOOP.format(seconds=seconds, game=game, setup=WORKLOADS[name])
    return [sys.executable, "-c", code]


@dataclass
class Run:
    """One process: its speed (steps/s, or 1 / wall time) and the cores it kept busy."""

    speed: float
    busy_cores: float


def run_together(command: list[str], copies: int, timeout: float) -> list[Run]:
    """Start ``copies`` of ``command`` at once and wait for all of them."""
    starts, processes = [], []
    for _ in range(copies):
        starts.append(time.perf_counter())
        processes.append(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    runs = []
    for start, process in zip(starts, processes):
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        with process.stdout, process.stderr:  # closed here: wait4 reaped the process, Popen never will
            out, err = process.stdout.read(), process.stderr.read()
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            raise RuntimeError(f"{command[:3]}... exited with {process.returncode}:\n{err[-2000:]}")
        lines = out.strip().splitlines()
        try:
            last = json.loads(lines[-1])
            runs.append(Run(float(last["steps_per_s"]), float(last["busy_cores"])))
        except (IndexError, ValueError, KeyError, TypeError):
            runs.append(Run(1.0 / wall, (usage.ru_utime + usage.ru_stime) / wall))
        if wall > timeout:
            raise RuntimeError(f"a run took {wall:.0f} s, more than the {timeout:.0f} s allowed")
    return runs


def side_by_side(command: list[str], copies: int = 2, repeats: int = 3, timeout: float = 600) -> dict:
    """Run ``command`` alone and as ``copies`` simultaneous processes, ``repeats`` times each
    (interleaved, after one untimed warm-up run); return the medians and their ratios."""
    run_together(command, 1, timeout)
    alone, together = [], []
    for _ in range(repeats):
        alone += run_together(command, 1, timeout)
        together += run_together(command, copies, timeout)

    def per_core(runs: list[Run]) -> float:
        return statistics.median(r.speed / max(r.busy_cores, 1e-9) for r in runs)

    speed_alone = statistics.median(r.speed for r in alone)
    speed_together = statistics.median(r.speed for r in together)
    return {
        "copies": copies,
        "repeats": repeats,
        "cores": os.cpu_count(),
        "alone_steps_per_s": speed_alone,
        "together_steps_per_s_each": speed_together,
        "ratio_per_process": speed_together / speed_alone,
        "busy_cores_alone": statistics.median(r.busy_cores for r in alone),
        "busy_cores_together_each": statistics.median(r.busy_cores for r in together),
        "ratio_per_busy_core": per_core(together) / per_core(alone),
    }


def report(result: dict, label: str) -> str:
    """A few readable lines about one :func:`side_by_side` result."""
    return (
        f"{label}: alone {result['alone_steps_per_s']:,.0f} steps/s on {result['busy_cores_alone']:.2f} busy "
        f"cores; {result['copies']} at once {result['together_steps_per_s_each']:,.0f} steps/s each on "
        f"{result['busy_cores_together_each']:.2f} busy cores each ({result['cores']} cores in all)\n"
        f"  per process {result['ratio_per_process']:.2f} of alone; per busy core "
        f"{result['ratio_per_busy_core']:.2f} of alone (target >= 0.80)"
    )


def build_parser() -> argparse.ArgumentParser:
    """The command line of this measurement (also reached as ``bench --side-by-side``)."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.benchmarks.side_by_side",
        description="Speed of a workload alone and with copies of it running at the same time.",
    )
    parser.add_argument(
        "--workload",
        choices=sorted(WORKLOADS),
        action="append",
        help="built-in workload, repeatable (default: learner and batch)",
    )
    parser.add_argument("--game", default="marry_the_monster-v0", help="game id (default %(default)s)")
    parser.add_argument(
        "--seconds", type=float, default=10.0, help="timed seconds per run (default %(default)s)"
    )
    parser.add_argument("--copies", type=int, default=2, help="processes side by side (default %(default)s)")
    parser.add_argument("--repeats", type=int, default=3, help="alone/together rounds (default %(default)s)")
    parser.add_argument("--quick", action="store_true", help="a smoke test: 0.2 s runs, one round")
    parser.add_argument("--json", action="store_true", help="print the results as JSON lines instead")
    parser.add_argument(
        "command", nargs=argparse.REMAINDER, help="after '--': any command to run instead of the workloads"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Measure each requested workload (or the given command) and print the results."""
    args = build_parser().parse_args(argv)
    if args.quick:
        args.seconds, args.repeats = 0.2, 1
    if args.copies < 2 or args.repeats < 1 or args.seconds <= 0:
        build_parser().error("--copies must be at least 2, --repeats at least 1, --seconds positive")
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    jobs = (
        {" ".join(command): command}
        if command
        else {
            name: workload_command(name, args.game, args.seconds)
            for name in args.workload or ["learner", "batch"]
        }
    )
    for label, job in jobs.items():
        result = side_by_side(job, args.copies, args.repeats, timeout=max(600.0, 20 * args.seconds))
        print(
            json.dumps({"workload": label, "game": args.game, **result})
            if args.json
            else report(result, label),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
