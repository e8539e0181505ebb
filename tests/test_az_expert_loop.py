"""The trainer's expert loop (``--teacher mcts``, ``--expert-switch``): a few-second run in which
the tuned search's visit distributions teach the network, until an evaluation shows the learned
search passing ``mcts-fast``; from then on self-play at more simulations makes the targets."""

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from monster_zoo.training.az import (
    evaluation,
    expert,
    selfplay,
    trainer,
)
from monster_zoo.training.learner_eval import WinRate

LOOP = [
    "--rounds",
    "3",
    "--games-per-round",
    "2",
    "--parallel-games",
    "2",
    "--simulations",
    "4",
    "--hidden-sizes",
    "16",
    "--batch-size",
    "32",
    "--buffer-size",
    "2000",
    "--eval-every",
    "1",
    "--eval-games",
    "2",
    "--eval-simulations",
    "4",
    "--eval-opponents",
    "mcts-fast",
    "--no-progress",
    "--no-plot",
    "--seed",
    "2",
    "--teacher",
    "mcts",
    "--expert-simulations",
    "6",
    "--warm-start-games",
    "2",
    "--teacher-share",
    "0.5",
    "--expert-switch",
    "0.6",
    "--switch-simulations",
    "12",
]


def test_the_loop_learns_from_the_expert_then_switches_to_its_own_search(tmp_path, monkeypatch):
    """Expert games (warm start and one each round) until the second evaluation passes the switch;
    then no more expert games and self-play at --switch-simulations. The switch is remembered by
    the checkpoint."""
    outcomes = iter([0.5, 1.0, 1.0])  # the evaluations' win rates against mcts-fast, round by round
    expert_calls, simulations = [], []

    def scripted_evaluate(network, previous, opponents, counts, games, sims, seed, options, **search):
        won = next(outcomes)
        return {"eval/winrate_vs_mcts-fast": WinRate("mcts-fast", 100, int(100 * won), 0)}

    real_expert, real_selfplay = expert.play_expert_games, selfplay.play_games

    def counted_expert(game_id, games, *args, **kwargs):
        expert_calls.append(games)
        return real_expert(game_id, games, *args, **kwargs)

    def counted_selfplay(network, games, counts, settings, **kwargs):
        simulations.append(settings.simulations)
        return real_selfplay(network, games, counts, settings, **kwargs)

    monkeypatch.setattr(evaluation, "evaluate", scripted_evaluate)
    monkeypatch.setattr(expert, "play_expert_games", counted_expert)
    monkeypatch.setattr(selfplay, "play_games", counted_selfplay)
    assert trainer.main(["--out-dir", str(tmp_path), *LOOP]) == 0
    (run_dir,) = tmp_path.iterdir()
    assert expert_calls == [2, 1, 1]  # the warm start, then one expert game in rounds 1 and 2
    assert simulations == [4, 4, 12]  # self-play at --switch-simulations after the switch
    progress = json.loads((run_dir / "checkpoint" / "progress.json").read_text())
    assert progress["switched_round"] == 2
    assert json.loads((run_dir / "summary.json").read_text())["switched_round"] == 2


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--expert-switch", "0.6"], "--expert-switch"),  # the greedy teacher has no switch
        (["--teacher", "mcts", "--expert-switch", "0.4"], "--expert-switch"),
        (["--teacher", "mcts", "--expert-switch", "0.7", "--eval-opponents", "greedy"], "needs mcts-fast"),
        (["--teacher", "mcts", "--expert-simulations", "-1"], "--expert-simulations"),
        (["--teacher", "nobody"], "one of greedy, champion, mcts"),
        (
            ["--teacher", "mcts", "--expert-simulations", "900000", "--games-per-round", "64"],
            "play fewer games at once",
        ),
    ],
)
def test_bad_expert_flags_exit_2_with_the_reason_and_write_nothing(tmp_path, capsys, extra, message):
    out = tmp_path / "runs"
    with pytest.raises(SystemExit) as stop:
        trainer.main(["--out-dir", str(out), *extra])
    assert stop.value.code == 2 and message in capsys.readouterr().err
    assert not out.exists() or not any(out.iterdir())
