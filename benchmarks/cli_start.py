"""How fast the command line answers ``--help`` and ``--version``: a command's ``--help`` must not wait for
numba, torch or an extra to load.

    python -m monster_zoo.benchmarks.cli_start              # every command, 5 runs each
    python -m monster_zoo.benchmarks.cli_start --runs 9 -- "--version" "play --help"

Each command line runs as ``python -m monster_zoo.cli ...`` in a fresh interpreter (the cost a
user waits for), ``--runs`` times after one warm-up run (caches of the file system and of
Python's bytecode warm); the table gives the median and the range of the wall time, and which of
the heavy packages (numba, scipy, torch, matplotlib) the command imported. The target is well
under a second on a warm machine for the top-level options and the commands of the command line
itself; ``train``, ``az``, ``league`` and ``bench`` hand ``--help`` to the trainer or benchmark that
owns the flags, which imports its own dependencies. The 1-minute load average is printed: on a
shared machine it says what else ran.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

COMMANDS = (
    "--version",
    "--help",
    "play --help",
    "evaluate --help",
    "replay --help",
    "serve --help",
    "export-model --help",
    "leaderboard --help",
    "train --help",
    "az --help",
    "league --help",
    "bench --help",
)
HEAVY = ("numba", "scipy", "torch", "matplotlib")
# Runs the command line in the child, then says which heavy packages it imported.
CHILD = (
    "import sys\nfrom monster_zoo.cli.main import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n"
    "    pass\nprint('\\nHEAVY:' + ','.join(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)\n"
)


def time_command(words: Sequence[str]) -> tuple[float, list[str]]:
    """Wall seconds of one run of ``monster-zoo WORDS`` and the heavy packages it imported."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(heavy=HEAVY), *words], capture_output=True, text=True, timeout=600
    )
    took = time.perf_counter() - start
    line = next((line for line in done.stderr.splitlines() if line.startswith("HEAVY:")), "HEAVY:?")
    return took, [name for name in line[len("HEAVY:") :].split(",") if name]


def measure(commands: Sequence[str], runs: int) -> dict[str, tuple[list[float], list[str]]]:
    """Per command: the wall times of ``runs`` runs after a warm-up, and the heavy packages imported."""
    found = {}
    for command in commands:
        words = command.split()
        _, heavy = time_command(words)  # warm-up
        found[command] = ([time_command(words)[0] for _ in range(runs)], heavy)
    return found


def main(argv: Sequence[str] = None) -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.benchmarks.cli_start", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--runs", type=int, default=5, help="timed runs per command (default %(default)s)")
    parser.add_argument(
        "commands",
        nargs="*",
        default=list(COMMANDS),
        metavar="WORDS",
        help="command lines to time, each one quoted argument after -- (default: --version, "
        "--help and every command's --help)",
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {load:.2f} at the start")
    print("| command | median s | range s | heavy imports |\n|---|---:|---|---|")
    for command, (times, heavy) in measure(args.commands, args.runs).items():
        print(
            f"| monster-zoo {command} | {statistics.median(times):.2f} | {min(times):.2f}-{max(times):.2f} | "
            f"{', '.join(heavy) or 'none'} |"
        )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load {load:.2f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
