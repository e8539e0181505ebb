"""The ``monster-zoo`` command line: play, train, evaluate and benchmark.

    monster-zoo play --game marry_the_monster-v0 --agents greedy random
    monster-zoo evaluate --agents greedy random --games 40 --out results/
    monster-zoo train --help
    monster-zoo az --help
    monster-zoo league --help
    monster-zoo bench --quick --games none
    monster-zoo replay game.json --html game.html --gif game.gif
    monster-zoo serve --port 8765
    monster-zoo export-model --trust-model runs/<run>/final_model.zip model.npz

Also runs as ``python -m monster_zoo.training``. ``train``, ``az``, ``league`` and ``bench`` hand
their arguments unchanged to ``monster_zoo.training.selfplay_ppo`` (self-play PPO),
``monster_zoo.training.az`` (learned search by expert iteration), ``monster_zoo.training.rllib_league``
and ``monster_zoo.benchmarks.bench``, which own them.
Heavy or optional dependencies (torch, openskill, matplotlib, starlette and uvicorn) are
imported only by the command that needs them.
"""
import argparse
import importlib.util
import sys
import time
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import monster_zoo
from monster_zoo import envs
from monster_zoo.agents.human import HumanAgent, QuitGame
from monster_zoo.agents.match import DRAW, LOSS, WIN, agent_seed, play_game, seat_outcome, seated_options
from monster_zoo.envs.core.options import parse_option
from monster_zoo.agents.registry import agent_labels, champion_version, make_agent, model_file, split_label
from monster_zoo.envs.core.escaping import visible
from monster_zoo.envs.core.records import RecordError, RecordWriter, check_agent_names, record_text, save_record
from monster_zoo.envs.core.safe_writing import output_problem, same_file, write_atomic, write_private
from monster_zoo.envs.registry import kernels_cached
from monster_zoo.training.arg_checks import seed_argument

PROG = "monster-zoo"
DEFAULT_GAME = "marry_the_monster-v0"
# Top-level packages of the train extra: their absence means "install the extra", not a bug.
TRAIN_EXTRA = {"torch", "stable_baselines3", "sb3_contrib", "tensorboard"}
TRAIN_SCRIPT = "monster_zoo.training.selfplay_ppo"
AZ_SCRIPT = "monster_zoo.training.az"
LEAGUE_SCRIPT = "monster_zoo.training.rllib_league"
EVAL_EXTRA = ("openskill", "matplotlib")  # ratings and pictures of ``evaluate``
SLOW_START_S = 3.0  # a first build slower than this compiled kernels: say so once
INTERRUPTED = 130  # the shell's exit status for Ctrl-C (128 + SIGINT)
RECORDS_GLOB = "game_*.json"  # the match records evaluate --save-records writes
WEB_PACKAGES = ("starlette", "uvicorn")  # of the web extra, which ``serve`` needs


def _overwrite_argument(parser: argparse.ArgumentParser) -> None:
    """``--overwrite``: without it an output that exists (a file or a link) is refused before any work."""
    parser.add_argument("--overwrite", action="store_true",
                        help="replace output files that exist (a symbolic link is replaced, never followed)")


