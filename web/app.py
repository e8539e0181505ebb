"""The web app: a Starlette application serving the play page and its JSON API.

    GET    /                              the page (web/static/index.html)
    GET    /api/games                     games, their options and agents, the server's limits
    GET    /api/games/GAME/help           the game for a player (seeds/<game>/player_guide.md), what to click
    GET    /api/sessions                  the games on this server: yours (by the X-Monster-Zoo-Owner
                                          header your page sent when it started them), others counted
    POST   /api/sessions                  a new game (web/new_game.py) -> {"session": ID, ...}
    GET    /api/sessions/ID?viewer=V&since=K        the view of V (public or a seat), moves from K on
    POST   /api/sessions/ID/moves?since=K           {"seat", "step", "action" or "name"}: a person's move
    POST   /api/sessions/ID/advance?viewer=V&since=K  {"step"}: the agent on move moves (or thinks on)
    DELETE /api/sessions/ID                close the game
    POST   /api/sessions/ID/goodbye        its page was closed: the game goes in GOODBYE_GRACE_S unless used
    GET    /api/sessions/ID/record        the match record (JSON download), once the game is finished
    GET    /sessions/ID/replay            the replay viewer page of the finished game
    POST   /api/records                   a match record (JSON) -> {"page": "/records/ID"}
    GET    /records/ID                    that record's replay viewer page
    DELETE /api/records/ID                close that page

Every refusal is a 4xx JSON ``{"error": message}`` and changes nothing (web/refusals.py).
Requests must name this server as their host (a page elsewhere cannot reach it through a
DNS name that points here), every response forbids other sites to frame it, and the app's
page runs no script but its own file.
"""

import asyncio
import os
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from monster_zoo.agents.registry import make_agent
from monster_zoo.envs.core.records import MAX_RECORD_BYTES, MAX_RECORD_DEPTH, record_text
from monster_zoo.evaluation.match import agent_seed, check_field

from .catalogue import HUMAN, catalogue
from .game_session import GameSession
from .help import game_help
from .new_game import GameSetup, agent_path_name, check_setup
from .refusals import (
    RequestError,
    bad_request,
    conflict,
    integer_field,
    json_object,
    query_number,
    read_body,
    text_field,
    unprocessable,
)
from .replays import checked_record, viewer_page
from .store import ExpiringStore
from .views import check_viewer, parse_viewer, seat_view

STATIC = Path(__file__).resolve().parent / "static"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
BODY_NOT_READ = (408, 413)  # refusals sent before the request body was read to its end
ADVANCE_WAIT_S = 1.0  # how long an advance waits for the agent before answering "still thinking"
MAX_PAGES = 8  # opened records' viewer pages kept at once
# A page that says goodbye (closed, or reloaded: a reload opens the game again at once) leaves its
# game this long before the game is dropped, instead of holding a place for the whole expiry time.
GOODBYE_GRACE_S = 30.0
OWNER_HEADER = "x-monster-zoo-owner"  # a random token a browser keeps, naming the games it started
OWNER_PATTERN = re.compile(r"[A-Za-z0-9_-]{22,64}")
APP_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
# The replay viewer is one self-contained page with its script and style inline, and nothing else.
VIEWER_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
)
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "Content-Security-Policy": APP_POLICY,
}


@dataclass(frozen=True)
class Settings:
    """How the server runs (``monster-zoo serve``'s options)."""

    max_sessions: int = 16
    session_ttl_s: float = 3600.0
    agent_time_limit_s: float = 60.0
    agent_threads: int = 2  # agents thinking at once, over all games
    records_dir: Path | None = None  # finished games' records are written here when given
    models_dir: Path | None = None  # the only folder model files are offered from
    allowed_hosts: Sequence[str] = field(default=LOOPBACK_HOSTS)


class SecurityHeaders:
    """ASGI middleware: :data:`HEADERS` on every response that does not set its own."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers if scope["type"] == "http" else send)


def build_session(setup: GameSetup, settings: Settings) -> GameSession:
    """The game of ``setup`` with its agents made (a model file loads, kernels may compile: call
    it off the event loop); 422 with the registry's message for an agent that cannot play it."""
    agents, labels = [], []
    try:
        for seat, name in enumerate(setup.seats):
            agent = (
                None
                if name == HUMAN
                else make_agent(
                    agent_path_name(name, settings.models_dir),
                    setup.game_id,
                    agent_seed(setup.seed, 0, seat),
                    setup.options,
                )
            )
            agents.append(agent)
            labels.append(name)
        check_field(setup.game_id, setup.options, [a for a in agents if a is not None])
    except (ValueError, TypeError) as err:
        message = str(err)
        if settings.models_dir is not None:  # the page names model files by their names alone
            message = message.replace(str(settings.models_dir) + os.sep, "")
        raise unprocessable(for_the_page(message)) from None
    return GameSession(
        setup.game_id,
        setup.options,
        setup.seed,
        agents,
        labels,
        settings.agent_time_limit_s,
        settings.records_dir,
    )


