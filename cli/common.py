"""What the commands share: the program's name, the options every game-playing command takes, and
argument types that import their checks only when an argument is parsed (so ``--help`` stays fast)."""

import argparse
from collections.abc import Sequence

from monster_zoo import envs

PROG = "monster-zoo"
DEFAULT_GAME = "marry_the_monster-v0"
# Top-level packages of the train extra: their absence means "install the extra", not a bug.
TRAIN_EXTRA = {"torch", "stable_baselines3", "sb3_contrib", "tensorboard"}
EVAL_EXTRA = ("openskill", "matplotlib")  # ratings and pictures of ``evaluate`` and ``leaderboard``


def parse_option(text: str):
    """argparse ``type`` of ``--option KEY=VALUE`` (:func:`monster_zoo.envs.core.options.parse_option`,
    imported when an option is parsed; the name is the one argparse shows in its errors)."""
    from monster_zoo.envs.core import options

    return options.parse_option(text)


def seed_argument(text: str) -> int:
    """argparse ``type`` of ``--seed`` (:func:`monster_zoo.evaluation.arg_checks.seed_argument`)."""
    from monster_zoo.evaluation import arg_checks

    return arg_checks.seed_argument(text)


def overwrite_argument(parser: argparse.ArgumentParser) -> None:
    """``--overwrite``: without it an output that exists (a file or a link) is refused before any work."""
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace output files that exist (a symbolic link is replaced, never followed)",
    )


def game_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every game-playing command shares."""
    parser.add_argument(
        "--game",
        default=DEFAULT_GAME,
        help=f"game id (default %(default)s; available: {', '.join(envs.available())})",
    )
    parser.add_argument(
        "--seed",
        type=seed_argument,
        default=0,
        help="seed of the deals and the agents, an integer >= 0 (default %(default)s)",
    )
    parser.add_argument(
        "--option",
        action="append",
        type=parse_option,
        default=[],
        metavar="KEY=VALUE",
        help="game option, repeatable (e.g. --option num_players=4 --option max_steps=2000)",
    )


def missing_packages(names: Sequence[str]) -> list[str]:
    """Which of the top-level packages ``names`` are not installed (looked up, not imported)."""
    import importlib.util

    return [name for name in names if importlib.util.find_spec(name) is None]


def model_files(names: Sequence[str]) -> list[str]:
    """The files the agent names read (``ppo:<file>``, ``LABEL=ppo-trusted:<file>``, ``az:<file>``,
    ``az-net:<file>``): inputs that no output may overwrite."""
    from monster_zoo.agents.registry import model_file

    return [path for path in map(model_file, names) if path is not None]
