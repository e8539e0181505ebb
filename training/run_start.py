"""What every trainer does before (and around) training, in one place.

The trainers (:mod:`monster_zoo.training.ppo.trainer`, :mod:`monster_zoo.training.rllib.league`,
:mod:`monster_zoo.training.az.trainer`) start the same way: a command line generated from an ``Args``
dataclass (:func:`flag`, :func:`build_parser`), its problems refused through ``parser.error``
before anything is written (:func:`check_arguments`, :func:`game_options`), then a run folder
``{out_dir}/{game}__{exp_name}__{seed}__{unix time}/`` holding ``args.json`` (:func:`new_run`).
While training they log to ``metrics.csv`` (:class:`MetricsLog`), show a progress bar
(:func:`progress_bar`) and measure the learner against the random and greedy baselines
(:func:`baseline_rates`).

Nothing here imports torch, Stable-Baselines3 or Ray: ``--help`` and bad arguments are answered
without them.
"""

import argparse
import csv
import dataclasses
import io
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import field
from pathlib import Path
from typing import NamedTuple

from monster_zoo import envs
from monster_zoo.envs.core.options import parse_option
from monster_zoo.envs.core.safe_writing import write_atomic

# The opponents of every evaluation, in the order their win rates are measured and logged.
BASELINES = ("random", "greedy")
# The progress bar's rate and ETA: an exponential average over rollouts that weighs the newest
# 5% (about the last 20 rollouts), so that one slow update, evaluation or busy spell moves them
# little.
PROGRESS_SMOOTHING = 0.05


def say_starting(command: str) -> None:
    """The run's first line, as soon as its arguments pass: loading torch (or Ray) and compiling the
    game's kernels can take a minute before the trainer's own lines, and silence reads as a hang."""
    print(
        f"{command}: arguments checked; loading the trainer's packages and compiling the game's "
        "kernels (cached after the first run)...",
        file=sys.stderr,
        flush=True,
    )


def flag(default, help: str):
    """A field of a trainer's ``Args`` dataclass with its command-line help."""
    return field(default=default, metadata={"help": help})


