"""The agents page's "Search with beliefs" table is what the strength reports in
``training/results/belief_strength/`` render: one row per report, its figures as recorded, the
target judged from the win rate, text kept inside its cell and a missing field "not recorded"."""

import json
import shutil
import sys
import tempfile
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY / "docs"))

from results_beliefs import BELIEF_STRENGTH, TARGET  # noqa: E402
from results_format import NOT_RECORDED  # noqa: E402
from results_learning import agents_page  # noqa: E402

REPORT = {
    "game": "monster_factory-v0",
    "num_players": 2,
    "searcher": "monster_factory-mcts-v3",
    "opponent": "monster_factory-mcts-v2",
    "games": 200,
    "seed": 0,
    "win_rate": 0.5612,
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
    root = root_with({"monster_factory_2p.json": REPORT})
    header, row = rows(root)
    assert len(row) == len(header) and header[5] == f"≥ {TARGET}"
    assert row[:9] == [
        "monster_factory-v0",
        "2",
        "monster_factory-mcts-v3",
        "monster_factory-mcts-v2",
        "0.561 [0.492, 0.628] (200 games)",
        "yes",
        "0.500",
        "870",
        "99.5 / 102.25",
    ]
    assert row[9:12] == ["2031-01-02 03:04", "Some CPU, 2 cores", "0123456789ab"]
    for part in (
        "seed 0",
        "101.2 CPU ms a move planned",
        "2 pilot games",
        "load 2.50-3.25",
        "50 games read back",
    ):
        assert part in row[12]
    assert f"{BELIEF_STRENGTH}/monster_factory_2p.json" in agents_page(root).sources
    shutil.rmtree(root)


def test_a_miss_says_no_and_missing_fields_read_not_recorded():
    root = root_with({"a.json": {**REPORT, "win_rate": 0.43}, "b.json": {}})
    _, first, second = rows(root)
    missed = next(row for row in (first, second) if row[0] == "monster_factory-v0")
    empty = next(row for row in (first, second) if row[0] != "monster_factory-v0")
    assert missed[5] == "no"
    assert empty[0] == empty[2] == empty[5] == empty[9] == empty[11] == NOT_RECORDED
    shutil.rmtree(root)


def test_text_from_a_report_stays_in_its_cell():
    root = root_with({"x.json": {**REPORT, "searcher": "a | b\n<script>`x`", "host": {"cpu": "c|d"}}})
    header, row = rows(root)
    page = agents_page(root).markdown()
    assert len(row) == len(header) and "<script>" not in page
    shutil.rmtree(root)
