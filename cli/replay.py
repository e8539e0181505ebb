"""``monster-zoo replay``: replay a match record into an HTML viewer page and/or a GIF."""

import argparse
import sys
from pathlib import Path

from monster_zoo.cli.common import PROG, overwrite_argument


def add_parser(commands) -> argparse.ArgumentParser:
    """The ``replay`` command and its arguments."""
    replay = commands.add_parser(
        "replay",
        help="replay a match record: an HTML viewer page and/or a GIF",
        description="Replay a match record (written by play --record, evaluate --save-records or "
        "monster_zoo.envs.core.records) through the game, checking every action, and write a "
        "self-contained HTML viewer (pictures of every step, controls, a view per seat) or a GIF.",
    )
    replay.add_argument("record", type=Path, help="the match record (JSON)")
    replay.add_argument("--html", type=Path, metavar="FILE", help="write the viewer page here")
    replay.add_argument("--gif", type=Path, metavar="FILE", help="write an animated GIF here (render extra)")
    replay.add_argument(
        "--view", default="public", help="the GIF's view: public or player_N (default %(default)s)"
    )
    replay.add_argument(
        "--any-version",
        action="store_true",
        help="try a record of another monster-zoo version (every action is still checked)",
    )
    overwrite_argument(replay)
    return replay


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``replay``: check a match record by replaying it, then write its viewer page and/or GIF.
    The outputs are checked before the replay: never the record itself, never each other, never
    an existing file without ``--overwrite``; a GIF without the render extra is refused first."""
    from monster_zoo.envs.core.escaping import visible
    from monster_zoo.envs.core.records import RecordError
    from monster_zoo.envs.core.safe_writing import output_problem, same_file
    from monster_zoo.envs.replay import load, require_gif_support, views, write_gif, write_html

    if args.html is None and args.gif is None:
        parser.error("give --html FILE, --gif FILE or both")
    if args.html is not None and args.gif is not None and same_file(args.html, args.gif):
        parser.error(f"--html {args.html} and --gif {args.gif} name the same file")
    for label, path in (("--html", args.html), ("--gif", args.gif)):
        problem = path is not None and output_problem(label, path, [args.record], args.overwrite)
        if problem:
            parser.error(problem)
    try:
        if args.gif is not None:
            require_gif_support()
        record = load(args.record, allow_other_version=args.any_version)
        if args.gif is not None and args.view not in views(record):
            parser.error(f"unknown --view {args.view!r}; views of this record: {', '.join(views(record))}")
        if args.html is not None:
            print(f"wrote {visible(str(write_html(record, args.html, str(args.record))))}")
        if args.gif is not None:
            print(f"wrote {visible(str(write_gif(record, args.gif, args.view, str(args.record))))}")
    except RecordError as err:
        print(f"{PROG} replay: {visible(str(err))}", file=sys.stderr)
        return 2
    except ImportError as err:  # the GIF needs the render extra
        print(f"{PROG} replay: {err}", file=sys.stderr)
        return 1
    except OSError as err:  # the disk filled up, the folder went away: the old files are left as they were
        print(
            f"{PROG} replay: cannot write {visible(str(err.filename or ''))}: {err.strerror or err}",
            file=sys.stderr,
        )
        return 1
    return 0