def build_parser(args_class, prog: str, description: str) -> argparse.ArgumentParser:
    """An argparse parser with one flag per field of the dataclass ``args_class``: ``--total-timesteps``
    for ``total_timesteps``, typed as its default, helped by its :func:`flag` help; a ``bool`` field
    gives ``--x``/``--no-x``, the field ``option`` a repeatable ``--option KEY=VALUE``."""
    parser = argparse.ArgumentParser(
        prog=prog, description=description, formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    for f in dataclasses.fields(args_class):
        name = "--" + f.name.replace("_", "-")
        default = f.default_factory() if f.default is dataclasses.MISSING else f.default
        if f.type is bool or f.type == "bool":
            parser.add_argument(
                name, action=argparse.BooleanOptionalAction, default=default, help=f.metadata["help"]
            )
        elif f.name == "option":
            parser.add_argument(
                name, action="append", default=default, metavar="KEY=VALUE", help=f.metadata["help"]
            )
        else:
            parser.add_argument(name, type=type(default), default=default, help=f.metadata["help"])
    return parser


def check_arguments(parser: argparse.ArgumentParser, args, *checks: Callable[..., str | None]) -> None:
    """Exit through ``parser.error`` (status 2, the usage and the message) with the first problem
    that one of ``checks`` finds in ``args``. Each check returns a message or None; they run in
    order, each only when those before it found nothing, so a later check may rely on what an
    earlier one vouched for (the flags' ranges before the game is looked up)."""
    for check in checks:
        problem = check(args)
        if problem:
            parser.error(problem)


def parse_options(pairs: Sequence[str]) -> dict:
    """``["num_players=3", "kings_rules=true"]`` -> ``{"num_players": 3, "kings_rules": True}``,
    values read as by ``monster_zoo.envs.core.options.parse_option``; ValueError for a pair that is
    not ``KEY=VALUE``."""
    options = {}
    for pair in pairs:
        try:
            key, value = parse_option(pair)
        except argparse.ArgumentTypeError as err:
            raise ValueError(str(err)) from None
        options[key] = value
    return options


def game_options(parser: argparse.ArgumentParser, game_id: str, pairs: Sequence[str]) -> dict:
    """The ``--option`` ``pairs`` as the options of ``game_id``, checked against the game
    (``monster_zoo.envs.config``); a bad pair, an unknown game or an option the game refuses exits
    through ``parser.error`` with the reason (which names the valid values)."""
    try:
        options = parse_options(pairs)
        envs.config(game_id, options)
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    return options


def parse_mix(text: str) -> dict:
    """``"random:0.2,snapshots:0.8"`` -> ``{"random": 0.2, "snapshots": 0.8}``; ValueError unless
    every item is ``NAME:WEIGHT`` with a weight >= 0 and some weight is positive."""
    mix = {}
    for item in filter(None, text.split(",")):
        name, _, weight = item.rpartition(":")
        try:
            mix[name] = float(weight)
        except ValueError:
            raise ValueError(f"opponent mix item {item!r} is not NAME:WEIGHT") from None
        if not name or mix[name] < 0:
            raise ValueError(f"opponent mix item {item!r} is not NAME:WEIGHT with WEIGHT >= 0")
    if not mix or sum(mix.values()) <= 0:
        raise ValueError(f"opponent mix {text!r} gives no opponent a positive weight")
    return mix


def ppo_flag_bounds(args) -> list:
    """The range checks of the flags both self-play PPO trainers share (``monster-zoo train`` and
    ``device-train``), as ``(flag, value, ok, what it must be)`` for ``out_of_bounds``."""
    return [
        ("--seed", args.seed, args.seed >= 0, "a non-negative integer"),
        ("--total-timesteps", args.total_timesteps, args.total_timesteps >= 1, "at least 1"),
        ("--num-envs", args.num_envs, args.num_envs >= 1, "at least 1"),
        ("--num-steps", args.num_steps, args.num_steps >= 1, "at least 1"),
        ("--batch-size", args.batch_size, args.batch_size >= 2, "at least 2"),
        ("--update-epochs", args.update_epochs, args.update_epochs >= 1, "at least 1"),
        ("--learning-rate", args.learning_rate, args.learning_rate > 0, "a number > 0"),
        ("--gamma", args.gamma, 0 < args.gamma <= 1, "in (0, 1]"),
        ("--gae-lambda", args.gae_lambda, 0 <= args.gae_lambda <= 1, "in [0, 1]"),
        ("--clip-coef", args.clip_coef, args.clip_coef > 0, "a number > 0"),
        ("--ent-coef", args.ent_coef, args.ent_coef >= 0, "a number >= 0"),
        ("--time-limit", args.time_limit, args.time_limit >= 0, "minutes >= 0 (0: no limit)"),
        ("--snapshot-every", args.snapshot_every, args.snapshot_every >= 1, "at least 1"),
        ("--pool-size", args.pool_size, args.pool_size >= 1, "at least 1"),
        ("--eval-every", args.eval_every, args.eval_every >= 0, "at least 0 (0: only at the end)"),
        ("--eval-games", args.eval_games, args.eval_games >= 1, "at least 1"),
        ("--checkpoint-every", args.checkpoint_every, args.checkpoint_every >= 0, "at least 0"),
        ("--torch-threads", args.torch_threads, args.torch_threads >= 0, "at least 0 (0: torch's default)"),
    ]


class Run(NamedTuple):
    """A run's name (``{game}__{exp_name}__{seed}__{unix time}``) and its folder."""

    name: str
    dir: Path


def run_name(game_id: str, exp_name: str, seed: int) -> str:
    """The name of a run started now: ``{game}__{exp_name}__{seed}__{unix time}``."""
    return f"{game_id}__{exp_name}__{seed}__{int(time.time())}"


def args_json(args) -> str:
    """The text of a run's ``args.json``: every field of the ``Args`` dataclass ``args``, in field order."""
    return json.dumps(dataclasses.asdict(args), indent=2)


def new_run(
    out_dir: str | Path,
    game_id: str,
    exp_name: str,
    seed: int,
    args=None,
    subdirs: Iterable[str] = ("checkpoints",),
) -> Run:
    """Create the folder of a new run under ``out_dir`` with its ``subdirs``, and write ``args``
    (an ``Args`` dataclass) into its ``args.json``, atomically, so an interruption never leaves half
    of it; ``args=None`` leaves that to the caller. A folder of that name that already holds one of
    ``subdirs`` (without subdirs: that exists at all) is refused (FileExistsError), so two runs
    never share a folder."""
    name = run_name(game_id, exp_name, seed)
    run = Run(name, Path(out_dir) / name)
    subdirs = list(subdirs)
    run.dir.mkdir(parents=True, exist_ok=bool(subdirs))  # with subdirs, they are what must be new
    for subdir in subdirs:
        (run.dir / subdir).mkdir(parents=True)
    if args is not None:
        write_atomic(run.dir / "args.json", args_json(args))
    return run


def baseline_rates(
    learner,
    game_id: str,
    options: dict,
    seed: int,
    games: int,
    log: Callable[[str, float], None] | None = None,
    intervals: bool = False,
) -> dict:
    """The win rates (:class:`~monster_zoo.training.learner_eval.WinRate`) of ``learner`` against the
    :data:`BASELINES`, ``games`` games each (seats rotated), by name; a game without a greedy
    baseline is measured against random alone. Each rate is passed to ``log(metric, value)`` as soon
    as it is known, as ``eval/winrate_vs_<name>``, with ``intervals`` also its 95% interval's ends
    (``eval/winrate_vs_<name>_low95`` and ``_high95``)."""
    from monster_zoo.agents import make_agent
    from monster_zoo.training.learner_eval import evaluate_against

    rates = {}
    for k, name in enumerate(BASELINES):
        try:
            opponent = make_agent(name, game_id, seed=seed + k)
        except ValueError:
            continue  # a game without a greedy baseline
        rates[name] = evaluate_against(learner, opponent, game_id, games, seed=10_000_000 + seed, **options)
        if log is not None:
            log(f"eval/winrate_vs_{name}", rates[name].rate)
            if intervals:
                low, high = rates[name].interval
                log(f"eval/winrate_vs_{name}_low95", low)
                log(f"eval/winrate_vs_{name}_high95", high)
    return rates


def progress_bar(total: int, desc: str, enabled: bool = True):
    """The run's tqdm bar in steps; update it once per rollout (or training iteration), so that
    each update's interval holds both the collection and the update, and its rate is smoothed over
    rollouts (:data:`PROGRESS_SMOOTHING`)."""
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="step", disable=not enabled, desc=desc, smoothing=PROGRESS_SMOOTHING)


