"""Time our engines and AEC envs against PettingZoo, OpenSpiel and Pgx, on one machine, in one run.

    python -m monster_zoo.benchmarks.bench                     # everything, ~2 minutes per game
    python -m monster_zoo.benchmarks.bench --quick --games none  # anchors only, a few seconds
    python -m monster_zoo.benchmarks.bench --runs 3              # the suite three times: medians of runs
    python -m monster_zoo.benchmarks.bench --side-by-side        # alone vs two processes at once

Every throughput is random legal play with auto-reset, counted in actions applied per
second. Each measurement is warmed up (numba compile included) before it is timed, then
timed ``--repeats`` times for ``--seconds`` each; the rounds are interleaved across all
measurements so that a slow spell of the machine hits every measurement alike, and the
median is reported. Compile and start-up times are reported separately. With ``--runs R``
the timed suite (anchors included) runs R times and every ratio is judged by its median of
runs, with the range beside it. Results go to stdout as markdown tables and are appended to
a JSON-lines file; see README.md.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from monster_zoo.benchmarks import anchors, side_by_side
from monster_zoo.evaluation.host import cpu_name, host_facts

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = REPO_ROOT / "benchmarks" / "results" / "results.jsonl"
MIN_REPEATS = 5
SEED = 0
# Targets the project has set itself (see README.md).
AEC_RATIO_TARGET = 3.0
ENGINE_RATIO_TARGET = 10.0
WARM_START_TARGET_S = 1.5
QUICK_SETTINGS = {
    "repeats": 2,
    "seconds": 0.1,
    "batch_sizes": [64, 256],
    "threads": [1],
    "pgx_games": ["connect_four"],
}
FULL_SETTINGS = {
    "repeats": MIN_REPEATS,
    "seconds": 1.0,
    "batch_sizes": [64, 256, 1024, 4096],
    "threads": [1, 2],
    "pgx_games": list(anchors.PGX_GAMES),
}

PZ_ENV = "pettingzoo connect_four_v3 env()"
PZ_RAW_ENV = "pettingzoo connect_four_v3 raw_env()"
OPENSPIEL = "openspiel connect_four"
PGX_PREFIX = "pgx "  # + the Pgx game's name: "pgx connect_four"
SINGLE_STATE = "single-state engine loop"
BATCHED = "batched engine"
BATCHED_PYTHON = "batched engine (python loop)"
OUR_ENV = "aec env()"
OUR_RAW_ENV = "aec raw_env()"

# Run in a fresh interpreter to time what a user waits for once numba's cache is on disk.
WARM_START_SCRIPT = """\
import time
start = time.perf_counter()
import monster_zoo
import numpy as np
env = monster_zoo.make({game_id!r})
env.reset(seed=0)
mask = env.last()[0]["action_mask"]
env.step(int(np.flatnonzero(mask)[0]))
print(time.perf_counter() - start)
"""

# The same start plus the batched engine, run once with numba's cache pointed at an empty
# folder: what a fresh install pays to compile every kernel of the game.
COLD_START_SCRIPT = WARM_START_SCRIPT.replace(
    "print(time.perf_counter() - start)",
    "engine = monster_zoo.make_batch({game_id!r}, num_envs=2, seed=0)\n"
    "engine.reset()\n"
    "engine.step(engine.random_actions())\n"
    "engine.step_random(1)\n"
    "print(time.perf_counter() - start)",
)


@dataclass
class Measurement:
    """One throughput to time: ``run(seconds) -> (steps, elapsed)`` plus its labels."""

    name: str
    kind: str  # "anchor" or "ours"
    game: str
    run: Callable[[float], tuple[int, float]]
    batch_size: int | None = None
    threads: int | None = None
    rates: list[float] = field(default_factory=list)
    run_medians: list[float] = field(default_factory=list)  # the median of each finished run

    @property
    def median(self) -> float:
        """Median steps/s over the repeats of the current run."""
        return statistics.median(self.rates)

    @property
    def median_of_runs(self) -> float:
        """Median over the finished runs of each run's median (the current run's alone before any finished)."""
        return statistics.median(self.run_medians) if self.run_medians else self.median

    def record(self, seconds: float, run: int = 0) -> dict:
        """The JSON-lines record of this measurement in run ``run`` (its current repeats)."""
        return {
            "record": "measurement",
            "run": run,
            "name": self.name,
            "kind": self.kind,
            "game": self.game,
            "steps_per_s": self.median,
            "repeats": self.rates,
            "batch_size": self.batch_size,
            "threads": self.threads,
            "seconds_per_repeat": seconds,
        }


@dataclass
class Timing:
    """A start-up cost in seconds (median of ``samples``), with an optional target."""

    name: str
    game: str | None
    samples: list[float]
    target_s: float | None = None
    cpu_s: float | None = None  # CPU seconds (user + system) of the child process, where measured

    @property
    def seconds(self) -> float:
        """Median of the samples."""
        return statistics.median(self.samples)

    @property
    def passed(self) -> bool | None:
        """Whether the target is met, or None without a target."""
        return None if self.target_s is None else self.seconds < self.target_s

    def record(self) -> dict:
        """The JSON-lines record of this timing."""
        return {
            "record": "timing",
            "name": self.name,
            "game": self.game,
            "seconds": self.seconds,
            "repeats": self.samples,
            "cpu_s": self.cpu_s,
            "target_s": self.target_s,
            "passed": self.passed,
        }


@dataclass
class Ratio:
    """A throughput ratio of ours over an anchor, against a target; None if a side is missing."""

    name: str
    game: str
    value: float | None
    target: float | None  # None: reported without a target
    detail: str | None = None  # which configuration of ours the value comes from

    @property
    def passed(self) -> bool | None:
        """Whether the target is met, or None without a target or when the ratio could not be computed."""
        return None if self.value is None or self.target is None else self.value >= self.target

    def record(self, run: int = 0) -> dict:
        """The JSON-lines record of this ratio in run ``run``."""
        return {
            "record": "ratio",
            "run": run,
            "name": self.name,
            "game": self.game,
            "value": self.value,
            "detail": self.detail,
            "target": self.target,
            "passed": self.passed,
        }


@dataclass
class RatioAcrossRuns:
    """One ratio over several runs of the suite: judged by the median of the runs, never by one run."""

    name: str
    game: str
    values: list[float | None]  # one per run; None where that run could not compute it
    target: float | None
    details: list[str | None]

    @property
    def measured(self) -> list[float]:
        """The runs' values that could be computed."""
        return [value for value in self.values if value is not None]

    @property
    def median(self) -> float | None:
        """Median of the runs' values, or None when no run computed the ratio."""
        return statistics.median(self.measured) if self.measured else None

    @property
    def low(self) -> float | None:
        """The smallest run value, or None."""
        return min(self.measured, default=None)

    @property
    def high(self) -> float | None:
        """The largest run value, or None."""
        return max(self.measured, default=None)

    @property
    def passed(self) -> bool | None:
        """Whether the median of runs meets the target; None without a target or a value."""
        return None if self.median is None or self.target is None else self.median >= self.target

    def record(self) -> dict:
        """The JSON-lines record of this ratio across runs."""
        return {
            "record": "ratio_across_runs",
            "name": self.name,
            "game": self.game,
            "median": self.median,
            "min": self.low,
            "max": self.high,
            "values": self.values,
            "details": self.details,
            "target": self.target,
            "passed": self.passed,
        }


