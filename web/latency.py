"""How fast the web app answers a person playing against quick agents, measured as a browser meets it.

    python -m monster_zoo.web.latency --agents random greedy --requests 200

Starts ``monster-zoo serve --port 0`` in a subprocess, then for each game and agent plays games
over HTTP (httpx, the web extra) as the page does: the person (seat 0, random legal moves)
posts a move, then asks the agents to move one at a time until it is the person's turn again.
Every request is timed from sending it to reading the whole answer (the view: picture, moves,
log); the table gives the median, 95th percentile and worst of each kind, with the machine's
load average beside it, since the answer time depends on what else the machine runs.
"""

import argparse
import os
import queue
import random
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Sequence

from monster_zoo import envs

SERVER_START_S = 300


def start_server() -> "tuple[subprocess.Popen, str]":
    """``monster-zoo serve --port 0`` in a subprocess and the address it printed."""
    process = subprocess.Popen(
        [sys.executable, "-m", "monster_zoo.training", "serve", "--port", "0", "--max-sessions", "64"],
        stdout=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
    while True:
        found = re.search(r"open (http://\S+/)", lines.get(timeout=SERVER_START_S))
        if found:
            return process, found.group(1)


def play(client, game_id: str, agent: str, requests: int, rng: random.Random) -> dict[str, list[float]]:
    """Seconds per request kind (``move``, ``advance``) over games of seat 0 against ``agent``."""
    times: dict[str, list[float]] = {"move": [], "advance": []}
    players = envs.spec(game_id).min_players
    while sum(map(len, times.values())) < requests:
        made = client.post(
            "/api/sessions",
            json={
                "game": game_id,
                "options": {"num_players": players},
                "seats": ["human"] + [agent] * (players - 1),
                "seed": rng.randrange(1 << 30),
            },
        )
        session = made.json()["session"]
        view = client.get(f"/api/sessions/{session}?viewer=0").json()
        while view["result"] is None and sum(map(len, times.values())) < requests:
            if view["on_move"] == 0:
                kind, url = "move", f"/api/sessions/{session}/moves?since={view['events_total']}"
                body = {"seat": 0, "step": view["step"], "action": rng.choice(view["moves"])["action"]}
            else:
                kind, url = (
                    "advance",
                    f"/api/sessions/{session}/advance?viewer=0&since={view['events_total']}",
                )
                body = {"step": view["step"]}
            started = time.perf_counter()
            answer = client.post(url, json=body)
            times[kind].append(time.perf_counter() - started)
            answer.raise_for_status()  # a refusal is no answer to time
            view = answer.json()
        client.delete(f"/api/sessions/{session}")
    return times


def row(game_id: str, agent: str, kind: str, seconds: Sequence[float]) -> str:
    """A markdown table row of the answer times of ``kind``, in milliseconds."""
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    return f"| {game_id} | {agent} | {kind} | {len(ms)} | {statistics.median(ms):.1f} | {p95:.1f} | {ms[-1]:.1f} |"


def main(argv=None) -> int:
    """Measure and print the table."""
    import httpx

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=envs.available(), help="game ids (default: all)")
    parser.add_argument("--agents", nargs="+", default=["random", "greedy"], help="the opponents' agent")
    parser.add_argument("--requests", type=int, default=200, help="timed requests per game and agent")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    process, address = start_server()
    rng = random.Random(args.seed)
    try:
        with httpx.Client(base_url=address, timeout=60) as client:
            client.get("/api/games")
            print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
            print(
                "| game | opponents | request | n | median ms | p95 ms | max ms |\n|---|---|---|---:|---:|---:|---:|"
            )
            for game_id in args.games:
                for agent in args.agents:
                    times = play(client, game_id, agent, args.requests, rng)
                    for kind, seconds in times.items():
                        print(row(game_id, agent, kind, seconds), flush=True)
            print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        process.terminate()
        process.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
