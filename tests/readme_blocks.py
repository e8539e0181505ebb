"""The README's code blocks, for tests that run them exactly as printed."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_block(marker: str) -> str:
    """The README's ```python block whose first line is ``marker``."""
    text = README.read_text(encoding="utf-8")
    found = re.search(r"^```python\n(" + re.escape(marker) + r"\n.*?)^```", text, re.S | re.M)
    if found is None:
        pytest.skip(f"README.md has no ```python block starting with {marker!r} yet")
    return found.group(1)