def ratios_across_runs(runs: list[list[Ratio]]) -> list[RatioAcrossRuns]:
    """Each ratio of ``runs`` (one list of ratios per run, as :func:`compute_ratios` returns)
    gathered over the runs, in the order they first appear; a ratio missing from a run counts as None there."""
    keys = list(dict.fromkeys((r.name, r.game) for ratios in runs for r in ratios))
    by_run = [{(r.name, r.game): r for r in ratios} for ratios in runs]
    gathered = []
    for key in keys:
        found = [ratios.get(key) for ratios in by_run]
        target = next(r.target for r in found if r is not None)
        gathered.append(
            RatioAcrossRuns(
                *key,
                [None if r is None else r.value for r in found],
                target,
                [None if r is None else r.detail for r in found],
            )
        )
    return gathered


def _int_list(text: str) -> list[int]:
    """Parse a comma-separated list of positive integers (an argparse type)."""
    try:
        values = [int(item) for item in text.split(",") if item.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return values


def _name_list(text: str) -> list[str]:
    """Parse a comma-separated list of Pgx game names, ``none`` for none (an argparse type)."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    return [] if names == ["none"] else names


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line, filling defaults from the full or the ``--quick`` settings."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.benchmarks.bench",
        description="Throughput of our engines and AEC envs against PettingZoo and OpenSpiel anchors.",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        help=f"timed repeats per measurement (at least {MIN_REPEATS} unless --quick; default {MIN_REPEATS})",
    )
    parser.add_argument(
        "--seconds", type=float, help=f"wall time of one repeat (default {FULL_SETTINGS['seconds']})"
    )
    parser.add_argument(
        "--batch-sizes",
        type=_int_list,
        help="batched engine sizes, comma-separated (default 64,256,1024,4096)",
    )
    parser.add_argument(
        "--threads", type=_int_list, help="numba thread counts, comma-separated (default 1,2)"
    )
    parser.add_argument(
        "--pgx-games",
        type=_name_list,
        help=f"Pgx games run as batched anchors, comma-separated, or 'none' "
        f"(default {','.join(FULL_SETTINGS['pgx_games'])}; connect_four with --quick)",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        help="times to run the timed suite, anchors included; ratios are judged by their median of runs "
        "(default 1)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="tiny settings for a smoke test; the numbers mean little"
    )
    parser.add_argument(
        "--side-by-side",
        action="store_true",
        help="instead: a learner env and a batched engine, each alone and as two processes at once "
        "(monster_zoo.benchmarks.side_by_side; uses --games' first game and --quick)",
    )
    parser.add_argument(
        "--json",
        type=Path,
        default=DEFAULT_JSON,
        help=f"JSON-lines file to append to (default {DEFAULT_JSON.relative_to(REPO_ROOT)})",
    )
    parser.add_argument(
        "--games",
        help="comma-separated game ids, or 'none' for the anchors only (default: all registered games)",
    )
    args = parser.parse_args(argv)

    settings = QUICK_SETTINGS if args.quick else FULL_SETTINGS
    for key, default in settings.items():
        if getattr(args, key) is None:
            setattr(args, key, default)
    if args.repeats < 1 or (args.repeats < MIN_REPEATS and not args.quick):
        parser.error(f"--repeats must be at least {MIN_REPEATS}; use --quick for a smoke test")
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, got {args.runs}")
    return args


def _our_games(requested: str | None) -> tuple[list[str], Timing | None]:
    """Resolve ``--games`` to game ids, timing ``import monster_zoo`` when it is needed."""
    if requested == "none":
        return [], None
    start = time.perf_counter()
    from monster_zoo import envs

    registered = envs.available()
    import_timing = Timing("import monster_zoo", None, [time.perf_counter() - start])
    if requested is None:
        return registered, import_timing
    games = [game.strip() for game in requested.split(",") if game.strip()]
    unknown = sorted(set(games) - set(registered))
    if unknown:
        sys.exit(f"error: unknown game id(s) {unknown}; registered: {registered}")
    return games, import_timing


def _package_version(distribution: str) -> str | None:
    """Installed version of ``distribution``, or None where it is not installed."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _git(*args: str) -> str | None:
    """Output of a git command in the repository, or None outside a repository or without git."""
    try:
        return subprocess.run(
            ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def measurement_header() -> dict:
    """The first line of a measurement file that the results pages read: when, the git commit (and
    whether the tree had uncommitted changes), the host and the command line's arguments."""
    return {
        "kind": "header",
        "time": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git": _git("rev-parse", "HEAD"),
        "git_dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "host": host_facts(),
        "argv": sys.argv[1:],
    }


def header_record(args: argparse.Namespace, run_id: str) -> dict:
    """The first record of a run: versions, hardware, git revision and settings."""
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "record": "header",
        "run_id": run_id,
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "numpy": _package_version("numpy"),
        "numba": _package_version("numba"),
        "gymnasium": _package_version("gymnasium"),
        "pettingzoo": _package_version("pettingzoo"),
        "open_spiel": _package_version("open_spiel"),
        "pgx": _package_version("pgx"),
        "jax": _package_version("jax"),
        "jaxlib": _package_version("jaxlib"),
        "cpu_model": cpu_name(),
        "cores": os.cpu_count(),
        # Other load at the start; with few cores it moves the multi-threaded numbers most.
        "load_average_1min": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "platform": platform.platform(),
        "git_revision": _git("rev-parse", "HEAD"),
        "git_dirty": None if status is None else bool(status),
        "settings": {
            "repeats": args.repeats,
            "runs": args.runs,
            "seconds": args.seconds,
            "batch_sizes": args.batch_sizes,
            "threads": args.threads,
            "pgx_games": args.pgx_games,
            "quick": args.quick,
        },
    }


def calibrated_runner(
    call: Callable[[int], object], steps_per_unit: int, seconds: float, threads: int | None = None
) -> Callable[[float], tuple[int, float]]:
    """Turn ``call(units)``, which applies ``units * steps_per_unit`` actions, into a runner.

    The first call compiles and warms up and is not timed. The chunk size is then doubled
    until one call takes a tenth of ``seconds``, so that the Python overhead between calls
    and the overshoot past ``seconds`` stay small. ``threads``, if given, is set with
    ``monster_zoo.envs.core.threads.set_num_threads`` before each use (every batch size then
    runs in parallel when it is above 1), since measurements with different thread counts
    are interleaved.
    """
    from monster_zoo.envs.core import threads as thread_settings

    def use_threads() -> None:
        if threads is not None:
            thread_settings.set_num_threads(threads)
            thread_settings.set_parallel_min_batch(1)

    use_threads()
    call(1)
    units = 1
    while True:
        start = time.perf_counter()
        call(units)
        if time.perf_counter() - start >= seconds / 10 or units >= 1 << 30:
            break
        units *= 2

    def run(budget: float) -> tuple[int, float]:
        use_threads()
        steps = 0
        start = time.perf_counter()
        while True:
            call(units)
            steps += units * steps_per_unit
            elapsed = time.perf_counter() - start
            if elapsed >= budget:
                return steps, elapsed

    return run


def anchor_measurements(seconds: float) -> list[Measurement]:
    """The anchors, each warmed up once: PettingZoo's connect_four env() and raw_env(), OpenSpiel's connect_four."""
    measurements = [
        Measurement(
            PZ_ENV, "anchor", "connect_four", anchors.pettingzoo_connect_four(wrapped=True, seed=SEED)
        ),
        Measurement(
            PZ_RAW_ENV, "anchor", "connect_four", anchors.pettingzoo_connect_four(wrapped=False, seed=SEED)
        ),
    ]
    if anchors.openspiel_available():
        runner = anchors.openspiel_game("connect_four", seed=SEED)
        measurements.append(Measurement(OPENSPIEL, "anchor", "connect_four", runner))
    else:
        print("note: pyspiel is not importable, so the OpenSpiel anchor is skipped", file=sys.stderr)
    for measurement in measurements:
        measurement.run(min(seconds, 0.1))
    return measurements


def pgx_measurements(
    names: list[str], batch_sizes: list[int], seconds: float, threads: int
) -> tuple[list[Measurement], list[Timing], int | None]:
    """Pgx's ``names`` as batched anchors at every batch size, each compiled and warmed up.

    JAX's CPU backend is started with ``threads`` threads (:func:`anchors.start_jax`); the
    count it got is returned (None when Pgx is not installed or no game is asked for) and
    recorded in the header. The first call of each batch size, JAX's trace and XLA's compile
    of that shape, is reported as a timing and never timed as throughput.
    """
    if not names:
        return [], [], None
    if not anchors.pgx_available():
        print(
            "note: pgx and jax are not importable (the bench extra installs them), so the Pgx anchors "
            "are skipped",
            file=sys.stderr,
        )
        return [], [], None
    jax_threads = anchors.start_jax(threads)
    import pgx

    unknown = sorted(set(names) - set(pgx.available_envs()))
    if unknown:
        sys.exit(f"error: unknown Pgx game(s) {unknown}; available: {list(pgx.available_envs())}")
    measurements, timings = [], []
    for name in names:
        for batch_size in batch_sizes:
            start = time.perf_counter()
            batch = anchors.PgxBatch(name, batch_size, SEED)
            batch.step_random(1)
            timings.append(
                Timing(f"pgx compile/first call (batch {batch_size})", name, [time.perf_counter() - start])
            )
            runner = calibrated_runner(batch.step_random, batch_size, seconds)
            measurements.append(
                Measurement(PGX_PREFIX + name, "anchor", name, runner, batch_size, jax_threads)
            )
    return measurements, timings, jax_threads


def warm_start_timing(game_id: str, repeats: int) -> Timing:
    """Seconds a fresh interpreter takes to import monster_zoo, make, reset and step ``game_id``.

    A first, untimed run makes sure numba's cache is on disk; ``repeats`` timed runs follow.
    """
    command = [sys.executable, "-c", WARM_START_SCRIPT.format(game_id=game_id)]
    samples = []
    for attempt in range(repeats + 1):
        completed = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, check=True)
        if attempt:
            samples.append(float(completed.stdout.strip().splitlines()[-1]))
    return Timing("warm start (import+reset+step)", game_id, samples, WARM_START_TARGET_S)


