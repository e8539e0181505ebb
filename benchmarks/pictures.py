"""Time the pictures: SVG drawing and rasterising per picture, and replay page sizes, per game.

    python -m monster_zoo.benchmarks.pictures                 # 3 greedy games per game id
    python -m monster_zoo.benchmarks.pictures --games 1 --json out.jsonl

For each game: a greedy game is recorded and replayed; every step's public picture is
drawn (``draw``: SVG text) and a sample of them rasterised (``rgb_array``: resvg + Pillow,
960x600); then the replay viewer page of the game (every seat's view) is written and its
size reported. Medians over the pictures, so the one-off numba compilation of the first
picture does not count. Needs the render extra. Run it on a quiet machine for figures to quote.
"""

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from monster_zoo import envs
from monster_zoo.agents.registry import make_agent
from monster_zoo.envs.core.picture import rasterize
from monster_zoo.envs.core.records import record_game
from monster_zoo.envs.core.safe_writing import output_problem, write_atomic
from monster_zoo.envs.replay import replay, write_html

RASTER_SAMPLE = 10  # pictures rasterised per game (rasterising is the slow part)


def time_game(game_id: str, seed: int) -> dict:
    """Draw and rasterise times (ms, medians) and the replay page size (KB) of one greedy game."""
    env = envs.make(game_id)
    n = len(env.unwrapped.possible_agents)
    record = record_game(
        env, [make_agent("greedy", game_id, seed + s) for s in range(n)], seed, ["greedy"] * n
    )
    draw_ms, svgs = [], []
    for raw in replay(record):
        start = time.perf_counter()
        svgs.append(raw.draw(None))
        draw_ms.append(1000 * (time.perf_counter() - start))
    raster_ms = []
    for svg in svgs[:: max(1, len(svgs) // RASTER_SAMPLE)][:RASTER_SAMPLE]:
        start = time.perf_counter()
        rasterize(svg)
        raster_ms.append(1000 * (time.perf_counter() - start))
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        page = write_html(record, Path(tmp) / "replay.html")
        page_s = time.perf_counter() - start
        page_kb = page.stat().st_size / 1024
    return {
        "game": game_id,
        "seed": seed,
        "players": n,
        "actions": len(record["actions"]),
        "draw_ms": statistics.median(draw_ms),
        "rasterize_ms": statistics.median(raster_ms),
        "svg_kb": statistics.median(len(s) for s in svgs) / 1024,
        "page_kb": page_kb,
        "page_s": page_s,
    }


def main(argv=None) -> int:
    """Time every game (or ``--game``) over ``--games`` seeds and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", help="game id (repeatable; default: every game)")
    parser.add_argument("--games", type=int, default=3, help="greedy games per game id (default %(default)s)")
    parser.add_argument("--json", type=Path, help="also write one JSON line per game played here")
    parser.add_argument("--overwrite", action="store_true", help="replace --json if it exists")
    args = parser.parse_args(argv)
    problem = args.json is not None and output_problem("--json", args.json, overwrite=args.overwrite)
    if problem:  # before the games, not after
        parser.error(problem)
    game_ids = args.game or envs.available()
    rows = [time_game(g, seed) for g in game_ids for seed in range(args.games)]
    if args.json:
        write_atomic(args.json, "".join(json.dumps(r) + "\n" for r in rows))
    print(
        "| game | players | actions | draw (ms) | rasterise (ms) | SVG (KB) | replay page (KB) | page build (s) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for g in game_ids:
        mine = [r for r in rows if r["game"] == g]
        med = {
            k: statistics.median(r[k] for r in mine)
            for k in ("actions", "draw_ms", "rasterize_ms", "svg_kb", "page_kb", "page_s")
        }
        print(
            f"| {g} | {mine[0]['players']} | {med['actions']:.0f} | {med['draw_ms']:.1f} | "
            f"{med['rasterize_ms']:.0f} | {med['svg_kb']:.1f} | {med['page_kb']:.0f} | {med['page_s']:.1f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
