"""Running the web app: uvicorn on a socket bound here, so the address printed is the real one
(``--port 0`` takes a free port and says which).

The server binds to 127.0.0.1 unless told otherwise. Bound to a loopback address it answers
only requests that name a loopback host (a page elsewhere cannot reach it through a DNS name
pointing here). Bound to another address it needs the names it is reached by
(``--allowed-hosts``: a wildcard address accepting any Host header would let any page the user
visits reach it through a DNS name pointing here), answers requests naming one of them, the
bound address or a loopback name, and warns that anyone who can reach it can play and see the
games it holds.

``--allowed-hosts '*'`` (any Host header at all) brings DNS rebinding back, so it is refused
unless ``--allow-any-host`` says so, with a warning: for a server behind a proxy that checks the
name itself.

Connections are bounded (:mod:`~monster_zoo.web.connections`): a request head must arrive within
10 s, a body within 30 s, a connection left idle between requests closes after
:data:`KEEP_ALIVE_S`, at most 100 connections are open at once and half of them from one client
(the oldest only waiting for a request head make room for a new one), and a request past them
gets a JSON 503.
"""

import dataclasses
import ipaddress
import socket
import sys
from collections.abc import Callable, Sequence

import uvicorn

from monster_zoo import envs
from monster_zoo.agents.registry import make_agent
from monster_zoo.envs.registry import kernels_cached

from .app import LOOPBACK_HOSTS, Settings, create_app
from .catalogue import agent_player_counts, catalogue
from .connections import BoundedH11Protocol

KEEP_ALIVE_S = 5
WILDCARDS = ("0.0.0.0", "::")
ANY_HOST = "*"


def is_loopback(host: str) -> bool:
    """Whether ``host`` is ``localhost`` or a loopback address."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str, named: Sequence[str] = (), allow_any_host: bool = False) -> list:
    """The host names requests may carry for a server bound to ``host``: the loopback names, the
    bound address itself (unless a wildcard) and the ``named`` ones (``--allowed-hosts``, which a
    server bound off loopback needs: ValueError saying why without them). ``"*"`` among them (any
    host) is refused unless ``allow_any_host``."""
    if not is_loopback(host) and not named:
        raise ValueError(
            f"--host {host} needs --allowed-hosts: the names or addresses this machine is reached "
            "by (e.g. --allowed-hosts mybox.local 192.168.1.20). Requests naming any other host are "
            "refused, so that a page on another site cannot reach this server through a DNS name "
            "that points here (DNS rebinding)"
        )
    if ANY_HOST in named and not allow_any_host:
        raise ValueError(
            "--allowed-hosts '*' accepts requests naming any host, so a page on any site the user "
            "visits could reach this server through a DNS name that points here (DNS rebinding). Name "
            "the hosts this machine is reached by instead, or add --allow-any-host if a proxy in front "
            "of the server checks the name itself"
        )
    bound = [] if host in WILDCARDS or is_loopback(host) else [f"[{host}]" if ":" in host else host]
    return [*LOOPBACK_HOSTS, *bound, *named]


def address(host: str, port: int) -> str:
    """The URL of the app bound to ``host``:``port``."""
    shown = "127.0.0.1" if host == "0.0.0.0" else "[::1]" if host == "::" else host
    return (
        f"http://[{shown}]:{port}/"
        if ":" in shown and not shown.startswith("[")
        else f"http://{shown}:{port}/"
    )


def bind(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` (0: a free port); OSError if it cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not left 0: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on
    # connections whose socket says TCP, and with it on every answer waited some 40 ms for an ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def warm_agents(game_id: str, say: Callable[[str], None]) -> None:
    """Let each kind of agent of ``game_id`` choose a first move once, so that its kernels are
    compiled (or loaded from the cache) now rather than while the first game with it waits; an
    agent that fails is said in one line (its games will stop with the same failure)."""
    for name, counts in agent_player_counts(game_id).items():
        if counts and not name.startswith(
            envs.spec(game_id).name + "-"
        ):  # versioned names share the kinds' kernels
            env = envs.make(game_id, num_players=counts[0])
            env.reset(seed=0)
            raw = env.unwrapped
            try:
                agent = make_agent(name, game_id, 0, {"num_players": counts[0]})
                seen = raw.observe(raw.agent_selection)
                extra = (raw.engine_state.copy(),) if getattr(agent, "needs_state", False) else ()
                agent.act(seen["observation"], seen["action_mask"], *extra)
            except Exception as err:
                say(f"warning: agent {name} of {game_id} failed its first move: {type(err).__name__}: {err}")


def warm(settings: Settings, say: Callable[[str], None]) -> None:
    """Import every game and let each of its agents move once (compiling their kernels on a first
    run, which takes a while: said first), so that the first page and the first game start at once."""
    cold = [game_id for game_id in envs.available() if not kernels_cached(game_id)]
    if cold:
        say(
            f"compiling the kernels of {', '.join(cold)} and their agents (first run only, up to a minute "
            "each)..."
        )
    catalogue(settings.models_dir)
    for game_id in envs.available():
        warm_agents(game_id, say)


def uvicorn_config(app) -> uvicorn.Config:
    """uvicorn's settings for ``app``: bounded connections, and only warnings in the log."""
    return uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="on",
        http=BoundedH11Protocol,  # caps connections itself, with a JSON 503 (uvicorn's is plain text)
        timeout_keep_alive=KEEP_ALIVE_S,
    )


def serve(
    settings: Settings,
    host: str = "127.0.0.1",
    port: int = 0,
    say: Callable[[str], None] | None = None,
    named_hosts: Sequence[str] = (),
    allow_any_host: bool = False,
) -> None:
    """Serve the app on ``host``:``port`` until interrupted, announcing its address through ``say``
    (default: a line on stdout) once it is bound and its agents are ready; ``named_hosts`` are the
    names requests may also carry (needed off loopback: ValueError without them; ``"*"`` only with
    ``allow_any_host``, which warns)."""

    def default_say(line: str) -> None:
        print(line, flush=True)

    say = say or default_say
    hosts = allowed_hosts(host, named_hosts, allow_any_host)
    sock = bind(host, port)
    if ANY_HOST in hosts:
        print(
            "warning: --allow-any-host: requests naming any host are answered, so a page on another "
            "site can reach this server through a DNS name that points here unless a proxy in front "
            "checks the name",
            file=sys.stderr,
            flush=True,
        )
    if not is_loopback(host):
        print(
            f"warning: serving on {host}: anyone who can reach this address can play and watch the games "
            f"held here; requests must name one of: {', '.join(hosts)}",
            file=sys.stderr,
            flush=True,
        )
    warm(settings, say)
    app = create_app(dataclasses.replace(settings, allowed_hosts=hosts))
    say(f"monster-zoo serve: open {address(host, sock.getsockname()[1])} (Ctrl-C stops)")
    uvicorn.Server(uvicorn_config(app)).run(sockets=[sock])
