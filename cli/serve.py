"""``monster-zoo serve``: the local web app (needs the web extra)."""

import argparse
import sys
from pathlib import Path

from monster_zoo.cli.common import PROG

WEB_PACKAGES = ("starlette", "uvicorn")  # of the web extra, which ``serve`` needs


def add_parser(commands) -> argparse.ArgumentParser:
    """The ``serve`` command and its arguments."""
    serve = commands.add_parser(
        "serve",
        help="play and watch the games in the browser: a local web app (needs the web extra)",
        description="Start a local web app and print its address: choose a game, its options and who sits "
        "where (you, other people at this screen, any agent), play by clicking on the picture or on a move's "
        "name, watch agents play (pause, step, speed), and open match records in the replay viewer.",
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default %(default)s: this machine only; another address lets "
        "anyone who reaches it play and watch)",
    )
    serve.add_argument(
        "--allowed-hosts",
        nargs="+",
        default=[],
        metavar="NAME",
        help="the host names or addresses this server is reached by, needed with a --host other than "
        "loopback (requests naming any other host are refused: DNS rebinding)",
    )
    serve.add_argument(
        "--allow-any-host",
        action="store_true",
        help="accept --allowed-hosts '*' (any host name; refused without this, since it lets pages on "
        "other sites reach the server through DNS rebinding): for a server behind a proxy that checks "
        "the name; warns",
    )
    serve.add_argument(
        "--port", type=int, default=8765, help="port to listen on, 0 for a free one (default %(default)s)"
    )
    serve.add_argument(
        "--records-dir",
        type=Path,
        metavar="DIR",
        help="also write the match record of every finished game here (pages download them anyway)",
    )
    serve.add_argument(
        "--models-dir",
        type=Path,
        metavar="DIR",
        help="offer the model files (.npz) of this folder as agents (ppo:NAME, az:NAME, az-net:NAME); "
        "without it no model file is offered",
    )
    serve.add_argument(
        "--max-sessions", type=int, default=16, metavar="N", help="games held at once (default %(default)s)"
    )
    serve.add_argument(
        "--session-ttl",
        type=float,
        default=3600.0,
        metavar="SECONDS",
        help="a game unused this long is dropped (default %(default)s)",
    )
    serve.add_argument(
        "--agent-time-limit",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="an agent's move taking longer stops its game (default %(default)s)",
    )
    serve.add_argument(
        "--agent-threads",
        type=int,
        default=2,
        metavar="N",
        help="agents thinking at once, over all games (default %(default)s)",
    )
    return serve


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``serve``: the web app (``monster_zoo.web``) on ``--host``:``--port`` until Ctrl-C."""
    from monster_zoo.evaluation.arg_checks import first_problem, out_of_bounds, writable_dir

    problem = first_problem(
        out_of_bounds(
            [
                ("--port", args.port, 0 <= args.port <= 65535, "a port from 0 to 65535"),
                ("--max-sessions", args.max_sessions, args.max_sessions >= 1, "at least 1"),
                ("--session-ttl", args.session_ttl, args.session_ttl > 0, "more than 0 seconds"),
                (
                    "--agent-time-limit",
                    args.agent_time_limit,
                    args.agent_time_limit > 0,
                    "more than 0 seconds",
                ),
                ("--agent-threads", args.agent_threads, args.agent_threads >= 1, "at least 1"),
            ]
        ),
        writable_dir("--records-dir", args.records_dir) if args.records_dir is not None else None,
        f"--models-dir {args.models_dir} is not a folder"
        if args.models_dir is not None and not args.models_dir.is_dir()
        else None,
    )
    if problem:
        parser.error(problem)
    try:
        from monster_zoo.web.app import Settings
        from monster_zoo.web.server import allowed_hosts, serve
    except ModuleNotFoundError as err:  # starlette or uvicorn: "install the extra", not a bug
        if (err.name or "").split(".")[0] not in WEB_PACKAGES:
            raise
        print(
            f"{PROG} serve: {err.name} is not installed; the web app needs the web extra:\n"
            f"    pip install 'monster-zoo[web]'",
            file=sys.stderr,
        )
        return 1

    try:
        allowed_hosts(args.host, args.allowed_hosts, args.allow_any_host)
    except ValueError as err:
        parser.error(str(err))
    if args.records_dir is not None:
        args.records_dir.mkdir(parents=True, exist_ok=True)
    settings = Settings(
        max_sessions=args.max_sessions,
        session_ttl_s=args.session_ttl,
        agent_time_limit_s=args.agent_time_limit,
        agent_threads=args.agent_threads,
        records_dir=args.records_dir.resolve() if args.records_dir is not None else None,
        models_dir=args.models_dir.resolve() if args.models_dir is not None else None,
    )
    try:
        serve(
            settings,
            args.host,
            args.port,
            named_hosts=args.allowed_hosts,
            allow_any_host=args.allow_any_host,
        )
    except OSError as err:  # the port is taken, the address is not this machine's
        print(
            f"{PROG} serve: cannot listen on {args.host}:{args.port}: {err.strerror or err}", file=sys.stderr
        )
        return 1
    return 0
