"""The web app's JSON API (monster_zoo.web) through Starlette's TestClient: every bad request is
refused with a clear 4xx message and changes nothing; a seat is sent only what it may see;
agents think off the request path within a time limit; sessions are bounded and expire.
"""

import json
import re
import shutil
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.envs.core.records import read_record, validate_record
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.registry import declaration
from monster_zoo.envs.replay import replay

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
with warnings.catch_warnings():  # Starlette announces a successor of httpx for its test client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from monster_zoo.cli.main import main
from monster_zoo.web.app import Settings, build_session, create_app
from monster_zoo.web.catalogue import APP_OPTIONS, LEARNER_OPTIONS
from monster_zoo.web.game_session import GameSession
from monster_zoo.web.new_game import check_setup
from monster_zoo.web.refusals import MAX_BODY_BYTES, RequestError
from monster_zoo.web.store import ExpiringStore
from monster_zoo.web.views import seat_view

ROOT = Path(__file__).resolve().parents[1]
MTM = "marry_the_monster-v0"
HIDDEN = tuple(g for g in envs.available() if declaration(g).hides_information)  # games that hide something


def client_for(**settings) -> TestClient:
    return TestClient(create_app(Settings(allowed_hosts=["testserver"], **settings)))


@pytest.fixture(scope="module")
def client():
    with client_for() as test_client:
        yield test_client


def new_game(client, game=MTM, seats=("human", "random"), seed=1, **options) -> str:
    answer = client.post(
        "/api/sessions",
        json={
            "game": game,
            "seats": list(seats),
            "seed": seed,
            "options": {"num_players": len(seats), **options},
        },
    )
    assert answer.status_code == 201, answer.text
    return answer.json()["session"]


def refused(answer, status: int, *words: str) -> str:
    """The error message of ``answer``, checked to carry ``status`` and every one of ``words``."""
    assert answer.status_code == status, answer.text
    message = answer.json()["error"]
    assert all(w in message for w in words), message
    return message


def turn_of_seat(client, session, seat=0) -> dict:
    """Advance the agents until ``seat`` is on move (or the game ended); its view."""
    viewer = "public" if seat is None else seat
    view = client.get(f"/api/sessions/{session}?viewer={viewer}").json()
    while view["on_move"] not in (seat, None):
        view = client.post(
            f"/api/sessions/{session}/advance?viewer={viewer}", json={"step": view["step"]}
        ).json()
    return view


def test_the_catalogue_lists_every_game_its_options_and_agents(client):
    catalogue = client.get("/api/games").json()
    assert catalogue["limits"] == {
        "max_sessions": 16,
        "session_ttl_s": 3600.0,
        "agent_time_limit_s": 60.0,
        "records_saved": False,
    }
    games = catalogue["games"]
    assert [g["id"] for g in games] == envs.available()
    for game in games:
        spec = envs.spec(game["id"])
        assert [o["name"] for o in game["options"]] == [
            o.name for o in spec.options if o.name not in APP_OPTIONS and o.name not in LEARNER_OPTIONS
        ]
        assert not {"max_steps", "reward"} & {o["name"] for o in game["options"]}, (
            "a person is not asked RL words"
        )
        assert {"random", "greedy"} <= set(game["agents"]) and not any(":" in a for a in game["agents"])
        assert (game["min_players"], game["max_players"]) == (spec.min_players, spec.max_players)


