"""The agents page's belief tables render their data. "Search with beliefs" is what the strength
reports in ``training/results/belief_strength/`` render: one row per report, its figures as
recorded, the target judged from the win rate, text kept inside its cell and a missing field "not
recorded". The opponent model's fit, what the belief knows and what it costs are what their
measurement files render, under each file's header's date, host and commit."""

import json
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY / "docs"))

from results_beliefs import AZ_TARGET, BELIEF_BUDGET, BELIEF_STRENGTH, BUDGET_PICTURES, TARGET  # noqa: E402
from results_format import NOT_RECORDED  # noqa: E402
from results_learning import agents_page  # noqa: E402

REPORT = {
    "game": "monstargh-v0",
    "num_players": 2,
    "searcher": "monstargh-mcts-v3",
    "opponent": "monstargh-mcts-v2",
    "games": 200,
    "seed": 0,
    "win_rate": 0.5612,
    "draws": 23,
    "interval95": [0.492, 0.628],
    "equal_share": 0.5,
    "az_simulations": 870,
    "planned_ms_per_move": 101.2,
    "pilot": {"games": 2},
    "az": {"mean_ms": 99.5},
    "opponent_moves": {"mean_ms": 102.25},
    "resumed_games": 50,
    "time": "2031-01-02T03:04:05Z",
    "git": "0123456789abcdef0123",
    "host": {"cpu": "Some CPU", "cores": 2, "load_1min": 2.5, "load_1min_end": 3.25},
}


def rows(root: Path) -> list[list[str]]:
    """The cells of the belief table's rows (header first)."""
    page = agents_page(root).markdown()
    part = page.split("## Search with beliefs", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in part.splitlines() if line.startswith("|") and not line.startswith("|---")]
    return [[cell.strip() for cell in line.strip()[1:-1].split(" | ")] for line in lines]


def root_with(reports: dict[str, dict]) -> Path:
    root = Path(tempfile.mkdtemp(prefix="belief-results-"))
    for name, report in reports.items():
        path = root / BELIEF_STRENGTH / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report), encoding="utf-8")
    return root


def test_a_report_renders_its_row_with_date_host_commit_and_protocol():
    root = root_with({"monstargh_2p.json": REPORT})
    header, row = rows(root)
    assert len(row) == len(header) and header[5] == "target met"
    assert row[:9] == [
        "monstargh-v0",
        "2",
        "monstargh-mcts-v3",
        "monstargh-mcts-v2",
        "0.561 [0.492, 0.628] (200 games)",
        f"≥ {TARGET:.2f}: yes",
        "0.500",
        "870",
        "99.5 / 102.25",
    ]
    assert row[9:12] == ["2031-01-02 03:04", "Some CPU, 2 cores", "0123456789ab"]
    for part in (
        "seed 0",
        "23 draws (no win)",
        "101.2 CPU ms a move planned",
        "2 pilot games",
        "load 2.50-3.25",
        "50 games read back",
    ):
        assert part in row[12]
    assert f"{BELIEF_STRENGTH}/monstargh_2p.json" in agents_page(root).sources
    shutil.rmtree(root)


def test_a_miss_says_no_and_missing_fields_read_not_recorded():
    root = root_with({"a.json": {**REPORT, "win_rate": 0.43}, "b.json": {}})
    _, first, second = rows(root)
    missed = next(row for row in (first, second) if row[0] == "monstargh-v0")
    empty = next(row for row in (first, second) if row[0] != "monstargh-v0")
    assert missed[5] == f"≥ {TARGET:.2f}: no"
    assert empty[0] == empty[2] == empty[5] == empty[9] == empty[11] == NOT_RECORDED
    assert "draws" not in empty[-1]  # an unrecorded part is left out of the protocol
    shutil.rmtree(root)


def test_the_learned_search_is_held_to_its_own_target():
    """A rate between the two targets meets the tuned search's and misses the learned search's."""
    between = round((TARGET + AZ_TARGET) / 2, 3)
    learned = {**REPORT, "searcher": "az with beliefs", "win_rate": between}
    tuned = {**REPORT, "searcher": "monstargh-mcts-v3", "win_rate": between}
    root = root_with({"az.json": learned, "mcts.json": tuned})
    _, first, second = rows(root)
    az, mcts = (first, second) if "mcts" not in first[2] else (second, first)
    assert az[5] == f"≥ {AZ_TARGET:.2f}, lower bound above 0.500: no" and mcts[5] == f"≥ {TARGET:.2f}: yes"
    shutil.rmtree(root)


