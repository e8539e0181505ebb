"""``python -m monster_zoo.benchmarks.greedy_speed``: its JSON lines, the baseline beside today's
kernels, and its refusals (the figures themselves are measured, never asserted)."""

import json

import numpy as np
import pytest

from monster_zoo.benchmarks import greedy_speed


def test_quick_run_times_today_and_the_baseline_on_the_same_positions(capsys):
    assert (
        greedy_speed.main(["--games", "monster_factory-v0", "--quick", "--baseline", "HEAD", "--learner"])
        == 0
    )
    (line,) = capsys.readouterr().out.splitlines()
    record = json.loads(line)
    assert record["game"] == "monster_factory-v0" and record["players"] == 2 and record["baseline"] == "HEAD"
    assert record["positions"] == 200 and record["repeats"] == 3 and record["cpu"] and record["cores"] >= 1
    assert (
        record["now_decisions_per_s"] > 0 and record["baseline_decisions_per_s"] > 0 and record["speedup"] > 0
    )
    assert record["learner_envs"] == 16 and record["learner_us_vs_random"] > 0
    assert record["learner_us_vs_greedy_now"] > 0 and record["learner_us_vs_greedy_baseline"] > 0
    assert record["greedy_share_now"] < 1 and record["greedy_share_baseline"] < 1


def test_random_legal_picks_only_legal_actions_and_each_of_them():
    masks = np.array([[0, 1, 0, 1], [1, 0, 0, 0]], np.int8)
    draws = np.random.default_rng(0)
    picks = np.stack([greedy_speed.random_legal(masks, draws) for _ in range(200)])
    assert set(picks[:, 0]) == {1, 3} and set(picks[:, 1]) == {0}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--games", "chess-v0"], "unknown game chess-v0; valid: "),
        (["--games", "marry_the_monster-v0", "--players", "9"], "takes 2-5"),
        (["--positions", "0"], "at least 1"),
        (["--learner-envs", "0"], "at least 1"),
    ],
)
def test_bad_arguments_are_refused_with_what_is_valid(capsys, argv, message):
    with pytest.raises(SystemExit) as stop:
        greedy_speed.main(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_an_unknown_baseline_revision_is_refused():
    with pytest.raises(SystemExit, match="at revision 'no-such-revision'"):
        greedy_speed.main(["--games", "monster_factory-v0", "--quick", "--baseline", "no-such-revision"])
