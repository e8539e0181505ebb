"""Writing the files a user asked for: checked before the work, written whole or not at all,
never through a link.

A command first asks :func:`output_problem` about each file it will write, before any game is
played or replayed, so a bad path costs nothing. It is refused when it is one of the command's
inputs (compared as files, through links), a folder or a special file, an existing file or
link unless the user said ``--overwrite``, or when its folder cannot be written.

Then :func:`write_atomic` (or :func:`open_atomic`, for writers that want a stream) writes it:
the bytes go to a new temporary file in the same folder, created exclusively and never through
a link, which then replaces the target with :func:`os.replace`. A reader never sees half a
file, a failure leaves the old file as it was, and a symbolic link at the target is replaced by
the new file, never followed: a link planted among the outputs cannot redirect a write.

:func:`write_private` keeps data that must not be lost (a person's game) when its own path
fails: a fresh file in the temporary folder that only the user can read.
"""

import os
import secrets
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO

OVERWRITE_HINT = "pass --overwrite to replace it"
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
_NAME_KEPT = 100  # characters of the target's name in a temporary file's (names are limited to 255 bytes)


def _special_kind(mode: int) -> str | None:
    """What a path that is neither a regular file nor a link is, in words (None for those two)."""
    if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
        return None
    return "a folder" if stat.S_ISDIR(mode) else "a special file (FIFO, device or socket)"


def folder_problem(label: str, folder) -> str | None:
    """None if ``folder`` is a writable folder or can be made one (its first existing ancestor is
    a writable folder), else the reason, starting with ``label`` and the folder."""
    folder = Path(folder)
    if folder.exists():
        if not folder.is_dir():
            return f"{label} {folder} exists and is not a folder"
        return None if os.access(folder, os.W_OK | os.X_OK) else f"{label} {folder} is not writable"
    ancestor = folder.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"{label} {folder} cannot be made: {ancestor} is not a folder"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"{label} {folder} cannot be made: {ancestor} is not writable"
    return None


def same_file(a, b) -> bool:
    """Whether paths ``a`` and ``b`` name one file (through links, hard links included)."""
    try:
        if os.path.samefile(a, b):
            return True
    except OSError:  # one of them does not exist (yet)
        pass
    return os.path.realpath(a) == os.path.realpath(b)


def output_problem(label: str, path, inputs: Iterable = (), overwrite: bool = False) -> str | None:
    """None if the file ``path`` may be written, else why not (see the module doc); ``inputs`` are
    the files the command reads, which it must never overwrite."""
    path = Path(path)
    for source in inputs:
        if same_file(path, source):
            return f"{label} {path} is the input {source}; writing it would destroy the input, choose another file"
    if os.path.lexists(path):
        mode = os.lstat(path).st_mode
        kind = _special_kind(mode)
        if kind is not None:
            return f"{label} {path} is {kind}, not a file to write"
        if not overwrite:
            what = f"is a symbolic link (to {os.readlink(path)})" if stat.S_ISLNK(mode) else "already exists"
            return f"{label} {path} {what}; choose a new file or {OVERWRITE_HINT}"
    problem = folder_problem("folder", path.parent)
    return f"{label} {path}: {problem}" if problem else None


def _create_temp(path: Path):
    """A new file beside ``path`` for writing: (descriptor, its path). O_EXCL and O_NOFOLLOW: the
    name is new, so nothing planted in advance (a link) is ever opened."""
    while True:
        temp = path.parent / f".{path.name[:_NAME_KEPT]}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(temp, _TEMP_FLAGS, 0o666), temp  # the umask applies, as for any new file
        except FileExistsError:
            continue


@contextmanager
def open_atomic(path) -> Iterator[BinaryIO]:
    """A binary stream whose bytes replace ``path`` when the ``with`` block ends without error
    (see the module doc); on error the temporary file is removed and ``path`` is untouched."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = _create_temp(path)
    try:
        with suppress(FileNotFoundError):
            old = os.lstat(path)
            if stat.S_ISREG(old.st_mode):  # a file written again keeps its permissions
                os.chmod(temp, stat.S_IMODE(old.st_mode))
        with os.fdopen(fd, "wb") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp)
        raise


def write_atomic(path, data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` atomically, replacing a link rather than following it."""
    with open_atomic(path) as stream:
        stream.write(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(path)


def write_private(data: str | bytes, prefix: str, suffix: str) -> Path:
    """Write ``data`` to a fresh file that only this user can read, in the temporary folder; its path."""
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=suffix)
    with os.fdopen(fd, "wb") as stream:
        stream.write(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(name)
