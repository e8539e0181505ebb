"""The ``monster-zoo`` command line: play, train, evaluate and benchmark.

    monster-zoo play --game marry_the_monster-v0 --agents greedy random
    monster-zoo evaluate --agents greedy random --games 40 --out results/
    monster-zoo train --help
    monster-zoo bench --quick --games none

Also runs as ``python -m monster_zoo.training``. ``train`` and ``bench`` hand their arguments
unchanged to ``monster_zoo.training.selfplay_ppo`` and ``monster_zoo.benchmarks.bench``, which own them.
Heavy or optional dependencies (torch, openskill, matplotlib) are imported only by
the command that needs them.
"""
import argparse
import importlib.util
import sys
import time
from pathlib import Path
from typing import List, Optional, Sequence

from monster_zoo import envs
from monster_zoo.agents.human import HumanAgent, QuitGame
from monster_zoo.agents.match import DRAW, LOSS, WIN, agent_seed, parse_option, play_game, seat_outcome, seated_options
from monster_zoo.agents.registry import make_agent
from monster_zoo.envs.registry import kernels_cached
from monster_zoo.training.arg_checks import seed_argument

PROG = "monster-zoo"
DEFAULT_GAME = "marry_the_monster-v0"
# Top-level packages of the train extra: their absence means "install the extra", not a bug.
TRAIN_EXTRA = {"torch", "stable_baselines3", "sb3_contrib", "tensorboard"}
TRAIN_SCRIPT = "monster_zoo.training.selfplay_ppo"
EVAL_EXTRA = ("openskill", "matplotlib")  # ratings and pictures of ``evaluate``
SLOW_START_S = 3.0  # a first build slower than this compiled kernels: say so once
INTERRUPTED = 130  # the shell's exit status for Ctrl-C (128 + SIGINT)


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
    play.set_defaults(run=run_play, command_parser=play)

    evaluate = commands.add_parser(
        "evaluate", help="round-robin tournament with win rates and ratings; learning curves",
        description="Play every pair of agents head to head (one seat against the other seats, seats "
        "rotated, deals paired), then print win rates with 95% Wilson intervals and openskill ratings.")
    _game_arguments(evaluate)
    evaluate.add_argument("--agents", nargs="+", metavar="NAME",
                          help="the field: agent names such as random, greedy, mcts, ppo:<model.zip>")
    evaluate.add_argument("--games", type=int, default=40,
                          help="games per pairing, rounded up to a multiple of the player count (default %(default)s)")
    evaluate.add_argument("--out", type=Path, metavar="DIR",
                          help="write tournament.md, tournament.json and win_rates.png here")
    evaluate.add_argument("--curves", nargs="+", type=Path, metavar="RUN_DIR",
                          help="training run folders (each with metrics.csv): plot learning_curves.png into --out")
    evaluate.add_argument("--no-progress", action="store_true", help="do not show a progress bar")
    evaluate.set_defaults(run=run_evaluate, command_parser=evaluate)

    # Registered for the command list only: main() hands their arguments on before
    # argparse would parse them (it would take their --help for ours).
    commands.add_parser("train", add_help=False,
                        help=f"self-play MaskablePPO training ({TRAIN_SCRIPT}; needs the train extra)")
    commands.add_parser("bench", add_help=False, help="benchmark the engines (monster_zoo.benchmarks.bench)")
    return parser


def run_train(argv: Sequence[str]) -> int:
    """``train``: run ``monster_zoo.training.selfplay_ppo.main(argv)``, or explain how to install the train extra."""
    try:
        from monster_zoo.training import selfplay_ppo

        return selfplay_ppo.main(list(argv)) or 0
    except ModuleNotFoundError as err:
        missing = err.name or ""
        if missing != TRAIN_SCRIPT and missing.split(".")[0] not in TRAIN_EXTRA:
            raise
        print(f"{PROG} train: {missing} is not installed; training needs the train extra:\n"
              f"    pip install -e '.[train]'", file=sys.stderr)
        return 1


def run_bench(argv: Sequence[str]) -> int:
    """``bench``: run ``monster_zoo.benchmarks.bench.main(argv)``."""
    from monster_zoo.benchmarks import bench

    return bench.main(list(argv)) or 0


