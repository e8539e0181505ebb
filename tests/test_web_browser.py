"""The web app (``monster-zoo serve``) in a real browser: Debian's chromium, headless, driven by
Playwright, against the server started as a user starts it, in a subprocess on a free port.

A person plays a whole game of each game against ``random``, at its smallest and its largest
player count, by clicking as a person would: on the drawn tiles and cards (the highlighted
places of the picture) whenever some move is made there, on a move's name only otherwise
(passing, rolling, ending a turn). The moves shown are
the game's own names as that seat knew them, a typed illegal move is refused with the rules'
reason, the end shows the result, and the page of a seat shows exactly that seat's view: the
same as for a twin game whose hidden cards are redealt (``determinize``). Watching agents
advances, pauses and steps; a match record opens in the replay viewer.

``MONSTER_ZOO_WEB_PICTURES=docs/pictures pytest tests/test_web_browser.py`` also saves a
screenshot of each game's play page there (``web_<game>.png``, the README's pictures).
"""

import json
import os
import queue
import re
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.envs.core.move_words import named_with_words
from monster_zoo.envs.core.records import validate_record
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.replay import replay
from tests.browser_helpers import browser  # noqa: F401 - the fixture

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the dev extra)")
pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install '.[web]'")

from monster_zoo.web.app import Settings, build_session
from monster_zoo.web.new_game import check_setup
from monster_zoo.web.views import seat_view

