"""The equal-budget strength protocol (``python -m monster_zoo.training.az.strength``): the search
sized to a CPU budget, a seat-rotated series split over workers, the report and its refusals."""

import json
import re

import pytest

from monster_zoo.agents.network import random_network, write_network
from monster_zoo.evaluation.results_file import ResultsError
from monster_zoo.training.az import strength as az_strength
from monster_zoo.training.az.strength import (
    Timed,
    cpu_ms_per_move,
    measure,
    sample_positions,
    size_simulations,
)

MTM = "marry_the_monster-v0"


@pytest.fixture(scope="module")
def network_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("net") / "network.npz"
    write_network(path, random_network(MTM, (16,), seed=2, player_counts=[2, 3]))
    return path


def test_the_search_is_sized_to_the_budget(network_file):
    """Twice the budget, about twice the simulations; the sized search spends about its budget."""
    from monster_zoo.agents.az.agent import AZAgent
    from monster_zoo.agents.network import read_network

    network = read_network(network_file)
    positions = sample_positions(MTM, {"num_players": 2}, count=8)
    assert len(positions) == 8 and all(p[1].sum() > 1 for p in positions)
    small = size_simulations(network, MTM, {"num_players": 2}, 2.0, positions)
    large = size_simulations(network, MTM, {"num_players": 2}, 4.0, positions)
    assert 1.3 < large / small < 3.0
    spent = cpu_ms_per_move(AZAgent(0, network, MTM, {"num_players": 2}, simulations=large), positions)
    assert 4.0 / 3 < spent < 4.0 * 3
    rolling = size_simulations(network, MTM, {"num_players": 2}, 4.0, positions, rollout_weight=0.5)
    assert rolling < large  # a rollout per leaf costs more than the forward pass alone


def test_a_series_split_over_workers_is_the_series_played_whole(network_file):
    """Pieces play exactly the games of one whole series: the same outcomes in the same order."""
    whole = measure(str(network_file), "greedy", 2, games=6, seed=3, workers=1, simulations=12)
    split = measure(str(network_file), "greedy", 2, games=6, seed=3, workers=2, simulations=12)
    assert whole["games"] == split["games"] == 6 and split["workers"] == 2 and whole["az_simulations"] == 12
    assert whole["outcomes"] == split["outcomes"] and whole["wins"] == whole["outcomes"].count("win")
    low, high = whole["interval95"]
    assert low <= whole["win_rate"] <= high and whole["equal_share"] == 0.5
    assert whole["az"]["moves"] > 0 and whole["opponent_moves"]["moves"] > 0


def test_timed_agents_count_every_move():
    from monster_zoo.agents.registry import make_agent

    agent = Timed(make_agent("greedy", MTM, 0, {"num_players": 2}))
    positions = sample_positions(MTM, {"num_players": 2}, count=3)
    for position in positions:
        agent.act(*position)
    assert len(agent.seconds) == 3 and all(s >= 0 for s in agent.seconds)
    assert agent.name == agent.agent.name  # everything else is the agent's own


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--budget-ms", "150"], "--budget-ms must be a number of milliseconds in (0, 100]"),
        (["--games", "0"], "--games must be at least 1"),
        (["--workers", "0"], "--workers must be from 1 to 64"),
        (["--simulations", "0"], "--simulations must be at least 1"),
        (["--rollout-weight", "2"], "--rollout-weight must be a number from 0 to 1"),
        (["--c-puct", "0"], "--c-puct must be a number above 0"),
        (["--considered", "0"], "--considered must be at least 1"),
        (["--pilot-games", "-1"], "--pilot-games must be from 0 to 1000"),
    ],
)
def test_bad_arguments_are_refused_with_the_valid_values(network_file, capsys, extra, message):
    with pytest.raises(SystemExit) as exit_info:
        az_strength.main(["--network", str(network_file), "--players", "2", *extra])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_the_report_never_overwrites_an_input_or_an_existing_file_unasked(network_file, tmp_path, capsys):
    before = network_file.read_bytes()
    with pytest.raises(SystemExit):
        az_strength.main(["--network", str(network_file), "--players", "2", "--out", str(network_file)])
    assert "would destroy the input" in capsys.readouterr().err and network_file.read_bytes() == before
    out = tmp_path / "report.json"
    out.write_text("keep")
    with pytest.raises(SystemExit):
        az_strength.main(["--network", str(network_file), "--players", "2", "--out", str(out)])
    assert out.read_text() == "keep"
    assert (
        az_strength.main(
            [
                "--network",
                str(network_file),
                "--players",
                "2",
                "--opponent",
                "greedy",
                "--games",
                "2",
                "--budget-ms",
                "0.5",
                "--out",
                str(out),
                "--overwrite",
            ]
        )
        == 0
    )
    report = json.loads(out.read_text())
    assert report["games"] == 2 and report["opponent"] == "greedy" and report["network"] == "az-random"
    assert report["host"]["cpu"] and report["host"]["cores"] >= 1 and report["host"]["load_1min"] >= 0


