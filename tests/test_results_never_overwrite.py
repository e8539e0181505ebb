"""Commands that write results write into their own folder by default and replace a file only
with ``--overwrite``: ``monster-zoo leaderboard`` once silently replaced the shipped
``docs/leaderboard.md`` and its tables."""

import subprocess
import sys
from pathlib import Path

import pytest

from monster_zoo.cli.leaderboard import DEFAULT_OUT
from monster_zoo.evaluation import leaderboard

GAME = "marry_the_monster-v0"


def leaderboard_command(cwd: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "monster_zoo", "leaderboard", "--no-progress", "--games", GAME, *extra],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def test_the_default_output_is_a_folder_of_its_own_not_the_docs():
    assert DEFAULT_OUT.parts[0] != "docs" and len(DEFAULT_OUT.parts) == 2


@pytest.mark.parametrize(
    "existing",
    ["leaderboard-results/leaderboard.md", "leaderboard-results/leaderboard/marry_the_monster-2p.json"],
)
def test_an_existing_result_file_is_refused_without_overwrite_and_left_as_it_was(tmp_path, existing):
    path = tmp_path / existing
    path.parent.mkdir(parents=True)
    path.write_text("kept\n")
    done = leaderboard_command(tmp_path, "--scale", "0.05")
    assert done.returncode == 2, done.stderr[-1000:]
    assert "already exists" in done.stderr and "--overwrite" in done.stderr
    assert path.read_text() == "kept\n"
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [path.name]


def test_the_shipped_leaderboard_is_never_replaced_without_overwrite(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "leaderboard.md").write_text("shipped\n")
    done = leaderboard_command(tmp_path, "--out", "docs/leaderboard.md", "--scale", "0.05")
    assert done.returncode == 2 and "docs/leaderboard.md already exists" in done.stderr
    assert (docs / "leaderboard.md").read_text() == "shipped\n"


def test_files_to_write_names_the_markdown_and_every_table_a_run_plays(tmp_path):
    out = tmp_path / "lb.md"
    paths = leaderboard.files_to_write([GAME], out, 3, 0.05, resume=False)
    keys = [t.key for t in leaderboard.plan([GAME], 0.05)]
    assert paths[0] == out
    assert set(paths[1:]) == {tmp_path / "lb" / f"{k}.{ext}" for k in keys for ext in ("json", "png")}


@pytest.mark.parametrize("module", ["monster_zoo.training.report", "monster_zoo.benchmarks.pictures"])
def test_other_result_writers_refuse_an_existing_json_without_overwrite(tmp_path, module, capsys):
    import importlib

    main = importlib.import_module(module).main
    existing = tmp_path / "rows.json"
    existing.write_text("kept\n")
    with pytest.raises(SystemExit) as stopped:
        main(["--json", str(existing), "--games", "0"])
    assert stopped.value.code == 2
    assert "already exists" in capsys.readouterr().err and existing.read_text() == "kept\n"
