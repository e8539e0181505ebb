"""Make the README's and the documentation site's pictures: per game a mid-game picture and an
animated GIF of a whole game, and a sample replay page.

    python docs/make_pictures.py            # or: make pictures

Writes ``docs/pictures/<game>.png`` (the public view of a greedy game after a fixed share of
its actions), ``docs/pictures/<game>.gif`` (the public view of a whole greedy game at the
smallest player count, one frame per action, drawn small enough to stay under 1 MB) and
``docs/sample_replay.html`` (a whole Marry the Monster game between greedy and random agents,
with every seat's view). Everything is seeded, so a re-run after a change to a drawing shows
exactly that change. Needs the render extra.
"""

import argparse
from pathlib import Path

from PIL import Image

from monster_zoo import envs
from monster_zoo.agents.registry import make_agent
from monster_zoo.envs.core.picture import rasterize
from monster_zoo.envs.core.records import record_game
from monster_zoo.envs.registry import declaration
from monster_zoo.envs.replay import replay, write_gif, write_html

DOCS = Path(__file__).resolve().parent
SEED = 7
ZOOM = 0.75
# The GIFs' scale: a whole game at the smallest player count stays under 1 MB (0.24-0.58 MB).
GIF_ZOOM = 0.5
SAMPLE_GAME = "marry_the_monster-v0"
SAMPLE_AGENTS = ["greedy", "random", "random"]


def greedy_record(game_id: str, seed: int = SEED, **options) -> dict:
    """A record of a game between greedy agents (seats' seeds derived from ``seed``)."""
    env = envs.make(game_id, **options)
    n = len(env.unwrapped.possible_agents)
    return record_game(env, [make_agent("greedy", env, seed + s) for s in range(n)], seed, ["greedy"] * n)


def game_picture(game_id: str, out: Path) -> Path:
    """The public picture of a greedy game of ``game_id``, part-way through, as a PNG."""
    record = greedy_record(game_id)
    at = int(len(record["actions"]) * declaration(game_id).picture_share)
    for step, raw in enumerate(replay(record)):
        if step == at:
            Image.fromarray(rasterize(raw.draw(None), ZOOM)).save(out, optimize=True)
    return out


def game_gif(game_id: str, out: Path) -> Path:
    """The public view of a whole greedy game of ``game_id`` at its smallest player count, as a GIF."""
    record = greedy_record(game_id, num_players=envs.spec(game_id).min_players)
    return write_gif(record, out, zoom=GIF_ZOOM)


def sample_replay(out: Path) -> Path:
    """The sample replay page: greedy against two random agents."""
    env = envs.make(SAMPLE_GAME, num_players=len(SAMPLE_AGENTS))
    agents = [make_agent(name, SAMPLE_GAME, SEED + s) for s, name in enumerate(SAMPLE_AGENTS)]
    return write_html(record_game(env, agents, SEED, SAMPLE_AGENTS), out)


def main(argv=None) -> int:
    """Write the pictures and the sample page into ``--out`` (default: this folder)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DOCS, help="folder to write into (default %(default)s)")
    args = parser.parse_args(argv)
    (args.out / "pictures").mkdir(parents=True, exist_ok=True)
    for game_id in envs.available():
        name = game_id.rsplit("-", 1)[0]
        print("wrote", game_picture(game_id, args.out / "pictures" / f"{name}.png"))
        print("wrote", game_gif(game_id, args.out / "pictures" / f"{name}.gif"))
    print("wrote", sample_replay(args.out / "sample_replay.html"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
