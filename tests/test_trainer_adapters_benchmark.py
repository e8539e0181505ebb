"""``python -m monster_zoo.benchmarks.trainer_adapters``: a quick run prints and appends its JSON lines
(the run's facts, then one line per comparison with both sides' repeats and their ratio), and bad
arguments are refused naming what is valid."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from monster_zoo.benchmarks import trainer_adapters


def test_quick_run_records_both_comparisons(tmp_path):
    pytest.importorskip("torchrl")
    pytest.importorskip("pettingzoo")
    out = tmp_path / "adapters.jsonl"
    out.write_text('{"kept": true}\n')
    done = subprocess.run(
        [sys.executable, "-m", "monster_zoo.benchmarks.trainer_adapters", "--quick", "--json", str(out)],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    printed = [json.loads(line) for line in done.stdout.splitlines()]
    kept, *written = [json.loads(line) for line in out.read_text().splitlines()]
    assert kept == {"kept": True} and written == printed
    facts, gym_line, torchrl_line = printed
    assert (
        facts["record"] == "run"
        and facts["quick"]
        and {"git_revision", "cpu", "cores", "load_1min"} <= set(facts)
    )
    assert gym_line["comparison"] == "gymnasium" and set(gym_line["medians"]) == {
        "vector_env",
        "sync_vector_env",
    }
    assert torchrl_line["comparison"] == "torchrl" and set(torchrl_line["medians"]) == {
        "torchrl_env",
        "pettingzoo_wrapper",
    }
    for line in (gym_line, torchrl_line):
        ours, theirs = line["medians"].values()
        assert ours > 0 and theirs > 0 and line["ratio"] == pytest.approx(ours / theirs, rel=0.01)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--game", "chess-v0"], "unknown game 'chess-v0'; valid: "),
        (["--counts", "64,x"], "expected comma-separated integers"),
        (["--repeats", "0"], "must be at least 1"),
        (["--race", "-1"], "expected seconds of wall time per trainer"),
        (["--only-race"], "--only-race needs --race SECONDS"),
        (["--race", "5", "--race-games", "0"], "must be at least 1"),
    ],
)
def test_bad_arguments_are_refused(argv, words, capsys):
    with pytest.raises(SystemExit):
        trainer_adapters.parse_args(argv)
    assert words in capsys.readouterr().err


@pytest.mark.slow  # starts Ray and builds two PPO algorithms: minutes on a busy 2-core machine
def test_quick_run_with_rllib_records_the_rllib_comparison():
    pytest.importorskip("ray")
    pytest.importorskip("pettingzoo")
    done = subprocess.run(
        [sys.executable, "-m", "monster_zoo.benchmarks.trainer_adapters", "--quick", "--rllib"],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=1200,
        env={**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["comparison"] == "rllib" and set(last["medians"]) == {"vector_runner", "rllib_env"}
    assert all(v > 0 for v in last["medians"].values())


@pytest.mark.slow  # trains two policies for seconds each and plays them against the baselines
def test_quick_race_trains_both_and_evaluates_them_alike():
    pytest.importorskip("torchrl")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "monster_zoo.benchmarks.trainer_adapters",
            "--quick",
            "--only-race",
            "--race",
            "3",
        ],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [line.get("comparison") for line in lines[1:]] == ["race"]
    race = lines[-1]
    for side in ("cleanrl_example", "device_train"):
        assert race[side]["timesteps"] > 0 and race[side]["timesteps_per_second"] > 0
        assert set(race[side]["winrates"]) == {"random", "greedy"}
        assert all(r["games"] == race["eval_games"] for r in race[side]["winrates"].values())
    expected = race["device_train"]["timesteps_per_second"] / race["cleanrl_example"]["timesteps_per_second"]
    assert race["ratio"] == pytest.approx(expected, rel=0.01)
