"""Reading files that a hostile or careless user may hand us, within bounds fixed before reading.

Every file monster-zoo reads from a user (match records, policy files, a leaderboard's
earlier results) goes through these helpers, which refuse, with an error naming the file:

* anything that is not a regular file: a FIFO (opened without blocking, so it cannot hang the
  reader), a device such as ``/dev/zero``, a folder;
* a file or stream larger than the caller's cap: the bytes are read in chunks and reading stops
  one byte past the cap, whatever a size field (a zip entry's header) claims;
* JSON nested deeper than the caller's cap, found by a scan that does not recurse, before
  :func:`json.loads` (which recurses once per level) ever sees it;
* bytes that are not UTF-8 text, or text that is not JSON.

:func:`read_json_file` (a file) and :func:`parse_json` (bytes already read within a cap: a zip
entry, a request body) are the one way monster-zoo decodes JSON it did not write itself. Each
helper takes the exception to raise (the caller's own ``ValueError`` subclass, such as
``RecordError`` or ``ModelFileError``, or any callable that makes one from a message), so a
refusal reads like the caller's other errors.
"""

import json
import os
import re
import stat
from collections.abc import Callable
from typing import Any, BinaryIO

import numpy as np

CHUNK = 1 << 16

# A JSON string with its escapes; written as an unrolled loop, which the regex engine matches in
# linear time whatever the string holds.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


def _kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "a special file"


def read_at_most(
    stream: BinaryIO, max_bytes: int, what: str, error: Callable[[str], Exception] = ValueError
) -> bytes:
    """Everything ``stream`` holds, read in chunks; ``error`` naming ``what`` as soon as it gives
    more than ``max_bytes`` (at most ``max_bytes + 1`` bytes are ever read)."""
    chunks, total = [], 0
    while True:
        chunk = stream.read(min(CHUNK, max_bytes + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > max_bytes:
            raise error(f"{what} is larger than {max_bytes:,} bytes, the most accepted")


def open_regular_file(
    path, max_bytes: int, what: str, error: Callable[[str], Exception] = ValueError
) -> BinaryIO:
    """``path`` opened for binary reading if it is a regular file of at most ``max_bytes``, else
    ``error`` naming it (``what`` says what the file should be, e.g. ``"record 'game.json'"``).
    It is opened without blocking, so a FIFO is refused at once instead of waiting for a writer."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as err:
        raise error(f"cannot read {what}: {err.strerror or err}") from None
    info = os.fstat(fd)
    problem = (
        f"is {_kind(info.st_mode)}, not a regular file"
        if not stat.S_ISREG(info.st_mode)
        else f"is {info.st_size:,} bytes; the most accepted is {max_bytes:,}"
        if info.st_size > max_bytes
        else None
    )
    if problem:
        os.close(fd)
        raise error(f"{what} {problem}")
    return os.fdopen(fd, "rb")


def read_regular_file(
    path, max_bytes: int, what: str, error: Callable[[str], Exception] = ValueError
) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``max_bytes`` (see
    :func:`open_regular_file`), else ``error`` naming it."""
    with open_regular_file(path, max_bytes, what, error) as stream:
        try:
            return read_at_most(stream, max_bytes, what, error)  # it may have grown since it was opened
        except OSError as err:
            raise error(f"cannot read {what}: {err.strerror or err}") from None


class BoundedReader:
    """A read-only view of a binary stream that raises ``error`` once more than ``max_bytes`` are
    asked of it: for readers such as ``numpy.lib.format.read_array`` that read a stream themselves."""

    def __init__(
        self, stream: BinaryIO, max_bytes: int, what: str, error: Callable[[str], Exception] = ValueError
    ):
        self.stream, self.left, self.max_bytes, self.what, self.error = (
            stream,
            max_bytes,
            max_bytes,
            what,
            error,
        )

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes (all that is left within the cap when ``size`` is negative)."""
        wanted = self.left + 1 if size is None or size < 0 else size
        if wanted > self.left:
            data = self.stream.read(self.left + 1)
            if len(data) > self.left:
                raise self.error(f"{self.what} is larger than {self.max_bytes:,} bytes, the most accepted")
        else:
            data = self.stream.read(wanted)
        self.left -= len(data)
        return data


def json_depth(text: str) -> int:
    """How deeply the arrays and objects of the JSON ``text`` nest (0 for a bare value), counted
    without recursion; text that is not JSON gets a depth too, and json.loads will refuse it."""
    skeleton = _JSON_STRING.sub("", text).encode("utf-8", "surrogatepass")
    codes = np.frombuffer(skeleton, np.uint8)
    brackets = np.flatnonzero(
        (codes == ord("[")) | (codes == ord("{")) | (codes == ord("]")) | (codes == ord("}"))
    )
    if not len(brackets):
        return 0
    steps = np.where((codes[brackets] == ord("[")) | (codes[brackets] == ord("{")), 1, -1).astype(np.int32)
    return int(np.cumsum(steps).max())


def check_json_depth(
    text: str, max_depth: int, what: str, error: Callable[[str], Exception] = ValueError
) -> None:
    """``error`` naming ``what`` if the JSON ``text`` nests deeper than ``max_depth`` levels."""
    depth = json_depth(text)
    if depth > max_depth:
        raise error(f"{what} nests JSON {depth:,} levels deep; the most accepted is {max_depth}")


def parse_json(raw: bytes, max_depth: int, what: str, error: Callable[[str], Exception] = ValueError) -> Any:
    """The JSON value of ``raw`` (bytes already read within a cap): ``error`` naming ``what`` if they
    are not UTF-8 text, nest deeper than ``max_depth`` levels, or are not JSON. The value is not
    checked further: its shape is the caller's to check."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise error(f"{what} is not JSON: it is not UTF-8 text ({err})") from None
    check_json_depth(text, max_depth, what, error)
    try:
        return json.loads(text)
    except ValueError as err:
        raise error(f"{what} is not JSON ({err})") from None


def read_json_file(
    path, max_bytes: int, max_depth: int, what: str, error: Callable[[str], Exception] = ValueError
) -> Any:
    """The JSON value of the file ``path``, read within ``max_bytes`` (:func:`read_regular_file`)
    and ``max_depth`` (:func:`parse_json`); ``error`` naming ``what`` otherwise."""
    return parse_json(read_regular_file(path, max_bytes, what, error), max_depth, what, error)
