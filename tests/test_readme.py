"""The README is a front door: short, every snippet runs as printed, every command it names exists."""

import os
import re
import subprocess
import sys

import pytest

from tests.readme_blocks import README, ROOT, python_blocks

TEXT = README.read_text(encoding="utf-8")
BLOCKS = python_blocks(README)


def test_the_readme_stays_a_front_door():
    lines = TEXT.count("\n")
    assert lines <= 200, f"README.md has {lines} lines; details belong in docs/"
    for heading in (
        "## Install",
        "## Quick start",
        "## Games",
        "## Use it",
        "## Results",
        "## Documentation",
    ):
        assert f"\n{heading}\n" in TEXT, f"README.md lost its section {heading!r}"


def test_the_quick_start_commands_are_make_targets():
    commands = re.search(r"## Quick start.*?```bash\n(.*?)```", TEXT, re.S).group(1)
    targets = [line.split()[1] for line in commands.splitlines() if line.startswith("make ")]
    assert targets == ["demo", "test"]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in targets:
        assert re.search(rf"^{target}:", makefile, re.M), f"the Makefile has no target {target}"


def test_every_game_is_in_the_games_table():
    from monster_zoo import envs

    for game_id in envs.available():
        assert f"`{game_id}`" in TEXT, f"README.md's games table lacks {game_id}"


@pytest.mark.parametrize("block", BLOCKS, ids=[b.splitlines()[-1][:40] for b in BLOCKS])
def test_every_python_snippet_runs_as_printed(block, tmp_path):
    """Each snippet in a fresh interpreter, in an empty folder, as a reader would paste it."""
    done = subprocess.run(
        [sys.executable, "-c", block],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_match_snippet_prints_a_table_with_intervals(tmp_path):
    (block,) = [b for b in BLOCKS if "run_match" in b]
    out = subprocess.run(
        [sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=600, check=True
    ).stdout
    assert re.search(r"\| greedy \| 20 \| \d+ \| \d+ \| [01]\.\d{3} \[[01]\.\d{3}, [01]\.\d{3}\]", out), out