BAD_GAMES = [
    ({"game": "chess-v0", "seats": ["human"]}, 404, "unknown game", "marry_the_monster-v0"),
    ({"game": 7, "seats": ["human"]}, 400, "game id"),
    ({"game": MTM, "seats": ["human", "random"], "colour": "red"}, 400, "unknown field", "'colour'"),
    (
        {"game": MTM, "options": {"num_players": 9}, "seats": ["human"] * 9},
        422,
        "num_players=9",
        "valid values",
    ),
    ({"game": MTM, "options": {"num_players": 2.0}, "seats": ["human"] * 2}, 422, "num_players=2.0"),
    ({"game": MTM, "options": {"board": "big"}, "seats": ["human"] * 3}, 422, "unknown option", "max_steps"),
    (
        {"game": MTM, "options": {"render_mode": "human"}, "seats": ["human"] * 3},
        422,
        "render_mode",
        "set by the app",
    ),
    ({"game": MTM, "options": {"max_steps": {"a": 1}}, "seats": ["human"] * 3}, 400, "max_steps"),
    (
        {"game": "monstargh-v0", "options": {"num_players": 2, "species": "red,red"}, "seats": ["human"] * 2},
        422,
        "species",
    ),
    ({"game": MTM, "options": [1], "seats": ["human"] * 3}, 400, "'options' must be an object"),
    (
        {"game": MTM, "options": {f"o{k}": 1 for k in range(40)}, "seats": ["human"] * 3},
        400,
        "at most 32 options",
    ),
    ({"game": MTM, "seats": ["human", "random"]}, 422, "names 2 seats", "3 players"),
    ({"game": MTM, "seats": "human"}, 400, "'seats' must be a list"),
    ({"game": MTM, "seats": ["human", "random", "alphazero"]}, 422, "seat 2", "unknown agent", "greedy"),
    ({"game": MTM, "seats": ["human", "random", "ppo:/etc/passwd"]}, 422, "unknown agent", "--models-dir"),
    ({"game": MTM, "seats": ["human"] * 3, "seed": -1}, 400, "'seed'", "integer from 0"),
    ({"game": MTM, "seats": ["human"] * 3, "seed": 1.5}, 400, "'seed'"),
    ({"game": MTM, "seats": ["human"] * 3, "seed": True}, 400, "'seed'"),
    ([MTM], 400, "JSON object"),
]


def test_bad_new_games_are_refused_and_make_no_game():
    with client_for(max_sessions=1) as client:
        for body, status, *words in BAD_GAMES:
            refused(client.post("/api/sessions", json=body), status, *words)
        refused(
            client.post("/api/sessions", content=b"{nope", headers={"content-type": "application/json"}),
            400,
            "not JSON",
        )
        refused(
            client.post("/api/sessions", content=b"game=x", headers={"content-type": "text/plain"}),
            415,
            "application/json",
        )
        refused(
            client.post(
                "/api/sessions", content=b"[" * 10 + b"]" * 10, headers={"content-type": "application/json"}
            ),
            400,
            "nests JSON 10 levels",
        )
        refused(
            client.post(
                "/api/sessions",
                content=b" " * (MAX_BODY_BYTES + 1),
                headers={"content-type": "application/json"},
            ),
            413,
            "larger than",
        )
        new_game(client)  # the one game this server holds room for: no refusal above made one
        refused(
            client.post("/api/sessions", json={"game": MTM, "seats": ["human"] * 3}),
            429,
            "1 games in progress",
            "close one",
        )


def test_unknown_sessions_and_pages_are_404(client):
    refused(client.get("/api/sessions/../../etc/passwd"), 404)
    for key in ("A" * 22, "x"):
        refused(client.get(f"/api/sessions/{key}"), 404, "no such game")
        refused(client.post(f"/api/sessions/{key}/moves", json={"seat": 0, "step": 0, "action": 1}), 404)
        refused(client.post(f"/api/sessions/{key}/advance", json={"step": 0}), 404)
        refused(client.get(f"/api/sessions/{key}/record"), 404)
        refused(client.get(f"/sessions/{key}/replay"), 404)
        refused(client.delete(f"/api/sessions/{key}"), 404)
        refused(client.get(f"/records/{key}"), 404, "no such replay page")
    refused(client.get("/api/nothing"), 404)


def test_bad_moves_are_refused_with_the_reason_and_change_nothing(client):
    session = new_game(client)
    before = turn_of_seat(client, session)
    spec = envs.spec(MTM)
    legal = {m["action"] for m in before["moves"]}
    illegal = next(a for a in range(spec.num_actions) if a not in legal)
    url = f"/api/sessions/{session}/moves?viewer=0"
    step = before["step"]
    for body, status, *words in [
        ({"seat": 0, "step": step, "action": "house A1"}, 400, "'action'", "integer"),
        ({"seat": 0, "step": step, "action": 3.0}, 400, "'action'"),
        ({"seat": 0, "step": step, "action": True}, 400, "'action'"),
        ({"seat": 0, "step": step}, 400, "'action'", "'name'"),
        ({"seat": 0, "step": step, "action": 1, "name": "end"}, 400, "one of them"),
        ({"step": step, "action": 1}, 400, "'seat' is missing"),
        ({"seat": 0, "action": 1}, 400, "'step' is missing"),
        ({"seat": 5, "step": step, "action": 1}, 400, "'seat'", "from 0 to 1"),
        ({"seat": 0, "step": step, "name": "x" * 500}, 400, "'name'", "at most 200"),
        ({"seat": 0, "step": step, "action": spec.num_actions}, 422, "out of range"),
        ({"seat": 0, "step": step, "action": illegal}, 422, f"action {illegal}", "is illegal", "legal now"),
        ({"seat": 0, "step": step, "name": "fly away"}, 422, "cannot read action"),
        ({"seat": 1, "step": step, "action": sorted(legal)[0]}, 409, "player_1 is played by random"),
        ({"seat": 0, "step": step - 1, "action": sorted(legal)[0]}, 409, "moved on"),
    ]:
        refused(client.post(url, json=body), status, *words)
    reason = refused(client.post(url, json={"seat": 0, "step": step, "action": illegal}), 422)
    assert any(r in reason for r in spec.reasons.values()), "the rules' own reason is given"
    after = client.get(f"/api/sessions/{session}?viewer=0").json()
    assert after == before, "no refused move changed the game"
    moved = client.post(url, json={"seat": 0, "step": step, "name": before["moves"][0]["name"]}).json()
    assert moved["step"] == step + 1 and moved["events"][-1]["name"] == before["moves"][0]["name"]
    refused(client.post(url, json={"seat": 0, "step": step, "action": sorted(legal)[0]}), 409, "moved on")