def cold_start_timing(game_id: str) -> Timing:
    """Seconds a fresh interpreter with an empty numba cache takes to compile and start
    ``game_id``'s AEC env and batched engine (one sample: it is the compile cost), with the
    child's CPU seconds, which other load on the machine moves less than the wall time."""
    import resource
    import tempfile

    with tempfile.TemporaryDirectory() as cache_dir:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        completed = subprocess.run(
            [sys.executable, "-c", COLD_START_SCRIPT.format(game_id=game_id)],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "NUMBA_CACHE_DIR": cache_dir},
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return Timing(
        "cold start, empty cache (compile all kernels)",
        game_id,
        [float(completed.stdout.strip().splitlines()[-1])],
        cpu_s=round(cpu, 3),
    )


def game_measurements(
    game_id: str, args: argparse.Namespace, threads: list[int]
) -> tuple[list[Measurement], list[Timing]]:
    """Compile, warm up and time the start-up of one of our games; return its measurements and timings.

    The first AEC ``make`` + reset + step is timed before anything else of the game runs,
    so that it carries the compile (or the cache load) as a user meets it.
    """
    import numpy as np

    from monster_zoo import envs
    from monster_zoo.envs.registry import single_state_random_steps

    timings = []
    start = time.perf_counter()
    env = envs.make(game_id)
    env.reset(seed=SEED)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    timings.append(Timing("compile/first call (aec env)", game_id, [time.perf_counter() - start]))

    start = time.perf_counter()
    single_state_random_steps(game_id, 1, SEED)
    timings.append(Timing("compile/first call (single-state loop)", game_id, [time.perf_counter() - start]))

    engines = {}
    start = time.perf_counter()
    first_engine = engines[args.batch_sizes[0]] = envs.make_batch(
        game_id, num_envs=args.batch_sizes[0], seed=SEED
    )
    first_engine.reset()
    first_engine.step(first_engine.random_actions())
    first_engine.step_random(1)
    timings.append(Timing("compile/first call (batched engine)", game_id, [time.perf_counter() - start]))

    timings.append(warm_start_timing(game_id, args.repeats))
    if not args.quick:
        timings.append(cold_start_timing(game_id))

    seeds = itertools.count(SEED + 1)

    def single_state(units: int) -> None:
        single_state_random_steps(game_id, units, next(seeds))

    measurements = [
        Measurement(SINGLE_STATE, "ours", game_id, calibrated_runner(single_state, 1, args.seconds))
    ]
    for batch_size in args.batch_sizes:
        if batch_size not in engines:
            engines[batch_size] = envs.make_batch(game_id, num_envs=batch_size, seed=SEED + batch_size)
            engines[batch_size].reset()
        for thread_count in threads:
            runner = calibrated_runner(
                engines[batch_size].step_random, batch_size, args.seconds, thread_count
            )
            measurements.append(Measurement(BATCHED, "ours", game_id, runner, batch_size, thread_count))

    largest = max(args.batch_sizes)
    engine = engines[largest]

    def python_loop(units: int) -> None:
        for _ in range(units):
            engine.step(engine.random_actions())

    runner = calibrated_runner(python_loop, largest, args.seconds, max(threads))
    measurements.append(Measurement(BATCHED_PYTHON, "ours", game_id, runner, largest, max(threads)))
    for name, wrapped in ((OUR_ENV, True), (OUR_RAW_ENV, False)):
        measurement = Measurement(
            name, "ours", game_id, anchors.aec_runner(envs.make(game_id, wrapped=wrapped), SEED)
        )
        measurement.run(min(args.seconds, 0.1))
        measurements.append(measurement)
    return measurements, timings


