"""Reading the measurement files and writing their figures as markdown (for ``render_results.py``).

The files are parsed as plain JSON, never executed, within bounds fixed here (size, nesting,
number of records), through the package's bounded readers; a file outside them is refused with
its name. Every value from them reaches a page through one of the formatters below, which escape
text for the markdown table cell it lands in and write "not recorded" for a missing field.
"""

import json
import math
import re
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from monster_zoo.envs.core.bounded_reading import check_json_depth, read_regular_file
from monster_zoo.envs.core.escaping import markdown_cell, markdown_code

MEASUREMENTS = "docs/measurements"
NOT_RECORDED = "not recorded"

# Bounds on what a data file may hold; the largest tracked file is a few hundred KiB.
MAX_FILE_BYTES = 16 << 20
MAX_JSON_DEPTH = 12
MAX_RECORDS = 100_000

_DATE_IN_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})")
_HEX = re.compile(r"^[0-9a-fA-F]{7,40}$")


class DataError(ValueError):
    """A measurement file that cannot be rendered: unreadable, too large, too deep or not JSON."""


def read_json(path: Path, what: str):
    """The JSON value of the file ``path`` (``what`` names it in errors), read within the bounds."""
    text = read_regular_file(path, MAX_FILE_BYTES, what, DataError).decode("utf-8", "replace")
    check_json_depth(text, MAX_JSON_DEPTH, what, DataError)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise DataError(f"{what} is not JSON: {err}") from None


def read_jsonl(path: Path, what: str) -> list[dict]:
    """The objects of the JSON-lines file ``path``, one a line (blank lines skipped), within the bounds."""
    text = read_regular_file(path, MAX_FILE_BYTES, what, DataError).decode("utf-8", "replace")
    check_json_depth(text, MAX_JSON_DEPTH, what, DataError)
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > MAX_RECORDS:
        raise DataError(f"{what} holds {len(lines):,} records; the most accepted is {MAX_RECORDS:,}")
    records = []
    for number, line in enumerate(lines, 1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise DataError(f"{what}, record {number}, is not JSON: {err}") from None
        if not isinstance(record, dict):
            raise DataError(f"{what}, record {number}, is not a JSON object")
        records.append(record)
    return records


@dataclass
class Sources:
    """The data files under ``root`` that one page reads, with their records as read."""

    root: Path
    used: set

    def jsonl(self, pattern: str, folder: str = MEASUREMENTS) -> list[tuple[str, dict]]:
        """(file, record) for every record of the files matching ``pattern`` under ``folder``
        (the measurements folder unless given), files in name order."""
        found = []
        for path in sorted((self.root / folder).glob(pattern)):
            name = path.relative_to(self.root).as_posix()
            self.used.add(name)
            found += [(name, record) for record in read_jsonl(path, name)]
        return found

    def json_files(self, folder: str, pattern: str) -> list[tuple[str, object]]:
        """(file, value) for every JSON file matching ``pattern`` under ``folder``, in name order."""
        found = []
        for path in sorted((self.root / folder).glob(pattern)):
            name = path.relative_to(self.root).as_posix()
            self.used.add(name)
            found.append((name, read_json(path, name)))
        return found


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def text(value) -> str:
    """``value`` as an escaped table cell; "not recorded" when it is missing or empty."""
    if value is None or value == "" or value == []:
        return NOT_RECORDED
    if isinstance(value, list):
        return ", ".join(text(item) for item in value)
    return markdown_cell(str(value))


def exact(value, unit: str = "") -> str:
    """A number as recorded, thousands separated, with ``unit`` (a list's numbers joined before
    it); a rate of a thousand or more is shown to the unit (its decimals are timer noise)."""
    if isinstance(value, list) and value:
        return ", ".join(exact(item) for item in value) + unit
    if not is_number(value):
        return text(value)
    if isinstance(value, float) and abs(value) >= 1000:
        return f"{round(value):,}{unit}"
    return f"{value:,}{unit}"


def fixed(value, digits: int, unit: str = "") -> str:
    """A number with ``digits`` decimals (a rate, a median computed here) and ``unit``."""
    if not is_number(value):
        return text(value)
    return f"{value:,.{digits}f}{unit}"


def percent(value) -> str:
    """A share as a percentage with one decimal (0.2455 -> 24.5%)."""
    return fixed(value * 100, 1, "%") if is_number(value) else text(value)


def interval(pair) -> str:
    """A 95% interval as [low, high] with three decimals."""
    if isinstance(pair, list) and len(pair) == 2 and all(is_number(v) for v in pair):
        return f"[{pair[0]:.3f}, {pair[1]:.3f}]"
    return text(pair)


def rate_with_interval(rate, pair, games=None) -> str:
    """A win rate with its interval and game count: 0.930 [0.863, 0.966] (100 games)."""
    shown = f"{fixed(rate, 3)} {interval(pair) if pair is not None else '[interval not recorded]'}"
    return f"{shown} ({exact(games)} games)" if games is not None else shown


def load(value) -> str:
    """A load average with two decimals."""
    return fixed(value, 2)


def arguments(value) -> str:
    """A command line's arguments (a list, or a string) as one escaped line."""
    return text(" ".join(map(str, value)) if isinstance(value, list) else value)


def when(record: dict, name: str) -> str:
    """The record's date and time (minutes), or the date in its file's name, or "not recorded"."""
    stamp = record.get("time", record.get("date"))
    if isinstance(stamp, str) and stamp:
        return text(stamp[:16].replace("T", " "))
    found = _DATE_IN_NAME.search(Path(name).name)
    return f"{found.group(1)} (file name)" if found else NOT_RECORDED


def host(record: dict) -> str:
    """The machine: CPU model and core count (flat in the record or under ``host``), with the
    accelerator where there is one; "not recorded" for what the record lacks."""
    facts = record.get("host") if isinstance(record.get("host"), dict) else record
    device, cpu = record.get("device"), facts.get("cpu")
    cores = facts.get("cores", facts.get("cpus"))
    machine = (
        NOT_RECORDED if not cpu else f"{text(cpu)}, {exact(cores)} cores" if cores is not None else text(cpu)
    )
    if device:
        return f"{text(device)} (host CPU {NOT_RECORDED})" if not cpu else f"{text(device)} on {machine}"
    return machine


def commit(record: dict) -> str:
    """The git commit the record was measured at (12 characters at most, and whether the tree had
    uncommitted changes: a ``git_dirty`` field or a ``-dirty`` suffix), or "not recorded"."""
    sha = record.get("git")
    dirty = record.get("git_dirty") is True
    if isinstance(sha, str) and sha.endswith("-dirty"):
        sha, dirty = sha[: -len("-dirty")], True
    shown = sha[:12] if isinstance(sha, str) and _HEX.match(sha) else text(sha)
    return f"{shown} (with uncommitted changes)" if dirty else shown


def table(header: list[str], rows: Iterable[list[str]], key: Callable[[list[str]], tuple] = tuple) -> str:
    """A markdown table; rows sorted by ``key`` (on their cell texts), then whole, so the same data
    gives the same table whatever order the files list it in."""
    ordered = sorted(rows, key=lambda row: (key(row), row))
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in ordered]
    return "\n".join(lines)


