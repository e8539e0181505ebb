"""The folder of model files that ship with the package, and its manifest of digests.

Every shipped model file (the PPO champions of :mod:`monster_zoo.agents.ppo.champions` and the
learned-search networks of :mod:`monster_zoo.agents.az.shipped`) lies in the package's
``agents/champions`` folder and is listed in its ``manifest.json`` with its SHA-256 digest (a
champion's also with its game, player count and version). A file loads only when it is listed
there with its own digest, so a changed or damaged copy is refused instead of playing weights
nobody shipped. A champion file holds a PPO policy or, where a learned-search network played alone
beat the PPO champion head to head, a byte copy of that network's file. This module reads model files
but plays nothing, so both kinds of model can check their files here without importing each other.
"""

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from monster_zoo import envs
from monster_zoo.agents.model_file import ModelFileError, read_metadata

CHAMPION_DIR = Path(__file__).with_name("champions")
MANIFEST = "manifest.json"
MANIFEST_FORMAT = "monster-zoo-champions"
# The architecture of a learned-search network (monster_zoo.agents.network.ARCHITECTURE), named
# here because this module only reads files and must not compile that module's kernels. A champion
# version may be such a network, played alone.
AZ_ARCHITECTURE = "az-mlp"
CHAMPION_FILE = re.compile(r"(?P<game>[a-z_]+)-(?P<players>\d+)p(?:-v(?P<version>\d+))?")
_REGENERATE = "python -m monster_zoo.agents.champions --write-manifest"


# --- the manifest -----------------------------------------------------------------------
def file_digest(path: Path) -> str:
    """The SHA-256 digest of the file ``path``, in hexadecimal."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_manifest(folder: Path | None = None) -> dict:
    """The manifest of ``folder`` (default: the shipped champions' folder); ModelFileError if it
    is missing or malformed."""
    path = Path(folder if folder is not None else CHAMPION_DIR) / MANIFEST
    if not path.is_file():
        raise ModelFileError(
            f"{path} is missing: shipped champions load only with their SHA-256 digests "
            f"listed there (reinstall monster-zoo; after adding a champion: {_REGENERATE})"
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise ModelFileError(f"{path} is not valid JSON ({err})") from None
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if (
        not isinstance(files, dict)
        or manifest.get("format") != MANIFEST_FORMAT
        or not all(
            isinstance(entry, dict) and isinstance(entry.get("sha256"), str) for entry in files.values()
        )
    ):
        raise ModelFileError(
            f'{path} is not a {MANIFEST_FORMAT} manifest (a "files" object of name -> '
            f'{{"sha256", "game", "num_players", "version"}}); regenerate it: {_REGENERATE}'
        )
    return manifest


def verify_shipped(path: Path) -> None:
    """ModelFileError unless the file ``path`` is listed in its folder's manifest with its own
    SHA-256 digest (and, for a champion, the game, player count and version its name gives)."""
    path = Path(path)
    entry = read_manifest(path.parent)["files"].get(path.name)
    if entry is None:
        raise ModelFileError(
            f"champion file {path} is not in {path.parent / MANIFEST}, so nothing says it "
            f"is the file that shipped: it is refused (after adding a champion: {_REGENERATE})"
        )
    found = file_digest(path)
    if found != entry["sha256"]:
        raise ModelFileError(
            f"champion file {path} has SHA-256 {found}, but {MANIFEST} lists {entry['sha256']}: "
            "the file changed after it shipped (damaged or tampered with) and is refused. "
            "Reinstall monster-zoo to restore it; retrained weights ship as a new version "
            "file, never over a shipped one"
        )
    expected = champion_of_file(path) or {}
    listed = {key: entry.get(key) for key in expected}
    if listed != expected:
        raise ModelFileError(
            f"{path.parent / MANIFEST} lists {path.name} as {listed}, but its name says "
            f"{expected}; regenerate it: {_REGENERATE}"
        )


def champion_of_file(path: Path) -> dict | None:
    """``{"game", "num_players", "version"}`` of a champion file named ``<game>-<n>p[-vK].npz`` for a
    registered game; None for any other file (other weights shipped in the folder)."""
    match = CHAMPION_FILE.fullmatch(path.stem) if path.suffix == ".npz" else None
    games = {envs.spec(g).name: g for g in envs.available()}
    if match is None or match["game"] not in games:
        return None
    return {
        "game": games[match["game"]],
        "num_players": int(match["players"]),
        "version": int(match["version"] or 1),
    }


def _check_champion_fits(path: Path, entry: dict) -> None:
    """ModelFileError unless the champion file ``path`` holds a model for the game and player count its
    name ``entry`` gives: a PPO policy trained with that count, or a learned-search network
    (architecture :data:`AZ_ARCHITECTURE`, played alone) whose player counts include it."""
    metadata = read_metadata(path)
    wanted = f"{entry['game']} with num_players={entry['num_players']}"
    if metadata["architecture"].get("type") == AZ_ARCHITECTURE:
        counts = metadata.get("player_counts") or []
        if metadata["game"] != entry["game"] or entry["num_players"] not in counts:
            raise ModelFileError(
                f"{path.name} holds a learned-search network for {metadata['game']} with "
                f"{', '.join(map(str, counts))} players, but its name says {wanted}"
            )
        return
    trained = (metadata["game"], metadata["options"].get("num_players"))
    if trained != (entry["game"], entry["num_players"]):
        raise ModelFileError(
            f"{path.name} holds a policy for {trained[0]} with num_players={trained[1]}, "
            f"but its name says {wanted}"
        )


def build_manifest(folder: Path | None = None) -> dict:
    """The manifest of every ``.npz`` file in ``folder`` (default: the champions' folder): its
    SHA-256 digest and, for a champion, its game, player count and version, which must be the
    ones of the model file it holds (a PPO policy, or a learned-search network that plays that count)."""
    folder = Path(folder if folder is not None else CHAMPION_DIR)
    files = {}
    for path in sorted(folder.glob("*.npz")):
        entry = champion_of_file(path)
        if entry is not None:
            _check_champion_fits(path, entry)
        files[path.name] = {"sha256": file_digest(path), **(entry or {})}
    return {"format": MANIFEST_FORMAT, "format_version": 1, "files": files}


def write_manifest(folder: Path | None = None) -> Path:
    """Write the manifest of ``folder`` (default: the champions' folder) beside its files; returns its path."""
    folder = Path(folder if folder is not None else CHAMPION_DIR)
    path = folder / MANIFEST
    path.write_text(json.dumps(build_manifest(folder), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def manifest_problems(folder: Path | None = None) -> list[str]:
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


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m monster_zoo.agents.champions [--write-manifest]``: check the shipped files against
    the manifest (status 1 and the problems if they differ), or regenerate it."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.agents.champions",
        description="Check the shipped champions against their manifest of "
        "SHA-256 digests, or regenerate it after adding a champion.",
    )
    parser.add_argument(
        "--write-manifest",
        action="store_true",
        help=f"list every champion file of {CHAMPION_DIR} in {MANIFEST} with its digest",
    )
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
