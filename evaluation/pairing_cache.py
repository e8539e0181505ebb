"""Finished pairings of a leaderboard table kept on disk, so that ``leaderboard --resume`` after a stop
plays only the pairings the stopped run had not finished.

:func:`cached_series` is a ``play_series`` for
:func:`monster_zoo.evaluation.tournament.run_tournament`: it plays a pairing with
:func:`monster_zoo.evaluation.match.iter_games` and, once the pairing's last game is played, writes its
game records (atomically) to one JSON file named by a hash of everything the games depend on (the
table's recorded settings, the seats' agent names, the game count, the seed, the options). With
``resume`` a pairing whose file is there and passes every check is read back instead of played: a
pairing's games depend only on those inputs (each agent is made and reseeded per game from the seed),
so the table comes out as if played in one go. A damaged, foreign or oversized file is not an error:
that pairing is played again. The folder is removed when its table is written. A table finished
this way records the time of the pairings this run played (its ``elapsed_s``), not the stopped run's.
"""

import hashlib
import json
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from monster_zoo.envs.core.bounded_reading import read_json_file
from monster_zoo.envs.core.safe_writing import write_atomic
from monster_zoo.evaluation.match import iter_games

MAX_PAIRING_BYTES = 16 * 2**20  # a 4-player pairing's records are tens of kilobytes
MAX_PAIRING_DEPTH = 8
RECORD_KEYS = {"game", "seed", "rotation", "seats", "rewards", "length", "truncated"}


def pairing_file(
    folder: Path, settings: str, specs: Sequence[str], games: int, seed: int, options: dict
) -> Path:
    """The file of one pairing's records in ``folder``, named by everything its games depend on."""
    inputs = json.dumps([settings, list(specs), games, seed, options], sort_keys=True)
    return folder / f"{hashlib.sha256(inputs.encode()).hexdigest()[:32]}.json"


def plain_record(record: dict) -> dict:
    """A game record of :func:`iter_games` as JSON's types."""
    return {
        "game": int(record["game"]),
        "seed": int(record["seed"]),
        "rotation": int(record["rotation"]),
        "seats": [int(s) for s in record["seats"]],
        "rewards": [float(r) for r in record["rewards"]],
        "length": int(record["length"]),
        "truncated": bool(record["truncated"]),
    }


def read_pairing(path: Path, games: int, num_players: int) -> list[dict] | None:
    """The ``games`` records a finished pairing left in ``path``, or None when there is no such file
    or it fails a check (size, depth, shape, types, game indices in order)."""
    try:
        records = read_json_file(path, MAX_PAIRING_BYTES, MAX_PAIRING_DEPTH, str(path))
    except ValueError:  # missing, not a regular file, too large or deep, not JSON
        return None
    if not isinstance(records, list) or len(records) != games:
        return None
    for g, record in enumerate(records):
        if not (
            isinstance(record, dict)
            and set(record) == RECORD_KEYS
            and record["game"] == g
            and all(
                isinstance(record[k], int) and not isinstance(record[k], bool)
                for k in ("game", "seed", "rotation", "length")
            )
            and isinstance(record["truncated"], bool)
            and isinstance(record["seats"], list)
            and len(record["seats"]) == num_players
            and all(isinstance(s, int) and 0 <= s < num_players for s in record["seats"])
            and isinstance(record["rewards"], list)
            and len(record["rewards"]) == num_players
            and all(isinstance(r, (int, float)) and not isinstance(r, bool) for r in record["rewards"])
        ):
            return None
    return records


def cached_series(folder: Path, settings: str, resume: bool) -> Callable[..., Iterator[dict]]:
    """A ``play_series`` that keeps every finished pairing in ``folder`` and, with ``resume``, reads
    back the pairings found there instead of playing them (see the module doc)."""

    def play(
        game_id: str, specs: Sequence[str], games: int, seed: int, options: dict, keep_actions: int = 0
    ) -> Iterator[dict]:
        path = pairing_file(folder, settings, specs, games, seed, options)
        kept = read_pairing(path, games, len(specs)) if resume and not keep_actions else None
        if kept is not None:
            yield from kept
            return
        played = []
        for record in iter_games(game_id, specs, games, seed, options, keep_actions=keep_actions):
            played.append(plain_record(record))
            yield record
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(played))

    return play


def remove_cache(folder: Path) -> None:
    """Remove a table's folder of pairings (a link in its place is removed, never followed)."""
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.is_dir():
        shutil.rmtree(folder)