@pytest.mark.parametrize(
    "changes,cell",
    [
        # Monster Factory hides nothing, so its mcts-v3 is version 2 and a belief has nothing to learn.
        (
            {"game": "monster_factory-v0", "searcher": "monster_factory-mcts-v3", "win_rate": 0.46},
            "none: the game hides nothing",
        ),
        # Version 2 against itself at more time measures what time alone buys, whatever it scores.
        (
            {"searcher": "monstargh-mcts-v2", "opponent": "monstargh-mcts-v2", "win_rate": 0.9},
            "none: a control, the opponent's own search",
        ),
    ],
)
def test_a_series_no_target_applies_to_says_why(changes, cell):
    root = root_with({"series.json": {**REPORT, **changes}})
    _, row = rows(root)
    assert row[5] == cell
    shutil.rmtree(root)


def test_the_learned_search_needs_its_lower_bound_above_the_share_and_at_four_players_the_share():
    """At two players the rate must reach the target with the interval's lower bound above the
    equal share; at four, one learned search against three tuned ones must have it above the share."""
    az = {**REPORT, "searcher": "az with beliefs", "win_rate": AZ_TARGET + 0.01}
    cases = {
        "sure.json": ({**az, "interval95": [0.53, 0.68]}, "yes"),
        "unsure.json": ({**az, "interval95": [0.48, 0.69]}, "no"),
        "four_above.json": ({**az, "num_players": 4, "equal_share": 0.25, "interval95": [0.26, 0.4]}, "yes"),
        "four_below.json": ({**az, "num_players": 4, "equal_share": 0.25, "interval95": [0.245, 0.37]}, "no"),
    }
    root = root_with({name: report for name, (report, _) in cases.items()})
    by_report = {row[-1].rsplit("report ", 1)[1]: row for row in rows(root)[1:]}
    for name, (report, met) in cases.items():
        cell = by_report[f"{BELIEF_STRENGTH}/{name}"][5]
        if report["num_players"] == 4:
            assert cell == f"lower bound above 0.250: {met}"
        else:
            assert cell == f"≥ {AZ_TARGET:.2f}, lower bound above 0.500: {met}"
    shutil.rmtree(root)


def test_a_budget_curve_renders_a_row_per_point_with_its_multiple_time_ratio_and_picture():
    root = root_with({})
    points = {
        "x1.json": {**REPORT, "win_rate": 0.46},
        "x2.json": {**REPORT, "az_simulations": 1740, "az": {"mean_ms": 204.5}, "win_rate": 0.58},
    }
    for name, report in points.items():
        path = root / BELIEF_BUDGET / "monstargh_mcts_2p" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report), encoding="utf-8")
    picture = root / BUDGET_PICTURES / "monstargh_mcts_2p.png"
    picture.parent.mkdir(parents=True)
    picture.write_bytes(b"png")
    header, first, second = section_rows(root, "Search with beliefs over its budget")
    assert header[4:10] == [
        "simulations, multiple",
        "simulations",
        "CPU ms a move (search / opponent)",
        "time ratio",
        "win rate [95%]",
        "target met",
    ]
    assert first[4:10] == [
        "x1",
        "870",
        "99.5 / 102.25",
        "0.97",
        "0.460 [0.492, 0.628] (200 games)",
        "≥ 0.55: no",
    ]
    assert second[4:10] == [
        "x2",
        "1,740",
        "204.5 / 102.25",
        "2.00",
        "0.580 [0.492, 0.628] (200 games)",
        "≥ 0.55: yes",
    ]
    assert "23 draws (no win)" in first[-1]
    assert "(../pictures/belief_budget/monstargh_mcts_2p.png)" in agents_page(root).markdown()
    shutil.rmtree(root)


def test_text_from_a_report_stays_in_its_cell():
    root = root_with({"x.json": {**REPORT, "searcher": "a | b\n<script>`x`", "host": {"cpu": "c|d"}}})
    header, row = rows(root)
    page = agents_page(root).markdown()
    assert len(row) == len(header) and "<script>" not in page
    shutil.rmtree(root)