def test_advancing_moves_one_agent_at_a_time_and_never_a_person(client):
    session = new_game(client, seats=("random", "human"), seed=2)
    view = client.get(f"/api/sessions/{session}?viewer=1").json()
    assert view["on_move"] == 0 and view["moves"] == []
    moved = client.post(f"/api/sessions/{session}/advance?viewer=1", json={"step": 0}).json()
    assert moved["step"] == 1 and [e["index"] for e in moved["events"]] == [0]
    stale = client.post(f"/api/sessions/{session}/advance?viewer=1&since=1", json={"step": 0}).json()
    assert stale["step"] == 1 and stale["events"] == [], "a page that is behind only looks"
    view = turn_of_seat(client, session, 1)
    refused(
        client.post(f"/api/sessions/{session}/advance?viewer=1", json={"step": view["step"]}),
        409,
        "by a person's choice",
    )
    refused(client.post(f"/api/sessions/{session}/advance", json={"step": "x"}), 400, "'step'")


def test_a_move_or_advance_with_a_bad_since_is_refused_before_anything_moves(client):
    # The query was once read after the move was made: a 400 answer, yet the game had moved on.
    session = new_game(client, seats=("human", "random"), seed=4)
    view = client.get(f"/api/sessions/{session}?viewer=0").json()
    move = {"seat": 0, "step": view["step"], "action": view["moves"][0]["action"]}
    for since in ("-1", "０", "x"):
        refused(client.post(f"/api/sessions/{session}/moves?since={since}", json=move), 400, "since")
        assert client.get(f"/api/sessions/{session}?viewer=0").json() == view, (
            "a refused move changed the game"
        )
    watched = new_game(client, seats=("random", "human"), seed=4)
    before = client.get(f"/api/sessions/{watched}").json()
    refused(client.post(f"/api/sessions/{watched}/advance?since=-1", json={"step": 0}), 400, "since")
    time.sleep(0.2)  # an agent wrongly set thinking would have moved by now
    assert client.get(f"/api/sessions/{watched}").json() == before, "a refused advance set an agent moving"


def test_an_agent_seats_view_is_hidden_while_the_game_goes_on(client):
    session = new_game(client)
    refused(client.get(f"/api/sessions/{session}?viewer=1"), 403, "played by random")
    refused(client.post(f"/api/sessions/{session}/advance?viewer=1", json={"step": 0}), 403)
    refused(client.get(f"/api/sessions/{session}?viewer=7"), 400, "public or a seat")
    refused(client.get(f"/api/sessions/{session}?viewer=0&since=-1"), 400, "since")
    for digits in ("²", "١", "０", "1" * 12):  # str.isdigit takes these; only ASCII digits are numbers
        refused(client.get(f"/api/sessions/{session}?viewer={digits}"), 400, "viewer must be")
        refused(client.get(f"/api/sessions/{session}?viewer=0&since={digits}"), 400, "since must be")
    assert client.get(f"/api/sessions/{session}?viewer=public").json()["viewer"] == "public"
    watched = new_game(client, seats=("greedy", "random"))
    assert client.get(f"/api/sessions/{watched}?viewer=1").json()["mode"] == "watch"


def play_out(client, session, seat=0, rng=None) -> dict:
    """Play ``seat`` with random legal moves and the agents to the end; the final view."""
    rng = rng or np.random.default_rng(0)
    view = turn_of_seat(client, session, seat)
    while view["result"] is None:
        action = int(rng.choice([m["action"] for m in view["moves"]]))
        client.post(
            f"/api/sessions/{session}/moves", json={"seat": seat, "step": view["step"], "action": action}
        )
        view = turn_of_seat(client, session, seat)
    return view