def for_the_page(message: str) -> str:
    """A registry message in a browser user's words: files named without their folders, and the
    advice on what to call in Python dropped (everything from the sentence that shows a call on)."""
    # A file the page did not name (a shipped champion, a network) by its name alone.
    message = re.sub(r"(['\"])/[^'\"]*/([^'\"/]+)\1", r"\1\2\1", message)
    cut = message.find("make_agent(")
    if cut < 0:
        return message
    end = message.rfind(". ", 0, cut)
    said = message[: end + 1] if end >= 0 else message[:cut].rstrip(" :;,(") + "."
    return said + " Choose another player for that seat, or other options."


def _since(request: Request) -> int:
    """The ``since`` query parameter: the first move the page has not seen yet (0 when absent)."""
    return query_number(request.query_params.get("since", "0"), "since", "a move number >= 0")


def create_app(settings: Settings = Settings()) -> Starlette:
    """The web app for ``settings``; run it with uvicorn (``monster_zoo.web.server``) or test it
    with Starlette's TestClient (``allowed_hosts=["testserver"]``)."""
    executor = ThreadPoolExecutor(max_workers=settings.agent_threads, thread_name_prefix="monster-zoo-agent")
    # Only games in progress count against the limit: a finished one stays for its record and replay
    # until it is closed, expires or is the oldest of too many finished ones.
    sessions: ExpiringStore[GameSession] = ExpiringStore(
        settings.max_sessions,
        settings.session_ttl_s,
        "game",
        on_drop=GameSession.close,
        is_live=lambda session: not session.finished,
        full='close one of yours under "games on this server" on the new-game page',
    )
    # A replay page can always be built again from its record: the oldest goes when there are too many.
    pages: ExpiringStore[str] = ExpiringStore(
        MAX_PAGES, settings.session_ttl_s, "replay page", is_live=lambda html: False
    )

    def session_of(request: Request) -> GameSession:
        return sessions.get(request.path_params["session"])

    def named_viewer(request: Request, session: GameSession) -> int | None:
        return parse_viewer(request.query_params.get("viewer"), len(session.labels))

    def look(session: GameSession, viewer: int | None, since: int) -> Response:
        check_viewer(session, viewer)
        return JSONResponse(seat_view(session, viewer, since))

    async def body_of(request: Request, fields: Sequence[str]) -> dict:
        return json_object(await read_body(request.headers.get("content-type"), request.stream()), fields)

    def owner_of(request: Request) -> str | None:
        token = request.headers.get(OWNER_HEADER)
        return token if token is not None and OWNER_PATTERN.fullmatch(token) else None

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def games(request: Request) -> Response:
        listing = await run_in_threadpool(catalogue, settings.models_dir)
        return JSONResponse(
            {
                "games": listing,
                "limits": {
                    "max_sessions": settings.max_sessions,
                    "session_ttl_s": settings.session_ttl_s,
                    "agent_time_limit_s": settings.agent_time_limit_s,
                    "records_saved": settings.records_dir is not None,
                },
            }
        )

    async def rules(request: Request) -> Response:
        return JSONResponse(game_help(request.path_params["game"]))

    async def new_session(request: Request) -> Response:
        setup = check_setup(
            await read_body(request.headers.get("content-type"), request.stream()), settings.models_dir
        )
        sessions.check_room()  # before the agents are built; add() checks again
        session = await run_in_threadpool(build_session, setup, settings)
        session.owner = owner_of(request)
        try:
            key = sessions.add(session)
        except RequestError:
            session.close()
            raise
        # No seed here: it determines every hidden card (the record gives it once the game is over).
        return JSONResponse({"session": key, "mode": session.mode, "humans": session.humans}, status_code=201)

    async def listing(request: Request) -> Response:
        owner = owner_of(request)
        yours, others = [], 0
        for key, session, idle_s in sessions.entries():
            if owner is not None and session.owner == owner:
                yours.append(
                    {
                        "session": key,
                        "game": session.spec.env_id,
                        "title": session.spec.title,
                        "mode": session.mode,
                        "seats": session.labels,
                        "step": session.step,
                        "finished": session.finished,
                        "expires_in_s": max(0, round(settings.session_ttl_s - idle_s)),
                    }
                )
            elif not session.finished:
                others += 1
        return JSONResponse({"yours": yours, "others_in_progress": others})

    async def goodbye(request: Request) -> Response:
        sessions.leave(request.path_params["session"], GOODBYE_GRACE_S)
        return Response(status_code=204)

    async def view(request: Request) -> Response:
        session = session_of(request)
        return look(session, named_viewer(request, session), _since(request))

    async def move(request: Request) -> Response:
        session = session_of(request)
        since = _since(request)  # every check before the move: a refused request changes nothing
        body = await body_of(request, ("seat", "step", "action", "name"))
        seat = integer_field(body, "seat", 0, len(session.labels) - 1, required=True)
        step = integer_field(body, "step", 0, 2**31 - 1, required=True)
        name = text_field(body, "name")
        if ("action" in body) == (name is not None):
            raise bad_request("give the move as 'action' (its number) or as 'name' (its name), one of them")
        if name is not None:
            try:
                action = session.spec.str_to_action(name)
            except ValueError as err:
                raise unprocessable(str(err)) from None
        else:
            action = integer_field(body, "action", -(2**31), 2**31 - 1)  # out of range: the rules' message
        session.human_move(seat, action, step)
        return look(session, seat, since)

    async def advance(request: Request) -> Response:
        session = session_of(request)
        viewer = named_viewer(request, session)
        check_viewer(session, viewer)
        since = _since(request)  # before an agent is set moving: a refused request changes nothing
        body = await body_of(request, ("step",))
        step = integer_field(body, "step", 0, 2**31 - 1, required=True)
        if step == session.step:  # a page that is behind only looks: it never moves twice
            future = session.start_agent_move(executor)
            if future is None and session.on_move is not None:
                raise conflict(
                    f"player_{session.on_move} is played from the page: it moves by a person's choice"
                )
            if future is not None:
                await asyncio.wait([asyncio.wrap_future(future)], timeout=ADVANCE_WAIT_S)
        return look(session, viewer, since)

    async def close(request: Request) -> Response:
        sessions.remove(request.path_params["session"])
        return Response(status_code=204)

    def finished(session: GameSession) -> None:
        if not session.finished:
            raise conflict("the match record tells every hidden card, so it is given once the game is over")

    async def record(request: Request) -> Response:
        session = session_of(request)
        finished(session)
        name = f"{session.spec.name}_seed{session.seed}.json"
        return Response(
            record_text(session.record()),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def session_replay(request: Request) -> Response:
        session = session_of(request)
        finished(session)
        html = await run_in_threadpool(viewer_page, session.record(), "this game")
        return HTMLResponse(html, headers={"Content-Security-Policy": VIEWER_POLICY})

    async def open_record(request: Request) -> Response:
        data = await read_body(
            request.headers.get("content-type"), request.stream(), MAX_RECORD_BYTES, MAX_RECORD_DEPTH
        )
        record_data = checked_record(data, "the opened record")
        html = await run_in_threadpool(viewer_page, record_data, "the opened record")
        return JSONResponse({"page": f"/records/{pages.add(html)}"}, status_code=201)

    async def record_page(request: Request) -> Response:
        return HTMLResponse(
            pages.get(request.path_params["page"]), headers={"Content-Security-Policy": VIEWER_POLICY}
        )

    async def close_record(request: Request) -> Response:
        pages.remove(request.path_params["page"])
        return Response(status_code=204)

    async def refused(request: Request, err: RequestError) -> Response:
        # A body refused before its end (late, or too large) leaves the connection mid-request: it is
        # closed once the answer is sent, not held open until the keep-alive timeout.
        unread = {"Connection": "close"} if err.status in BODY_NOT_READ else None
        return JSONResponse({"error": err.message}, status_code=err.status, headers=unread)

    async def http_error(request: Request, err: HTTPException) -> Response:
        return JSONResponse({"error": err.detail}, status_code=err.status_code, headers=err.headers)

    @asynccontextmanager
    async def lifespan(app):
        yield
        executor.shutdown(wait=False, cancel_futures=True)

    routes = [
        Route("/", page),
        Route("/api/games", games),
        Route("/api/games/{game}/help", rules),
        Route("/api/sessions", listing, methods=["GET"]),
        Route("/api/sessions", new_session, methods=["POST"]),
        Route("/api/sessions/{session}", view, methods=["GET"]),
        Route("/api/sessions/{session}", close, methods=["DELETE"]),
        Route("/api/sessions/{session}/moves", move, methods=["POST"]),
        Route("/api/sessions/{session}/advance", advance, methods=["POST"]),
        Route("/api/sessions/{session}/goodbye", goodbye, methods=["POST"]),
        Route("/api/sessions/{session}/record", record),
        Route("/sessions/{session}/replay", session_replay),
        Route("/api/records", open_record, methods=["POST"]),
        Route("/records/{page}", record_page),
        Route("/api/records/{page}", close_record, methods=["DELETE"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [
        Middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts)),
        Middleware(SecurityHeaders),
    ]
    return Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers={RequestError: refused, HTTPException: http_error},
    )
