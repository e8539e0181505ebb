"""``monster-zoo leaderboard``: every game's baselines, search and champion against each other."""

import argparse
import sys
from pathlib import Path

from monster_zoo.cli.common import EVAL_EXTRA, PROG, missing_packages, overwrite_argument, seed_argument

# Its own folder in the working directory: a run never lands on the shipped docs/leaderboard.md
# unless --out names it (and --overwrite allows replacing it).
DEFAULT_OUT = Path("leaderboard-results/leaderboard.md")
# The first line, before the tables are planned and the first game's kernels load.
STARTING = (
    f"{PROG} leaderboard: planning the tournaments and timing each field's agents for an estimate "
    "of the duration; each tournament says what it plays as it starts (the first run on a machine "
    "compiles the kernels, cached after it)..."
)


def add_parser(commands) -> argparse.ArgumentParser:
    """The ``leaderboard`` command and its arguments."""
    leaderboard = commands.add_parser(
        "leaderboard",
        help="every game's baselines, searches and champion against each other: "
        f"{DEFAULT_OUT} (--out to choose)",
        description="For every game at its smallest player count and at 4 players, a round-robin of random, "
        "greedy, the tuned search mcts at two budgets, the shipped champion and the learned search az "
        "(each where one ships for that player count; seats rotated, deals paired), written as markdown "
        "with 95% intervals, openskill ratings and a picture per table. Before the first game it times "
        "each field's agents here and prints the expected duration, compiling counted apart.",
    )
    leaderboard.add_argument(
        "--games", nargs="+", metavar="GAME_ID", help="games to play (default: every registered game)"
    )
    leaderboard.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help="the markdown to write; pictures and JSON go into a folder of its name (default %(default)s); "
        "a file there is replaced only with --overwrite",
    )
    overwrite_argument(leaderboard)
    leaderboard.add_argument(
        "--seed", type=seed_argument, default=0, help="the deals and agent seeds (default %(default)s)"
    )
    leaderboard.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="multiply every table's games per pairing (default %(default)s)",
    )
    leaderboard.add_argument(
        "--jobs", type=int, default=1, help="tournaments played at once (default %(default)s)"
    )
    leaderboard.add_argument("--no-progress", action="store_true", help="do not show progress bars")
    leaderboard.add_argument(
        "--resume",
        action="store_true",
        help="reuse the tournaments an earlier run left beside --out when their field, its "
        "search settings and model files, player count, games per pairing and seed match "
        "(after a stop, or when one new champion or setting changes only its own tables), "
        "and the pairings a stopped run finished in the tournament it stopped in",
    )
    return leaderboard


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``leaderboard``: play every table and write the markdown, pictures and JSON."""
    from monster_zoo import envs
    from monster_zoo.envs.core.safe_writing import output_problem
    from monster_zoo.evaluation import leaderboard
    from monster_zoo.evaluation.arg_checks import first_problem, writable_dir

    problem = first_problem(
        leaderboard.argument_problem(args),
        output_problem("--out", args.out, overwrite=True),  # a folder, a special file: refused here
        writable_dir("--out", args.out.parent / args.out.stem),
    )
    if problem:
        parser.error(problem)
    missing = missing_packages(EVAL_EXTRA)
    if missing:
        print(
            f"{PROG} leaderboard: {', '.join(missing)} not installed; install the eval extra:\n"
            f"    pip install -e '.[eval]'",
            file=sys.stderr,
        )
        return 1
    # Said before the plan, which loads every game's declaration and the shipped files' digests.
    print(STARTING, file=sys.stderr, flush=True)
    # Only now (the eval extra is there): the files this run would write, a tournament that
    # --resume reuses excluded; one that exists is replaced only with --overwrite.
    games = args.games or envs.available()
    for path in leaderboard.files_to_write(games, args.out, args.seed, args.scale, args.resume):
        problem = output_problem("--out", path, overwrite=args.overwrite)
        if problem:
            parser.error(
                f"{problem} (a file of the leaderboard at {args.out}; --resume continues the run that wrote it)"
            )
    out = leaderboard.run(
        games,
        args.out,
        args.seed,
        args.scale,
        args.jobs,
        progress=not args.no_progress,
        resume=args.resume,
        estimate=True,
    )
    print(f"wrote {out} and {out.parent / out.stem}/")
    return 0