def usable_threads(requested: list[int]) -> list[int]:
    """The requested numba thread counts that this machine allows (at most NUMBA_NUM_THREADS)."""
    import numba

    limit = numba.config.NUMBA_NUM_THREADS
    usable = [count for count in requested if count <= limit]
    if len(usable) < len(requested):
        skipped = sorted(set(requested) - set(usable))
        print(f"note: numba allows at most {limit} threads here; skipping {skipped}", file=sys.stderr)
    return usable or [1]


def time_all(measurements: list[Measurement], repeats: int, seconds: float, label: str = "timing") -> None:
    """Time every measurement ``repeats`` times, one interleaved round after another, replacing
    the rates of an earlier run."""
    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None
    for measurement in measurements:
        measurement.rates = []
    total = repeats * len(measurements)
    progress = tqdm(total=total, desc=label, unit="run", file=sys.stderr) if tqdm else None
    for _ in range(repeats):
        for measurement in measurements:
            steps, elapsed = measurement.run(seconds)
            measurement.rates.append(steps / elapsed)
            if progress:
                progress.update()
    if progress:
        progress.close()
    for measurement in measurements:
        measurement.run_medians.append(measurement.median)


def compute_ratios(measurements: list[Measurement], games: list[str]) -> list[Ratio]:
    """Per game: our AEC env() over PettingZoo's env(), our best batched engine over OpenSpiel,
    and our best batched engine over the best batch size of each Pgx game (no target)."""
    medians = {(m.name, m.game): m.median for m in measurements if m.name != BATCHED}
    best_pgx = {}
    for m in measurements:
        if m.name.startswith(PGX_PREFIX):
            best_pgx[m.name] = max(best_pgx.get(m.name, 0.0), m.median)
    ratios = []
    for game in games:
        ours = medians.get((OUR_ENV, game))
        anchor = medians.get((PZ_ENV, "connect_four"))
        value = ours / anchor if ours is not None and anchor else None
        ratios.append(Ratio(f"{OUR_ENV} / {PZ_ENV}", game, value, AEC_RATIO_TARGET))

        # The target is set at the largest thread count measured (2 by default): the best batch size there.
        engines = [m for m in measurements if m.name == BATCHED and m.game == game]
        top = max((m.threads for m in engines), default=None)
        best = max((m for m in engines if m.threads == top), key=lambda m: m.median, default=None)
        ours = f"best {BATCHED} ({_threads_label(top)})"
        detail = None if best is None else f"batch {best.batch_size}, {_threads_label(top)}"
        for anchor_name, anchor, target in [
            (OPENSPIEL, medians.get((OPENSPIEL, "connect_four")), ENGINE_RATIO_TARGET),
            *((f"best {name}", rate, None) for name, rate in sorted(best_pgx.items())),
        ]:
            value = best.median / anchor if best is not None and anchor else None
            ratios.append(Ratio(f"{ours} / {anchor_name}", game, value, target, detail))
    return ratios


