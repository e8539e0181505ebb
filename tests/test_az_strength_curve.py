"""The strength curves (``python -m monster_zoo.training.az.strength_curve``): ``az`` at multiples
of its equal-time budget and a training run's networks at equal time, each point a ``strength``
report that a stopped curve reuses, and the refusals."""

import json

import pytest

from monster_zoo.agents.network import random_network, write_network
from monster_zoo.training.az import strength_curve
from monster_zoo.training.az.strength_curve import CurveError, parse_multiples, run_networks

MTM = "marry_the_monster-v0"
FAST = [
    "--players",
    "2",
    "--opponent",
    "random",
    "--games",
    "2",
    "--budget-ms",
    "0.5",
    "--pilot-games",
    "0",
    "--no-progress",
]


@pytest.fixture(scope="module")
def network_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("net") / "network.npz"
    write_network(path, random_network(MTM, (16,), seed=2, player_counts=[2, 3]))
    return path


def make_run(folder, init, rounds):
    """A run folder as ``monster-zoo az`` leaves it: ``args.json`` and checkpoints."""
    (folder / "networks").mkdir(parents=True)
    (folder / "args.json").write_text(json.dumps({"game": MTM, "init_network": str(init) if init else ""}))
    for k in rounds:
        write_network(
            folder / "networks" / f"round_{k:05d}.npz",
            random_network(MTM, (16,), seed=10 + k, player_counts=[2, 3]),
        )
    return folder


def test_multiples_are_increasing_include_one_and_are_refused_otherwise():
    assert parse_multiples("1,2,4") == [1.0, 2.0, 4.0] and parse_multiples("0.5,1") == [0.5, 1.0]
    for bad in ("2,4", "1,1,2", "4,1", "1,x", "1,100", "0,1"):
        with pytest.raises(CurveError, match="--multiples"):
            parse_multiples(bad)


def test_a_run_gives_its_first_network_then_every_kth_checkpoint_and_the_last(tmp_path, network_file):
    run = make_run(tmp_path / "run", network_file, [1, 2, 3, 4, 5])
    names = [(name, k) for name, _, k in run_networks(run, every=2)]
    assert names == [("init", 0), ("round_00002", 2), ("round_00004", 4), ("round_00005", 5)]
    bare = make_run(tmp_path / "bare", None, [3])
    assert [name for name, _, _ in run_networks(bare, every=1)] == ["round_00003"]
    with pytest.raises(CurveError, match="no checkpoints"):
        run_networks(make_run(tmp_path / "empty", None, []), every=1)
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "args.json").write_text("{not json")
    with pytest.raises(CurveError, match="not JSON"):
        run_networks(tmp_path / "junk", every=1)


