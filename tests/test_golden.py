"""Golden playthroughs: one recorded game per registered game, replayed and diffed.

The files in ``tests/golden/`` are written by ``tests/record_golden.py``; any change
in rules, chance, move names or rendering shows up here as a readable diff.
"""

import difflib

import pytest
from record_golden import golden_path, playthrough

MAX_DIFF_LINES = 80


def test_golden_playthrough(game_id):
    path = golden_path(game_id)
    if not path.exists():
        pytest.fail(
            f"no golden playthrough for {game_id}; record it with "
            f"`python tests/record_golden.py {game_id}` and commit {path.name}"
        )
    expected = path.read_text(encoding="utf-8")
    actual = playthrough(game_id)
    if actual != expected:
        diff = list(
            difflib.unified_diff(
                expected.splitlines(), actual.splitlines(), f"golden/{path.name}", "replayed", lineterm=""
            )
        )
        shown = "\n".join(diff[:MAX_DIFF_LINES])
        more = f"\n... {len(diff) - MAX_DIFF_LINES} more diff lines" if len(diff) > MAX_DIFF_LINES else ""
        pytest.fail(
            f"{game_id} no longer plays its golden game:\n{shown}{more}\n"
            f"If the change is intended, re-record with `python tests/record_golden.py {game_id}` "
            f"and review `git diff tests/golden`.",
            pytrace=False,
        )
