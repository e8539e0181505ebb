"""Record what the agents' and commands' refactors must keep (``tests/test_nothing_lost.py`` checks it).

    python tests/record_nothing_lost.py

Writes ``tests/golden/nothing_lost.json``: every agent name the registry offers per game, the
``--help`` text of every command and subcommand of the console scripts (found through
``pyproject.toml``, so a command that moves keeps its record), the SHA-256 digest of every shipped
model file, and a few seeded short matches' results. Re-record only after an intended change to one
of them, and review ``git diff tests/golden/nothing_lost.json`` before committing it.
"""

import contextlib
import hashlib
import importlib
import io
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # lets the script run from any directory without installing
    sys.path.insert(0, str(ROOT))

import monster_zoo  # noqa: E402
from monster_zoo import envs  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden" / "nothing_lost.json"
HELP_COLUMNS = "100"  # argparse wraps help to the terminal's width: fixed, so the text is too
# Commands of ``monster-zoo`` whose help is recorded (the trainers' forwarded ones included).
SUBCOMMANDS = (
    "play",
    "evaluate",
    "replay",
    "serve",
    "export-model",
    "leaderboard",
    "train",
    "device-train",
    "az",
    "league",
    "bench",
)
# Short seeded matches: (game, agents, games). Fast agents only, so the record replays in seconds.
MATCHES = (
    ("marry_the_monster-v0", ("champion", "greedy", "random", "random"), 4),
    ("mighty_monsters-v0", ("az-net", "greedy", "random"), 3),
    ("monstargh-v0", ("champion", "greedy"), 2),
    ("monster_arena-v0", ("az", "greedy"), 2),
    ("monster_factory-v0", ("greedy", "random"), 2),
)


def console_script(name: str) -> Callable:
    """The ``main`` that ``pyproject.toml`` names for console script ``name``."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    module, _, function = scripts[name].partition(":")
    return getattr(importlib.import_module(module), function)


def help_text(main: Callable, argv: list[str]) -> str:
    """What ``main(argv)`` prints (``--help`` exits with status 0)."""
    out = io.StringIO()
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_COLUMNS
    try:
        with contextlib.redirect_stdout(out):
            try:
                main(argv)
            except SystemExit as stop:
                assert stop.code in (0, None), f"{argv} exited with {stop.code}"
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous
    return out.getvalue()


def help_texts() -> dict[str, str]:
    """Every command's ``--help`` (and ``--version``) output, keyed by the command line typed."""
    zoo, match = console_script("monster-zoo"), console_script("monster-zoo-match")
    texts = {
        "monster-zoo --help": help_text(zoo, ["--help"]),
        "monster-zoo --version": help_text(zoo, ["--version"]),
        "monster-zoo-match --help": help_text(match, ["--help"]),
    }
    for command in SUBCOMMANDS:
        texts[f"monster-zoo {command} --help"] = help_text(zoo, [command, "--help"])
    return texts


def agent_names() -> dict[str, list[str]]:
    """The names the agent registry offers, per registered game."""
    from monster_zoo.agents import available_agents

    return {game_id: available_agents(game_id) for game_id in envs.available()}


def shipped_digests() -> dict[str, str]:
    """SHA-256 of every model file shipped in the champions' folder and of its manifest, by file name
    (its README is documentation, free to change)."""
    folder = Path(monster_zoo.__file__).resolve().parents[1] / "agents" / "champions"
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.iterdir())
        if path.suffix == ".npz" or path.name == "manifest.json"
    }


def match_results() -> list[dict]:
    """Each of ``MATCHES`` played through ``monster-zoo-match`` with seed 0: its per-agent totals."""
    match = console_script("monster-zoo-match")
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for game_id, agents, games in MATCHES:
            out = Path(folder) / "match.json"
            with contextlib.redirect_stdout(io.StringIO()):
                assert (
                    match(
                        [
                            "--game",
                            game_id,
                            "--agents",
                            *agents,
                            "--games",
                            str(games),
                            "--seed",
                            "0",
                            "--no-progress",
                            "--json",
                            str(out),
                        ]
                    )
                    == 0
                )
            data = json.loads(out.read_text(encoding="utf-8"))
            results.append(
                {
                    "game": game_id,
                    "agents": list(agents),
                    "results": data["results"],
                    "rewards": [record["rewards"] for record in data["records"]],
                    "lengths": [record["length"] for record in data["records"]],
                }
            )
    return results


def record() -> dict:
    """Everything the golden file holds."""
    return {
        "agent_names": agent_names(),
        "help": help_texts(),
        "shipped_digests": shipped_digests(),
        "matches": match_results(),
    }


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN.relative_to(ROOT)}")