SERVER_START_S = 300  # a first run compiles every game's kernels before the address is printed
PICTURES = os.environ.get("MONSTER_ZOO_WEB_PICTURES")
PICTURE_MOVE = 6  # the screenshot: the first turn from the person's 6th on with moves on the picture
CLICK_MS = 5_000
# Each game at its smallest and its largest table.
TABLES = [
    (game_id, players)
    for game_id in envs.available()
    for players in sorted({envs.spec(game_id).min_players, envs.spec(game_id).max_players})
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The address of ``monster-zoo serve --port 0`` running in a subprocess (stopped afterwards)."""
    records = tmp_path_factory.mktemp("records")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "monster_zoo.training",
            "serve",
            "--port",
            "0",
            "--max-sessions",
            "64",
            "--records-dir",
            str(records),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
    seen = []
    try:
        while True:
            line = lines.get(timeout=SERVER_START_S)
            seen.append(line)
            found = re.search(r"open (http://127\.0\.0\.1:\d+/)", line)
            if found:
                break
        yield found.group(1), records
    except queue.Empty:
        pytest.fail(f"the server printed no address within {SERVER_START_S} s: {''.join(seen)}")
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture
def page(browser, server):  # noqa: F811
    """A fresh page of the app at 1300 x 820, failing the test on any script error."""
    tab = browser.new_page(viewport={"width": 1300, "height": 820})
    errors = []
    tab.on("pageerror", lambda err: errors.append(str(err)))
    tab.goto(server[0])
    tab.wait_for_selector("#game option", state="attached")
    yield tab
    tab.close()
    assert errors == []


def start(page, game_id, seats, seed, speed="0"):
    """Fill in the new-game form and start: the game, its player count, who sits where, the seed."""
    page.select_option("#game", game_id)
    page.select_option('[data-option="num_players"]', json.dumps(len(seats)))
    for seat, name in enumerate(seats):
        page.select_option(f'[data-seat="{seat}"]', name)
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_function("() => page.view !== null && !document.getElementById('play').hidden")
    page.select_option("#speed", speed)


def view(page) -> dict:
    """The last view the page was sent (its moves, step and place of each move)."""
    return page.evaluate("() => page.view")


def wait_for_turn_or_end(page) -> dict:
    """Wait until the person is on move (the moves are shown) or the game has ended."""
    page.wait_for_function(
        "() => page.view && !page.busy && (page.view.result || (page.view.moves.length && "
        "page.view.on_move === page.viewer))",
        timeout=30_000,
    )
    return view(page)


def click_move(page, rng) -> int:
    """Make a random legal move the way a person does: on the picture when some move is made there
    (choosing among the moves made at the clicked place when several are), else by its name; the
    action."""
    moves = view(page)["moves"]
    move = rng.choice([m for m in moves if m["place"] is not None] or moves)
    step = view(page)["step"]
    if move["place"] is not None:
        page.locator(f'#picture [data-place="{move["place"]}"].legal').first.click(timeout=CLICK_MS)
        if page.is_visible("#chooser"):
            page.click(f'#chooser-moves button[data-action="{move["action"]}"]', timeout=CLICK_MS)
    else:
        page.click(f'#moves button[data-action="{move["action"]}"]', timeout=CLICK_MS)
    page.wait_for_function(f"() => page.view.step > {step} || page.view.result", timeout=10_000)
    return move["action"]


def link(page, selector) -> str:
    """The full address a link of the page points at."""
    return page.eval_on_selector(selector, "a => a.href")


def shown_names(page):
    """The moves of the page's log, as it shows them."""
    return page.eval_on_selector_all("#log li", "items => items.map(i => i.textContent)")


def names_for(record, seat):
    """Each action of ``record`` named as ``seat`` knew it, with its words where the seat knew the
    move, as the page's log writes it (the terminal ``play`` and the replay viewer say the same)."""
    names = []
    for k, raw in enumerate(replay(record)):
        if k == len(record["actions"]):
            break
        step = record["actions"][k]
        who = f"player_{step['seat']}" + (
            " (you)" if step["seat"] == seat else f" ({record['agents'][step['seat']]})"
        )
        names.append(f"{who}: {named_with_words(raw.spec, raw.engine_state, step['action'], seat)}")
    return names


@pytest.mark.parametrize("game_id,players", TABLES, ids=[f"{g}-{n}p" for g, n in TABLES])
def test_a_person_plays_a_whole_game_by_clicking(page, server, game_id, players):
    seats = ["human"] + ["random"] * (players - 1)
    start(page, game_id, seats, seed=3)
    rng = np.random.default_rng(3)
    clicks = placed = 0
    pictured = not PICTURES
    while not wait_for_turn_or_end(page)["result"]:
        on_picture = any(m["place"] is not None for m in view(page)["moves"])
        if (
            not pictured
            and on_picture
            and clicks >= PICTURE_MOVE
            and players == envs.spec(game_id).min_players
        ):
            page.screenshot(path=str(Path(PICTURES) / f"web_{envs.spec(game_id).name}.png"))
            pictured = True
        placed += on_picture
        click_move(page, rng)
        clicks += 1
    assert clicks >= 3 and placed >= clicks / 2, "the person moved, mostly on the picture"

    final = view(page)
    assert page.is_visible("#end") and page.inner_text("#end-title")
    assert len(page.query_selector_all("#end-table tr")) == len(seats) + 1
    record = validate_record(page.request.get(link(page, "#download")).json())
    assert record["result"]["returns"] == final["result"]["returns"] and record["agents"] == seats
    assert len(record["actions"]) == final["step"]
    assert shown_names(page) == names_for(record, 0), "the log names every move as player_0 knew it"
    saved = list(server[1].glob(f"{envs.spec(game_id).name}_*_seed3_*.json"))
    assert saved, "--records-dir keeps the record of every finished game"

    page.goto(link(page, "#replay-link"))  # the replay viewer of the game just played
    page.wait_for_selector("#picture svg", timeout=10_000)
    assert page.inner_text("#counter") == f"step 0 / {final['step']}"


def test_an_illegal_move_is_refused_with_the_rules_reason(page):
    start(page, "marry_the_monster-v0", ["human", "random"], seed=5)
    before = wait_for_turn_or_end(page)
    legal = {m["action"] for m in before["moves"]}
    illegal = next(a for a in range(envs.spec("marry_the_monster-v0").num_actions) if a not in legal)
    page.fill("#move-text", str(illegal))
    page.click("#typed button")
    page.wait_for_function("() => document.getElementById('message').textContent !== ''")
    message = page.inner_text("#message")
    reasons = envs.spec("marry_the_monster-v0").reasons.values()
    assert f"action {illegal}" in message and "is illegal" in message and any(r in message for r in reasons)
    assert view(page)["step"] == before["step"] and page.is_visible("#moves-box")
    page.fill("#move-text", "no such move")
    page.click("#typed button")
    page.wait_for_function("() => document.getElementById('message').textContent.includes('cannot read')")


def test_a_seats_page_shows_only_what_that_seat_may_see(page):
    """The page of player_0 mid-game is the server's view of player_0, which is the same for a twin
    game whose hidden cards (the other hands, the deck, face-down guards) are redealt for player_0."""
    game_id, seats, seed = "mighty_monsters-v0", ["human", "random", "random"], 11
    start(page, game_id, seats, seed)
    rng = np.random.default_rng(0)
    actions = [click_move(page, rng) for _ in range(4) if not wait_for_turn_or_end(page)["result"]]
    shown = wait_for_turn_or_end(page)

    # The same game in this process: same seed and agents, the same moves of player_0.
    session = build_session(
        check_setup({"game": game_id, "options": {"num_players": 3}, "seats": seats, "seed": seed}, None),
        Settings(),
    )
    with ThreadPoolExecutor(1) as executor:
        while session.step < shown["step"]:
            if session.on_move == 0:
                session.human_move(0, actions.pop(0), session.step)
            else:
                session.start_agent_move(executor).result()
    real = seat_view(session, 0)
    twin_state = session.raw.engine_state.copy()
    session.spec.determinize(twin_state, 0, make_rng(99))
    assert not np.array_equal(twin_state, session.raw.engine_state), "the twin's hidden cards differ"
    session.raw.engine_state[:] = twin_state
    twin = seat_view(session, 0)
    assert twin == real
    shown_svg = page.evaluate(
        "() => { const p = document.getElementById('picture').cloneNode(true); "
        "p.querySelectorAll('.legal').forEach(e => e.removeAttribute('class')); "
        "return p.innerHTML; }"
    )
    parsed_twin = page.evaluate(
        "(svg) => { const d = document.createElement('div'); d.innerHTML = svg; return d.innerHTML; }",
        twin["svg"],
    )
    assert shown_svg == parsed_twin
    shown_moves = page.eval_on_selector_all(
        "#moves-box button[data-action] .move-name", "ns => ns.map(n => n.textContent)"
    )
    assert shown_moves == [m["name"] for m in twin["moves"] if m["place"] is None] + [
        m["name"] for m in twin["moves"] if m["place"]
    ]
    assert "lay two cards face down" in " ".join(shown_names(page)), "the others' setup stays secret"


def test_two_people_at_one_screen_pass_it_behind_a_cover(page):
    start(page, "monster_factory-v0", ["human", "human"], seed=2)
    first = wait_for_turn_or_end(page)
    mover = first["on_move"]
    click_move(page, np.random.default_rng(0))
    page.wait_for_selector("#cover:not([hidden])")
    other = 1 - mover
    assert page.inner_text("#cover-text") == f"player_{other}'s turn: pass the screen to player_{other}"
    assert page.inner_html("#picture") == "", "the last person's view is gone before the next one looks"
    page.click("#cover-go")
    page.wait_for_function(f"() => page.view.viewer === {other} && page.view.moves.length > 0")
    assert f"player_{other}'s view" in page.inner_text("#picture")


def test_watching_agents_advances_pauses_and_steps(page):
    start(page, "marry_the_monster-v0", ["greedy", "random"], seed=4, speed="250")
    assert page.is_visible("#watch-controls")
    page.wait_for_function("() => document.querySelectorAll('#log li').length >= 3", timeout=10_000)
    page.click("#pause")
    page.wait_for_timeout(400)  # a move asked for just before the pause may still land
    paused = len(shown_names(page))
    page.wait_for_timeout(800)
    assert len(shown_names(page)) == paused, "nothing moves while paused"
    page.click("#step-once")
    page.wait_for_function(f"() => document.querySelectorAll('#log li').length === {paused + 1}")
    page.select_option("#view", "1")
    page.wait_for_function("() => page.view.viewer === 1")
    assert "player_1's view" in page.inner_text("#picture")
    page.select_option("#speed", "0")
    page.click("#pause")
    page.wait_for_selector("#end:not([hidden])", timeout=60_000)


def test_a_match_record_opens_in_the_replay_viewer(page):
    start(page, "monster_arena-v0", ["random", "random"], seed=6)
    page.wait_for_selector("#end:not([hidden])", timeout=60_000)
    record = page.request.get(link(page, "#download")).text()
    game = page.evaluate("() => `${location.origin}/api/sessions/${page.sessionId}`")
    page.click("#nav-record")
    page.wait_for_function("() => page.sessionId === null")
    assert page.request.get(game).status == 404, "leaving a finished game closes it on the server"
    page.fill("#record-text", '{"format": "something else"}')
    page.click("#record-open")
    page.wait_for_function(
        "() => document.getElementById('record-message').textContent.includes('not a "
        "monster-zoo match record')"
    )
    page.fill("#record-text", record)
    page.click("#record-open")
    frame = page.frame_locator("#record-frame")
    frame.locator("#picture svg").wait_for(timeout=20_000)
    steps = len(json.loads(record)["actions"])
    assert frame.locator("#counter").inner_text() == f"step 0 / {steps}"
    frame.locator("#step").click()
    assert frame.locator("#counter").inner_text() == f"step 1 / {steps}"
    opened = page.evaluate("() => location.origin + page.recordPage")
    page.click("#record-close")
    page.wait_for_function("() => page.recordPage === null")
    assert page.request.get(opened).status == 404, "a closed record's page is gone from the server"


def test_the_seat_menu_offers_agents_only_where_they_play(page):
    """The champion of Monster Factory ships for 2 players and plays chosen start tiles only."""

    def offered():
        return page.eval_on_selector_all('[data-seat="1"] option', "os => os.map(o => o.value)")

    page.select_option("#game", "monster_factory-v0")
    page.select_option('[data-option="num_players"]', "2")
    assert "champion" in offered()
    page.select_option('[data-option="start_tiles"]', json.dumps("random"))
    assert "champion" not in offered() and "random" in offered()
    page.select_option('[data-option="start_tiles"]', json.dumps("choose"))
    page.select_option('[data-option="num_players"]', "3")
    assert "champion" not in offered()


def test_a_closed_tab_says_goodbye_and_its_game_is_listed_to_close(browser, server):  # noqa: F811
    """Closing a tab lets its game go after a short grace (a reload would open it again), and the
    new-game page lists this browser's games on the server, each with a button that closes it."""
    context = browser.new_context(viewport={"width": 1300, "height": 820})
    try:
        tab = context.new_page()
        tab.goto(server[0])
        tab.wait_for_selector("#game option", state="attached")
        start(tab, "monster_factory-v0", ["human", "random"], 3)
        owner = tab.evaluate("() => localStorage.getItem('monster-zoo-owner')")

        def yours():
            listing = context.request.get(server[0] + "api/sessions", headers={"X-Monster-Zoo-Owner": owner})
            return listing.json()["yours"]

        assert [g["expires_in_s"] > 60 for g in yours()] == [True]
        tab.close(run_before_unload=True)
        other = context.new_page()
        other.goto(server[0])
        other.wait_for_function("() => document.querySelectorAll('#your-games button').length > 0")
        listed = other.locator("#your-games li").first.inner_text()
        assert "Monster Factory" in listed and "dropped in" in listed
        left = yours()
        for _ in range(50):  # the goodbye is a beacon: sent as the tab goes, it may land a moment later
            if left and left[0]["expires_in_s"] <= 30:
                break
            other.wait_for_timeout(100)
            left = yours()
        assert len(left) == 1 and left[0]["expires_in_s"] <= 30, "the closed tab said goodbye"
        other.locator("#your-games li button", has_text="close").first.click()
        other.wait_for_function("() => document.getElementById('your-games').textContent === 'none'")
        assert yours() == []
    finally:
        context.close()
