"""Trained champions shipped with the package: ``make_agent("<game>-champion-v1", game_id)``.

A champion is a policy file (:mod:`monster_zoo.agents.policy_file`: JSON metadata and
arrays, nothing that runs code) in the package's ``agents/champions`` folder, one per
game, player count and version: ``<game>-<n>p.npz`` is version 1, ``<game>-<n>p-v2.npz``
version 2, and so on. It plays through the numpy forward pass of
:class:`~monster_zoo.agents.ppo_agent.PPOAgent`, so neither torch nor training is
needed. ``agents/champions/README.md`` says how each file was trained and the command
that reproduces it.

A versioned name always means the same weights: ``<game>-champion-v1`` plays version 1
of the player count at hand, and retrained weights ship as the next version beside it, so
results quoted against a name stay comparable. The short name ``champion`` plays the
newest version shipped for the player count. The player count comes from the game's
options (the game's default when they name none, or the env's: ``make_agent("champion",
env)``); a count or version without a shipped champion is refused with the ones that have one
and what to type to get one.

**The manifest.** ``champions/manifest.json`` lists every file of the folder with its SHA-256
digest (a champion's also with its game, player count and version). A champion loads only when
its file is listed and its digest is the listed one, so a changed or damaged copy is refused instead of playing weights
nobody shipped. Adding a champion (a new file, never a changed one: retrained weights ship as
the next version) means regenerating the manifest::

    python -m monster_zoo.agents.champions --write-manifest   # after adding the file
    python -m monster_zoo.agents.champions                    # check every file against it
"""
import argparse
import re
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from monster_zoo import envs

from .ppo_agent import PPOAgent
# The manifest's functions live in shipped_files (the networks of learned search check their files
# there too); they are named here as well because this module's command line writes and checks it.
from .shipped_files import (CHAMPION_DIR, CHAMPION_FILE, MANIFEST, build_manifest, champion_of_file,  # noqa: F401
                            file_digest, manifest_problems, read_manifest, verify_shipped, write_manifest)



def champion_name(game_id: str, version: int = 1) -> str:
    """The versioned agent name of ``game_id``'s champion: ``"<game>-champion-v1"``."""
    return f"{envs.spec(game_id).name}-champion-v{version}"


def champion_path(game_name: str, num_players: int, version: int = 1) -> Path:
    """Where version ``version`` of the champion of ``game_name`` for ``num_players`` lies."""
    suffix = "" if version == 1 else f"-v{version}"
    return CHAMPION_DIR / f"{game_name}-{num_players}p{suffix}.npz"


def _shipped(game_name: str) -> Dict[int, List[int]]:
    """Player count -> versions shipped for ``game_name``, ascending."""
    found: Dict[int, List[int]] = {}
    for path in CHAMPION_DIR.glob(f"{game_name}-*p*.npz"):
        match = CHAMPION_FILE.fullmatch(path.stem)
        if match and match["game"] == game_name:
            found.setdefault(int(match["players"]), []).append(int(match["version"] or 1))
    return {n: sorted(v) for n, v in sorted(found.items())}


def champion_player_counts(game_name: str) -> List[int]:
    """The player counts of ``game_name`` that have a shipped champion, ascending."""
    return list(_shipped(game_name))


def champion_versions(game_name: str, num_players: int) -> List[int]:
    """The versions of ``game_name``'s champion shipped for ``num_players``, ascending."""
    return _shipped(game_name).get(num_players, [])


def champion_games() -> Dict[str, List[int]]:
    """Every game name with a shipped champion, and its player counts."""
    found = {}
    for game_id in envs.available():
        name = envs.spec(game_id).name
        counts = champion_player_counts(name)
        if counts:
            found[name] = counts
    return found


def all_champion_versions(game_name: str) -> List[int]:
    """Every version shipped for some player count of ``game_name``, ascending."""
    return sorted({v for versions in _shipped(game_name).values() for v in versions})


def load_champion(seed: int = 0, game_id: Optional[str] = None, options: Optional[Dict] = None,
                  version: Optional[int] = None) -> PPOAgent:
    """Version ``version`` (None: the newest) of ``game_id``'s champion for the player count of
    ``options``, seeded ``seed``; its file is checked against the manifest first.

    ValueError naming the counts (or versions) that have a champion, and the call that gets
    one, when this one has none; ModelFileError when the file is not the one that shipped.
    """
    if game_id is None:
        raise ValueError("a champion plays one game: pass game_id")
    name = envs.spec(game_id).name
    num_players = int(envs.config(game_id, dict(options or {}))[0])
    versions = champion_versions(name, num_players)
    if not versions:
        raise ValueError(_no_champion(game_id, version or 1, num_players))
    if version is None:
        version = versions[-1]
    elif version not in versions:
        raise ValueError(f"{champion_name(game_id, version)} has no champion for {num_players} players "
                         f"(shipped for {num_players} players: "
                         f"{', '.join(champion_name(game_id, v) for v in versions)})")
    path = champion_path(name, num_players, version)
    verify_shipped(path)
    agent = PPOAgent.load(str(path), game_id, seed, options=options)
    agent.name = champion_name(game_id, version)
    return agent


def _no_champion(game_id: str, version: int, num_players: int) -> str:
    """Why there is no champion for ``num_players``, and exactly what to type for one that exists."""
    counts = champion_player_counts(envs.spec(game_id).name)
    problem = f"{champion_name(game_id, version)} has no champion for {num_players} players"
    if not counts:
        return f"{problem} (none shipped yet for {game_id})"
    listed = " and ".join(str(n) for n in counts)
    n = counts[0]
    return (f"{problem} ({game_id}'s champions ship for {listed} players). Ask for one by its player count: "
            f"make_agent(\"champion\", \"{game_id}\", options={{\"num_players\": {n}}}), or make_agent(\"champion\", "
            f"env) with env = monster_zoo.make(\"{game_id}\", num_players={n}); on the command line: "
            f"--option num_players={n}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m monster_zoo.agents.champions [--write-manifest]``: check the shipped files against
    the manifest (status 1 and the problems if they differ), or regenerate it."""
    parser = argparse.ArgumentParser(prog="python -m monster_zoo.agents.champions",
                                     description="Check the shipped champions against their manifest of "
                                     "SHA-256 digests, or regenerate it after adding a champion.")
    parser.add_argument("--write-manifest", action="store_true",
                        help=f"list every champion file of {CHAMPION_DIR} in {MANIFEST} with its digest")
    args = parser.parse_args(argv)
    if args.write_manifest:
        path = write_manifest(CHAMPION_DIR)
        print(f"wrote {path}: {len(read_manifest(CHAMPION_DIR)['files'])} files")
        return 0
    problems = manifest_problems(CHAMPION_DIR)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"every champion file matches {CHAMPION_DIR / MANIFEST}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
