"""The seeds report of training/README.md (``monster_zoo.training.report``): a tiny run over two
run folders, rows of 0 games left out, and refused arguments."""

import json
import shutil
from pathlib import Path

import pytest

from monster_zoo.training import report

CHAMPION = Path(report.__file__).resolve().parents[1] / "agents" / "champions" / "marry_the_monster-2p.npz"


def run_folder(root: Path, seed: int) -> Path:
    """A training run's folder as the trainer leaves it: final_model.npz and summary.json."""
    folder = root / f"marry_the_monster-v0__seeds3__{seed}__0"
    folder.mkdir()
    shutil.copy(CHAMPION, folder / "final_model.npz")
    (folder / "summary.json").write_text(
        json.dumps({"timesteps": 1000, "train_seconds": 60.0, "timesteps_per_second": 16.7})
    )
    return folder


def test_rows_per_seed_with_the_search_row_and_without_mcts_vs_greedy(tmp_path, capsys):
    runs = [str(run_folder(tmp_path, seed)) for seed in (1, 2)]
    out = tmp_path / "rows.json"
    assert (
        report.main(
            [
                "--option",
                "num_players=2",
                "--runs",
                *runs,
                "--games",
                "4",
                "--mcts-games",
                "0",
                "--search-games",
                "2",
                "--mcts",
                "mcts-fast",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    rows = {r["matchup"]: r for r in json.loads(out.read_text())}
    assert set(rows) == {"greedy vs random", "PPO vs random", "PPO vs greedy", "PPO vs mcts-fast"}
    for r in rows.values():
        assert len(r["rates"]) == 2 and all(0 <= x <= 1 for x in r["rates"])
    printed = capsys.readouterr().out
    assert "| PPO vs mcts-fast |" in printed and "| 2 |" in printed and "mcts-fast vs greedy" not in printed
    assert "1000, 1000 timesteps" in printed


@pytest.mark.parametrize("flag", ["--games", "--mcts-games", "--search-games"])
def test_negative_game_counts_are_refused(flag, capsys):
    with pytest.raises(SystemExit) as stop:
        report.main([flag, "-1"])
    assert stop.value.code == 2 and f"{flag} must be >= 0, got -1" in capsys.readouterr().err