def test_progress_names_the_sized_budget_and_counts_games_unless_silenced(network_file, capsys):
    """A long series says what it plays before its games start and shows a bar of them (standard
    error, so the printed result stays one line); ``--no-progress`` leaves standard error empty."""
    pytest.importorskip("tqdm")
    argv = [
        "--network",
        str(network_file),
        "--players",
        "2",
        "--opponent",
        "random",
        "--games",
        "3",
        "--simulations",
        "4",
    ]
    assert az_strength.main(argv) == 0
    captured = capsys.readouterr()
    assert "az at 4 simulations" in captured.err and "vs random" in captured.err and "3 games" in captured.err
    assert "3/3" in captured.err  # the bar reached the series' last game
    assert captured.out.count("\n") == 1 and "over 3 games" in captured.out
    assert az_strength.main([*argv, "--no-progress"]) == 0
    silent = capsys.readouterr()
    assert silent.err == "" and "over 3 games" in silent.out


def test_the_search_constants_reach_the_sizing_probe_and_every_game_and_the_report(network_file, monkeypatch):
    """``--c-puct``/``--considered`` (``search=``) are the searches' constants everywhere the
    protocol makes an az agent, and the report says which were set."""
    made = []

    class Recording(az_strength.AZAgent):
        def __init__(self, *args, **kwargs):
            made.append(kwargs)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(az_strength, "AZAgent", Recording)
    report = measure(
        str(network_file),
        "random",
        2,
        games=2,
        seed=3,
        budget_ms=0.5,
        search={"c_puct": 2.5, "considered": 4},
    )
    assert len(made) == 3  # the sizing probe, the pilot's agent and the series' agent
    assert all(kw["c_puct"] == 2.5 and kw["considered"] == 4 for kw in made)
    assert report["az_search"] == {"c_puct": 2.5, "considered": 4} and report["games"] == 2
    with pytest.raises(ValueError):
        measure(str(network_file), "random", 2, games=2, budget_ms=0.5, search={"c_puct": -1.0})


@pytest.mark.slow
def test_a_warm_started_search_beats_random_by_far(tmp_path):
    """Strength, end to end (slow: a minute): a network taught by 300 greedy games, searching 100
    simulations a move, wins at least 0.9 of 40 seat-rotated games against random."""
    assert az_main_warm_start(tmp_path)
    (run_dir,) = tmp_path.iterdir()
    report = measure(str(run_dir / "network.npz"), "random", 2, games=40, seed=1, simulations=100)
    assert report["win_rate"] >= 0.9, report


def az_main_warm_start(out_dir) -> bool:
    """A run of one round after a warm start of 300 greedy games; True when it succeeded."""
    pytest.importorskip("torch")
    from monster_zoo.training.az.trainer import main

    return (
        main(
            [
                "--out-dir",
                str(out_dir),
                "--rounds",
                "1",
                "--games-per-round",
                "100",
                "--parallel-games",
                "50",
                "--simulations",
                "8",
                "--hidden-sizes",
                "64",
                "--warm-start-games",
                "300",
                "--eval-every",
                "0",
                "--eval-games",
                "2",
                "--eval-opponents",
                "greedy",
                "--no-progress",
                "--no-plot",
            ]
        )
        == 0
    )


def test_the_pilot_rescales_the_sizing_to_the_cpu_time_of_real_moves(monkeypatch):
    """Pilot moves that cost twice the budget halve the simulations; a pilot in which the search
    never moved leaves them as sized."""
    piece = az_strength.Piece(
        MTM, "unused.npz", 1000, "mcts", {"num_players": 2}, 0, 2, az_strength.PILOT_SEED_OFFSET
    )
    monkeypatch.setattr(
        az_strength,
        "play_piece",
        lambda p: {
            "outcomes": ["win", "loss"],
            "az_seconds": [0.004, 0.006, 0.005],
            "opponent_seconds": [0.003],
        },
    )
    pilot = az_strength.pilot_simulations(piece, budget_ms=2.5)
    assert pilot["simulations"] == 500 and pilot["simulations_before"] == 1000
    assert pilot["az_ms_per_move"] == 5.0 and pilot["opponent_ms_per_move"] == 3.0 and pilot["games"] == 2
    assert pilot["target_ms"] == 2.5
    monkeypatch.setattr(
        az_strength, "play_piece", lambda p: {"outcomes": [], "az_seconds": [], "opponent_seconds": []}
    )
    assert az_strength.pilot_simulations(piece, budget_ms=2.5)["simulations"] == 1000


