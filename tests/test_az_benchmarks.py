"""The learned search's benchmarks run (``--quick``) and refuse bad arguments; their figures are
measured by hand (training/AZ.md), never asserted."""
import pytest

from monster_zoo import envs
from monster_zoo.agents.az.shipped import shipped_network_path
from monster_zoo.benchmarks import az_forward, az_targets


def test_forward_benchmark_prints_every_shipped_network_with_both_references(capsys):
    assert az_forward.main(["--quick"]) in (0, 1)  # 1: az/plain above 1.5 on this (maybe busy) machine
    out = capsys.readouterr().out
    assert out.startswith("CPU: ") and "az/plain" in out and "target: az/plain at most 1.5" in out
    for game_id in envs.available():
        path = shipped_network_path(game_id)
        assert path.name in out
        if path.is_file():
            line = next(row for row in out.splitlines() if row.startswith(path.name))
            assert len(line.split()) == 6  # name, widths, az, plain, numpy, az/plain


def test_forward_benchmark_batch_mode_prints_both_batched_passes_per_batch_size(capsys):
    assert az_forward.main(["--quick", "--batch", "1,4"]) == 0
    out = capsys.readouterr().out
    assert "az/sparse-first" in out
    for game_id in envs.available():
        path = shipped_network_path(game_id)
        if path.is_file():
            lines = [row.split() for row in out.splitlines() if row.startswith(path.name)]
            assert [line[1] for line in lines] == ["1", "4"] and all(len(line) == 7 for line in lines)
            assert all(float(x) > 0 for line in lines for x in line[2:])


def test_target_benchmark_prints_self_play_and_expert_rates(capsys):
    assert az_targets.main(["--quick", "--games", "marry_the_monster-v0", "--threads", "1"]) == 0
    row = capsys.readouterr().out.splitlines()[-1].split()
    assert row[0] == "marry_the_monster-v0" and row[1] == "1" and len(row) == 7
    assert all(float(x) > 0 for x in row[2:6])  # self-play, batched, their ratio, expert


@pytest.mark.parametrize("module,argv,message", [
    (az_forward, ["--rows", "0"], "at least 1"),
    (az_forward, ["--batch", "8,x"], "not a comma-separated list"),
    (az_forward, ["--batch", "0"], "at least 1"),
    (az_targets, ["--games", "chess-v0"], "unknown game chess-v0"),
    (az_targets, ["--threads", "one"], "not a comma-separated list"),
    (az_targets, ["--simulations", "0"], "at least 1"),
    (az_targets, ["--repeats", "0"], "at least 1"),
])
def test_bad_benchmark_arguments_exit_2_with_the_reason(module, argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        module.main(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err
