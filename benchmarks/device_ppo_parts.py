"""The array-side PPO trainer's torch work, piece by piece, per learner decision (no games).

    python -m monster_zoo.benchmarks.device_ppo_parts             # the trainer's defaults, medians of 7
    python -m monster_zoo.benchmarks.device_ppo_parts --quick     # a smoke test; numbers mean little
    python -m monster_zoo.benchmarks.device_ppo_parts --compare-ref main --repeats 3  # device-train A/B

On the trainer's demo game (Marry the Monster, 2 players: its observation and action sizes), with
``device-train``'s default network, rollout and minibatch, random observations and masks (about a
third of the actions legal), in this process, on torch's CPU threads as ``--threads`` says. Pieces:

- **draw**: one rollout step's action draw and log-probabilities from given logits: TorchRL's
  ``MaskedCategorical`` built and sampled (torch's ``multinomial``), against the trainer's
  :func:`~monster_zoo.training.device_ppo.learner.sample_masked`;
- **policy step**: :meth:`Learner.act` (both networks' forward passes and the draw) per network dtype;
- **critic**: the critic's forward pass one step at a time, against one pass over the whole rollout;
- **update**: one :meth:`Learner.update` (one epoch) per network dtype, with and without a shared trunk.

Pieces are interleaved within each repeat, so a slow spell hits them alike; medians of ``--repeats``
per learner decision in µs, with the 1-minute load average before and after. The games' own time
is the trainer's ``summary.json`` (``rollout_seconds``) and ``training_throughput --versus-device-ppo``.

``--compare-ref REF`` instead measures whole ``device-train --device cpu`` runs of two trees in this
run: the git ref ``REF`` of this package's repository (exported with ``git archive`` into a
temporary folder, imported from there) and the package as it is here. After a warm-up run of each
(numba compiles its kernels into each tree's caches), ``--repeats`` pairs of runs of
``--trainer-seconds`` each alternate between the two, so that a slow spell hits both; the record
holds every run's timesteps per second, the medians and their ratio (here / ``REF``).
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
from collections.abc import Callable, Sequence
from pathlib import Path

GAME = "marry_the_monster-v0"


def pieces(num_envs: int, num_steps: int, minibatch: int) -> dict[str, Callable[[], float]]:
    """Each timed piece as ``run() -> seconds per learner decision``."""
    import torch

    from monster_zoo import envs
    from monster_zoo.training.device_ppo.learner import NETWORK_DTYPES, Learner, sample_masked
    from monster_zoo.training.device_ppo.torchrl_parts import MaskedCategorical
    from monster_zoo.training.device_ppo.trainer import Args

    spec, args = envs.spec(GAME), Args()
    hidden = [int(size) for size in args.net_arch.split(",")]
    generator = torch.Generator().manual_seed(0)
    observations = torch.rand(num_steps, num_envs, spec.obs_size, generator=generator)
    masks = torch.rand(num_steps, num_envs, spec.num_actions, generator=generator) < 1 / 3
    masks[..., 0] = True
    rollout = {
        "observations": observations,
        "masks": masks,
        "actions": torch.zeros(num_steps, num_envs, dtype=torch.int64),
        "log_probs": torch.full((num_steps, num_envs), -2.0),
        "values": torch.zeros(num_steps, num_envs),
        "rewards": torch.zeros(num_steps, num_envs),
        "dones": torch.zeros(num_steps, num_envs, dtype=torch.bool),
        "next_value": torch.zeros(num_envs),
    }

    def learner(**kwargs) -> Learner:
        return Learner(
            spec.obs_size,
            spec.num_actions,
            hidden,
            args.learning_rate,
            args.clip_coef,
            args.ent_coef,
            **kwargs,
        )

    def per_step(work: Callable[[], object]) -> Callable[[], float]:
        def run() -> float:
            start = time.perf_counter()
            work()
            return (time.perf_counter() - start) / num_envs

        return run

    logits = learner().actor_net(observations[0]).detach()

    def masked_categorical():
        with torch.inference_mode():
            distribution = MaskedCategorical(logits=logits, mask=masks[0])
            return distribution.log_prob(distribution.sample())

    def draw():
        with torch.inference_mode():
            return sample_masked(logits, masks[0])

    run = {
        "draw: MaskedCategorical + multinomial": per_step(masked_categorical),
        "draw: sample_masked": per_step(draw),
    }
    for dtype in NETWORK_DTYPES:
        acting = learner(network_dtype=dtype)
        run[f"policy step, {dtype}"] = per_step(lambda acting=acting: acting.act(observations[0], masks[0]))
    critic = learner()
    run["critic, one step"] = per_step(lambda: critic.value(observations[0]))
    run["critic, whole rollout at once"] = _divided(
        per_step(lambda: critic.value(observations.flatten(0, 1))), num_steps
    )
    for shared in (False, True):
        for dtype in NETWORK_DTYPES:
            updating = learner(network_dtype=dtype, shared_trunk=shared)
            update = per_step(
                lambda u=updating: u.update(
                    rollout, args.gamma, args.gae_lambda, 1, minibatch, torch.Generator().manual_seed(0)
                )
            )
            run[f"update, {dtype}{', shared trunk' if shared else ''}"] = _divided(update, num_steps)
    return run


def _divided(run: Callable[[], float], by: int) -> Callable[[], float]:
    """``run``'s seconds divided by ``by`` (a whole rollout's work, per learner decision)."""
    return lambda: run() / by


def measure(run: dict[str, Callable[[], float]], repeats: int) -> dict[str, list[float]]:
    """µs per learner decision of every piece, ``repeats`` times, pieces interleaved, after one warm-up."""
    for work in run.values():
        work()
    times: dict[str, list[float]] = {name: [] for name in run}
    for _ in range(repeats):
        for name, work in run.items():
            times[name].append(1e6 * work())
    return times


def table(times: dict[str, list[float]]) -> str:
    """The markdown table: median and range of every piece."""
    lines = ["| piece | µs a learner decision, median (min-max) |", "| --- | ---: |"]
    lines += [
        f"| {name} | {statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f}) |" for name, v in times.items()
    ]
    return "\n".join(lines)


REPOSITORY = Path(__file__).resolve().parents[1]  # the checkout this package is imported from
# what the A/B's figures depend on, recorded with them
DISTRIBUTIONS: Sequence[str] = ("monster-zoo", "numpy", "numba", "torch", "torchrl", "tensordict")


def export_tree(ref: str, into: Path) -> tuple[str, Path]:
    """``(commit, folder)``: the tree of git ``ref`` of :data:`REPOSITORY` exported into ``into`` and a
    folder to put first on ``PYTHONPATH`` so that ``monster_zoo`` is imported from it (its package
    folders linked under the name they install as); ValueError naming the fix where ``ref`` is not
    a commit of that repository."""
    found = subprocess.run(
        ["git", "-C", str(REPOSITORY), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if found.returncode:
        raise ValueError(
            f"--compare-ref {ref!r} is not a commit of the repository at {REPOSITORY} (a branch, tag or "
            "SHA there; the comparison needs a git checkout, not an installed wheel)"
        )
    commit = found.stdout.strip()
    tree = into / "tree"
    tree.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(REPOSITORY), "archive", commit], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    package = into / "site" / "monster_zoo"
    package.mkdir(parents=True)
    for entry in (tree / "monster_zoo").iterdir():  # the package's own files
        (package / entry.name).symlink_to(entry)
    for folder in tree.iterdir():  # each top-level package folder installs as monster_zoo.<folder>
        if (folder / "__init__.py").is_file() and folder.name != "monster_zoo":
            (package / folder.name).symlink_to(folder)
    return commit, into / "site"


def trainer_rate(site: Path | None, out: Path, seconds: float, quick: bool) -> float:
    """Timesteps per second of one ``device-train --device cpu`` run (its ``summary.json``), the
    package imported from ``site`` (None: as this process imports it)."""
    sizes = ["--total-timesteps", "64", "--num-envs", "16", "--num-steps", "4", "--batch-size", "32"]
    timed = ["--total-timesteps", str(10**12), "--time-limit", str(seconds / 60)]
    argv = [
        *(sizes if quick else timed),
        *(
            "--device cpu --eval-every 0 --eval-games 1 --checkpoint-every 0 --no-progress --no-plot --seed 1".split()
        ),
        "--out-dir",
        str(out),
    ]
    environment = dict(os.environ)
    if site is not None:
        environment["PYTHONPATH"] = os.pathsep.join(
            [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
    done = subprocess.run(
        [sys.executable, "-m", "monster_zoo.training.device_ppo", *argv],
        capture_output=True,
        text=True,
        env=environment,
        cwd=tempfile.gettempdir(),  # never the repository's folders, which would shadow the package
    )
    if done.returncode:
        raise RuntimeError(f"device-train failed ({'REF' if site else 'here'}): {done.stderr[-2000:]}")
    (run,) = out.iterdir()
    return float(json.loads((run / "summary.json").read_text())["timesteps_per_second"])


def compare(ref: str, repeats: int, seconds: float, quick: bool) -> dict:
    """``device-train --device cpu``'s timesteps per second here and at git ``ref``, alternated
    (module docstring); the record."""
    from monster_zoo.evaluation.host import git_revision

    with tempfile.TemporaryDirectory(prefix="device_ppo_compare_") as folder:
        commit, site = export_tree(ref, Path(folder) / "ref")
        trees = {"ref": site, "here": None}
        runs = iter(range(10**9))
        for tree in trees.values():  # warm-up: numba compiles into each tree's caches
            trainer_rate(tree, Path(folder) / f"run{next(runs)}", seconds, quick=True)
        rates: dict[str, list[float]] = {side: [] for side in trees}
        for repeat in range(repeats):
            order = list(trees) if repeat % 2 == 0 else list(reversed(trees))
            for side in order:
                rates[side].append(
                    trainer_rate(trees[side], Path(folder) / f"run{next(runs)}", seconds, quick)
                )
    medians = {side: statistics.median(values) for side, values in rates.items()}
    return {
        "ref": ref,
        "ref_commit": commit,
        "here_commit": git_revision(),
        "trainer_seconds": seconds,
        "timesteps_per_second": rates,
        "median": medians,
        "ratio_here_to_ref": round(medians["here"] / medians["ref"], 4),
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options; bad values exit with code 2 and the valid range."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.benchmarks.device_ppo_parts",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--repeats", type=int, default=7, help="timed repeats of every piece")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (the trainer's default: 1)")
    parser.add_argument(
        "--num-envs", type=int, default=512, help="games per rollout step (the trainer's default)"
    )
    parser.add_argument("--num-steps", type=int, default=32, help="steps per rollout (the trainer's default)")
    parser.add_argument(
        "--batch-size", type=int, default=2048, help="the update's minibatch (the trainer's default)"
    )
    parser.add_argument(
        "--compare-ref",
        default=None,
        help="time whole device-train --device cpu runs here and at this git ref, alternated, instead of the pieces",
    )
    parser.add_argument(
        "--trainer-seconds", type=float, default=60.0, help="each device-train run's time with --compare-ref"
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes and one repeat, for a smoke test")
    parser.add_argument("--json", type=Path, default=None, help="JSON-lines file to append the record to")
    args = parser.parse_args(argv)
    for name in ("repeats", "threads", "num_envs", "num_steps", "batch_size"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if args.trainer_seconds <= 0:
        parser.error(f"--trainer-seconds must be more than 0, got {args.trainer_seconds}")
    if args.quick:
        args.repeats, args.num_envs, args.num_steps, args.batch_size = 1, 16, 4, 32
    return args


def main(argv: list[str] | None = None) -> int:
    """Time every piece, print the table, append the JSON record if asked; return 0."""
    import torch

    from monster_zoo.evaluation.host import cpu_name

    args = parse_args(argv)
    if args.compare_ref is not None:
        return _main_compare(args)
    torch.set_num_threads(args.threads)
    run = pieces(args.num_envs, args.num_steps, args.batch_size)
    before = os.getloadavg()[0]
    times = measure(run, args.repeats)
    record = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "cpu": cpu_name(),
        "cpus": os.cpu_count(),
        "torch_threads": args.threads,
        "num_envs": args.num_envs,
        "num_steps": args.num_steps,
        "batch_size": args.batch_size,
        "load_average": [before, os.getloadavg()[0]],
        "us_per_decision": times,
    }
    print(
        f"{record['cpu']}, {args.threads} torch thread(s), {args.num_envs} games x {args.num_steps} steps, "
        f"minibatches of {args.batch_size}; load {before:.2f}-{record['load_average'][1]:.2f}; "
        f"medians of {args.repeats}"
    )
    print(table(times))
    _append(args.json, record)
    return 0


def _main_compare(args: argparse.Namespace) -> int:
    """``--compare-ref``: the A/B, printed and appended to ``--json``; 2 where the ref is not a commit."""
    from monster_zoo.evaluation.host import provenance

    try:
        record = compare(args.compare_ref, args.repeats, args.trainer_seconds, args.quick)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    record = {"time": time.strftime("%Y-%m-%dT%H:%M:%S"), **record, **provenance(DISTRIBUTIONS)}
    median = record["median"]
    print(
        f"device-train --device cpu, {args.repeats} alternated run(s) of {args.trainer_seconds:g} s: "
        f"{median['here']:.0f} timesteps/s here, {median['ref']:.0f} at {args.compare_ref} "
        f"({record['ref_commit'][:12]}): ratio {record['ratio_here_to_ref']:.3f}"
    )
    _append(args.json, record)
    return 0


def _append(path: Path | None, record: dict) -> None:
    """Append ``record`` as one JSON line to ``path`` (nothing without one)."""
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as f:
            f.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    sys.exit(main())