def test_at_equal_time_the_pilot_sizes_to_the_opponents_time_in_the_same_games(monkeypatch):
    """With ``match_opponent`` the target is what the opponent spent in the pilot's games, not the
    sizing's estimate (which greedy games' positions can misjudge), capped at the protocol's
    100 ms; an opponent that never moved leaves the sizing's estimate as the target."""
    piece = az_strength.Piece(
        MTM, "unused.npz", 1000, "mcts", {"num_players": 2}, 0, 2, az_strength.PILOT_SEED_OFFSET
    )
    seconds = {"az_seconds": [0.004, 0.006], "opponent_seconds": [0.003, 0.003]}
    monkeypatch.setattr(az_strength, "play_piece", lambda p: {"outcomes": [], **seconds})
    pilot = az_strength.pilot_simulations(piece, budget_ms=4.0, match_opponent=True)
    assert pilot["target_ms"] == 3.0 and pilot["simulations"] == 600
    assert az_strength.pilot_simulations(piece, budget_ms=4.0)["simulations"] == 800
    seconds["opponent_seconds"] = [0.5]
    pilot = az_strength.pilot_simulations(piece, budget_ms=4.0, match_opponent=True)
    assert pilot["target_ms"] == az_strength.MAX_BUDGET_MS and pilot["simulations"] == 20_000
    seconds["opponent_seconds"] = []
    assert az_strength.pilot_simulations(piece, budget_ms=4.0, match_opponent=True)["target_ms"] == 4.0


def test_equal_time_against_an_opponent_slower_than_the_cap_plays_at_the_cap(monkeypatch, network_file):
    """An opponent whose moves cost more than the protocol's 100 ms meets az at 100 ms, not at
    its own time and not with an error."""
    monkeypatch.setattr(az_strength, "cpu_ms_per_move", lambda agent, positions: 500.0)
    report = measure(str(network_file), "random", 2, games=2, seed=3, pilot_games=0)
    assert report["planned_ms_per_move"] == az_strength.MAX_BUDGET_MS
    assert report["az_simulations"] == int(
        az_strength.MAX_BUDGET_MS / (500.0 / az_strength.SIZING_SIMULATIONS)
    )


def test_the_report_plans_the_pilots_target(monkeypatch, network_file):
    """At equal time the report's plan is the pilot's target (the opponent's time in its games);
    with ``budget_ms`` the plan stays the budget."""
    real = az_strength.play_piece

    def fake_pilot(piece, progress=False, position=None, results=None):
        if piece.seed >= az_strength.PILOT_SEED_OFFSET:
            return {"outcomes": [], "az_seconds": [0.002], "opponent_seconds": [0.001]}
        return real(piece, progress, position, results)

    monkeypatch.setattr(az_strength, "play_piece", fake_pilot)
    report = measure(str(network_file), "random", 2, games=2, seed=3, pilot_games=2)
    assert report["planned_ms_per_move"] == report["pilot"]["target_ms"] == 1.0
    assert report["az_simulations"] == max(1, report["pilot"]["simulations_before"] // 2)
    report = measure(str(network_file), "random", 2, games=2, seed=3, budget_ms=0.5, pilot_games=2)
    assert report["planned_ms_per_move"] == report["pilot"]["target_ms"] == 0.5


def test_the_series_plays_the_pilots_count_on_deals_the_pilot_did_not_see(network_file):
    """The report's simulations are the pilot's corrected count; the pilot's deals are its own;
    ``pilot_games=0`` and fixed ``simulations`` play no pilot."""
    report = measure(str(network_file), "random", 2, games=2, seed=3, budget_ms=0.5, pilot_games=2)
    pilot = report["pilot"]
    assert pilot["games"] == 2 and pilot["seed"] == 3 + az_strength.PILOT_SEED_OFFSET
    assert report["az_simulations"] == pilot["simulations"] >= 1 and pilot["az_ms_per_move"] > 0
    assert (
        measure(str(network_file), "random", 2, games=2, seed=3, budget_ms=0.5, pilot_games=0)["pilot"]
        is None
    )
    assert measure(str(network_file), "random", 2, games=2, seed=3, simulations=5)["pilot"] is None


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--players", "2"], "give either --network"),
        (["--agent", "marry_the_monster-mcts-v3", "--players", "2"], "--agent needs --game"),
        (
            ["--agent", "marry_the_monster-mcts-v3", "--game", MTM, "--players", "2", "--belief"],
            "--belief is the network search's",
        ),
    ],
)
def test_a_named_search_or_a_network_is_asked_for_plainly(argv, message, capsys):
    """Exactly one searching side, a named search with its game, and beliefs only for a network's."""
    with pytest.raises(SystemExit) as exit_info:
        az_strength.main(argv)
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_a_named_search_plays_the_series_at_its_simulations_and_a_network_with_beliefs(network_file):
    """``--agent`` puts the registry's search (here version 3 of mcts) in the searching seat at the
    simulations asked; ``--belief`` gives the network's search a belief that hears every move."""
    report = measure(
        None, "greedy", 2, 2, seed=1, simulations=20, agent="marry_the_monster-mcts-v3", game_id=MTM
    )
    assert report["searcher"] == "marry_the_monster-mcts-v3" and report["network"] is None
    assert report["games"] == 2 and report["az_simulations"] == 20 and report["az"]["moves"] > 10
    piece = az_strength.Piece(MTM, str(network_file), 8, "greedy", {"num_players": 2}, 0, 1, 0, belief=True)
    searcher = az_strength.make_searcher(piece)
    assert searcher.belief is not None and searcher.settings.simulations == 8
    played = az_strength.play_piece(piece)
    assert len(played["outcomes"]) == 1 and played["az_seconds"]


