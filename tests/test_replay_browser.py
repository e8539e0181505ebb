"""The replay viewer in a real browser: Debian's chromium, headless, driven by Playwright.

Playwright's own browser downloads are never used (they cannot be fetched here): the test
launches the system chromium that ``.ci/run`` installs with apt-get, and is skipped, saying
why, only where no chromium can be found.
"""

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.envs.core.records import record_game
from monster_zoo.envs.replay import write_html
from tests.browser_helpers import browser  # noqa: F401 - the fixture

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the dev extra)")


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    env = envs.make("marry_the_monster-v0", num_players=3, max_steps=12)
    rng = np.random.default_rng(0)
    record = record_game(
        env, [lambda o, m: int(rng.choice(np.flatnonzero(m)))] * 3, seed=1, names=["random"] * 3
    )
    path = write_html(record, tmp_path_factory.mktemp("viewer") / "replay.html")
    return path, record


def test_controls_step_through_the_game_in_a_real_browser(browser, page_file):  # noqa: F811
    path, record = page_file
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(path.as_uri())
    page.wait_for_selector("#picture svg", timeout=10_000)
    assert page.inner_text("#counter") == "step 0 / 12"
    start = page.inner_html("#picture")

    page.click("#step")
    assert page.inner_text("#counter") == "step 1 / 12"
    assert page.inner_text("#action") == record["actions"][0]["name"]
    assert page.inner_html("#picture") != start

    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#counter") == "step 3 / 12"
    assert page.inner_text("#action") == record["actions"][2]["name"]
    page.click("#back")
    assert page.inner_text("#counter") == "step 2 / 12"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")  # never before the start
    assert page.inner_text("#counter") == "step 0 / 12" and page.inner_html("#picture") == start

    page.click("#last")
    assert page.inner_text("#counter") == "step 12 / 12"
    page.click("#first")
    page.click("#play")
    page.wait_for_function("document.getElementById('counter').textContent !== 'step 0 / 12'", timeout=5_000)
    page.click("#play")  # pause
    assert page.inner_text("#play") == "play"
    assert errors == []


def test_the_seat_selector_shows_each_seats_own_view(browser, page_file):  # noqa: F811
    path, _ = page_file
    page = browser.new_page()
    page.goto(path.as_uri())
    page.wait_for_selector("#picture svg", timeout=10_000)
    page.click("#step")
    public = page.inner_text("#picture")
    assert "public view" in public and "hand:" not in public
    page.select_option("#view", "player_1")
    seat = page.inner_text("#picture")
    assert "player_1's view" in seat and "hand:" in seat and page.inner_text("#counter") == "step 1 / 12"
    options = page.eval_on_selector_all("#view option", "els => els.map(e => e.value)")
    assert options == ["public", "player_0", "player_1", "player_2"]


def test_the_address_names_the_step_shown_and_opens_there(browser, page_file):  # noqa: F811
    """``replay.html#step=5`` opens at step 5, stepping keeps the address up to date (so a link
    to a moment can be shared) without filling the history, and editing it jumps there."""
    path, record = page_file
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(path.as_uri() + "#step=5")
    page.wait_for_selector("#picture svg", timeout=10_000)
    assert page.inner_text("#counter") == "step 5 / 12"
    assert page.inner_text("#action") == record["actions"][4]["name"]
    history = page.evaluate("history.length")
    page.click("#step")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("location.hash") == "#step=7" and page.inner_text("#counter") == "step 7 / 12"
    page.click("#first")
    assert page.evaluate("location.hash") == "#step=0"
    assert page.evaluate("history.length") == history
    page.evaluate("location.hash = '#step=9'")
    page.wait_for_function("document.getElementById('counter').textContent === 'step 9 / 12'", timeout=5_000)
    for address, shown in (("#step=400", "step 12 / 12"), ("#step=x", "step 0 / 12")):
        page.goto(path.as_uri() + address)
        page.reload()
        page.wait_for_selector("#picture svg", timeout=10_000)
        assert page.inner_text("#counter") == shown, address
    assert errors == []
