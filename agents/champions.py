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
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from monster_zoo import envs

from .policy_file import ModelFileError, read_policy
from .ppo_agent import PPOAgent

CHAMPION_DIR = Path(__file__).with_name("champions")
MANIFEST = "manifest.json"
MANIFEST_FORMAT = "monster-zoo-champions"
_FILE = re.compile(r"(?P<game>[a-z_]+)-(?P<players>\d+)p(?:-v(?P<version>\d+))?")
_REGENERATE = "python -m monster_zoo.agents.champions --write-manifest"


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
        match = _FILE.fullmatch(path.stem)
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


# --- the manifest -----------------------------------------------------------------------
def file_digest(path: Path) -> str:
    """The SHA-256 digest of the file ``path``, in hexadecimal."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_manifest(folder: Optional[Path] = None) -> dict:
    """The manifest of ``folder`` (default: the shipped champions' folder); ModelFileError if it
    is missing or malformed."""
    path = Path(folder if folder is not None else CHAMPION_DIR) / MANIFEST
    if not path.is_file():
        raise ModelFileError(f"{path} is missing: shipped champions load only with their SHA-256 digests "
                             f"listed there (reinstall monster-zoo; after adding a champion: {_REGENERATE})")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise ModelFileError(f"{path} is not valid JSON ({err})") from None
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict) or manifest.get("format") != MANIFEST_FORMAT or not all(
            isinstance(entry, dict) and isinstance(entry.get("sha256"), str) for entry in files.values()):
        raise ModelFileError(f"{path} is not a {MANIFEST_FORMAT} manifest (a \"files\" object of name -> "
                             f"{{\"sha256\", \"game\", \"num_players\", \"version\"}}); regenerate it: {_REGENERATE}")
    return manifest


def verify_shipped(path: Path) -> None:
    """ModelFileError unless the file ``path`` is listed in its folder's manifest with its own
    SHA-256 digest (and, for a champion, the game, player count and version its name gives)."""
    path = Path(path)
    entry = read_manifest(path.parent)["files"].get(path.name)
    if entry is None:
        raise ModelFileError(f"champion file {path} is not in {path.parent / MANIFEST}, so nothing says it "
                             f"is the file that shipped: it is refused (after adding a champion: {_REGENERATE})")
    found = file_digest(path)
    if found != entry["sha256"]:
        raise ModelFileError(f"champion file {path} has SHA-256 {found}, but {MANIFEST} lists {entry['sha256']}: "
                             "the file changed after it shipped (damaged or tampered with) and is refused. "
                             "Reinstall monster-zoo to restore it; retrained weights ship as a new version "
                             "file, never over a shipped one")
    expected = champion_of_file(path) or {}
    listed = {key: entry.get(key) for key in expected}
    if listed != expected:
        raise ModelFileError(f"{path.parent / MANIFEST} lists {path.name} as {listed}, but its name says "
                             f"{expected}; regenerate it: {_REGENERATE}")


def champion_of_file(path: Path) -> Optional[dict]:
    """``{"game", "num_players", "version"}`` of a champion file named ``<game>-<n>p[-vK].npz`` for a
    registered game; None for any other file (other weights shipped in the folder)."""
    match = _FILE.fullmatch(path.stem) if path.suffix == ".npz" else None
    games = {envs.spec(g).name: g for g in envs.available()}
    if match is None or match["game"] not in games:
        return None
    return {"game": games[match["game"]], "num_players": int(match["players"]),
            "version": int(match["version"] or 1)}


def build_manifest(folder: Optional[Path] = None) -> dict:
    """The manifest of every ``.npz`` file in ``folder`` (default: the champions' folder): its
    SHA-256 digest and, for a champion, its game, player count and version, which must be the
    ones of the policy file it holds."""
    folder = Path(folder if folder is not None else CHAMPION_DIR)
    files = {}
    for path in sorted(folder.glob("*.npz")):
        entry = champion_of_file(path)
        if entry is not None:
            metadata = read_policy(path).metadata
            trained = (metadata["game"], metadata["options"].get("num_players"))
            if trained != (entry["game"], entry["num_players"]):
                raise ModelFileError(f"{path.name} holds a policy for {trained[0]} with num_players={trained[1]}, "
                                     f"but its name says {entry['game']} with num_players={entry['num_players']}")
        files[path.name] = {"sha256": file_digest(path), **(entry or {})}
    return {"format": MANIFEST_FORMAT, "format_version": 1, "files": files}


def write_manifest(folder: Optional[Path] = None) -> Path:
    """Write the manifest of ``folder`` (default: the champions' folder) beside its files; returns its path."""
    folder = Path(folder if folder is not None else CHAMPION_DIR)
    path = folder / MANIFEST
    path.write_text(json.dumps(build_manifest(folder), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def manifest_problems(folder: Optional[Path] = None) -> List[str]:
    """What is wrong between ``folder``'s files and its manifest (empty when they agree)."""
    folder = Path(folder if folder is not None else CHAMPION_DIR)
    try:
        listed = read_manifest(folder)["files"]
    except ModelFileError as err:
        return [str(err)]
    problems = [f"{name} is listed but missing" for name in sorted(listed) if not (folder / name).is_file()]
    for path in sorted(folder.glob("*.npz")):
        try:
            verify_shipped(path)
        except ModelFileError as err:
            problems.append(str(err))
    return problems


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
        path = write_manifest()
        print(f"wrote {path}: {len(read_manifest()['files'])} files")
        return 0
    problems = manifest_problems()
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"every champion file matches {CHAMPION_DIR / MANIFEST}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