def _threads_label(threads: int | None) -> str:
    return "no threads" if threads is None else f"{threads} thread{'s' if threads != 1 else ''}"


def _verdict(passed: bool | None) -> str:
    return {True: "PASS", False: "MISS", None: "n/a"}[passed]


def _times(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}x"


def _cell(value: object) -> str:
    return "" if value is None else str(value)


def _context_lines(header: dict, what: str) -> list[str]:
    """The report's title and the lines that say where, with what and how it was measured."""
    settings = header["settings"]
    return [
        f"# monster-zoo benchmark {header['run_id']}",
        "",
        f"{header['cpu_model']}, {header['cores']} cores (load {header['load_average_1min']}); "
        f"Python {header['python']}, numpy {header['numpy']}, numba {header['numba']}, "
        f"pettingzoo {header['pettingzoo']}, open_spiel {header['open_spiel']}, pgx {header['pgx']} "
        f"(jax {header['jax']}, jaxlib {header['jaxlib']}, {_cell(header.get('pgx_threads')) or 'n/a'} XLA threads); "
        f"git {(header['git_revision'] or 'none')[:12]}{' (dirty)' if header['git_dirty'] else ''}.",
        f"{what} of {settings['repeats']} repeats of {settings['seconds']:g} s"
        + (" (--quick: not for comparison)." if settings["quick"] else "."),
    ]