def _game_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every game-playing command shares."""
    parser.add_argument("--game", default=DEFAULT_GAME,
                        help=f"game id (default %(default)s; available: {', '.join(envs.available())})")
    parser.add_argument("--seed", type=seed_argument, default=0,
                        help="seed of the deals and the agents, an integer >= 0 (default %(default)s)")
    parser.add_argument("--option", action="append", type=parse_option, default=[], metavar="KEY=VALUE",
                        help="game option, repeatable (e.g. --option num_players=4 --option max_steps=2000)")


def build_parser() -> argparse.ArgumentParser:
    """The command line: one subcommand per task, each with its own ``--help``."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="Monster-themed tabletop games for multi-agent RL: play, train, evaluate, bench.",
        epilog=f"'{PROG} COMMAND --help' shows the options of a command.")
    parser.add_argument("--version", action="version", version=f"{PROG} {monster_zoo.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = commands.add_parser(
        "play", help="play a game in the terminal against agents",
        description="Play a game in the terminal: you take one seat, agents the others. Type a move's "
        "number or its name; 'help' explains the commands, 'legend' the board's symbols, 'help CARD' a "
        "card (Monster Arena), 'board' shows the board again, 'quit' (or Ctrl-C) stops.")
    _game_arguments(play)
    play.add_argument("--agents", nargs="+", metavar="NAME",
                      help="agents of the other seats, in seat order; their number plus you sets num_players "
                      "(default: random in every other seat of the game's default player count)")
    play.add_argument("--seat", type=int, default=0, help="your seat, from 0 (default %(default)s)")
    play.add_argument("--record", type=Path, metavar="FILE",
                      help="write the game's match record (JSON, replayable with 'replay') here")
    _overwrite_argument(play)
    play.set_defaults(run=run_play, command_parser=play)

    evaluate = commands.add_parser(
        "evaluate", help="round-robin tournament with win rates and ratings; learning curves",
        description="Play every pair of agents head to head (one seat against the other seats, seats "
        "rotated, deals paired), then print win rates with 95% Wilson intervals and openskill ratings.")
    _game_arguments(evaluate)
    evaluate.add_argument("--agents", nargs="+", metavar="NAME",
                          help="the field: agent names such as random, greedy, mcts, ppo:<model.npz>; "
                          "LABEL=NAME shows NAME as LABEL in tables and plots (e.g. demo=ppo:runs/x/final_model.npz)")
    evaluate.add_argument("--games", type=int, default=40,
                          help="games per pairing, rounded up to a multiple of the player count (default %(default)s)")
    evaluate.add_argument("--out", type=Path, metavar="DIR",
                          help="write tournament.md, tournament.json and win_rates.png here")
    evaluate.add_argument("--curves", nargs="+", type=Path, metavar="RUN_DIR",
                          help="training run folders (each with metrics.csv): plot learning_curves.png into --out")
    evaluate.add_argument("--no-progress", action="store_true", help="do not show a progress bar")
    evaluate.add_argument("--save-records", type=Path, metavar="DIR",
                          help="write match records of a sample of the games here (see --records-per-pairing)")
    evaluate.add_argument("--records-per-pairing", type=int, default=2, metavar="N",
                          help="with --save-records: the first N games of each pairing (default %(default)s)")
    evaluate.add_argument("--ray", action="store_true",
                          help="spread the games over Ray workers (same results as without; needs the "
                          "distributed extra)")
    evaluate.add_argument("--address", metavar="HOST:PORT",
                          help="with --ray: join this running Ray cluster instead of starting a local Ray")
    _overwrite_argument(evaluate)
    evaluate.set_defaults(run=run_evaluate, command_parser=evaluate)

    replay = commands.add_parser(
        "replay", help="replay a match record: an HTML viewer page and/or a GIF",
        description="Replay a match record (written by play --record, evaluate --save-records or "
        "monster_zoo.envs.core.records) through the game, checking every action, and write a "
        "self-contained HTML viewer (pictures of every step, controls, a view per seat) or a GIF.")
    replay.add_argument("record", type=Path, help="the match record (JSON)")
    replay.add_argument("--html", type=Path, metavar="FILE", help="write the viewer page here")
    replay.add_argument("--gif", type=Path, metavar="FILE", help="write an animated GIF here (render extra)")
    replay.add_argument("--view", default="public", help="the GIF's view: public or player_N (default %(default)s)")
    replay.add_argument("--any-version", action="store_true",
                        help="try a record of another monster-zoo version (every action is still checked)")
    _overwrite_argument(replay)
    replay.set_defaults(run=run_replay, command_parser=replay)
    serve = commands.add_parser(
        "serve", help="play and watch the games in the browser: a local web app (needs the web extra)",
        description="Start a local web app and print its address: choose a game, its options and who sits "
        "where (you, other people at this screen, any agent), play by clicking on the picture or on a move's "
        "name, watch agents play (pause, step, speed), and open match records in the replay viewer.")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default %(default)s: this machine only; another address lets "
                       "anyone who reaches it play and watch)")
    serve.add_argument("--allowed-hosts", nargs="+", default=[], metavar="NAME",
                       help="the host names or addresses this server is reached by, needed with a --host other than "
                       "loopback (requests naming any other host are refused: DNS rebinding)")
    serve.add_argument("--port", type=int, default=8765,
                       help="port to listen on, 0 for a free one (default %(default)s)")
    serve.add_argument("--records-dir", type=Path, metavar="DIR",
                       help="also write the match record of every finished game here (pages download them anyway)")
    serve.add_argument("--models-dir", type=Path, metavar="DIR",
                       help="offer the model files (.npz) of this folder as agents (ppo:NAME, az:NAME, az-net:NAME); "
                       "without it no model file is offered")
    serve.add_argument("--max-sessions", type=int, default=16, metavar="N",
                       help="games held at once (default %(default)s)")
    serve.add_argument("--session-ttl", type=float, default=3600.0, metavar="SECONDS",
                       help="a game unused this long is dropped (default %(default)s)")
    serve.add_argument("--agent-time-limit", type=float, default=60.0, metavar="SECONDS",
                       help="an agent's move taking longer stops its game (default %(default)s)")
    serve.add_argument("--agent-threads", type=int, default=2, metavar="N",
                       help="agents thinking at once, over all games (default %(default)s)")
    serve.set_defaults(run=run_serve, command_parser=serve)

    export = commands.add_parser(
        "export-model", help="convert a trusted Stable-Baselines3 zip into a policy file (.npz)",
        description="Convert a MaskablePPO zip into a policy file: weights and game as plain data, which "
        "play and evaluate as ppo:<file.npz> without running code. Reading the zip unpickles it, which can "
        "run any code, so this runs only with --trust-model. The game and options come from the training "
        "run's args.json beside the zip, else from --game and --option.")
    export.add_argument("zip", type=Path, help="the SB3 zip (e.g. runs/<run>/final_model.zip)")
    export.add_argument("out", type=Path, help="the policy file to write (.npz)")
    export.add_argument("--trust-model", action="store_true",
                        help="I trust this file: unpickling it may run any code it contains")
    export.add_argument("--game", help="the game the model was trained for (when no args.json says so)")
    export.add_argument("--option", action="append", type=parse_option, default=[], metavar="KEY=VALUE",
                        help="an option the model was trained with, repeatable (e.g. num_players=2)")
    _overwrite_argument(export)
    export.set_defaults(run=run_export_model, command_parser=export)

    leaderboard = commands.add_parser(
        "leaderboard", help="every game's baselines, search and champion against each other: docs/leaderboard.md",
        description="For every game at its smallest player count and at 4 players, a round-robin of random, "
        "greedy, the tuned search at two budgets and the shipped champion (seats rotated, deals paired), "
        "written as markdown with 95% intervals, openskill ratings and a picture per table.")
    from monster_zoo.training.leaderboard import build_parser as leaderboard_arguments

    leaderboard_arguments(leaderboard)
    leaderboard.set_defaults(run=run_leaderboard, command_parser=leaderboard)

    # Registered for the command list only: main() hands their arguments on before
    # argparse would parse them (it would take their --help for ours).
    commands.add_parser("train", add_help=False,
                        help=f"self-play MaskablePPO training ({TRAIN_SCRIPT}; needs the train extra)")
    commands.add_parser("az", add_help=False,
                        help=f"learned search trained by expert iteration, play it as az:<network.npz> "
                        f"({AZ_SCRIPT}; needs the train extra)")
    commands.add_parser("league", add_help=False,
                        help=f"self-play league on Ray RLlib, local or on a cluster ({LEAGUE_SCRIPT}; "
                        "needs the distributed extra)")
    commands.add_parser("bench", add_help=False, help="benchmark the engines (monster_zoo.benchmarks.bench)")
    commands.add_parser("mcp", add_help=False, help="the games as an MCP server for language-model clients, stdio or "
                        "--http on 127.0.0.1 (monster_zoo.llm.mcp_server; needs the llm extra)")
    return parser


