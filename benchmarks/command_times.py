"""Wall times of the everyday commands, recorded with the machine they ran on.

The README and the Makefile say how long ``make test`` and ``make demo`` take; those figures come
from here, not from memory. Each command runs from the repository's root as a user would type it
(its output passes through, so its own progress shows), and one JSON line per run is appended to
``docs/measurements/commands_<cpu>.jsonl``: the command, wall seconds, the children's CPU seconds
and their share of one core, the exit status, the first estimate of its own duration it prints
("about 2 min", set beside the time it took), the 1-minute load before and after, the CPU's name
and cores, the git commit (and whether the tree had changes), the date, and whether numba's
cache was emptied first. ``docs/render_results.py`` renders them on the speed page.

    python -m monster_zoo.benchmarks.command_times                      # make test, then make demo
    python -m monster_zoo.benchmarks.command_times --command "make demo" --cold-cache

Run it on a machine with nothing else running, once per kind of CPU the README names.
"""

import argparse
import datetime
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path

from monster_zoo.benchmarks.bench import _git
from monster_zoo.envs.core.bounded_reading import read_regular_file
from monster_zoo.envs.core.safe_writing import folder_problem, write_atomic
from monster_zoo.evaluation.host import cpu_name

REPO_ROOT = Path(__file__).resolve().parents[1]
MEASUREMENTS = REPO_ROOT / "docs" / "measurements"
DEFAULT_COMMANDS = ["make test", "make demo"]
MAX_LOG_BYTES = 16 << 20  # the renderer's bound on a measurement file
# How a command states its own duration (evaluation/estimate.describe_duration's words).
STATED_ESTIMATE = re.compile(r"\babout \d+(?:\.\d+)? (?:s|min|h)\b")
# numba's on-disk cache beside the sources (what `make clean-cache` deletes).
CACHE_FOLDERS = ("envs", "agents", "training", "evaluation")
CACHE_SUFFIXES = (".nbi", ".nbc")


def default_out(cpu: str) -> Path:
    """``docs/measurements/commands_<cpu>.jsonl``, the CPU's name reduced to a file-name slug."""
    slug = re.sub(r"[^a-z0-9]+", "-", cpu.lower()).strip("-")[:60] or "unknown-cpu"
    return MEASUREMENTS / f"commands_{slug}.jsonl"


def clear_numba_cache(root: Path = REPO_ROOT) -> int:
    """Delete numba's cached kernels under the source folders; how many files went."""
    removed = 0
    for folder in CACHE_FOLDERS:
        for path in (root / folder).rglob("__pycache__/*"):
            if path.suffix in CACHE_SUFFIXES and path.is_file():
                path.unlink()
                removed += 1
    return removed


def run_passing_through(argv: list[str], cwd: Path) -> tuple[int, str | None]:
    """Run ``argv``, passing every line it prints (stdout and stderr) through as it comes; its exit
    status and the first estimate it states of its own duration ("about 2 min"), if any."""
    estimate = None
    with subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as child:
        for raw in child.stdout:
            sys.stdout.buffer.write(raw)
            sys.stdout.flush()
            if estimate is None and (found := STATED_ESTIMATE.search(raw.decode("utf-8", "replace"))):
                estimate = found.group(0)
    return child.returncode, estimate


def time_command(command: str, cwd: Path = REPO_ROOT, cold_cache: bool = False) -> dict:
    """Run ``command`` (split like a shell line, run without a shell) in ``cwd`` and return its record."""
    if cold_cache:
        clear_numba_cache(cwd)
    load_before = os.getloadavg()[0]
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = datetime.datetime.now(datetime.timezone.utc)
    start = time.perf_counter()
    status, estimate = run_passing_through(shlex.split(command), cwd)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime)
    return {
        "command": command,
        "time": started.strftime("%Y-%m-%dT%H:%M:%S"),
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "cpu_share": round(cpu / wall, 3) if wall > 0 else None,
        "exit_status": status,
        "stated_estimate": estimate,
        "numba_cache": "emptied first" if cold_cache else "as found",
        "load_1min_before": round(load_before, 2),
        "load_1min_after": round(os.getloadavg()[0], 2),
    }


def append_record(path: Path, record: dict) -> None:
    """Append ``record`` as one JSON line to ``path``, rewriting the file atomically (a reader
    never sees half a line, and a failure leaves the earlier lines as they were)."""
    before = read_regular_file(path, MAX_LOG_BYTES, str(path)).decode("utf-8") if path.exists() else ""
    if before and not before.endswith("\n"):
        before += "\n"
    write_atomic(path, before + json.dumps(record) + "\n")


def out_problem(path: Path) -> str | None:
    """None if ``path`` can take another line, else why not."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        return f"--out {path} is not a regular file; name a .jsonl file"
    if path.suffix != ".jsonl":
        return f"--out {path} must end in .jsonl (one JSON record a line)"
    return folder_problem("--out folder", path.parent)


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.benchmarks.command_times",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument(
        "--command",
        action="append",
        dest="commands",
        help=f"a command line to time, as typed (repeat for several; default: {' and '.join(DEFAULT_COMMANDS)})",
    )
    parser.add_argument("--repeats", type=int, default=1, help="runs of each command")
    parser.add_argument(
        "--cold-cache",
        action="store_true",
        help="empty numba's cache before each run (a fresh clone's first run)",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="JSON-lines file to append to (default: by CPU)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Time the commands and append their records; 1 if any command failed, 2 on bad arguments."""
    parser = build_parser()
    args = parser.parse_args(argv)
    commands = args.commands or DEFAULT_COMMANDS
    empty = [c for c in commands if not c.strip()]
    if empty or args.repeats < 1:
        parser.error("--command needs a command line, and --repeats a count of at least 1")
    for command in commands:
        try:
            shlex.split(command)
        except ValueError as err:
            parser.error(f"--command {command!r} cannot be split like a shell line: {err}")
    cpu = cpu_name()
    out = args.out or default_out(cpu)
    if problem := out_problem(out):
        parser.error(problem)
    changes = _git("status", "--porcelain", "--untracked-files=no")
    host = {
        "cpu": cpu,
        "cores": len(os.sched_getaffinity(0)),
        "git": _git("rev-parse", "HEAD"),
        "git_dirty": None if changes is None else bool(changes),
    }
    failed = False
    for command in commands:
        for repeat in range(args.repeats):
            print(
                f"[command_times] {command} (run {repeat + 1} of {args.repeats}) ...",
                file=sys.stderr,
                flush=True,
            )
            record = {**time_command(command, cold_cache=args.cold_cache), **host, "repeat": repeat}
            append_record(out, record)
            failed |= record["exit_status"] != 0
            print(
                f"[command_times] {command}: {record['wall_s']} s wall, {record['cpu_share']} of a core, "
                f"exit {record['exit_status']} -> {out}",
                file=sys.stderr,
                flush=True,
            )
    print(f"render the pages with: python docs/render_results.py ({out} holds the records)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
