"""Match records in the browser: the replay viewer page of a finished game, or of a record a person
opens (uploads or pastes), served with the viewer's own controls.

An opened record is read like a record file (:mod:`monster_zoo.envs.core.records`): at most
``MAX_RECORD_BYTES`` of JSON nested at most ``MAX_RECORD_DEPTH`` levels, every field checked,
then replayed through the AEC env with every action checked; anything else is refused (422)
with the record's own message. The page is the one ``monster-zoo replay --html`` writes
(:func:`monster_zoo.envs.replay.write_html`), so a record looks the same opened here or there.
Building it draws every step from every view, so a record is refused when that would take
more than :data:`MAX_VIEWER_PICTURES` pictures (the command line builds any), and one page is
built at a time.
"""

import tempfile
import threading
from pathlib import Path

from monster_zoo.envs.core.records import RecordError, validate_record
from monster_zoo.envs.replay import write_html

from .refusals import too_many, unprocessable

# About 1.5-5 ms a picture on the 2-core development machine: at most some 40 s of one core.
MAX_VIEWER_PICTURES = 8_000
_BUILDING = threading.Lock()


def checked_record(data, where: str) -> dict:
    """``data`` (a JSON value already read within bounds) if it is a record of this library's
    format and version; 422 with the record's own message otherwise."""
    try:
        return validate_record(data, where)
    except RecordError as err:
        raise unprocessable(str(err)) from None


def viewer_page(record: dict, where: str) -> str:
    """The replay viewer page of ``record`` (checked while it is replayed); 422 for a record that
    does not replay or is too long to draw here, 429 while another page is being built."""
    pictures = (len(record["actions"]) + 1) * (len(record["agents"]) + 1)
    if pictures > MAX_VIEWER_PICTURES:
        raise unprocessable(
            f"{where} would take {pictures:,} pictures ({len(record['actions']):,} steps, "
            f"{len(record['agents'])} seats and the public view); the app draws at most "
            f"{MAX_VIEWER_PICTURES:,}: use 'monster-zoo replay RECORD --html PAGE' instead"
        )
    if not _BUILDING.acquire(blocking=False):
        raise too_many("another replay page is being built; open this one again in a moment")
    try:
        # write_html is the viewer's one builder; its page passes through a private folder that
        # is removed at once (nothing from the request names a path).
        with tempfile.TemporaryDirectory(prefix="monster-zoo-viewer-") as folder:
            return write_html(record, Path(folder) / "replay.html", where).read_text(encoding="utf-8")
    except RecordError as err:
        raise unprocessable(str(err)) from None
    finally:
        _BUILDING.release()