def _timing_lines(timings: list[Timing]) -> list[str]:
    """The start-up table (nothing without timings)."""
    if not timings:
        return []
    lines = [
        "",
        "| start-up | game | seconds (median) | CPU seconds | target | result |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    for t in timings:
        target = "" if t.target_s is None else f"< {t.target_s:g}"
        result = "" if t.target_s is None else _verdict(t.passed)
        cpu = "" if t.cpu_s is None else f"{t.cpu_s:.1f}"
        lines.append(f"| {t.name} | {_cell(t.game)} | {t.seconds:.3f} | {cpu} | {target} | {result} |")
    return lines


def markdown_report(
    header: dict, measurements: list[Measurement], timings: list[Timing], ratios: list[Ratio]
) -> str:
    """One run as markdown: context line, throughput, start-up and ratio tables."""
    lines = _context_lines(header, "Medians") + [
        "",
        "| measurement | game | batch | threads | steps/s (median) | min | max |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for m in measurements:
        lines.append(
            f"| {m.name} | {m.game} | {_cell(m.batch_size)} | {_cell(m.threads)} | "
            f"{m.median:,.0f} | {min(m.rates):,.0f} | {max(m.rates):,.0f} |"
        )
    lines += _timing_lines(timings)
    if ratios:
        lines += [
            "",
            "| ratio | game | value | ours at | target | result |",
            "| --- | --- | ---: | --- | ---: | --- |",
        ]
        for r in ratios:
            value = "n/a" if r.value is None else f"{r.value:.1f}x"
            target = "" if r.target is None else f">= {r.target:g}x"
            result = "" if r.target is None else _verdict(r.passed)
            lines.append(f"| {r.name} | {r.game} | {value} | {_cell(r.detail)} | {target} | {result} |")
    return "\n".join(lines)


def _across_runs_verdict(ratio: RatioAcrossRuns) -> str:
    """✔ only where the median of runs meets the target; ✘ with the median otherwise."""
    if ratio.passed is None:
        return "" if ratio.target is None else "n/a"
    return "✔" if ratio.passed else f"✘ (median {_times(ratio.median)})"


def runs_report(
    header: dict, measurements: list[Measurement], timings: list[Timing], ratios: list[RatioAcrossRuns]
) -> str:
    """Several runs as markdown: each measurement's and each ratio's median of runs with its
    range (a run's value is its median over the repeats), every run's ratio, and the verdicts."""
    runs = header["settings"]["runs"]
    lines = _context_lines(header, f"{runs} runs, each the median") + [
        "A target counts as met only where the median of the runs meets it.",
        "",
        "| measurement | game | batch | threads | steps/s (median of runs) | min run | max run |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for m in measurements:
        lines.append(
            f"| {m.name} | {m.game} | {_cell(m.batch_size)} | {_cell(m.threads)} | "
            f"{m.median_of_runs:,.0f} | {min(m.run_medians):,.0f} | {max(m.run_medians):,.0f} |"
        )
    lines += _timing_lines(timings)
    if ratios:
        lines += [
            "",
            "| ratio | game | median of runs | range | each run | target | result |",
            "| --- | --- | ---: | ---: | --- | ---: | --- |",
        ]
        for r in ratios:
            spread = "n/a" if r.low is None else f"{r.low:.1f}-{r.high:.1f}x"
            each = ", ".join("n/a" if v is None else f"{v:.1f}" for v in r.values)
            target = "" if r.target is None else f">= {r.target:g}x"
            lines.append(
                f"| {r.name} | {r.game} | {_times(r.median)} | {spread} | {each} | {target} | "
                f"{_across_runs_verdict(r)} |"
            )
    return "\n".join(lines)


def write_plot(measurements: list[Measurement], path: Path) -> None:
    """Log-log plot of batched steps/s against batch size, a line per game and thread count.

    Needs matplotlib (the bench extra installs it); without it, only a note.
    """
    batched = [m for m in measurements if m.name == BATCHED]
    if not batched:
        return
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("note: matplotlib is not installed, so no plot was written", file=sys.stderr)
        return
    figure, axes = plt.subplots(figsize=(8.5, 4.5))
    games = sorted({m.game for m in batched})
    colors = {game: plt.get_cmap("tab10")(i % 10) for i, game in enumerate(games)}
    # One colour per game; the thread count is the line style, so five games stay readable.
    for game, threads in sorted({(m.game, m.threads) for m in batched}):
        line = sorted(
            (m for m in batched if m.game == game and m.threads == threads), key=lambda m: m.batch_size
        )
        label = f"{game}, {threads} thread{'s' if threads > 1 else ''}"
        axes.plot(
            [m.batch_size for m in line],
            [m.median_of_runs for m in line],
            marker="o",
            color=colors[game],
            linestyle="-" if threads > 1 else ":",
            label=label,
        )
    pgx_names = sorted({m.name for m in measurements if m.name.startswith(PGX_PREFIX)})
    for name, style in zip(pgx_names, itertools.cycle(["-.", (0, (1, 3)), (0, (5, 2, 1, 2))])):
        line = sorted((m for m in measurements if m.name == name), key=lambda m: m.batch_size)
        axes.plot(
            [m.batch_size for m in line],
            [m.median_of_runs for m in line],
            marker="s",
            color="grey",
            linestyle=style,
            label=f"{name} ({line[0].threads} XLA threads)",
        )
    for m in measurements:
        if m.name == OPENSPIEL:
            axes.axhline(
                m.median_of_runs, linestyle="--", linewidth=1, color="grey", label=f"{m.name} ({m.game})"
            )
            axes.axhline(
                ENGINE_RATIO_TARGET * m.median_of_runs,
                linestyle="--",
                linewidth=1,
                color="black",
                label="target: 10x OpenSpiel",
            )
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel("batch size (games)")
    axes.set_ylabel("steps/s")
    axes.set_title("Batched engine throughput")
    axes.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.02, 0.5))
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    print(f"plot written to {path}", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark: measure, print markdown, append JSON lines, plot if possible."""
    args = parse_args(argv)
    if args.side_by_side:
        game = (args.games or "marry_the_monster-v0").split(",")[0]
        side_by_side.main(["--game", game] + (["--quick"] if args.quick else []))
        return
    run_id = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    header = header_record(args, run_id)
    games, import_timing = _our_games(args.games)

    print("warming up the anchors", file=sys.stderr)
    measurements = anchor_measurements(args.seconds)
    timings = [import_timing] if import_timing else []
    threads = usable_threads(args.threads)
    # --quick compiles Pgx at one batch size only: each size is a compile of several seconds.
    pgx_measures, pgx_timings, header["pgx_threads"] = pgx_measurements(
        args.pgx_games, args.batch_sizes[:1] if args.quick else args.batch_sizes, args.seconds, max(threads)
    )
    measurements += pgx_measures
    timings += pgx_timings
    if games:
        for game_id in games:
            print(f"compiling and warming up {game_id}", file=sys.stderr)
            game_measures, game_timings = game_measurements(game_id, args, threads)
            measurements += game_measures
            timings += game_timings

    records, ratios_per_run = [header, *(t.record() for t in timings)], []
    for run in range(args.runs):
        time_all(
            measurements,
            args.repeats,
            args.seconds,
            "timing" if args.runs == 1 else f"timing, run {run + 1} of {args.runs}",
        )
        ratios_per_run.append(compute_ratios(measurements, games))
        records += [m.record(args.seconds, run) for m in measurements] + [
            r.record(run) for r in ratios_per_run[-1]
        ]
    across_runs = ratios_across_runs(ratios_per_run)
    records += [r.record() for r in across_runs]

    if args.runs == 1:
        print(markdown_report(header, measurements, timings, ratios_per_run[0]))
    else:
        print(runs_report(header, measurements, timings, across_runs))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    with args.json.open("a") as out:
        for record in records:
            out.write(json.dumps({"run_id": run_id, **record}) + "\n")
    print(f"results appended to {args.json}", file=sys.stderr)
    write_plot(measurements, args.json.parent / f"batch_scaling-{run_id}.png")


if __name__ == "__main__":
    main()