FORWARDED = {"train": run_train, "bench": run_bench}


def run_play(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``play``: a person in seat ``--seat``, agents in the others, moves announced as they happen."""
    options = dict(args.option)
    start, cold = time.perf_counter(), False
    try:
        cold = not kernels_cached(args.game)
        if cold:
            print(f"compiling {args.game}'s kernels (first run only, 10-60 s)...", end="", flush=True)
        others = args.agents
        if others is None:
            players = len(envs.make(args.game, **options).unwrapped.possible_agents)
            others = ["random"] * (players - 1)
        options = seated_options(options, len(others) + 1)
        if not 0 <= args.seat <= len(others):
            parser.error(f"--seat must be between 0 and {len(others)} for {len(others) + 1} players")
        env = envs.make(args.game, **options)
        bots = [make_agent(name, args.game, agent_seed(args.seed, 0, i)) for i, name in enumerate(others, 1)]
    except (ValueError, TypeError) as err:  # unknown games, agents or options
        if cold:
            print()  # end the "compiling" line before the error
        parser.error(str(err))
    took = time.perf_counter() - start
    if cold:
        print(f" done in {took:.0f} s", flush=True)
    elif took > SLOW_START_S:
        print(f"compiled {args.game}'s kernels in {took:.0f} s (cached for next time)", flush=True)
    seats = bots[:args.seat] + [HumanAgent(args.game, args.seed)] + bots[args.seat:]
    who = others[:args.seat] + ["you"] + others[args.seat:]
    raw = env.unwrapped

    def announce(seat: int, action: int) -> None:
        print(f"player_{seat} ({who[seat]}): {raw.action_to_str(action)}", flush=True)

    print(f"{args.game}: {len(seats)} players, you are player_{args.seat}, seed {args.seed}")
    try:
        outcome = play_game(env, seats, args.seed, on_action=announce)
    except QuitGame:
        print("\ngame abandoned")
        return 0
    print("\n=== game over ===")
    print(raw.spec.to_text(raw.engine_state))
    for seat, reward in enumerate(outcome["rewards"]):
        print(f"player_{seat} ({who[seat]}): return {reward:+.3f}")
    verdict = {WIN: "you won", DRAW: "you shared the best return", LOSS: "you lost"}
    print(f"{verdict[seat_outcome(outcome['rewards'], args.seat)]} after {outcome['length']} actions"
          + (" (truncated)" if outcome["truncated"] else ""))
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
    missing = [name for name in EVAL_EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        print(f"{PROG} evaluate: {', '.join(missing)} not installed; install the eval extra:\n"
              f"    pip install -e '.[eval]'", file=sys.stderr)
        return 1
    from monster_zoo.training import plots
    from monster_zoo.training.tournament import run_tournament

    if args.agents is not None:
        try:
            result = run_tournament(args.game, args.agents, args.games, args.seed, dict(args.option),
                                    progress=not args.no_progress)
        except (ValueError, TypeError) as err:  # unknown games, agents or options; a bad field
            parser.error(str(err))
        if result.games_per_pairing != args.games:
            print(f"note: played {result.games_per_pairing} games per pairing instead of {args.games} so "
                  f"that every agent plays every seat equally often", file=sys.stderr)
        print(result.markdown())
        print(f"\nelapsed {result.elapsed_s:.1f} s")
        if args.out is not None:
            written = list(result.write(args.out).values())
            written.append(plots.plot_win_matrix(result.to_json(), args.out / "win_rates.png"))
            print("wrote " + ", ".join(str(p) for p in written))
    if args.curves:
        print(f"wrote {plots.plot_learning_curves(args.curves, args.out / 'learning_curves.png')}")
    return 0


def _output_problem(args: argparse.Namespace) -> Optional[str]:
    """Why ``evaluate`` could not write its results or read its curves, found before any game is
    played (so a long tournament is never lost to a bad path)."""
    from monster_zoo.training.arg_checks import first_problem, writable_dir

    missing = [str(d) for d in args.curves or () if not (Path(d) / "metrics.csv").is_file()]
    return first_problem(
        writable_dir("--out", args.out) if args.out is not None else None,
        f"--curves: no metrics.csv in {', '.join(missing)} (give training run folders)" if missing else None)


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