def median(values: list) -> float | None:
    """The median of the numbers in ``values`` (None when there are none)."""
    numbers = [v for v in values if is_number(v)]
    return statistics.median(numbers) if numbers else None


@dataclass
class Page:
    """A generated page: its title, what it says, and the data files it was rendered from."""

    name: str
    title: str
    sections: list
    sources: list

    def markdown(self) -> str:
        """The page's markdown, opening with the notice that it is generated and from what."""
        files = "\n".join(f"- {markdown_code(name)}" for name in sorted(self.sources)) or f"- {NOT_RECORDED}"
        notice = (
            f"<!-- generated by docs/render_results.py from the files listed below; edit the data, not this page -->\n\n"
            "This page is generated by `docs/render_results.py` (`make docs` runs it) from these files, "
            "and a test fails when it differs from what they render. A cell reads "
            f'"{NOT_RECORDED}" where a file lacks the field.\n\n{files}'
        )
        return "\n\n".join([f"# {self.title}", notice, *self.sections]).rstrip() + "\n"


def section(title: str, intro: str, body: str) -> str:
    return f"## {title}\n\n{intro}\n\n{body}"


def protocol(*parts) -> str:
    shown = [part for part in parts if part and NOT_RECORDED not in part]
    return "; ".join(shown) or NOT_RECORDED


def median_range(median_value, low, high) -> str:
    return f"{exact(median_value, '×')} [{exact(low)}-{exact(high)}]"


def minutes(seconds) -> str:
    """Seconds as minutes and seconds: 164 -> 2 min 44 s."""
    if not is_number(seconds):
        return text(seconds)
    whole = int(round(seconds))
    return f"{whole // 60} min {whole % 60} s"


def columns(spec: str) -> list[str]:
    """A table's header from ``"a | b | c"``."""
    return [name.strip() for name in spec.split("|")]
