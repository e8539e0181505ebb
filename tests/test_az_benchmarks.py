"""The learned search's benchmarks run (``--quick``) and refuse bad arguments; their figures are
measured by hand (training/AZ.md), never asserted."""

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents.az.search import SearchSettings, gumbel_search, trees
from monster_zoo.agents.az.shipped import shipped_network_path
from monster_zoo.agents.network import read_network
from monster_zoo.agents.search.tuned import tuned_rollout
from monster_zoo.benchmarks import az_forward, az_in_search, az_simulation, az_targets
from monster_zoo.envs.core.rng import make_rng


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
    assert row[:3] == ["marry_the_monster-v0", "1", "32"] and len(row) == 9
    assert all(float(x) > 0 for x in row[3:8])  # self-play, batched, their ratio, tree KB, expert


def test_target_benchmark_times_every_parallel_count_and_may_leave_the_expert_out(capsys):
    """One row per ``--parallel`` count; ``--expert-games 0`` prints a dash for the expert; the tree
    of 9 nodes over Marry the Monster's 99 actions is 99 x 9 x 8 bytes and 9 x 52 bytes a game."""
    assert (
        az_targets.main(
            [
                "--quick",
                "--games",
                "marry_the_monster-v0",
                "--threads",
                "1",
                "--parallel",
                "2,3",
                "--expert-games",
                "0",
                "--rollout-weight",
                "0.5",
            ]
        )
        == 0
    )
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[-2:]]
    assert [row[2] for row in rows] == ["2", "3"] and all(row[7] == "-" for row in rows)
    assert az_targets.tree_bytes(8, 99) == 9 * (99 * 8 + 4 + 6 * 8)


def test_simulation_benchmark_prints_the_whole_and_every_piece(capsys):
    """One row per game: the search's microseconds per simulation, with the shipped rollout weight
    (Monster Arena's az mixes rollouts in), the leaves' mean depth, the pieces' sum and each piece."""
    assert az_simulation.main(["--quick", "--games", "monster_arena-v0"]) == 0
    row = capsys.readouterr().out.splitlines()[-1].split()
    assert row[0] == "monster_arena-v0" and len(row) == 5 + len(az_simulation.PIECES)
    assert all(float(x) >= 0 for x in row[1:]) and float(row[1]) > 0 and float(row[3]) >= 1


def test_in_search_benchmark_prints_the_whole_every_part_and_the_leaves(capsys):
    """One row per game: the search and the timed search (microseconds per simulation), every part,
    the once-a-search and call shares, the rest, and the leaves' statistics."""
    assert az_in_search.main(["--quick", "--games", "monstargh-v0"]) == 0
    row = capsys.readouterr().out.splitlines()[-1].split()
    assert row[0] == "monstargh-v0" and len(row) == 1 + len(az_in_search.COLUMNS)
    named = dict(zip(az_in_search.COLUMNS, map(float, row[1:])))
    assert named["search"] > 0 and named["network"] > 0 and named["depth"] >= 1
    assert 0 < named["evaluated"] <= 1 and 0 < named["leaf inputs"] <= 1 and named["leaf legal"] >= 1


@pytest.mark.parametrize("game_id", ["monstargh-v0", "monster_arena-v0"])
def test_the_timed_search_decides_as_the_search(game_id):
    """The benchmark's timed search, built from the search's own parts, decides as the search: on
    the same positions and seeds (Gumbel noise, 24 simulations) the same action, improved policy
    and tree, to the bit, so its figures are the search's."""
    spec = envs.spec(game_id)
    network = read_network(shipped_network_path(game_id))
    roots = az_simulation.positions(game_id, network.player_counts[0], 6)
    settings = SearchSettings(simulations=24, gumbel_scale=1.0).as_array()
    kernels = (
        spec.legal_mask,
        spec.apply_action,
        spec.returns,
        spec.observe_into,
        spec.determinize,
        tuned_rollout(game_id),
    )
    ticks, calls = np.zeros(az_in_search.WHOLE + 1, np.int64), np.zeros(len(az_in_search.PARTS), np.int64)
    leaves = np.zeros(az_in_search.L_ROOT_UNITS + 1)
    for p, root in enumerate(roots):
        plain, timed = (trees(1, 25, spec.num_actions), trees(1, 25, spec.num_actions))
        policies = np.zeros((2, spec.num_actions), np.float32)
        chosen = gumbel_search(
            root,
            settings,
            True,
            make_rng(p),
            network.params,
            network.shapes,
            *[a[0] for a in plain],
            policies[0],
            *kernels,
        )
        assert (
            az_in_search.timed_search(
                root,
                settings,
                True,
                make_rng(p),
                network.params,
                network.shapes,
                *[a[0] for a in timed],
                policies[1],
                *kernels,
                ticks,
                calls,
                leaves,
            )
            == chosen
        )
        assert np.array_equal(policies[0], policies[1])
        assert all(np.array_equal(a, b) for a, b in zip(plain, timed))
    assert leaves[az_in_search.L_SIMULATIONS] > 0 and (ticks > 0).all()


@pytest.mark.parametrize(
    "module,argv,message",
    [
        (az_forward, ["--rows", "0"], "at least 1"),
        (az_forward, ["--batch", "8,x"], "not a comma-separated list"),
        (az_forward, ["--batch", "0"], "at least 1"),
        (az_targets, ["--games", "chess-v0"], "unknown game chess-v0"),
        (az_simulation, ["--games", "chess-v0"], "unknown game chess-v0"),
        (az_simulation, ["--positions", "0"], "must be at least 1"),
        (az_in_search, ["--games", "chess-v0"], "unknown game chess-v0"),
        (az_in_search, ["--simulations", "0"], "must be at least 1"),
        (az_targets, ["--threads", "one"], "not a comma-separated list"),
        (az_targets, ["--simulations", "0"], "at least 1"),
        (az_targets, ["--repeats", "0"], "at least 1"),
        (
            az_targets,
            ["--parallel", "32,0"],
            "--parallel '32,0' is not a comma-separated list of integers of at least 1",
        ),
        (az_targets, ["--rollout-weight", "2"], "--rollout-weight must be from 0 to 1"),
        (az_targets, ["--expert-games", "-1"], "--expert-games at least 0"),
    ],
)
def test_bad_benchmark_arguments_exit_2_with_the_reason(module, argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        module.main(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err