def _run_trainer(command: str, script: str, argv: Sequence[str]) -> int:
    """``script.main(argv)``, or, when a package of the train extra is missing, a message naming
    the extra and status 1."""
    try:
        return importlib.import_module(script).main(list(argv)) or 0
    except ModuleNotFoundError as err:
        missing = err.name or ""
        if missing != script and missing.split(".")[0] not in TRAIN_EXTRA:
            raise
        print(f"{PROG} {command}: {missing} is not installed; training needs the train extra:\n"
              f"    pip install -e '.[train]'", file=sys.stderr)
        return 1


def run_train(argv: Sequence[str]) -> int:
    """``train``: run ``monster_zoo.training.selfplay_ppo.main(argv)``, or explain how to install the train extra."""
    return _run_trainer("train", TRAIN_SCRIPT, argv)


def run_az(argv: Sequence[str]) -> int:
    """``az``: run ``monster_zoo.training.az.main(argv)``, or explain how to install the train extra."""
    return _run_trainer("az", AZ_SCRIPT, argv)


def run_league(argv: Sequence[str]) -> int:
    """``league``: run ``monster_zoo.training.rllib_league.main(argv)``, or explain how to install Ray."""
    if importlib.util.find_spec("ray") is None:
        print(f"{PROG} league: ray is not installed; the league needs the distributed extra:\n"
              f"    pip install -e '.[distributed]'", file=sys.stderr)
        return 1
    from monster_zoo.training import rllib_league

    return rllib_league.main(list(argv)) or 0


