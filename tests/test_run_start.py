"""The trainers' shared start (``monster_zoo.training.run_start``), as a user of a trainer sees it: a
bad flag or game option refused with the reason before anything is written, the run folder's name
and its ``args.json``, and the evaluation against the baselines (random alone where a game has no
greedy)."""

import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from monster_zoo.training import run_start
from monster_zoo.training.run_start import (
    baseline_rates,
    build_parser,
    check_arguments,
    flag,
    game_options,
    new_run,
)

GAME = "marry_the_monster-v0"
ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Args:
    """A small trainer's knobs, declared as the trainers declare theirs."""

    game: str = flag(GAME, "registry id of the game")
    option: list[str] = field(default_factory=list, metadata={"help": "game option KEY=VALUE, repeatable"})
    exp_name: str = flag("tiny", "experiment name, part of the run name")
    seed: int = flag(1, "seed of everything")
    learning_rate: float = flag(3e-4, "Adam learning rate")
    progress: bool = flag(True, "show a progress bar")


def parser():
    """The tiny trainer's command line."""
    return build_parser(Args, "tiny-trainer", "A trainer for the tests.")


def parsed(*argv) -> Args:
    """``argv`` read by the tiny trainer's command line."""
    return Args(**vars(parser().parse_args(argv)))


def test_flags_come_from_the_fields_with_their_help_and_defaults(capsys):
    args = parsed(
        "--exp-name",
        "x",
        "--seed",
        "7",
        "--option",
        "num_players=3",
        "--option",
        "max_steps=99",
        "--no-progress",
    )
    assert args == Args(GAME, ["num_players=3", "max_steps=99"], "x", 7, 3e-4, False)
    assert parsed() == Args()
    with pytest.raises(SystemExit):
        parser().parse_args(["--help"])
    help_text = capsys.readouterr().out
    assert help_text.startswith("usage: tiny-trainer") and "A trainer for the tests." in help_text
    assert (
        "--learning-rate LEARNING_RATE" in help_text and "Adam learning rate (default: 0.0003)" in help_text
    )
    assert "--option KEY=VALUE" in help_text and "--progress, --no-progress" in help_text


