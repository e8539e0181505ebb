"""Pooling ``strength`` reports (``python -m monster_zoo.training.az.pooled``): the games of
independent series added up, and every report that measured something else, shares deals or does
not add up refused before anything is written."""

import json

import pytest

from monster_zoo.agents.network import random_network, write_network
from monster_zoo.evaluation.match import wilson_interval
from monster_zoo.training.az import pooled
from monster_zoo.training.az.pooled import ReportError, pool, read_report
from monster_zoo.training.az.strength import measure

MTM = "marry_the_monster-v0"


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """Two small real series (seeds 3 and 4) and the folder holding their JSON files."""
    folder = tmp_path_factory.mktemp("reports")
    network = folder / "network.npz"
    write_network(network, random_network(MTM, (16,), seed=2, player_counts=[2]))
    paths = []
    for seed, games in ((3, 4), (4, 6)):
        path = folder / f"s{seed}.json"
        path.write_text(json.dumps(measure(str(network), "greedy", 2, games=games, seed=seed, simulations=8)))
        paths.append(path)
    return paths


def test_pooling_adds_the_games_and_recomputes_the_interval(reports):
    first, second = (read_report(p) for p in reports)
    result = pool([first, second], [str(p) for p in reports])
    wins = first["wins"] + second["wins"]
    assert (
        result["games"] == 10
        and result["wins"] == wins
        and result["draws"] == first["draws"] + second["draws"]
    )
    assert result["win_rate"] == round(wins / 10, 4)
    assert result["interval95"] == [round(x, 4) for x in wilson_interval(wins, 10)]
    assert [row["seed"] for row in result["reports"]] == [3, 4] and result["equal_share"] == 0.5
    moves = first["az"]["moves"] + second["az"]["moves"]
    expected = (
        first["az"]["mean_ms"] * first["az"]["moves"] + second["az"]["mean_ms"] * second["az"]["moves"]
    ) / moves
    assert result["az"]["moves"] == moves and result["az"]["mean_ms"] == pytest.approx(expected, abs=0.01)


def _altered(path, tmp_path, name, **changes):
    report = json.loads(path.read_text())
    report.update(changes)
    out = tmp_path / name
    out.write_text(json.dumps(report))
    return out


@pytest.mark.parametrize(
    "changes,message",
    [
        ({"opponent": "random"}, "its opponent is 'random'"),
        ({"num_players": 3}, "its num_players is 3"),
        ({"az_rollout_weight": 1.0}, "its az_rollout_weight is 1.0"),
        ({"seed": 3}, "share a seed"),
    ],
)
def test_reports_of_another_comparison_or_the_same_deals_are_refused(reports, tmp_path, changes, message):
    other = _altered(reports[1], tmp_path, "other.json", **changes)
    with pytest.raises(ReportError, match=message):
        pool([read_report(reports[0]), read_report(other)], [str(reports[0]), str(other)])


@pytest.mark.parametrize(
    "content,message",
    [
        ("not json", "is not JSON"),
        ("[1, 2]", "is not a JSON object"),
        ("[" * 50 + "]" * 50, "nests JSON 50 levels deep"),
        (json.dumps({"games": 2}), "has no 'wins'"),
        (json.dumps({"games": True, "wins": 0, "draws": 0}), "'games' is bool, not int"),
    ],
)
def test_files_that_are_not_reports_are_refused_with_the_reason(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ReportError, match=message):
        read_report(path)


def test_counts_that_disagree_with_the_outcomes_are_refused(reports, tmp_path):
    report = json.loads(reports[0].read_text())
    forged = _altered(reports[0], tmp_path, "forged.json", wins=report["wins"] + 1)
    with pytest.raises(ReportError, match="do not match its 4 outcomes"):
        read_report(forged)


def test_a_folder_or_device_is_refused(tmp_path):
    with pytest.raises(ReportError, match="not a regular file"):
        read_report(tmp_path)


def test_the_command_line_prints_writes_and_never_overwrites_an_input(reports, tmp_path, capsys):
    out = tmp_path / "pooled.json"
    assert pooled.main([*map(str, reports), "--out", str(out)]) == 0
    line = capsys.readouterr().out
    assert "over 10 games (seeds 3, 4" in line and json.loads(out.read_text())["games"] == 10
    before = reports[0].read_bytes()
    with pytest.raises(SystemExit) as exit_info:
        pooled.main([*map(str, reports), "--out", str(reports[0]), "--overwrite"])
    assert exit_info.value.code == 2 and "would destroy the input" in capsys.readouterr().err
    assert reports[0].read_bytes() == before
    with pytest.raises(SystemExit):
        pooled.main([*map(str, reports), "--out", str(out)])
    assert "exists" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        pooled.main([str(reports[0])])
    assert "at least two reports, got 1" in capsys.readouterr().err
