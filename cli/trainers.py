"""The commands that hand their arguments to a trainer, a benchmark or the GPU engine, which own them:
``train`` (self-play PPO), ``device-train`` (PPO on the engine's arrays), ``az`` (learned search),
``league`` (RLlib), ``bench`` and ``gpu``."""

import sys
from collections.abc import Sequence

from monster_zoo.cli.common import PROG, TRAIN_EXTRA

TRAIN_SCRIPT = "monster_zoo.training.ppo.trainer"
TRAIN_COMMAND = (
    "monster_zoo.training.ppo"  # what python -m runs (the package's __main__), as the help names it
)
AZ_SCRIPT = "monster_zoo.training.az.trainer"
AZ_COMMAND = "monster_zoo.training.az"  # what python -m runs (the package's __main__), as the help names it
DEVICE_TRAIN_SCRIPT = "monster_zoo.training.device_ppo.trainer"
DEVICE_TRAIN_COMMAND = "monster_zoo.training.device_ppo"
DEVICE_TRAIN_EXTRA = {"torchrl", "tensordict"}
LEAGUE_COMMAND = "monster_zoo.training.rllib"


def add_parsers(commands) -> None:
    """Register the forwarded commands for the command list only: :func:`monster_zoo.cli.main.main`
    hands their arguments on before argparse would parse them (it would take their --help for ours)."""
    commands.add_parser(
        "train",
        add_help=False,
        help=f"self-play MaskablePPO training ({TRAIN_COMMAND}; needs the train extra)",
    )
    commands.add_parser(
        "device-train",
        add_help=False,
        help=f"self-play PPO whose torch policy acts on the engine's arrays, TorchRL's PPO parts "
        f"({DEVICE_TRAIN_COMMAND}; needs the device-train extra)",
    )
    commands.add_parser(
        "az",
        add_help=False,
        help=f"learned search trained by expert iteration, play it as az:<network.npz> "
        f"({AZ_COMMAND}; needs the train extra)",
    )
    commands.add_parser(
        "league",
        add_help=False,
        help=f"self-play league on Ray RLlib, local or on a cluster ({LEAGUE_COMMAND}; "
        "needs the distributed extra)",
    )
    commands.add_parser("bench", add_help=False, help="benchmark the engines (monster_zoo.benchmarks.bench)")
    commands.add_parser(
        "gpu",
        add_help=False,
        help="the GPU engine: `gpu check` compiles and links every game's kernels "
        "(monster_zoo.envs.gpu; needs the gpu extra)",
    )


def _run_trainer(command: str, script: str, argv: Sequence[str]) -> int:
    """``script.main(argv)``, or, when a package of the train extra is missing, a message naming
    the extra and status 1."""
    import importlib

    try:
        return importlib.import_module(script).main(list(argv)) or 0
    except ModuleNotFoundError as err:
        missing = err.name or ""
        if missing != script and missing.split(".")[0] not in TRAIN_EXTRA:
            raise
        print(
            f"{PROG} {command}: {missing} is not installed; training needs the train extra:\n"
            f"    pip install -e '.[train]'",
            file=sys.stderr,
        )
        return 1


def run_train(argv: Sequence[str]) -> int:
    """``train``: run ``monster_zoo.training.ppo.trainer.main(argv)``, or explain how to install the train extra."""
    return _run_trainer("train", TRAIN_SCRIPT, argv)


def run_device_train(argv: Sequence[str]) -> int:
    """``device-train``: run ``monster_zoo.training.device_ppo.trainer.main(argv)``, or explain how to
    install the device-train extra."""
    import importlib

    try:
        return importlib.import_module(DEVICE_TRAIN_SCRIPT).main(list(argv)) or 0
    except ModuleNotFoundError as err:
        missing = (err.name or "").split(".")[0]
        if missing not in DEVICE_TRAIN_EXTRA | TRAIN_EXTRA:
            raise
        print(
            f"{PROG} device-train: {missing} is not installed; it needs the device-train extra:\n"
            f"    pip install -e '.[device-train]'",
            file=sys.stderr,
        )
        return 1


def run_az(argv: Sequence[str]) -> int:
    """``az``: run ``monster_zoo.training.az.trainer.main(argv)``, or explain how to install the train extra."""
    return _run_trainer("az", AZ_SCRIPT, argv)


def run_league(argv: Sequence[str]) -> int:
    """``league``: run ``monster_zoo.training.rllib.league.main(argv)``, or explain how to install Ray.
    The arguments are parsed first, so ``--help`` and a bad flag are answered without Ray."""
    import importlib.util

    from monster_zoo.training.rllib.league_args import league_parser

    league_parser().parse_args(list(argv))
    if importlib.util.find_spec("ray") is None:
        print(
            f"{PROG} league: ray is not installed; the league needs the distributed extra:\n"
            f"    pip install -e '.[distributed]'",
            file=sys.stderr,
        )
        return 1
    from monster_zoo.training.rllib import league as rllib_league

    return rllib_league.main(list(argv)) or 0


def run_bench(argv: Sequence[str]) -> int:
    """``bench``: run ``monster_zoo.benchmarks.bench.main(argv)``."""
    from monster_zoo.benchmarks import bench

    bench.main(list(argv))
    return 0


def run_gpu(argv: Sequence[str]) -> int:
    """``gpu``: the GPU engine's commands (``monster_zoo.envs.gpu.command``)."""
    from monster_zoo.envs.gpu.command import main as gpu_main

    return gpu_main(list(argv))


FORWARDED = {
    "train": run_train,
    "device-train": run_device_train,
    "az": run_az,
    "league": run_league,
    "bench": run_bench,
    "gpu": run_gpu,
}
