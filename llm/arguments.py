"""The command-line options of a language-model run, shared by ``monster-zoo evaluate`` (for its
``llm:<model>`` entries) and ``examples/language_model_harness.py``: the endpoint, the prompt, the
illegal-move policy, the timeout and endpoint tries, and the results file with ``--resume``."""

import argparse
from pathlib import Path

POLICIES = ("forfeit", "fallback")  # as monster_zoo.agents.llm.agent.ILLEGAL_POLICIES


def add_llm_arguments(group) -> None:
    """Add the options to ``group`` (a parser or an argument group)."""
    group.add_argument(
        "--retries",
        type=int,
        default=2,
        metavar="N",
        help="times a refused answer is asked again before the illegal-move policy settles the move "
        "(default %(default)s)",
    )
    group.add_argument(
        "--illegal-policy",
        choices=POLICIES,
        default="forfeit",
        help="a move still refused after the retries: forfeit (the game is the model's loss, the "
        "default) or fallback (a random legal move is played for it, labelled in the table)",
    )
    group.add_argument(
        "--no-legal-moves",
        action="store_true",
        help="leave the list of legal moves out of the prompt (the model must name a move itself)",
    )
    group.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="how long one request to the endpoint may take before it counts as an endpoint failure "
        "(default %(default)s)",
    )
    group.add_argument(
        "--endpoint-tries",
        type=int,
        default=5,
        metavar="N",
        help="endpoint failures in a row (HTTP 5xx, a timeout, a body that is not an answer) one "
        "request survives, waiting longer after each, before the run stops (default %(default)s)",
    )
    group.add_argument(
        "--results",
        type=Path,
        metavar="FILE",
        help="keep every finished game in this JSON-lines file as it ends (refused if it exists, "
        "unless --overwrite or --resume)",
    )
    group.add_argument(
        "--resume",
        action="store_true",
        help="with --results: continue the run that file holds (same settings), playing only the "
        "games it lacks",
    )


def llm_settings(args: argparse.Namespace, base_url: str):
    """The :class:`~monster_zoo.agents.llm.agent.LlmSettings` the options give (ValueError, with the
    valid values, for a bad one)."""
    from monster_zoo.agents.llm.agent import LlmSettings

    return LlmSettings(
        base_url=base_url,
        legal_moves=not args.no_legal_moves,
        retries=args.retries,
        illegal_policy=args.illegal_policy,
        timeout_s=args.timeout,
        endpoint_tries=args.endpoint_tries,
    )


def open_results(args: argparse.Namespace, settings: dict):
    """The :class:`~monster_zoo.llm.results.ResultsFile` the options ask for (None without
    ``--results``); ResultsError where it cannot be used, before any game."""
    from monster_zoo.llm.results import ResultsError, ResultsFile

    if args.results is None:
        if args.resume:
            raise ResultsError("--resume needs --results FILE: the results file of the run to continue")
        return None
    if args.resume:
        return ResultsFile.resume(args.results, settings)
    return ResultsFile.start(args.results, settings, getattr(args, "overwrite", False))
