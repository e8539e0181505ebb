"""Driving Debian's chromium from the browser tests, through Playwright.

Playwright's own browser downloads are never used (they cannot be fetched here): the tests
launch the system chromium that ``.ci/run`` installs with apt-get, and skip, saying why, only
where no chromium can be found. A test module uses the ``browser`` fixture by importing it.
"""

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
NO_CHROMIUM = "no chromium found (install Debian's package: apt-get install chromium; .ci/run does)"


def chromium_path():
    """The system chromium: $CHROMIUM, /usr/bin/chromium, or chromium on the PATH."""
    for candidate in (
        os.environ.get("CHROMIUM"),
        "/usr/bin/chromium",
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
    ):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@pytest.fixture(scope="module")
def browser():
    """A headless Debian chromium driven by Playwright (skipped, saying why, where there is none)."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (the dev extra)"
    )
    executable = chromium_path()
    if executable is None:
        pytest.skip(NO_CHROMIUM)
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