HEADER = {
    "kind": "header",
    "time": "2031-01-02T03:04:05+00:00",
    "git": "0123456789abcdef0123",
    "git_dirty": False,
    "host": {"cpu": "Some CPU", "cores": 2},
}


def section_rows(root: Path, title: str) -> list[list[str]]:
    """The cells of one section's table rows (header first)."""
    page = agents_page(root).markdown()
    part = page.split(f"## {title}", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in part.splitlines() if line.startswith("|") and not line.startswith("|---")]
    return [[cell.strip() for cell in line.strip()[1:-1].split(" | ")] for line in lines]


def measured(name: str, lines: list[dict]) -> Path:
    """A tree holding one measurement file: the header, then ``lines``."""
    root = root_with({})
    path = root / "docs" / "measurements" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in [HEADER, *lines]), encoding="utf-8")
    return root


def test_the_model_fit_lists_the_likeliest_first_and_marks_the_declared_model():
    """Each model of a game's fit is a row, best mean log evidence first; the row of the model the
    game declares for its belief says so; the file header's date, host and commit are on every row."""
    from monster_zoo.agents.search.tuned import search_config

    declared = search_config("monstargh-v0").belief
    game = {"game": "monstargh-v0", "opponent": "mcts", "num_players": 2, "games": 4, "moves": 600}
    chosen = {
        "model": "network",
        "network": declared.network,
        "temperature": declared.temperature,
        "greedy_share": declared.greedy_share,
        "epsilon": declared.epsilon,
    }
    greedy = {"model": "greedy", "network": None, "temperature": None, "greedy_share": None, "epsilon": 0.8}
    root = measured(
        "belief_model.jsonl",
        [{**game, **greedy, "mean_log_evidence": -1.52}, {**game, **chosen, "mean_log_evidence": -1.47}],
    )
    header, first, second = section_rows(root, "The opponent model")
    assert first[3] == "network" and first[8] == "-1.4700" and first[header.index("declared")] == "yes"
    assert second[3] == "greedy" and second[4] == "-" and second[header.index("declared")] == ""
    assert first[header.index("git")] == "0123456789ab" and first[header.index("host")] == "Some CPU, 2 cores"


def test_what_the_belief_knows_and_costs_render_with_the_target_and_pictures():
    """The knowledge table gives the gain as recorded and shows the game's picture where it is in
    the tree; the cost table judges the share against the 10% limit and says how many untimed
    games warmed the kernels."""
    knows = {
        "game": "monstargh-v0",
        "opponent": "mcts",
        "num_players": 2,
        "games": 6,
        "seeds": [0, 1],
        "decisions": 400,
        "belief_log_p": -0.5,
        "uniform_log_p": -0.6,
        "gain": 0.1,
        "settings": {"particles": 64, "model": "network", "temperature": 2.0},
    }
    root = measured("belief_knowledge.jsonl", [knows])
    picture = root / "docs" / "pictures" / "belief" / "monstargh.png"
    picture.parent.mkdir(parents=True)
    picture.write_bytes(b"\x89PNG")
    header, row = section_rows(root, "What the belief knows")
    assert row[header.index("gain (nats an entry)")] == "0.1000" and "64 particles" in row[-1]
    assert "](../pictures/belief/monstargh.png)" in agents_page(root).markdown()
    costs = [
        {"game": "monstargh-v0", "agent": "monstargh-mcts-v3", "opponent": "greedy", "share": 0.052},
        {
            "game": "monster_arena-v0",
            "agent": "monster_arena-mcts-v3",
            "opponent": "greedy",
            "share": 0.12,
            "warm_up_games": 1,
        },
    ]
    (root / "docs" / "measurements" / "belief_cost_cpu.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in [HEADER, *costs]), encoding="utf-8"
    )
    header, argh, arena = section_rows(root, "What the belief costs")
    limit = header.index("≤ 10.0%")
    assert (argh[limit], arena[limit]) == ("yes", "no") and argh[header.index("belief's share")] == "5.2%"
    assert "warm-up games (untimed): 0" in argh[-1]  # a line from before warm-ups were recorded
    assert "warm-up games (untimed): 1" in arena[-1]
    shutil.rmtree(root)
