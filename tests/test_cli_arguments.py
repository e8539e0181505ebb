"""Bad command-line arguments are refused before any work starts.

Each case exits with code 2 and a message naming the argument, writes nothing (no run
directory left behind, nothing outside ``--out-dir``) and plays no game.
"""

import json

import pytest

from monster_zoo.cli import main as cli
from monster_zoo.evaluation import tournament

HUGE = str(2**70)


def _exit_code(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    return stop.value.code, capsys.readouterr().err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--net-arch", "a,b"], "--net-arch 'a,b' must be comma-separated positive integers"),
        (["--net-arch", ""], "--net-arch '' must be comma-separated positive integers"),
        (
            ["--net-arch", "5000,5000"],
            "--net-arch 5000,5000: ",
        ),  # over the policy file's caps: refused before training
        (["--num-envs", "0"], "--num-envs must be at least 1, got 0"),
        (["--total-timesteps", "-5"], "--total-timesteps must be at least 1, got -5"),
        (["--gamma", "1.5"], "--gamma must be in (0, 1], got 1.5"),
        (["--eval-games", "0"], "--eval-games must be at least 1"),
        (["--exp-name", "../../x"], "--exp-name '../../x' must be a plain name"),
        (["--exp-name", "a/b"], "--exp-name 'a/b' must be a plain name"),
        (["--opponents", "random:-1"], "is not NAME:WEIGHT with WEIGHT >= 0"),
        (["--option", f"max_steps={HUGE}"], f"max_steps={HUGE} is not valid"),
        (["--option", "num_players"], "not of the form"),
        (["--seed", "-1"], "--seed must be a non-negative integer, got -1"),
    ],
)
def test_train_refuses_bad_arguments_and_writes_nothing(tmp_path, capsys, extra, message):
    out = tmp_path / "runs"
    code, err = _exit_code(["train", "--out-dir", str(out), "--no-progress", *extra], capsys)
    assert code == 2 and message in err
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == []


def test_train_refuses_an_out_dir_that_is_a_file(tmp_path, capsys):
    target = tmp_path / "taken"
    target.write_text("mine")
    code, err = _exit_code(["train", "--out-dir", str(target)], capsys)
    assert code == 2 and f"--out-dir {target} exists and is not a folder" in err
    assert target.read_text() == "mine"
    code, err = _exit_code(["train", "--out-dir", str(target / "below")], capsys)
    assert code == 2 and "cannot be made" in err


@pytest.fixture
def no_tournament(monkeypatch):
    """Fail the test if a tournament starts: every refusal must come first."""

    def refuse(*args, **kwargs):
        raise AssertionError("the tournament ran before the arguments were checked")

    monkeypatch.setattr(tournament, "run_tournament", refuse)


def test_evaluate_refuses_an_existing_file_as_out_before_playing(tmp_path, capsys, no_tournament):
    target = tmp_path / "results.txt"
    target.write_text("keep")
    code, err = _exit_code(["evaluate", "--agents", "random", "greedy", "--out", str(target)], capsys)
    assert code == 2 and "exists and is not a folder" in err and target.read_text() == "keep"


def test_evaluate_refuses_curves_without_metrics_before_playing(tmp_path, capsys, no_tournament):
    code, err = _exit_code(
        [
            "evaluate",
            "--agents",
            "random",
            "greedy",
            "--out",
            str(tmp_path),
            "--curves",
            str(tmp_path / "missing"),
        ],
        capsys,
    )
    assert code == 2 and "--curves: no metrics.csv in" in err and "missing" in err


@pytest.mark.parametrize("command", ["evaluate", "play"])
def test_options_beyond_the_state_are_refused(command, capsys, no_tournament):
    argv = [command, "--option", f"max_steps={HUGE}", "--agents", "random"]
    code, err = _exit_code(argv + (["greedy"] if command == "evaluate" else []), capsys)
    assert code == 2 and f"max_steps={HUGE} is not valid; expected an integer from 1 to" in err


def test_evaluate_makes_a_missing_out_folder(tmp_path, capsys):
    out = tmp_path / "a" / "b"
    assert (
        cli.main(
            ["evaluate", "--agents", "random", "greedy", "--games", "2", "--no-progress", "--out", str(out)]
        )
        == 0
    )
    assert json.loads((out / "tournament.json").read_text())["field"] == ["random", "greedy"]


@pytest.mark.parametrize("command", [["evaluate", "--agents", "random", "random"], ["play"]])
@pytest.mark.parametrize("seed", ["-1", "3.7", "x"])
def test_evaluate_and_play_refuse_a_seed_no_env_takes(capsys, no_tournament, command, seed):
    # every env's reset takes only non-negative integer seeds (envs/core/inputs.py)
    code, err = _exit_code([*command, "--seed", seed], capsys)
    assert code == 2 and f"argument --seed: {seed!r} is not a non-negative integer" in err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--exp-name", "../../x"], "--exp-name '../../x' must be a plain name"),
        (["--net-arch", "a,b"], "--net-arch 'a,b' must be comma-separated positive integers"),
        (["--num-env-runners", "-1"], "--num-env-runners must be at least 0, got -1"),
        (["--gamma", "0"], "--gamma must be in (0, 1], got 0.0"),
        (["--option", "num_players"], "not of the form"),
        (["--option", "max_steps=0"], "max_steps=0 is not valid"),
    ],
)
def test_league_refuses_bad_arguments_before_ray_and_writes_nothing(tmp_path, capsys, extra, message):
    pytest.importorskip("ray.rllib")
    from monster_zoo.training.rllib import league as rllib_league

    out = tmp_path / "runs"
    with pytest.raises(SystemExit) as stop:
        rllib_league.main(["--out-dir", str(out), "--no-progress", *extra])
    assert stop.value.code == 2 and message in capsys.readouterr().err
    assert sorted(tmp_path.iterdir()) == []