def run_bench(argv: Sequence[str]) -> int:
    """``bench``: run ``monster_zoo.benchmarks.bench.main(argv)``."""
    from monster_zoo.benchmarks import bench

    return bench.main(list(argv)) or 0


def run_mcp(argv: Sequence[str]) -> int:
    """``mcp``: the games as an MCP server (``monster_zoo.llm.mcp_server.main(argv)``; needs the llm extra)."""
    try:
        from monster_zoo.llm import mcp_server
    except ModuleNotFoundError as err:  # the SDK or the web extra's packages: "install the extra", not a bug
        if (err.name or "").split(".")[0] not in ("mcp", *WEB_PACKAGES):
            raise
        print(f"{PROG} mcp: {err.name} is not installed; the MCP server needs the llm extra:\n"
              f"    pip install 'monster-zoo[llm]'", file=sys.stderr)
        return 1
    return mcp_server.main(list(argv))


FORWARDED = {"train": run_train, "az": run_az, "league": run_league, "bench": run_bench, "mcp": run_mcp}


def model_files(names: Sequence[str]) -> List[str]:
    """The files the agent names read (``ppo:<file>``, ``LABEL=ppo-trusted:<file>``, ``az:<file>``,
    ``az-net:<file>``): inputs that no output may overwrite."""
    return [path for path in map(model_file, names) if path is not None]


def champion_seats(game_id: str, others: List[str], options: dict) -> Tuple[List[str], Optional[str]]:
    """The agents of ``play``'s other seats when they include a champion and the user set no
    ``num_players``: at the smallest player count for which that champion ships (the extra seats
    taken by the champion too), with a line saying so; unchanged (and no line) otherwise.

    ValueError when the game has no champion at all, naming the games that have one."""
    from monster_zoo.agents.champions import champion_games, champion_player_counts, champion_versions

    champions = [name for name in others
                 if split_label(name)[1] == "champion" or champion_version(game_id, split_label(name)[1]) is not None]
    if "num_players" in options or not champions:
        return others, None
    game = envs.spec(game_id).name
    counts = champion_player_counts(game)
    if not counts:
        shipped = "; ".join(f"{name} ({', '.join(map(str, n))} players)" for name, n in champion_games().items())
        raise ValueError(f"{game_id} has no shipped champion yet; champions ship for {shipped or 'no game yet'}")
    version = champion_version(game_id, split_label(champions[0])[1])
    if version is not None:
        counts = [n for n in counts if version in champion_versions(game, n)]
    players = len(others) + 1
    larger = [n for n in counts if n > players]
    if players in counts or not larger:  # a count it ships for, or none that fits: make_agent says which
        return others, None
    filled = others + [champions[0]] * (larger[0] - players)
    return filled, (f"{game_id}: {visible(champions[0])} ships for {', '.join(map(str, counts))} players, not "
                    f"{players}; playing {larger[0]} players with {visible(champions[0])} in the extra seat(s) "
                    f"(--option num_players=N chooses)")