METRICS_HEADER = ["step", "wall_time", "metric", "value"]


class MetricsLog:
    """``metrics.csv`` in long format (step, wall_time, metric, value), each row on disk once logged,
    and the same value handed to ``also(step, metric, value)`` where given (TensorBoard's
    ``add_scalar`` order, or SB3's logger through a lambda).

    A resumed run (``resume_step``, the step of its checkpoint) keeps the rows logged up to that
    step and drops the later ones the interrupted run wrote, so no step appears twice; its wall
    time goes on from ``elapsed`` seconds."""

    def __init__(
        self,
        path: Path,
        also: Callable[[int, str, float], object] | None = None,
        resume_step: int | None = None,
        elapsed: float = 0.0,
    ):
        rows: list[list[str]] = []
        if resume_step is not None and path.is_file():
            with path.open(newline="") as f:
                rows = [r for r in list(csv.reader(f))[1:] if int(r[0]) <= resume_step]
        kept = io.StringIO(newline="")
        csv.writer(kept).writerows([METRICS_HEADER, *rows])
        write_atomic(path, kept.getvalue())  # an interruption here leaves the old file whole
        self.file = path.open("a", newline="")
        self.writer = csv.writer(self.file)
        self.also = also
        self.start = time.time() - elapsed

    def log(self, step: int, metric: str, value: float) -> None:
        """Record one value at ``step`` (the trainer's count: timesteps, or decisions)."""
        self.writer.writerow([step, f"{time.time() - self.start:.2f}", metric, f"{value:.6g}"])
        self.file.flush()
        if self.also is not None:
            self.also(step, metric, value)

    def close(self) -> None:
        """Close the CSV file (``also``'s owner closes its own logger)."""
        self.file.close()
