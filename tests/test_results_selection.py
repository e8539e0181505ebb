"""The agents page's table of the learned search's selection rules renders what ``selection_screen``
wrote: a row per rule in the screen's order, each from the rule's own report (its win rate, date,
host and commit) and the screen's paired difference with the first rule; the target judged from the
win rate, a rule whose report is missing "not recorded", and text from a file kept in its cell."""

import json
import shutil
import sys
import tempfile
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY / "docs"))

from results_az import AZ_TARGET, SELECTION  # noqa: E402
from results_format import NOT_RECORDED  # noqa: E402
from results_learning import agents_page  # noqa: E402

TITLE = "Selection rules of the learned search"


def report(rate: float, simulations: int) -> dict:
    """A rule's ``strength`` report as the screen writes it (the fields the table reads)."""
    return {
        "game": "monster_factory-v0",
        "num_players": 2,
        "games": 200,
        "seed": 0,
        "win_rate": rate,
        "interval95": [round(rate - 0.07, 3), round(rate + 0.07, 3)],
        "az_simulations": simulations,
        "time": "2031-01-02T03:04:05Z",
        "git": "0123456789abcdef0123",
        "host": {"cpu": "Some CPU", "cores": 2},
    }


def rule_row(label: str, search: dict, paired: dict | None) -> dict:
    return {
        "rule": label,
        "search": search,
        "simulations": 1,
        "az_ms": 50.5,
        "opponent_ms": 52.25,
        "against_first": paired,
        "report": f"{label}.json",
    }


SCREEN = {
    "network": "monster_factory-az-v2",
    "num_players": 2,
    "opponent": "monster_factory-mcts-v2",
    "seed": 0,
    "games": 200,
    "az_rollout_weight": 1.0,
    "first": "puct",
    "rules": [
        rule_row("puct", {}, {"mean": 0.0, "interval95": [0.0, 0.0]}),
        rule_row(
            "uct-1", {"selection": "uct", "exploration": 1.0}, {"mean": 0.215, "interval95": [0.12, 0.31]}
        ),
        rule_row("uct-2", {"selection": "uct", "exploration": 2.0}, None),
        rule_row("gumbel", {"selection": "gumbel"}, {"mean": -0.06, "interval95": [-0.15, 0.03]}),
    ],
}


def screened(screen: dict, reports: dict[str, dict]) -> Path:
    """A tree holding one screen's folder."""
    root = Path(tempfile.mkdtemp(prefix="selection-results-"))
    folder = root / SELECTION / "monster_factory-2p"
    folder.mkdir(parents=True)
    (folder / "screen.json").write_text(json.dumps(screen), encoding="utf-8")
    for name, value in reports.items():
        (folder / name).write_text(json.dumps(value), encoding="utf-8")
    return root


def section_rows(root: Path) -> list[list[str]]:
    """The cells of the section's table rows (header first)."""
    page = agents_page(root).markdown()
    part = page.split(f"## {TITLE}", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in part.splitlines() if line.startswith("|") and not line.startswith("|---")]
    return [[cell.strip() for cell in line.strip()[1:-1].split(" | ")] for line in lines]


def test_every_rule_renders_in_the_screens_order_from_its_own_report():
    reports = {
        "puct.json": report(0.41, 790),
        "uct-1.json": report(0.625, 812),
        "gumbel.json": report(0.35, 9),
    }
    root = screened(SCREEN, reports)
    header, puct, uct, missing, gumbel = section_rows(root)
    # the screen's order, not the cells' (a table sorted by its cells would put gumbel first)
    assert [row[2] for row in (puct, uct, missing, gumbel)] == ["puct", "uct-1", "uct-2", "gumbel"]
    target = header.index(f"≥ {AZ_TARGET:.2f}")
    assert (puct[target], uct[target]) == ("no", "yes")
    assert puct[3] == "shipped defaults" and uct[3] == "selection=uct, exploration=1.0"
    assert uct[5] == "0.625 [0.555, 0.695] (200 games)" and uct[8] == "812"
    assert uct[7] == "+0.215 [+0.120, +0.310] vs puct" and uct[9] == "50.5 / 52.25"
    assert uct[10:13] == ["2031-01-02 03:04", "Some CPU, 2 cores", "0123456789ab"]
    assert "network monster_factory-az-v2" in uct[13] and "seed 0" in uct[13]
    # uct-2's report is not there, nor its paired difference
    assert missing[5] == missing[6] == missing[7] == missing[11] == NOT_RECORDED
    assert gumbel[5] == "0.350 [0.280, 0.420] (200 games)" and gumbel[6] == "no"
    sources = agents_page(root).sources
    assert f"{SELECTION}/monster_factory-2p/uct-1.json" in sources
    shutil.rmtree(root)


def test_a_report_named_outside_the_folder_is_not_read():
    escaping = {**SCREEN, "rules": [rule_row("puct", {}, None) | {"report": "../../../x.json"}]}
    root = screened(escaping, {})
    (root / "x.json").write_text(json.dumps(report(0.9, 1)), encoding="utf-8")
    _, row = section_rows(root)
    assert row[5] == NOT_RECORDED
    shutil.rmtree(root)


def test_text_from_a_screen_stays_in_its_cell():
    odd = {**SCREEN, "opponent": "a | b\n<script>`x`"}
    odd["rules"] = [rule_row("p|q<b>", {"selection": "u|v"}, None)]
    root = screened(odd, {"p|q<b>.json": report(0.5, 3)})
    header, row = section_rows(root)
    assert len(row) == len(header) and "<script>" not in agents_page(root).markdown()
    shutil.rmtree(root)
