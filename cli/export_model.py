"""``monster-zoo export-model``: a trusted Stable-Baselines3 zip into a policy file."""

import argparse
import sys
from pathlib import Path

from monster_zoo.cli.common import PROG, TRAIN_EXTRA, overwrite_argument, parse_option


def add_parser(commands) -> argparse.ArgumentParser:
    """The ``export-model`` command and its arguments."""
    export = commands.add_parser(
        "export-model",
        help="convert a trusted Stable-Baselines3 zip into a policy file (.npz)",
        description="Convert a MaskablePPO zip into a policy file: weights and game as plain data, which "
        "play and evaluate as ppo:<file.npz> without running code. Reading the zip unpickles it, which can "
        "run any code, so this runs only with --trust-model. The game and options come from the training "
        "run's args.json beside the zip, else from --game and --option.",
    )
    export.add_argument("zip", type=Path, help="the SB3 zip (e.g. runs/<run>/final_model.zip)")
    export.add_argument("out", type=Path, help="the policy file to write (.npz)")
    export.add_argument(
        "--trust-model",
        action="store_true",
        help="I trust this file: unpickling it may run any code it contains",
    )
    export.add_argument("--game", help="the game the model was trained for (when no args.json says so)")
    export.add_argument(
        "--option",
        action="append",
        type=parse_option,
        default=[],
        metavar="KEY=VALUE",
        help="an option the model was trained with, repeatable (e.g. num_players=2)",
    )
    overwrite_argument(export)
    return export


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``export-model``: a trusted SB3 zip into a policy file (needs the train extra)."""
    from monster_zoo.envs.core.safe_writing import output_problem

    if not args.trust_model:
        parser.error(
            f"reading {args.zip} unpickles it, which can run any code it holds; add --trust-model "
            "if you trust the file (e.g. you trained it yourself)"
        )
    if not args.zip.is_file():
        parser.error(f"no model file {args.zip}")
    if args.out.suffix != ".npz":
        parser.error(f"the policy file {args.out} must end in .npz")
    problem = output_problem("the policy file", args.out, [args.zip], args.overwrite)
    if problem:
        parser.error(problem)
    if args.option and args.game is None:
        parser.error("--option needs --game")
    from monster_zoo.agents.ppo.agent import export_policy

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
        print(
            f"{PROG} export-model: {err.name} is not installed; reading SB3 zips needs the train extra:\n"
            f"    pip install -e '.[train]'",
            file=sys.stderr,
        )
        return 1
    print(f"wrote {path}; play it as ppo:{path}")
    return 0