def test_unplayed_ranges_cover_exactly_the_missing_games_shared_over_workers():
    assert az_strength.unplayed_ranges(set(), 6, 2) == [(0, 3), (3, 6)]
    ranges = az_strength.unplayed_ranges({1, 2, 5}, 8, 2)
    assert sorted(g for a, b in ranges for g in range(a, b)) == [0, 3, 4, 6, 7]
    assert len(ranges) <= 4 and az_strength.unplayed_ranges(set(range(4)), 4, 3) == []


def test_a_stopped_series_resumes_to_the_series_played_whole(network_file, tmp_path):
    """The results file keeps every game as it ends; a series stopped after two games (its last
    line cut short) and resumed plays only the games it lacks, at the recorded sizing, and reports
    what the series played whole reports."""
    whole = measure(str(network_file), "greedy", 2, games=4, seed=5, simulations=12)
    path = tmp_path / "series.jsonl"
    run = dict(network_path=str(network_file), opponent="greedy", num_players=2, games=4, seed=5)
    measure(**run, simulations=12, results=str(path))
    lines = path.read_text().splitlines(keepends=True)
    assert len(lines) == 5 and json.loads(lines[0])["settings"]["sizing"]["simulations"] == 12
    assert [json.loads(line)["game"] for line in lines[1:]] == [0, 1, 2, 3]
    path.write_text("".join(lines[:3]) + lines[3][:20])  # stopped during game 2's line
    resumed = measure(**run, simulations=12, results=str(path), resume=True, workers=2)
    assert resumed["outcomes"] == whole["outcomes"] and resumed["resumed_games"] == 2
    assert [(p["first"], p["last"]) for p in resumed["pieces"]] == [(2, 3), (3, 4)]
    assert resumed["az"]["moves"] == whole["az"]["moves"]
    # each worker appended its own game, whole
    assert sorted(json.loads(line)["game"] for line in path.read_text().splitlines()[1:]) == [0, 1, 2, 3]


def test_a_results_file_is_never_overwritten_nor_resumed_with_other_settings(network_file, tmp_path, capsys):
    path = tmp_path / "series.jsonl"
    run = dict(
        network_path=str(network_file), opponent="greedy", num_players=2, games=2, seed=5, simulations=8
    )
    measure(**run, results=str(path))
    before = path.read_bytes()
    with pytest.raises(ResultsError, match="seed: the file has 5, this run 6"):
        measure(**{**run, "seed": 6}, results=str(path), resume=True)
    with pytest.raises(
        ResultsError, match="not a results file of python -m monster_zoo.training.az.strength"
    ):
        measure(**run, results=str(network_file), resume=True)
    assert path.read_bytes() == before
    argv = ["--network", str(network_file), "--players", "2", "--games", "2", "--simulations", "8"]
    for extra, message in (
        (["--results", str(path)], "already exists.*--overwrite.*--resume"),
        (["--resume"], "--resume needs --results FILE"),
        (["--results", str(path), "--out", str(path), "--overwrite"], "must be different files"),
    ):
        with pytest.raises(SystemExit):
            az_strength.main([*argv, "--no-progress", *extra])
        assert re.search(message, capsys.readouterr().err)
    assert path.read_bytes() == before
