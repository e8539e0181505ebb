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

Also runs as ``python -m monster_zoo`` and ``python -m monster_zoo.training``. ``train``, ``az``, ``league``,
``bench``, ``gpu`` and ``mcp`` hand their arguments unchanged to ``monster_zoo.training.ppo.trainer``
(self-play PPO), ``monster_zoo.training.az.trainer`` (learned search by expert iteration),
``monster_zoo.training.rllib.league``, ``monster_zoo.benchmarks.bench``, ``monster_zoo.envs.gpu.command``
and ``monster_zoo.llm.mcp_server``, which own them.
Heavy or optional dependencies (torch, openskill, matplotlib, starlette and uvicorn) are
imported only by the command that needs them.
"""

import argparse
import sys
from collections.abc import Sequence

import monster_zoo
from monster_zoo.cli import evaluate, export_model, leaderboard, mcp, play, replay, serve, trainers
from monster_zoo.cli.common import PROG

INTERRUPTED = 130  # the shell's exit status for Ctrl-C (128 + SIGINT)
# Commands whose arguments their own module parses: handed on before argparse would take their --help.
FORWARDED = {**trainers.FORWARDED, "mcp": mcp.run}


def build_parser() -> argparse.ArgumentParser:
    """The command line: one subcommand per task, each with its own ``--help``."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Monster-themed tabletop games for multi-agent RL: play, train, evaluate, bench.",
        epilog=f"'{PROG} COMMAND --help' shows the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {monster_zoo.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in (play, evaluate, replay, serve, export_model, leaderboard):
        command_parser = command.add_parser(commands)
        command_parser.set_defaults(run=command.run, command_parser=command_parser)
    trainers.add_parsers(commands)
    mcp.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``monster-zoo`` command; return its exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        if words and words[0] in FORWARDED:
            return FORWARDED[words[0]](words[1:])
        args = build_parser().parse_args(words)
        return args.run(args, args.command_parser)
    except KeyboardInterrupt:  # Ctrl-C: a word and the shell's status instead of a traceback
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return INTERRUPTED