def keep_record(record: dict, path: Path) -> int:
    """Write the match record of a person's game to ``path``; if that fails, into a fresh private
    file (its path printed), and failing that print the record itself: a played game is never lost.
    The exit status: 0 when ``path`` was written, else 1."""
    text = record_text(record)
    try:
        write_atomic(path, text)
    except OSError as err:
        print(f"{PROG} play: could not write {visible(str(path))}: {err.strerror or err}", file=sys.stderr)
        try:
            kept = write_private(text, "monster-zoo-record-", ".json")
        except OSError:
            print("the game's match record follows; save it as a .json file to replay it:", file=sys.stderr)
            print(text, end="")
            return 1
        print(f"the game's match record is kept in {kept} instead (replay it: {PROG} replay {kept} "
              "--html game.html)", file=sys.stderr)
        return 1
    print(f"wrote {visible(str(path))} (replay it: {PROG} replay {visible(str(path))} --html game.html)")
    return 0


def run_play(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``play``: a person in seat ``--seat``, agents in the others, moves announced as they happen."""
    options = dict(args.option)
    if args.record is not None:
        problem = output_problem("--record", args.record, model_files(args.agents or ()), args.overwrite)
        if problem:
            parser.error(problem)
    start, cold = time.perf_counter(), False
    try:
        cold = not kernels_cached(args.game)
        if cold:
            print(f"compiling {args.game}'s kernels (first run only, 10-60 s)...", end="", flush=True)
        others = args.agents
        if others is None:
            players = len(envs.make(args.game, **options).unwrapped.possible_agents)
            others = ["random"] * (players - 1)
        others, note = champion_seats(args.game, list(others), options)
        options = seated_options(options, len(others) + 1)
        if not 0 <= args.seat <= len(others):
            parser.error(f"--seat must be between 0 and {len(others)} for {len(others) + 1} players")
        env = envs.make(args.game, **options)
        bots = [make_agent(name, args.game, agent_seed(args.seed, 0, i), options)
                for i, name in enumerate(others, 1)]
        labels = agent_labels(others, bots)  # short names: a model's own, or LABEL= from its name
        who = labels[:args.seat] + ["you"] + labels[args.seat:]
        if args.record is not None:  # a name the record could not keep is refused before the game
            check_agent_names(who)
    except (ValueError, TypeError) as err:  # unknown games, agents or options
        if cold:
            print()  # end the "compiling" line before the error
        parser.error(str(err))
    took = time.perf_counter() - start
    if cold:
        print(f" done in {took:.0f} s", flush=True)
    elif took > SLOW_START_S:
        print(f"compiled {args.game}'s kernels in {took:.0f} s (cached for next time)", flush=True)
    if note:
        print(note)
    seats = bots[:args.seat] + [HumanAgent(args.game, args.seed)] + bots[args.seat:]
    shown = [visible(name) for name in who]  # names from model files or the command line, shown inert
    raw = env.unwrapped
    writer = RecordWriter(env, args.seed, who)

    def announce(seat: int, action: int) -> None:
        print(f"player_{seat} ({shown[seat]}): {raw.action_to_str(action)}", flush=True)
        writer.note(action)

    print(f"{args.game}: {len(seats)} players, you are player_{args.seat}, seed {args.seed}")
    try:
        outcome = play_game(env, seats, args.seed, on_action=announce)
    except QuitGame:
        print("\ngame abandoned")
        return 0
    print("\n=== game over ===")
    print(raw.spec.to_text(raw.engine_state))
    for seat, reward in enumerate(outcome["rewards"]):
        print(f"player_{seat} ({shown[seat]}): return {reward:+.3f}")
    verdict = {WIN: "you won", DRAW: "you shared the best return", LOSS: "you lost"}
    print(f"{verdict[seat_outcome(outcome['rewards'], args.seat)]} after {outcome['length']} actions"
          + (" (truncated)" if outcome["truncated"] else ""))
    if args.record is not None:
        return keep_record(writer.finish(), args.record)
    return 0


def run_evaluate(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``evaluate``: the tournament (markdown to stdout, files into ``--out``) and learning curves."""
    if args.agents is None and args.curves is None:
        parser.error("give --agents (a tournament), --curves (learning curves), or both")
    if args.curves and args.out is None:
        parser.error("--curves needs --out DIR for the picture")
    if args.games < 1:
        parser.error("--games must be at least 1")
    problem = _output_problem(args)
    if problem:
        parser.error(problem)
    try:
        envs.config(args.game, dict(args.option))
    except (ValueError, TypeError) as err:  # unknown games or options, values the state cannot hold
        parser.error(str(err))
    if args.records_per_pairing < 1:
        parser.error("--records-per-pairing must be at least 1")
    missing = [name for name in EVAL_EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        print(f"{PROG} evaluate: {', '.join(missing)} not installed; install the eval extra:\n"
              f"    pip install -e '.[eval]'", file=sys.stderr)
        return 1
    from monster_zoo.training import plots
    from monster_zoo.training.tournament import run_tournament

    if args.address and not args.ray:
        parser.error("--address needs --ray")
    if args.ray and importlib.util.find_spec("ray") is None:
        print(f"{PROG} evaluate --ray: ray is not installed; install the distributed extra:\n"
              f"    pip install -e '.[distributed]'", file=sys.stderr)
        return 1
    if args.agents is not None:
        series = {}
        if args.ray:
            import ray

            from monster_zoo.training.ray_tournament import RaySeries

            ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
            series["play_series"] = RaySeries()
        try:
            result = run_tournament(args.game, args.agents, args.games, args.seed, dict(args.option),
                                    progress=not args.no_progress,
                                    records_per_pairing=args.records_per_pairing if args.save_records else 0,
                                    **series)
        except (ValueError, TypeError) as err:  # unknown games, agents or options; a bad field
            parser.error(str(err))
        finally:
            if args.ray:
                ray.shutdown()
        # the results and the records first: nothing optional (a plot, even printing) may cost them
        written = list(result.write(args.out).values()) if args.out is not None else []
        for i, record in enumerate(result.match_records if args.save_records is not None else ()):
            save_record(record, args.save_records / f"game_{i:03d}.json")
        if result.games_per_pairing != args.games:
            print(f"note: played {result.games_per_pairing} games per pairing instead of {args.games} so "
                  f"that every agent plays every seat equally often", file=sys.stderr)
        print(result.markdown())
        print(f"\nelapsed {result.elapsed_s:.1f} s")
        if args.ray:
            print(f"played on {len(series['play_series'].nodes)} Ray node(s): "
                  + ", ".join(f"{node[:12]} ({games} games)" for node, games in
                              sorted(series["play_series"].node_games.items())))
        if args.save_records is not None:
            print(f"wrote {len(result.match_records)} match records into {visible(str(args.save_records))}")
        if args.out is not None:
            written += _optional_picture("the win-rate plot", plots.plot_win_matrix, result.to_json(),
                                         args.out / "win_rates.png")
            print("wrote " + ", ".join(visible(str(p)) for p in written))
    if args.curves:
        try:
            curves = plots.plot_learning_curves(args.curves, args.out / "learning_curves.png")
        except (ValueError, KeyError, OSError) as err:  # a metrics.csv without win rates, or unreadable
            print(f"{PROG} evaluate: cannot plot the learning curves: {visible(str(err))}", file=sys.stderr)
            return 1
        print(f"wrote {visible(str(curves))}")
    return 0


def _optional_picture(what: str, plot, *args) -> List[Path]:
    """``[plot(*args)]``, or a warning and ``[]`` if it fails: a picture is never worth a run."""
    try:
        return [plot(*args)]
    except Exception as err:  # noqa: BLE001 - whatever matplotlib raises, the results are already written
        print(f"warning: {what} was not written ({type(err).__name__}: {visible(str(err))[:300]})", file=sys.stderr)
        return []


def run_leaderboard(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``leaderboard``: play every table and write the markdown, pictures and JSON."""
    from monster_zoo.training import leaderboard
    from monster_zoo.training.arg_checks import first_problem, writable_dir

    # The leaderboard rewrites its own files each run (--resume reuses them): no --overwrite needed,
    # but never a folder or a special file, and never through a link.
    problem = first_problem(leaderboard.argument_problem(args), output_problem("--out", args.out, overwrite=True),
                            writable_dir("--out", args.out.parent / args.out.stem))
    if problem:
        parser.error(problem)
    missing = [name for name in EVAL_EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        print(f"{PROG} leaderboard: {', '.join(missing)} not installed; install the eval extra:\n"
              f"    pip install -e '.[eval]'", file=sys.stderr)
        return 1
    out = leaderboard.run(args.games or envs.available(), args.out, args.seed, args.scale, args.jobs,
                          progress=not args.no_progress, resume=args.resume)
    print(f"wrote {out} and {out.parent / out.stem}/")
    return 0


def _output_problem(args: argparse.Namespace) -> Optional[str]:
    """Why ``evaluate`` could not write its results or read its curves, found before any game is
    played (so a long tournament is never lost to a bad path): folders that cannot be written,
    outputs that exist (without ``--overwrite``) or are links, special files or inputs."""
    from monster_zoo.training.arg_checks import first_problem, writable_dir

    missing = [str(d) for d in args.curves or () if not (Path(d) / "metrics.csv").is_file()]
    inputs = model_files(args.agents or ()) + [str(Path(d) / "metrics.csv") for d in args.curves or ()]
    outputs = []
    if args.out is not None:
        names = (["tournament.md", "tournament.json", "win_rates.png"] if args.agents else []) + \
            (["learning_curves.png"] if args.curves else [])
        outputs = [output_problem("--out", args.out / name, inputs, args.overwrite) for name in names]
    saved = sorted(Path(args.save_records).glob(RECORDS_GLOB)) if args.save_records is not None else []
    return first_problem(
        writable_dir("--out", args.out) if args.out is not None else None,
        writable_dir("--save-records", args.save_records) if args.save_records is not None else None,
        *outputs,
        f"--save-records {args.save_records} already holds match records ({saved[0].name}, ...); choose an "
        "empty folder or pass --overwrite to replace them" if saved and not args.overwrite else None,
        *[output_problem("--save-records", path, inputs, True) for path in saved],
        f"--curves: no metrics.csv in {', '.join(missing)} (give training run folders)" if missing else None)


def run_replay(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``replay``: check a match record by replaying it, then write its viewer page and/or GIF.
    The outputs are checked before the replay: never the record itself, never each other, never
    an existing file without ``--overwrite``; a GIF without the render extra is refused first."""
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
        print(f"{PROG} replay: cannot write {visible(str(err.filename or ''))}: {err.strerror or err}",
              file=sys.stderr)
        return 1
    return 0


def run_serve(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``serve``: the web app (``monster_zoo.web``) on ``--host``:``--port`` until Ctrl-C."""
    from monster_zoo.training.arg_checks import first_problem, out_of_bounds, writable_dir

    problem = first_problem(
        out_of_bounds([("--port", args.port, 0 <= args.port <= 65535, "a port from 0 to 65535"),
                       ("--max-sessions", args.max_sessions, args.max_sessions >= 1, "at least 1"),
                       ("--session-ttl", args.session_ttl, args.session_ttl > 0, "more than 0 seconds"),
                       ("--agent-time-limit", args.agent_time_limit, args.agent_time_limit > 0, "more than 0 seconds"),
                       ("--agent-threads", args.agent_threads, args.agent_threads >= 1, "at least 1")]),
        writable_dir("--records-dir", args.records_dir) if args.records_dir is not None else None,
        f"--models-dir {args.models_dir} is not a folder" if args.models_dir is not None and
        not args.models_dir.is_dir() else None)
    if problem:
        parser.error(problem)
    try:
        from monster_zoo.web.app import Settings
        from monster_zoo.web.server import allowed_hosts, serve
    except ModuleNotFoundError as err:  # starlette or uvicorn: "install the extra", not a bug
        if (err.name or "").split(".")[0] not in WEB_PACKAGES:
            raise
        print(f"{PROG} serve: {err.name} is not installed; the web app needs the web extra:\n"
              f"    pip install 'monster-zoo[web]'", file=sys.stderr)
        return 1

    try:
        allowed_hosts(args.host, args.allowed_hosts)
    except ValueError as err:
        parser.error(str(err))
    if args.records_dir is not None:
        args.records_dir.mkdir(parents=True, exist_ok=True)
    settings = Settings(max_sessions=args.max_sessions, session_ttl_s=args.session_ttl,
                        agent_time_limit_s=args.agent_time_limit, agent_threads=args.agent_threads,
                        records_dir=args.records_dir.resolve() if args.records_dir is not None else None,
                        models_dir=args.models_dir.resolve() if args.models_dir is not None else None)
    try:
        serve(settings, args.host, args.port, named_hosts=args.allowed_hosts)
    except OSError as err:  # the port is taken, the address is not this machine's
        print(f"{PROG} serve: cannot listen on {args.host}:{args.port}: {err.strerror or err}", file=sys.stderr)
        return 1
    return 0


def run_export_model(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``export-model``: a trusted SB3 zip into a policy file (needs the train extra)."""
    if not args.trust_model:
        parser.error(f"reading {args.zip} unpickles it, which can run any code it holds; add --trust-model "
                     "if you trust the file (e.g. you trained it yourself)")
    if not args.zip.is_file():
        parser.error(f"no model file {args.zip}")
    if args.out.suffix != ".npz":
        parser.error(f"the policy file {args.out} must end in .npz")
    problem = output_problem("the policy file", args.out, [args.zip], args.overwrite)
    if problem:
        parser.error(problem)
    if args.option and args.game is None:
        parser.error("--option needs --game")
    from monster_zoo.agents.ppo_agent import export_policy

    try:
        path = export_policy(args.zip, args.out, args.game, dict(args.option) if args.game else None)
    except (ValueError, TypeError) as err:
        parser.error(str(err))
    except OSError as err:  # written atomically: a failed write leaves nothing half-written
        print(f"{PROG} export-model: cannot write {args.out}: {err.strerror or err}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as err:
        if (err.name or "").split(".")[0] not in TRAIN_EXTRA:
            raise
        print(f"{PROG} export-model: {err.name} is not installed; reading SB3 zips needs the train extra:\n"
              f"    pip install -e '.[train]'", file=sys.stderr)
        return 1
    print(f"wrote {path}; play it as ppo:{path}")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run one ``monster-zoo`` command; return its exit status."""
    argv: List[str] = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in FORWARDED:
            return FORWARDED[argv[0]](argv[1:])
        args = build_parser().parse_args(argv)
        return args.run(args, args.command_parser)
    except KeyboardInterrupt:  # Ctrl-C: a word and the shell's status instead of a traceback
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return INTERRUPTED


if __name__ == "__main__":  # python -m monster_zoo.training.cli runs the command line too, not nothing
    sys.exit(main())
