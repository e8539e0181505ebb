"""Any request at all is answered with a 4xx naming the problem or with a success, never a 5xx, and
a refused request changes no game (property test, Hypothesis): random bytes, random JSON, and
valid bodies with one field replaced by random JSON, at every route of the web app, with random
query parameters, at the ids of live games, finished games, replay pages and ids that are none.
"""

import json
import warnings

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
with warnings.catch_warnings():  # Starlette announces a successor of httpx for its test client
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from monster_zoo.web.app import Settings, create_app  # noqa: E402

MTM = "marry_the_monster-v0"
ROUTES = [  # method, path with {id}, whether it reads a body
    ("GET", "/", False),
    ("GET", "/api/games", False),
    ("GET", "/api/games/{id}/help", False),
    ("POST", "/api/sessions", True),
    ("GET", "/api/sessions/{id}", False),
    ("DELETE", "/api/sessions/{id}", False),
    ("POST", "/api/sessions/{id}/moves", True),
    ("POST", "/api/sessions/{id}/advance", True),
    ("GET", "/api/sessions/{id}/record", False),
    ("GET", "/sessions/{id}/replay", False),
    ("POST", "/api/records", True),
    ("GET", "/records/{id}", False),
    ("DELETE", "/api/records/{id}", False),
    ("GET", "/static/{id}", False),
]
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
# Mostly the values that once got past the checks (str.isdigit takes "²", "١" and "０"), then any text.
QUERY_VALUES = st.one_of(
    st.sampled_from(["0", "1", "public", "-1", "²", "١", "０", "99999999999", ""]), st.text(max_size=12)
)
QUERIES = st.fixed_dictionaries(
    {}, optional={"viewer": QUERY_VALUES, "since": QUERY_VALUES, "x": QUERY_VALUES}
)


@pytest.fixture(scope="module")
def table():
    """A server holding two live games of people (nothing moves unless a request moves it), a
    finished game and an opened record's page; the valid bodies of each route."""
    with TestClient(create_app(Settings(allowed_hosts=["testserver"], max_sessions=10_000))) as client:

        def made(seats, seed):
            answer = client.post(
                "/api/sessions",
                json={"game": MTM, "options": {"num_players": len(seats)}, "seats": seats, "seed": seed},
            )
            return answer.json()["session"]

        live = [made(["human", "human"], 1), made(["human", "human", "human"], 2)]
        done = made(["greedy", "random"], 3)
        view = client.get(f"/api/sessions/{done}").json()
        while view["result"] is None:
            view = client.post(f"/api/sessions/{done}/advance", json={"step": view["step"]}).json()
        record = client.get(f"/api/sessions/{done}/record").json()
        page = client.post("/api/records", json=record).json()["page"].rsplit("/", 1)[1]
        bodies = {
            "/api/sessions": {
                "game": MTM,
                "options": {"num_players": 2},
                "seats": ["human", "random"],
                "seed": 5,
            },
            "/moves": {"seat": 0, "step": 0, "action": 0},
            "/advance": {"step": 0},
            "/api/records": record,
        }
        yield client, live, [done, page, "A" * 22], bodies


def snapshot(client, live) -> list:
    """Every live game as the public sees it: its picture, step, moves so far and scores."""
    return [client.get(f"/api/sessions/{key}").json() for key in live]


def random_body(draw, base: dict) -> bytes:
    """Random bytes, a random JSON value, or ``base`` (the route's valid body) with one field, its
    own or another, replaced by random JSON."""
    kind = draw(st.sampled_from(["bytes", "json", "field", "field"]))
    if kind == "bytes":
        return draw(st.binary(max_size=64))
    if kind == "json":
        return json.dumps(draw(JSON)).encode()
    hot = [f for f in ("seed", "options", "seat", "step", "action") if f in base]  # once let 500s through
    field = draw(st.sampled_from([*base, "extra"]) | st.sampled_from(hot or ["extra"]))
    value = draw(
        st.one_of(JSON, st.integers(-5, 5), st.sampled_from([{"render_mode": "human"}, "human", []]))
    )
    return json.dumps({**base, field: value}).encode()


@pytest.mark.parametrize("method,template,has_body", ROUTES, ids=[f"{m} {p}" for m, p, _ in ROUTES])
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    which=st.integers(0, 4),
    query=QUERIES,
    data=st.data(),
    content_type=st.sampled_from(["application/json", "application/json; charset=utf-8", "text/plain", None]),
)
def test_any_request_is_answered_4xx_or_success_and_a_refusal_changes_nothing(
    table, method, template, has_body, which, query, data, content_type
):
    client, live, others, bodies = table
    ids = live + others
    path = template.format(id=ids[which])
    if method == "DELETE" and which < len(live):
        path = template.format(id=others[-1])  # closing a live game is the one request meant to end it
    before = snapshot(client, live)
    kwargs = {"params": query}
    if has_body:
        base = next(body for end, body in bodies.items() if path.endswith(end))
        kwargs["content"] = random_body(data.draw, base)
        if content_type is not None:
            kwargs["headers"] = {"content-type": content_type}
    answer = client.request(method, path, **kwargs)
    assert answer.status_code < 500, (method, path, kwargs, answer.text)
    if answer.status_code >= 400:
        assert isinstance(answer.json()["error"], str) and answer.json()["error"]
        assert snapshot(client, live) == before, "a refused request changed a game"
