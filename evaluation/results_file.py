"""A run's games kept on disk as they end: JSON lines, the run's settings first, then one line per
finished game, each appended whole, so that a run stopped anywhere (a dead endpoint, a power cut,
Ctrl-C, a machine taken back) keeps every game it finished and ``--resume`` continues from them.

A line is appended with a single ``write`` on a file opened for appending, then flushed to disk:
a reader sees whole lines, and a line cut short by a crash (the last one, without its newline) is
dropped when the file is read back and cut away before the next append. A new run refuses an
existing file unless told to overwrite it; a resumed run refuses one whose settings differ from
its own, naming the first that differs, since its games would not belong to one series.

Each kind of run subclasses :class:`GamesFile` with its own ``FORMAT`` (so one command never
resumes another's file) and the fields every game line must hold (``GAME_FIELDS``).
"""

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

from monster_zoo.envs.core.safe_writing import output_problem, write_atomic

MAX_LINE_BYTES = 1 << 20  # a game's line holds its per-move times or latencies: a few KB
MAX_FILE_BYTES = 1 << 30


class ResultsError(ValueError):
    """The results file cannot be used as asked (exists, differs, unreadable), with the fix."""


def first_difference(ours: dict, theirs: dict) -> str | None:
    """The first setting (by name) that ``theirs`` gives otherwise than ``ours``, described."""
    for name in sorted(set(ours) | set(theirs)):
        if ours.get(name) != theirs.get(name):
            return f"{name}: the file has {theirs.get(name)!r}, this run {ours.get(name)!r}"
    return None


class GamesFile:
    """A results file being written: :meth:`start` a new one or :meth:`resume` one, then
    :meth:`append` each finished game. Subclasses set ``FORMAT``, ``VERSION``, ``WRITER`` (who
    writes such files, for messages) and ``GAME_FIELDS`` (field name -> type every game line has)."""

    FORMAT: ClassVar[str] = "monster-zoo games"
    VERSION: ClassVar[int] = 1
    WRITER: ClassVar[str] = "this command"
    GAME_FIELDS: ClassVar[dict[str, type]] = {"game": int}

    def __init__(self, path: Path, settings: dict, games: Iterable[dict] = ()):
        self.path = Path(path)
        self.settings = settings
        self.games = list(games)

    @classmethod
    def header(cls, settings: dict) -> dict:
        """The first line of a results file: what the games depend on."""
        return {"format": cls.FORMAT, "version": cls.VERSION, "settings": settings}

    @classmethod
    def read(cls, path: Path) -> tuple[dict, list[dict], int]:
        """``(settings, games, whole_bytes)`` of a results file: its settings line, every whole game
        line after it and the length of the whole lines (a cut last line is left out). ResultsError
        where it is not a results file of this kind."""
        path = Path(path)
        if not path.is_file() or path.is_symlink():
            raise ResultsError(f"--resume: {path} is not a results file (a regular file {cls.WRITER} wrote)")
        data = path.read_bytes()
        if len(data) > MAX_FILE_BYTES:
            raise ResultsError(f"--resume: {path} is larger than {MAX_FILE_BYTES} bytes")
        whole = data[: data.rfind(b"\n") + 1]
        lines = whole.splitlines()
        try:
            first = json.loads(lines[0]) if lines else None
        except ValueError:
            first = None
        if (
            not isinstance(first, dict)
            or first.get("format") != cls.FORMAT
            or first.get("version") != cls.VERSION
            or not isinstance(first.get("settings"), dict)
        ):
            raise ResultsError(
                f"--resume: {path} is not a results file of {cls.WRITER} (format {cls.FORMAT!r} v{cls.VERSION})"
            )
        games = []
        for number, line in enumerate(lines[1:], 2):
            try:
                game = json.loads(line)
            except ValueError:
                raise ResultsError(f"--resume: line {number} of {path} is not JSON") from None
            if not isinstance(game, dict) or not all(
                isinstance(game.get(name), kind) for name, kind in cls.GAME_FIELDS.items()
            ):
                raise ResultsError(f"--resume: line {number} of {path} is not a game's result")
            games.append(game)
        return first["settings"], games, len(whole)

    @classmethod
    def start(cls, path, settings: dict, overwrite: bool = False) -> "GamesFile":
        """A new file at ``path`` holding the settings line; ResultsError where it exists (unless
        ``overwrite``) or cannot be written, before any game is played."""
        problem = output_problem("--results", Path(path), (), overwrite)
        if problem:
            raise ResultsError(problem + " (or --resume to continue the run it holds)")
        # written whole through a new file: a link or an old file at the path is replaced, never followed
        write_atomic(path, json.dumps(cls.header(settings), separators=(",", ":")) + "\n")
        return cls(path, settings)

    @classmethod
    def resume(cls, path, settings: dict) -> "GamesFile":
        """The run in ``path`` continued: its games kept, a cut last line dropped; ResultsError
        where its settings differ from ``settings``."""
        theirs, games, whole = cls.read(path)
        different = first_difference(settings, theirs)
        if different:
            raise ResultsError(
                f"--resume: {path} holds a run with other settings ({different}); resume it with its "
                "own settings, or start a new results file"
            )
        if Path(path).stat().st_size != whole:
            os.truncate(path, whole)  # a line cut short by a stopped run: its game is played again
        return cls(path, settings, games)

    def append(self, game: dict) -> None:
        """Add a finished game's line (whole, on disk before this returns)."""
        line = (json.dumps(game, separators=(",", ":")) + "\n").encode()
        if len(line) > MAX_LINE_BYTES:
            raise ResultsError(f"a result line of {len(line)} bytes is over {MAX_LINE_BYTES}")
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(self.path, flags, 0o644)
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)
        self.games.append(game)
