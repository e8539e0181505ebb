"""Running the web app: uvicorn on a socket bound here, so the address printed is the real one
(``--port 0`` takes a free port and says which).

The server binds to 127.0.0.1 unless told otherwise. Bound to a loopback address it answers
only requests that name a loopback host (a page elsewhere cannot reach it through a DNS name
pointing here); bound to another address it also answers requests naming that address (any
name, for a wildcard address), and it warns that anyone who can reach that address can play
and see the games it holds.
"""
import dataclasses
import ipaddress
import socket
import sys
from typing import Callable, Optional

import uvicorn

from monster_zoo import envs
from monster_zoo.envs.registry import kernels_cached

from .app import LOOPBACK_HOSTS, Settings, create_app
from .catalogue import catalogue


def is_loopback(host: str) -> bool:
    """Whether ``host`` is ``localhost`` or a loopback address."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str) -> list:
    """The host names requests may carry for a server bound to ``host``: the loopback names and the
    bound address itself (any name at all for a wildcard address)."""
    if host in ("0.0.0.0", "::"):
        return ["*"]
    return [*LOOPBACK_HOSTS, f"[{host}]" if ":" in host else host]


def address(host: str, port: int) -> str:
    """The URL of the app bound to ``host``:``port``."""
    shown = "127.0.0.1" if host == "0.0.0.0" else "[::1]" if host == "::" else host
    return f"http://[{shown}]:{port}/" if ":" in shown and not shown.startswith("[") else f"http://{shown}:{port}/"


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


def warm(settings: Settings, say: Callable[[str], None]) -> None:
    """Import every game (compiling its kernels on a first run, which takes a while: said first) and
    list its agents, so that the first page and the first game start at once."""
    cold = [game_id for game_id in envs.available() if not kernels_cached(game_id)]
    if cold:
        say(f"compiling the kernels of {', '.join(cold)} (first run only, up to a minute each)...")
    catalogue(settings.models_dir)


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 0,
          say: Optional[Callable[[str], None]] = None) -> None:
    """Serve the app on ``host``:``port`` until interrupted, announcing its address through ``say``
    (default: a line on stdout) once it is bound."""
    def default_say(line: str) -> None:
        print(line, flush=True)

    say = say or default_say
    sock = bind(host, port)
    if not is_loopback(host):
        print(f"warning: serving on {host}: anyone who can reach this address can play and watch the games "
              "held here", file=sys.stderr, flush=True)
    warm(settings, say)
    app = create_app(dataclasses.replace(settings, allowed_hosts=allowed_hosts(host)))
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    say(f"monster-zoo serve: open {address(host, sock.getsockname()[1])} (Ctrl-C stops)")
    uvicorn.Server(config).run(sockets=[sock])