def test_the_budget_curve_scales_the_equal_time_count_and_resumes_without_playing(
    tmp_path, network_file, monkeypatch, capsys
):
    out = tmp_path / "budget"
    argv = [
        "budget",
        "--network",
        str(network_file),
        "--multiples",
        "1,3",
        "--target",
        "0.6",
        *FAST,
        "--out-dir",
        str(out),
    ]
    assert strength_curve.main(argv) == 0
    base, triple = (json.loads((out / f"{n}.json").read_text()) for n in ("x1", "x3"))
    assert triple["az_simulations"] == 3 * base["az_simulations"] and base["games"] == triple["games"] == 2
    assert base["outcomes"] and base["seed"] == triple["seed"] == 0  # the same deals at every point
    curve = json.loads((out / "curve.json").read_text())
    assert [p["name"] for p in curve["points"]] == ["x1", "x3"] and curve["target"] == 0.6
    assert curve["points"][1]["simulations"] == triple["az_simulations"]
    assert (out / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    printed = capsys.readouterr().out
    assert printed.count("\n") == 2 and "x3: az" in printed

    def never(*args, **kwargs):
        raise AssertionError("a finished point was played again")

    monkeypatch.setattr(strength_curve, "measure", never)
    before = (out / "x3.json").read_bytes()
    assert strength_curve.main(argv) == 0
    assert (out / "x3.json").read_bytes() == before


def test_a_folder_of_another_comparison_is_refused_and_left_as_it_was(tmp_path, network_file, capsys):
    out = tmp_path / "budget"
    argv = ["budget", "--network", str(network_file), "--multiples", "1", *FAST, "--out-dir", str(out)]
    assert strength_curve.main(argv) == 0
    before = (out / "x1.json").read_bytes()
    with pytest.raises(SystemExit) as exit_info:
        strength_curve.main([*argv, "--seed", "5"])
    assert exit_info.value.code == 2 and "measured another comparison" in capsys.readouterr().err
    assert (out / "x1.json").read_bytes() == before


def test_the_training_curve_plays_every_network_at_the_first_ones_count(tmp_path, network_file):
    run = make_run(tmp_path / "run", network_file, [1, 2])
    out = tmp_path / "training"
    assert strength_curve.main(["training", "--run", str(run), *FAST, "--out-dir", str(out)]) == 0
    curve = json.loads((out / "curve.json").read_text())
    assert [(p["name"], p["x"]) for p in curve["points"]] == [
        ("init", 0),
        ("round_00001", 1),
        ("round_00002", 2),
    ]
    assert len({p["simulations"] for p in curve["points"]}) == 1
    assert [p["network_file"] for p in curve["points"]] == [
        str(network_file),
        *(str(run / "networks" / f"round_{k:05d}.npz") for k in (1, 2)),
    ]  # three networks, not one thrice


def test_a_named_search_and_az_with_beliefs_have_budget_curves_of_their_own(tmp_path, network_file, capsys):
    agent = tmp_path / "agent"
    named = ["budget", "--agent", "marry_the_monster-mcts-v3", "--game", MTM, "--multiples", "1,2"]
    assert strength_curve.main([*named, *FAST, "--out-dir", str(agent)]) == 0
    base, double = (json.loads((agent / f"{n}.json").read_text()) for n in ("x1", "x2"))
    assert base["searcher"] == double["searcher"] == "marry_the_monster-mcts-v3" and base["network"] is None
    assert double["az_simulations"] == 2 * base["az_simulations"]
    curve = json.loads((agent / "curve.json").read_text())
    assert curve["searcher"] == "marry_the_monster-mcts-v3"
    assert [p["network_file"] for p in curve["points"]] == ["marry_the_monster-mcts-v3"] * 2
    assert "x2: marry_the_monster-mcts-v3" in capsys.readouterr().out
    # a folder of plain az is not a folder of az with beliefs: the belief's curve refuses it as it is
    plain = tmp_path / "plain"
    assert (
        strength_curve.main(
            ["budget", "--network", str(network_file), "--multiples", "1", *FAST, "--out-dir", str(plain)]
        )
        == 0
    )
    before = (plain / "x1.json").read_bytes()
    with pytest.raises(SystemExit) as exit_info:
        strength_curve.main(
            [
                "budget",
                "--network",
                str(network_file),
                "--belief",
                "--multiples",
                "1",
                *FAST,
                "--out-dir",
                str(plain),
            ]
        )
    assert exit_info.value.code == 2 and "searcher" in capsys.readouterr().err
    assert (plain / "x1.json").read_bytes() == before


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--agent", "mcts-v3"], "give either --network"),
        (["--game", "no_such_game-v0"], "--agent needs --game"),
        (["--belief", "--game", MTM], "--belief is the network search's"),
    ],
)
def test_a_named_search_needs_its_game_and_no_network(tmp_path, network_file, capsys, extra, message):
    first = (
        ["--network", str(network_file)]
        if extra[0] == "--agent"
        else ["--agent", "marry_the_monster-mcts-v3"]
    )
    with pytest.raises(SystemExit) as exit_info:
        strength_curve.main(["budget", *first, *extra, "--players", "2", "--out-dir", str(tmp_path / "o")])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--games", "0"], "--games must be at least 1"),
        (["--target", "1.5"], "--target must be a win rate in (0, 1)"),
        (["--budget-ms", "500"], "--budget-ms must be a number of milliseconds in (0, 100]"),
        (["--pilot-games", "-2"], "--pilot-games must be from 0 to 1000"),
        (["--multiples", "2,4"], "include 1"),
    ],
)
def test_bad_arguments_are_refused_with_the_valid_values(tmp_path, network_file, capsys, extra, message):
    with pytest.raises(SystemExit) as exit_info:
        strength_curve.main(
            [
                "budget",
                "--network",
                str(network_file),
                "--players",
                "2",
                "--out-dir",
                str(tmp_path / "o"),
                *extra,
            ]
        )
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_an_out_dir_that_is_a_file_is_refused_and_kept(tmp_path, network_file, capsys):
    taken = tmp_path / "taken"
    taken.write_text("keep")
    with pytest.raises(SystemExit):
        strength_curve.main(
            ["budget", "--network", str(network_file), "--players", "2", "--out-dir", str(taken)]
        )
    assert "is a file, not a folder" in capsys.readouterr().err and taken.read_text() == "keep"


def test_a_point_gives_the_cpu_time_ratio_as_spent_or_none_where_the_opponent_is_too_fast():
    report = {
        "network": "n",
        "az_simulations": 7,
        "az": {"mean_ms": 10.0},
        "opponent_moves": {"mean_ms": 4.0},
        "win_rate": 0.5,
        "interval95": [0.4, 0.6],
        "games": 100,
    }
    made = strength_curve.point("x2", 2.0, "n.npz", report)
    assert made["time_ratio"] == 2.5 and made["report"] == "x2.json" and made["simulations"] == 7
    report["opponent_moves"]["mean_ms"] = 0.0
    assert strength_curve.point("x2", 2.0, "n.npz", report)["time_ratio"] is None
