"""The code blocks of the README and the documentation pages, for tests that run them as printed."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def python_blocks(path: Path) -> list:
    """Every ```python block of the markdown file ``path``, in order."""
    text = path.read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


def doc_block(relative: str, marker: str) -> str:
    """The ```python block of the markdown file ``relative`` (to the repository root) whose first line
    is ``marker``; a missing block fails the test that asked, since the page promises it."""
    for block in python_blocks(ROOT / relative):
        if block.startswith(marker + "\n"):
            return block
    raise AssertionError(f"{relative} has no ```python block starting with {marker!r}")
