"""A trainer says what it is doing as soon as its arguments pass, before the slow imports (torch,
SB3) and the game's first compile, and says nothing when it refuses its arguments."""

import pytest

from monster_zoo.training.ppo import trainer


class Stop(Exception):
    """Raised in place of loading the train extra: what came before it is the first second."""


def test_the_first_line_comes_before_the_trainers_packages_load(tmp_path, monkeypatch, capsys):
    said_before = []

    def load_nothing():
        said_before.append(capsys.readouterr().err)
        raise Stop

    monkeypatch.setattr(trainer, "_train_extra", load_nothing)
    with pytest.raises(Stop):
        trainer.main(
            ["--game", "marry_the_monster-v0", "--out-dir", str(tmp_path), "--total-timesteps", "64"]
        )
    assert (
        "arguments checked; loading the trainer's packages and compiling the game's kernels" in said_before[0]
    )
    assert not any(tmp_path.iterdir())  # nothing written before the run starts


def test_refused_arguments_say_only_why(capsys):
    with pytest.raises(SystemExit) as exit:
        trainer.main(["--total-timesteps", "0"])
    assert exit.value.code == 2
    assert "arguments checked" not in capsys.readouterr().err