def test_a_bad_option_is_refused_with_the_valid_values(capsys):
    with pytest.raises(SystemExit) as stop:
        game_options(parser(), GAME, ["num_players=9"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.startswith("usage: tiny-trainer")
    assert "option num_players=9 is not valid; valid values: 2, 3, 4, 5" in err
    for pairs, reason in (
        (["colour=red"], "unknown option(s) colour; valid options: num_players"),
        (["num_players"], "option 'num_players' is not of the form key=value"),
    ):
        with pytest.raises(SystemExit):
            game_options(parser(), GAME, pairs)
        assert reason in capsys.readouterr().err
    with pytest.raises(SystemExit):
        game_options(parser(), "nonesuch-v0", [])
    assert "unknown game 'nonesuch-v0'; available: " in capsys.readouterr().err
    assert game_options(parser(), GAME, ["num_players=3"]) == {"num_players": 3}


def test_the_first_problem_found_is_the_one_reported(capsys):
    checked = []

    def check(name, problem):
        return lambda args: checked.append(name) or problem

    check_arguments(parser(), Args(), check("a", None), check("b", None))
    assert checked == ["a", "b"]
    with pytest.raises(SystemExit) as stop:
        check_arguments(
            parser(), Args(), check("c", None), check("d", "--seed must be 0"), check("e", "later")
        )
    assert stop.value.code == 2 and checked[2:] == ["c", "d"]  # a check after the first problem never runs
    err = capsys.readouterr().err
    assert "tiny-trainer: error: --seed must be 0" in err and "later" not in err


def test_the_run_folder_is_named_after_game_experiment_seed_and_time(tmp_path):
    before = int(time.time())
    run = new_run(tmp_path / "runs", GAME, "tiny", 7, parsed("--exp-name", "tiny", "--seed", "7"))
    after = int(time.time())
    game, exp_name, seed, stamp = run.name.split("__")
    assert (game, exp_name, seed) == (GAME, "tiny", "7") and before <= int(stamp) <= after
    assert run.dir == tmp_path / "runs" / run.name
    assert sorted(p.name for p in run.dir.iterdir()) == ["args.json", "checkpoints"]
    other = new_run(tmp_path, GAME, "tiny", 7, subdirs=("networks", "more"))
    assert sorted(p.name for p in other.dir.iterdir()) == ["more", "networks"]  # no args: no args.json


def test_args_json_holds_every_flag_in_declaration_order(tmp_path):
    args = parsed("--option", "num_players=3", "--learning-rate", "0.01", "--no-progress")
    run = new_run(tmp_path, args.game, args.exp_name, args.seed, args)
    text = (run.dir / "args.json").read_text()
    assert list(json.loads(text).items()) == [
        ("game", GAME),
        ("option", ["num_players=3"]),
        ("exp_name", "tiny"),
        ("seed", 1),
        ("learning_rate", 0.01),
        ("progress", False),
    ]
    assert text.startswith('{\n  "game": ')  # indented by two, as the trainers always wrote it


def test_a_second_run_in_the_same_second_never_shares_the_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(run_start.time, "time", lambda: 1_700_000_000.5)
    first = new_run(tmp_path, GAME, "tiny", 1, Args())
    assert first.name == f"{GAME}__tiny__1__1700000000"
    with pytest.raises(FileExistsError):
        new_run(tmp_path, GAME, "tiny", 1, Args())
    with pytest.raises(FileExistsError):
        new_run(tmp_path, GAME, "tiny", 1, subdirs=())


def test_the_evaluation_measures_random_and_greedy_and_logs_each():
    from monster_zoo.agents import make_agent

    learner = make_agent("random", GAME, seed=3, options={"num_players": 2})
    logged = []
    rates = baseline_rates(
        learner,
        GAME,
        {"num_players": 2},
        seed=1,
        games=4,
        log=lambda metric, value: logged.append(metric),
        intervals=True,
    )
    assert list(rates) == ["random", "greedy"] and all(rate.games == 4 for rate in rates.values())
    assert logged == [
        f"eval/winrate_vs_{name}{suffix}"
        for name in ("random", "greedy")
        for suffix in ("", "_low95", "_high95")
    ]
    logged.clear()
    again = baseline_rates(
        learner,
        GAME,
        {"num_players": 2},
        seed=1,
        games=4,
        log=lambda metric, value: logged.append((metric, value)),
    )
    assert logged == [(f"eval/winrate_vs_{name}", again[name].rate) for name in ("random", "greedy")]
    assert {name: rate.rate for name, rate in again.items()} == {
        name: rate.rate for name, rate in rates.items()
    }


def test_a_game_without_greedy_is_evaluated_against_random_alone(monkeypatch):
    import monster_zoo.agents as agents

    real = agents.make_agent

    def no_greedy(name, game_id, *args, **kwargs):
        if name == "greedy":
            raise ValueError(f"unknown agent 'greedy' for {game_id}")
        return real(name, game_id, *args, **kwargs)

    monkeypatch.setattr(agents, "make_agent", no_greedy)
    logged = []
    rates = baseline_rates(
        real("random", GAME, seed=3),
        GAME,
        {"num_players": 2},
        seed=1,
        games=2,
        log=lambda metric, value: logged.append(metric),
    )
    assert list(rates) == ["random"] and logged == ["eval/winrate_vs_random"]


def test_the_shared_start_needs_no_training_library():
    """The trainers' ``--help`` and their argument checks run without torch, SB3 or Ray."""
    code = (
        "import sys; import monster_zoo.training.run_start, monster_zoo.training.ppo.trainer, "
        "monster_zoo.training.az.trainer; "
        "print(sorted(m for m in ('torch', 'stable_baselines3', 'sb3_contrib', 'ray') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