def test_moves_against_quick_agents_answer_within_100_ms(client):
    """The target of the web app (``python -m monster_zoo.web.latency`` measures it over HTTP):
    a person's move, and each move of a greedy opponent, answered well within 100 ms."""
    session = new_game(client, seats=("human", "greedy"), seed=6)
    view, times, rng = client.get(f"/api/sessions/{session}?viewer=0").json(), [], np.random.default_rng(6)
    while len(times) < 40 and view["result"] is None:
        started = time.perf_counter()
        if view["on_move"] == 0:
            body = {
                "seat": 0,
                "step": view["step"],
                "action": int(rng.choice([m["action"] for m in view["moves"]])),
            }
            view = client.post(f"/api/sessions/{session}/moves", json=body).json()
        else:
            view = client.post(
                f"/api/sessions/{session}/advance?viewer=0", json={"step": view["step"]}
            ).json()
        times.append(time.perf_counter() - started)
    assert sorted(times)[len(times) // 2] < 0.1, f"median answer {sorted(times)[len(times) // 2]:.3f} s"


def test_a_finished_game_gives_its_record_and_replay_page(client):
    session = new_game(client, seed=4)
    refused(client.get(f"/api/sessions/{session}/record"), 409, "once the game is over")
    refused(client.get(f"/sessions/{session}/replay"), 409)
    final = play_out(client, session)
    assert final["over"] and final["moves"] == [] and final["on_move"] is None
    answer = client.get(f"/api/sessions/{session}/record")
    assert answer.headers["content-disposition"] == 'attachment; filename="marry_the_monster_seed4.json"'
    record = validate_record(answer.json())
    assert record["seed"] == 4 and record["agents"] == ["human", "random"]
    assert record["result"]["returns"] == final["result"]["returns"]
    assert [e["name"] for e in client.get(f"/api/sessions/{session}?viewer=1").json()["events"]] == [
        a["name"] for a in record["actions"]
    ], "every view is open once the game is over"
    last = None
    for raw in replay(record):
        last = raw
    assert last.spec.public_scores(last.engine_state) == final["scores"]
    page = client.get(f"/sessions/{session}/replay")
    assert page.status_code == 200 and "Marry the Monster replay" in page.text
    assert "'unsafe-inline'" in page.headers["content-security-policy"]
    refused(
        client.post(f"/api/sessions/{session}/moves", json={"seat": 0, "step": final["step"], "action": 0}),
        409,
        "the game is over",
    )


def test_the_same_seed_and_moves_play_the_same_game(client):
    records = []
    for _ in range(2):
        session = new_game(client, game="monstargh-v0", seats=("human", "greedy"), seed=9)
        play_out(client, session, rng=np.random.default_rng(1))
        records.append(client.get(f"/api/sessions/{session}/record").json())
    assert records[0] == records[1]


def setup(game_id, seats, seed=3):
    """A checked request for a game of ``game_id`` with ``seats``."""
    return check_setup(
        {"game": game_id, "options": {"num_players": len(seats)}, "seats": list(seats), "seed": seed}, None
    )


def play_until(session: GameSession, steps: int, executor, rng) -> None:
    """Random moves for the people, the agents' own for the rest, until ``steps`` actions or the end."""
    while session.step < steps and not session.finished:
        if session.on_move in session.humans:
            session.human_move(session.on_move, int(rng.choice(session.legal_actions())), session.step)
        else:
            session.start_agent_move(executor).result()


def answers_of_seat(session: GameSession, viewer) -> dict:
    """Every answer the server gives ``viewer`` now: its view (which every move and advance answers
    with), and when it is on move the refusal of every move it might try, by number and by name."""
    answers = {"view": seat_view(session, viewer)}
    if viewer is not None and session.on_move == viewer:
        legal = set(session.legal_actions())
        for action in range(session.spec.num_actions):
            if action not in legal:
                with pytest.raises(RequestError) as err:
                    session.human_move(viewer, action, session.step)
                answers[action] = (err.value.status, err.value.message)
    return answers


@pytest.mark.parametrize("game_id", HIDDEN)
def test_a_seats_answers_are_the_same_for_any_redeal_of_what_it_cannot_see(game_id):
    """``determinize`` redeals what a seat cannot see (the others' cards, the deck, face-down guards):
    every answer the seat gets stays the same, field by field: its whole view (picture, moves by name
    and place, the moves so far, scores) and each refusal of a move it might try (the rules' reason)."""
    seats = ["human"] + ["random"] * (envs.spec(game_id).min_players - 1)
    session = build_session(setup(game_id, seats), Settings())
    rng = np.random.default_rng(0)
    changed = on_move = False
    with ThreadPoolExecutor(1) as executor:
        for steps in (6, 15, 30):
            play_until(session, steps, executor, rng)
            while session.on_move not in (0, None):
                session.start_agent_move(executor).result()
            real = session.raw.engine_state.copy()
            for viewer in (0, None):
                seen = answers_of_seat(session, viewer)
                on_move |= len(seen) > 1
                twin = real.copy()
                session.spec.determinize(twin, 0, make_rng(steps))
                changed |= not np.array_equal(twin, real)
                session.raw.engine_state[:] = twin
                assert answers_of_seat(session, viewer) == seen, (
                    f"{viewer}'s answers show something hidden from it"
                )
                session.raw.engine_state[:] = real
    assert changed, "the redeals changed hidden cards"
    assert on_move, "refusals were compared on the seat's turn"


def test_a_secret_move_of_another_seat_is_named_as_that_seat_knew_it():
    session = build_session(setup("mighty_monsters-v0", ["human", "random", "random"]), Settings())
    with ThreadPoolExecutor(1) as executor:
        play_until(session, 3, executor, np.random.default_rng(0))
    mine = seat_view(session, 0)["events"]
    public = seat_view(session, None)["events"]
    own = [e for e in mine if e["seat"] == 0]
    assert own and all(e["name"].startswith("lay down") for e in own)
    assert all(e["name"] == "lay two cards face down" for e in mine if e["seat"] != 0)
    assert all(e["name"] == "lay two cards face down" for e in public)
    # the words beside the names: the seat's own pair in words, nothing more for the others' secret
    assert all(e["words"].startswith("lay your strength-") for e in own)
    assert all(e["words"] is None for e in mine if e["seat"] != 0)
    assert all(e["words"] is None for e in public)


def test_every_legal_move_on_the_picture_has_its_place_drawn():
    """Places come from each game's drawing: a move's place is an element of the seat's picture."""
    for game_id in envs.available():
        session = build_session(setup(game_id, ["human"] * envs.spec(game_id).min_players), Settings())
        rng, found = np.random.default_rng(1), 0
        while not session.finished and session.step < 60:
            view = seat_view(session, session.on_move)
            for move in view["moves"]:
                if move["place"] is not None:
                    found += 1
                    assert f'data-place="{move["place"]}"' in view["svg"]
            session.human_move(session.on_move, int(rng.choice(session.legal_actions())), session.step)
        assert found, f"{game_id}: some move is made on the picture"


class SlowAgent:
    """An agent that thinks for ``seconds`` and then answers ``answer`` (or raises it)."""

    def __init__(self, seconds, answer=None):
        self.seconds, self.answer = seconds, answer

    def act(self, observation, mask):
        time.sleep(self.seconds)
        if isinstance(self.answer, Exception):
            raise self.answer
        return int(np.flatnonzero(mask)[0]) if self.answer is None else self.answer


def agent_game(agent, limit):
    """A game of two seats played by ``agent``, whose move takes at most ``limit`` seconds."""
    options = {"num_players": 2, "illegal_action": "raise", "observation": "dict", "render_mode": None}
    return GameSession(MTM, options, 1, [agent, agent], ["slow", "slow"], limit)


def test_an_agent_thinks_off_the_request_path_within_its_time_limit():
    with ThreadPoolExecutor(2) as executor:
        quick = agent_game(SlowAgent(0.3), limit=5.0)
        started = time.perf_counter()
        future = quick.start_agent_move(executor)
        assert time.perf_counter() - started < 0.1, "asking an agent to move does not wait for it"
        assert quick.start_agent_move(executor) is future, "one move at a time"
        assert seat_view(quick, None)["thinking"] is not None
        future.result()
        assert quick.step == 1 and seat_view(quick, None)["thinking"] is None

        late = agent_game(SlowAgent(0.4), limit=0.1)
        late_move = late.start_agent_move(executor)
        time.sleep(0.2)
        stopped = seat_view(late, None)
        assert (
            stopped["stopped"]
            and "time limit of 0.1 s" in stopped["stopped"]
            and stopped["result"] is not None
        )
        late_move.result()
        assert late.step == 0, "a move that came too late is dropped"

        for agent, words in (
            (SlowAgent(0, RuntimeError("boom")), "RuntimeError: boom"),
            (SlowAgent(0, 10_000), "out of range"),
        ):
            failing = agent_game(agent, limit=5.0)
            failing.start_agent_move(executor).result()
            assert words in failing.stopped and failing.step == 0 and failing.finished


def test_sessions_are_bounded_and_closed_ones_are_gone():
    with client_for(max_sessions=2) as client:
        first, _ = new_game(client), new_game(client)
        refused(
            client.post("/api/sessions", json={"game": MTM, "seats": ["human"] * 3}),
            429,
            "its limit",
            "games on this server",
        )
        assert client.delete(f"/api/sessions/{first}").status_code == 204
        refused(client.get(f"/api/sessions/{first}"), 404)
        new_game(client)


def test_finished_games_do_not_count_against_the_limit():
    """A finished game keeps its record for its page but no longer holds a place: with room for one
    game, games played to their end follow each other; the oldest finished ones go beyond the limit."""
    with client_for(max_sessions=1) as client:
        finished = []
        for seed in range(3):
            session = new_game(client, seats=("greedy", "random"), seed=seed)
            assert turn_of_seat(client, session, seat=None)["result"] is not None
            finished.append(session)
        assert client.get(f"/api/sessions/{finished[-1]}/record").status_code == 200
        refused(client.get(f"/api/sessions/{finished[0]}"), 404)  # beyond one finished game kept
        live = new_game(client, seats=("human", "random"))
        refused(client.post("/api/sessions", json={"game": MTM, "seats": ["human"] * 3}), 429, "in progress")
        assert client.delete(f"/api/sessions/{live}").status_code == 204
        new_game(client)


def test_an_idle_entry_expires_and_is_dropped():
    now = [0.0]
    dropped = []
    store = ExpiringStore(2, ttl_s=10, what="game", clock=lambda: now[0], on_drop=dropped.append)
    old, kept = store.add("old"), store.add("kept")
    now[0] = 8
    assert store.get(kept) == "kept"  # used again: its clock starts over
    now[0] = 12
    with pytest.raises(RequestError) as err:
        store.get(old)
    assert err.value.status == 404 and dropped == ["old"] and store.get(kept) == "kept"
    store.add("new")
    with pytest.raises(RequestError) as err:
        store.add("one too many")
    assert err.value.status == 429 and "close one" in err.value.message


def test_entries_no_longer_live_never_fill_the_store():
    dropped = []
    store = ExpiringStore(2, ttl_s=10, what="page", on_drop=dropped.append, is_live=lambda value: False)
    keys = [store.add(k) for k in range(5)]
    assert dropped == [0, 1, 2] and [store.get(k) for k in keys[3:]] == [3, 4]


def test_opening_a_record_checks_it_and_serves_its_viewer(client):
    session = new_game(client, game="monster_arena-v0", seats=("random", "greedy"), seed=5)
    turn_of_seat(client, session, seat=None)
    record = client.get(f"/api/sessions/{session}/record").json()
    opened = client.post("/api/records", json=record)
    assert opened.status_code == 201
    page = client.get(opened.json()["page"])
    assert page.status_code == 200 and "Monster Arena replay" in page.text
    # the download says every move in the words its mover's view of the replay shows
    shown = json.loads(re.search(r"const DATA = (.*);\n", page.text).group(1))["actions"]
    explained = [(k, a) for k, a in enumerate(record["actions"]) if a["words"] != a["name"]]
    assert explained and all(
        shown[f"player_{a['seat']}"][k] == f"{a['name']} ({a['words']})" for k, a in explained
    )
    assert client.delete("/api" + opened.json()["page"]).status_code == 204
    refused(client.get(opened.json()["page"]), 404, "no such replay page")
    for field, value, words in (
        ("seed", -1, "'seed' must be an integer >= 0"),
        ("options", {**record["options"], "render_mode": "human"}, "render_mode"),
    ):
        refused(client.post("/api/records", json={**record, field: value}), 422, *words.split(" | "))
    tampered = json.loads(json.dumps(record))
    tampered["actions"][3]["action"] = (tampered["actions"][3]["action"] + 1) % envs.spec(
        "monster_arena-v0"
    ).num_actions
    refused(client.post("/api/records", json=tampered), 422, "action 3")
    lying = json.loads(json.dumps(record))  # a record cannot put words in a move's mouth
    k = next(i for i, step in enumerate(record["actions"]) if step["words"] != step["name"])
    lying["actions"][k]["words"] = "<b>the row is free today</b>"
    refused(client.post("/api/records", json=lying), 422, f"action {k}", "cannot put words")
    refused(
        client.post("/api/records", json={**record, "format": "other"}), 422, "not a monster-zoo match record"
    )
    refused(client.post("/api/records", json={**record, "game": "chess-v0"}), 422, "unknown game")
    refused(
        client.post(
            "/api/records", content=b"[" * 40 + b"]" * 40, headers={"content-type": "application/json"}
        ),
        400,
        "nests JSON",
    )
    refused(
        client.post("/api/records", content=json.dumps(record), headers={"content-type": "text/plain"}), 415
    )
    refused(
        client.post(
            "/api/records", content=b" " * (4 << 20) + b"{}", headers={"content-type": "application/json"}
        ),
        413,
        "larger than",
    )


def test_responses_forbid_other_sites_and_other_hosts(client):
    answer = client.get("/")
    assert answer.status_code == 200 and "monster-zoo" in answer.text
    policy = answer.headers["content-security-policy"]
    assert (
        "script-src 'self'" in policy and "frame-ancestors 'none'" in policy and "unsafe-inline" not in policy
    )
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/../app.py").status_code == 404
    assert client.get("/api/games", headers={"host": "attacker.example"}).status_code == 400


def test_finished_games_records_go_to_the_records_folder(tmp_path):
    with client_for(records_dir=tmp_path) as client:
        session = new_game(client, seats=("greedy", "random"), seed=8)
        final = turn_of_seat(client, session, seat=None)
        assert "saved on the server" in final["record_note"]
    saved = list(tmp_path.glob("marry_the_monster_*_seed8_*.json"))
    assert len(saved) == 1 and read_record(saved[0])["result"]["returns"] == final["result"]["returns"]


def test_model_files_come_only_from_the_models_folder(tmp_path):
    shutil.copy(ROOT / "agents" / "champions" / "marry_the_monster-2p.npz", tmp_path / "mine.npz")
    (tmp_path / "notes.txt").write_text("not a model")
    (tmp_path / "link.npz").symlink_to(ROOT / "agents" / "champions" / "marry_the_monster-4p.npz")
    with client_for(models_dir=tmp_path) as client:
        agents = next(g for g in client.get("/api/games").json()["games"] if g["id"] == MTM)["agents"]
        assert {"ppo:mine.npz", "az:mine.npz", "az-net:mine.npz"} <= set(agents)
        assert not any("notes" in a or "link" in a for a in agents)
        session = new_game(client, seats=("human", "ppo:mine.npz"))
        assert client.get(f"/api/sessions/{session}?viewer=0").json()["seats"][1]["name"] == "ppo:mine.npz"
        for name in ("ppo:../mine.npz", "ppo:link.npz", "ppo:" + str(tmp_path / "mine.npz")):
            refused(
                client.post(
                    "/api/sessions",
                    json={"game": MTM, "options": {"num_players": 2}, "seats": ["human", name]},
                ),
                422,
                "unknown agent",
            )
        message = refused(
            client.post(
                "/api/sessions",
                json={
                    "game": MTM,
                    "options": {"num_players": 3},
                    "seats": ["human", "random", "ppo:mine.npz"],
                },
            ),
            422,
        )
        assert str(tmp_path) not in message, "the server's folders are not shown to the page"


def test_serve_needs_the_web_extra_and_checks_its_arguments(monkeypatch, capsys):
    for argv, words in (
        (["serve", "--port", "70000"], "--port"),
        (["serve", "--max-sessions", "0"], "--max-sessions"),
        (["serve", "--models-dir", "/no/such/folder"], "not a folder"),
    ):
        with pytest.raises(SystemExit) as err:
            main(argv)
        assert err.value.code == 2 and words in capsys.readouterr().err
    monkeypatch.delitem(sys.modules, "monster_zoo.web.server", raising=False)
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if it were not installed
    assert main(["serve"]) == 1
    said = capsys.readouterr().err
    assert "uvicorn is not installed" in said and "pip install 'monster-zoo[web]'" in said


def test_no_answer_carries_the_seed_before_the_end(client):
    """The seed determines every hidden card: creation answers the same whatever the seed, and no
    answer a seat gets (views, moves, advances, refusals) holds it until the record is given."""
    made = [
        client.post(
            "/api/sessions",
            json={
                "game": "monstargh-v0",
                "options": {"num_players": 2},
                "seats": ["human", "greedy"],
                **seed,
            },
        )
        for seed in ({}, {"seed": 1}, {"seed": 2})
    ]
    assert all(m.status_code == 201 for m in made)
    assert len({json.dumps({k: v for k, v in m.json().items() if k != "session"}) for m in made}) == 1
    assert "seed" not in made[0].json()
    session, texts = made[0].json()["session"], [made[0].text]
    url = f"/api/sessions/{session}"
    rng = np.random.default_rng(3)
    view = client.get(f"{url}?viewer=0")
    while view.json()["result"] is None:
        texts += [view.text, client.get(f"{url}/record").text, client.get(f"/sessions/{session}/replay").text]
        if view.json()["on_move"] == 0:
            moves = view.json()["moves"]
            texts.append(
                client.post(
                    f"{url}/moves", json={"seat": 0, "step": view.json()["step"], "name": "no such move"}
                ).text
            )
            view = client.post(
                f"{url}/moves",
                json={
                    "seat": 0,
                    "step": view.json()["step"],
                    "action": int(rng.choice([m["action"] for m in moves])),
                },
            )
        else:
            view = client.post(f"{url}/advance?viewer=0", json={"step": view.json()["step"]})
    seed = client.get(f"{url}/record").json()["seed"]
    assert not any(str(seed) in text for text in texts), "an answer before the end held the seed"


def test_each_game_has_its_rules_for_a_player_and_how_to_play_here(client):
    """The panel tells a player how a turn goes, what each move does and how to win, without the
    developers' rule ids, source paths, tests or rulings (those stay in rules.md and the docs)."""
    for game_id in envs.available():
        help_ = client.get(f"/api/games/{game_id}/help").json()
        assert help_["title"] == envs.spec(game_id).title
        guide = help_["rules"]
        assert guide.startswith(f"# {envs.spec(game_id).title}\n")
        headings = re.findall(r"^## (.+)$", guide, re.M)
        assert (
            len(headings) == 3
            and re.fullmatch(r"How (a|the) \w+ goes", headings[0])
            and headings[1:] == ["Your moves", "How to win"]
        )
        assert not re.search(r"\b[A-Z]{1,3}-[0-9]+\b|ruling|tests?/|\.py\b|\.md\b|\.json\b|kernel", guide), (
            game_id
        )
        assert len(guide) < 3000, "a short guide, not the rulebook"
        assert len(help_["how_to_play"]) > 80 and "click" in help_["how_to_play"].lower()
    refused(client.get("/api/games/chess-v0/help"), 404, "unknown game")


def test_monster_factorys_tiles_are_chosen_on_the_picture_and_previewed_where_they_go():
    """Start tiles are clicked among the supply's kinds; a placement is shown turned on its cell."""
    session = build_session(setup("monster_factory-v0", ["human", "human"]), Settings())
    start = seat_view(session, session.on_move)
    assert start["moves"] and all(m["place"] == f"kind-{m['action']}" for m in start["moves"])
    rng = np.random.default_rng(2)
    while not any(m["action"] >= 28 for m in start["moves"]):
        session.human_move(session.on_move, int(rng.choice(session.legal_actions())), session.step)
        start = seat_view(session, session.on_move)
    placements = start["moves"]
    assert all(m["place"].startswith("cell-") and m["preview"].startswith("<svg") for m in placements)
    assert len({m["preview"] for m in placements}) == len(placements), (
        "each turn of the tile drawn as it lies"
    )
    assert "tile in hand:" in start["svg"]


def test_moves_named_in_codes_are_explained_in_words():
    """Monster Factory's tiles, Mighty Monsters' spaces and Monster Arena's cards are said in words
    beside each move's name; the name itself (records, typed moves) is unchanged."""
    words = {
        "monster_factory-v0": ("start your monster with tile",),
        "mighty_monsters-v0": ("face down",),
        "monster_arena-v0": ("Defense",),
    }
    for game_id, expected in words.items():
        session = build_session(setup(game_id, ["human"] * envs.spec(game_id).min_players), Settings())
        moves = seat_view(session, session.on_move)["moves"]
        assert all(m["words"] and m["words"] != m["name"] for m in moves)
        assert all(any(w in m["words"] for w in expected) for m in moves), moves[0]["words"]
        assert [m["name"] for m in moves] == [
            session.spec.action_to_str(m["action"], session.raw.engine_state) for m in moves
        ]
    session = build_session(setup(MTM, ["human"] * 2), Settings())
    assert all(m["words"] is None for m in seat_view(session, session.on_move)["moves"]), "names say enough"
