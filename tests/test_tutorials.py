"""The tutorials' and the quick start's Python runs as printed, and prints what the pages say.

Each page's ```python blocks run in order in one namespace, as a reader pasting them one after the
other would run them; a block that needs an extra not installed here skips the page. The figures a
page quotes from a run (a game's result, a match's table) are checked against what the run
prints, so a change of rules or of the agents' play that changes them fails here first.
"""

import contextlib
import io
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = ("tutorials/first_game.md", "tutorials/first_agent.md", "quickstart.md")
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(page: str) -> list[str]:
    """The ```python blocks of a page of docs/, in order."""
    return _BLOCK.findall((DOCS / page).read_text(encoding="utf-8"))


def run_blocks(page: str) -> str:
    """Run a page's blocks in one namespace; what they print."""
    out = io.StringIO()
    namespace: dict = {"__name__": "__tutorial__"}
    with contextlib.redirect_stdout(out):
        for block in python_blocks(page):
            try:
                exec(compile(block, f"{page} block", "exec"), namespace)
            except ModuleNotFoundError as missing:  # an extra that this environment lacks
                pytest.skip(f"{page} needs {missing.name}")
    return out.getvalue()


def test_blocks_are_found():
    assert python_blocks("tutorials/first_game.md") and python_blocks("tutorials/first_agent.md")
    assert python_blocks("quickstart.md")


@pytest.mark.parametrize("page", PAGES)
def test_the_page_runs_as_printed(page):
    printed = run_blocks(page)
    if page == "tutorials/first_game.md":
        assert "{'player_0': 1.0, 'player_1': -1.0}" in printed, printed[-400:]
        assert "player_0 (280,) 37" in printed
    if page == "tutorials/first_agent.md":
        table = (DOCS / page).read_text(encoding="utf-8").split("```text\n", 1)[1].split("```", 1)[0]
        assert table.strip() in printed, printed
        assert "| careful-greedy | 40 | 15 |" in printed
