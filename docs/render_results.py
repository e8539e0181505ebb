"""Render the results pages (``docs/results/*.md``) and the README's headline table from the
tracked measurement files, so that no figure is typed by hand.

``make docs`` runs it before Sphinx; ``python docs/render_results.py --check`` writes nothing and
exits 1 naming every page that differs from what the data renders (``tests/test_results_pages.py``
runs the same comparison). The sources:

* ``docs/measurements/*.jsonl``: one JSON object a line, written by the benchmark scripts
  (``cpu_speed_*``, ``greedy_speed_*``, ``gpu_*``, ``device_train_*``, ``device_ppo_parts_*``,
  ``training_throughput_*``, ``az_strength_*``, ``commands_*``);
* ``docs/leaderboard/*.json``: the leaderboard's tournaments (``monster-zoo leaderboard``);
* ``training/results/champions/``: the PPO champions' training summaries and evaluations.

Every row carries its date, host, git commit and protocol where its record has them, and "not
recorded" where it does not: a missing field is never filled in. The data files are parsed as
plain JSON within fixed bounds (size, nesting, number of records), every text from them is
escaped for the markdown table cell it lands in, and each page is written atomically.
"""

import argparse
import json
import math
import re
import statistics
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from monster_zoo.envs.core.bounded_reading import check_json_depth, read_regular_file
from monster_zoo.envs.core.escaping import markdown_cell, markdown_code
from monster_zoo.envs.core.safe_writing import write_atomic

REPOSITORY = Path(__file__).resolve().parents[1]
MEASUREMENTS = "docs/measurements"
LEADERBOARD = "docs/leaderboard"
CHAMPION_RUNS = "training/results/champions"
RESULTS = "docs/results"
README = "README.md"

NOT_RECORDED = "not recorded"
HEADLINE_START = "<!-- results:headline -->"
HEADLINE_END = "<!-- /results:headline -->"

# Bounds on what a data file may hold; the largest tracked file is a few hundred KiB.
MAX_FILE_BYTES = 16 << 20
MAX_JSON_DEPTH = 12
MAX_RECORDS = 100_000

_DATE_IN_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})")
_HEX = re.compile(r"^[0-9a-fA-F]{7,40}$")


class DataError(ValueError):
    """A measurement file that cannot be rendered: unreadable, too large, too deep or not JSON."""


# ----------------------------------------------------------------------------------------------
# Reading


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

    def jsonl(self, pattern: str) -> list[tuple[str, dict]]:
        """(file, record) for every record of the files matching ``pattern`` under the
        measurements folder, files in name order."""
        found = []
        for path in sorted((self.root / MEASUREMENTS).glob(pattern)):
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


# ----------------------------------------------------------------------------------------------
# Formatting: every value from a data file passes through one of these


def _is_number(value) -> bool:
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
    if not _is_number(value):
        return text(value)
    if isinstance(value, float) and abs(value) >= 1000:
        return f"{round(value):,}{unit}"
    return f"{value:,}{unit}"


def fixed(value, digits: int, unit: str = "") -> str:
    """A number with ``digits`` decimals (a rate, a median computed here) and ``unit``."""
    if not _is_number(value):
        return text(value)
    return f"{value:,.{digits}f}{unit}"


def percent(value) -> str:
    """A share as a percentage with one decimal (0.2455 -> 24.5%)."""
    return fixed(value * 100, 1, "%") if _is_number(value) else text(value)


def interval(pair) -> str:
    """A 95% interval as [low, high] with three decimals."""
    if isinstance(pair, list) and len(pair) == 2 and all(_is_number(v) for v in pair):
        return f"[{pair[0]:.3f}, {pair[1]:.3f}]"
    return text(pair)


def rate_with_interval(rate, pair, games=None) -> str:
    """A win rate with its interval and game count: 0.930 [0.863, 0.966] (100 games)."""
    shown = f"{fixed(rate, 3)} {interval(pair)}"
    return f"{shown} ({exact(games)} games)" if games is not None else shown


def when(record: dict, name: str) -> str:
    """The record's date and time (minutes), or the date in its file's name, or "not recorded"."""
    stamp = record.get("time", record.get("date"))
    if isinstance(stamp, str) and stamp:
        return text(stamp[:16].replace("T", " "))
    found = _DATE_IN_NAME.search(Path(name).name)
    return f"{found.group(1)} (file name)" if found else NOT_RECORDED


def host(record: dict) -> str:
    """The machine: CPU model and core count, or the accelerator (whose host CPU a GPU record lacks)."""
    device, cpu = record.get("device"), record.get("cpu")
    cores = record.get("cores", record.get("cpus"))
    if device and not cpu:
        return f"{text(device)} (host CPU {NOT_RECORDED})"
    if not cpu:
        return NOT_RECORDED
    return f"{text(cpu)}, {exact(cores)} cores" if cores is not None else text(cpu)


def commit(record: dict) -> str:
    """The git commit the record was measured at (12 characters at most), or "not recorded"."""
    sha = record.get("git")
    shown = sha[:12] if isinstance(sha, str) and _HEX.match(sha) else text(sha)
    return f"{shown} (with uncommitted changes)" if record.get("git_dirty") is True else shown


def table(header: list[str], rows: Iterable[list[str]], key: Callable[[list[str]], tuple] = tuple) -> str:
    """A markdown table; rows sorted by ``key`` (on their cell texts), then whole, so the same data
    gives the same table whatever order the files list it in."""
    ordered = sorted(rows, key=lambda row: (key(row), row))
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in ordered]
    return "\n".join(lines)


def median(values: list) -> float | None:
    """The median of the numbers in ``values`` (None when there are none)."""
    numbers = [v for v in values if _is_number(v)]
    return statistics.median(numbers) if numbers else None


# ----------------------------------------------------------------------------------------------
# Pages


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


def _section(title: str, intro: str, body: str) -> str:
    return f"## {title}\n\n{intro}\n\n{body}"


def _protocol(*parts) -> str:
    shown = [part for part in parts if part and NOT_RECORDED not in part]
    return "; ".join(shown) or NOT_RECORDED


def _range(median_value, low, high) -> str:
    return f"{exact(median_value, '×')} [{exact(low)}-{exact(high)}]"


def batched_per_core(records: list[tuple[str, dict]]) -> list[tuple[str, dict, float | None]]:
    """(file, record, per-core ratio) for each batched-engine record: its steps/s divided by its
    threads and by the OpenSpiel anchor measured in the same run (same time stamp)."""
    openspiel = {
        r.get("time"): r.get("steps_per_second")
        for _, r in records
        if r.get("part") == "anchor" and r.get("anchor") == "openspiel connect_four"
    }
    out = []
    for name, r in records:
        if r.get("part") != "batched":
            continue
        values = (r.get("steps_per_second"), r.get("threads"), openspiel.get(r.get("time")))
        ok = all(_is_number(v) and v > 0 for v in values)
        out.append((name, r, values[0] / values[1] / values[2] if ok else None))
    return out


def speed_page(root: Path) -> Page:
    """CPU engines against their anchors, the greedy kernels' speed, and the commands' wall times."""
    src = Sources(root, set())
    records = src.jsonl("cpu_speed_*.jsonl")

    def run_protocol(r: dict) -> str:
        return _protocol(
            text(r.get("command")),
            f"{exact(r.get('runs'))} runs of {exact(r.get('repeats'))} repeats of {exact(r.get('seconds_per_repeat'))} s"
            if r.get("repeats") is not None
            else f"{exact(r.get('runs'))} runs",
            f"load {exact(r.get('load_1min_before'))} at the start",
            text(r.get("source")),
        )

    anchor_rows = [
        [
            text(r.get("anchor")),
            exact(r.get("steps_per_second")),
            when(r, n),
            host(r),
            commit(r),
            run_protocol(r),
        ]
        for n, r in records
        if r.get("part") == "anchor"
    ]
    batched_rows = []
    for n, r, per_core in batched_per_core(records):
        vs = r.get("vs_openspiel") if isinstance(r.get("vs_openspiel"), dict) else {}
        batched_rows.append(
            [
                text(r.get("game")),
                exact(r.get("steps_per_second")),
                exact(r.get("threads")),
                _range(vs.get("median"), vs.get("low"), vs.get("high")),
                fixed(per_core, 2, "×"),
                exact(r.get("vs_pgx_connect_four"), "×"),
                exact(r.get("vs_pgx_sparrow_mahjong"), "×"),
                exact(r.get("single_state_steps_per_second")),
                exact(r.get("warm_start_s"), " s"),
                exact(r.get("cold_start_s"), " s"),
                when(r, n),
                host(r),
                commit(r),
                run_protocol(r),
            ]
        )
    aec_rows = []
    for n, r in records:
        if r.get("part") != "aec":
            continue
        vs = r.get("vs_pettingzoo") if isinstance(r.get("vs_pettingzoo"), dict) else {}
        aec_rows.append(
            [
                text(r.get("game")),
                exact(r.get("steps_per_second")),
                _range(vs.get("median"), vs.get("low"), vs.get("high")),
                when(r, n),
                host(r),
                commit(r),
                run_protocol(r),
            ]
        )
    greedy_rows = [
        [
            text(r.get("game")),
            exact(r.get("players")),
            exact(r.get("now_decisions_per_s")),
            exact(r.get("now_us_per_decision"), " µs"),
            exact(r.get("baseline_decisions_per_s")),
            text(r.get("baseline")),
            exact(r.get("speedup"), "×"),
            when(r, n),
            host(r),
            commit(r),
            _protocol(
                f"{exact(r.get('positions'))} positions of seeded play",
                f"{exact(r.get('repeats'))} repeats",
                f"load {exact(r.get('load_1min_before'))} to {exact(r.get('load_1min_after'))}",
            ),
        ]
        for n, r in src.jsonl("greedy_speed_*.jsonl")
    ]
    sections = [
        _section(
            "Anchors",
            "The reference engines each ratio below divides by, measured in the same run.",
            table(
                ["anchor", "steps/s", "date", "host", "git", "protocol"],
                anchor_rows,
                key=lambda row: (row[2], row[0]),
            ),
        ),
        _section(
            "Batched engine",
            '`step_random` inside numba at the best batch size. "Per core" divides the engine\'s '
            "steps/s by its threads and by OpenSpiel's steps/s on one core, from the medians.",
            table(
                [
                    "game",
                    "steps/s",
                    "threads",
                    "vs OpenSpiel: median [range]",
                    "per core vs OpenSpiel",
                    "vs Pgx connect_four",
                    "vs Pgx sparrow_mahjong",
                    "single-state loop, steps/s",
                    "warm start",
                    "cold start (compile)",
                    "date",
                    "host",
                    "git",
                    "protocol",
                ],
                batched_rows,
                key=lambda row: (row[10], row[0]),
            ),
        ),
        _section(
            "AEC environment",
            "`env()` stepped through PettingZoo's API, against PettingZoo's own `connect_four_v3`.",
            table(
                ["game", "steps/s", "vs PettingZoo: median [range]", "date", "host", "git", "protocol"],
                aec_rows,
                key=lambda row: (row[3], row[0]),
            ),
        ),
        _section(
            "Greedy baselines",
            "Decisions per second of each game's greedy kernel on one thread, against the kernel at "
            "the baseline commit.",
            table(
                [
                    "game",
                    "players",
                    "decisions/s",
                    "per decision",
                    "baseline decisions/s",
                    "baseline commit",
                    "speed-up",
                    "date",
                    "host",
                    "git",
                    "protocol",
                ],
                greedy_rows,
                key=lambda row: (row[7], row[0]),
            ),
        ),
        command_times_section(src),
    ]
    return Page("speed", "Speed", sections, sorted(src.used))


def command_times_section(src: Sources) -> str:
    """The wall times of the everyday commands (``benchmarks/command_times.py``)."""
    rows = [
        [
            text(r.get("command")),
            fixed(r.get("wall_s"), 1, " s"),
            _minutes(r.get("wall_s")),
            exact(r.get("exit_status")),
            text(r.get("numba_cache")),
            when(r, n),
            host(r),
            commit(r),
            _protocol(
                f"load {exact(r.get('load_1min_before'))} before, {exact(r.get('load_1min_after'))} after",
                f"{fixed(r.get('cpu_share'), 2)} of one core" if r.get("cpu_share") is not None else "",
            ),
        ]
        for n, r in src.jsonl("commands_*.jsonl")
    ]
    body = (
        table(
            [
                "command",
                "wall time",
                "minutes",
                "exit status",
                "numba cache",
                "date",
                "host",
                "git",
                "protocol",
            ],
            rows,
            key=lambda row: (row[0], row[5]),
        )
        if rows
        else "No command has been timed yet: `python -m monster_zoo.benchmarks.command_times` times them."
    )
    return _section(
        "Command times",
        "Wall time of the commands the README and the Makefile name, from a fresh shell "
        "(`python -m monster_zoo.benchmarks.command_times`).",
        body,
    )


def _minutes(seconds) -> str:
    if not _is_number(seconds):
        return text(seconds)
    whole = int(round(seconds))
    return f"{whole // 60} min {whole % 60} s"


def _best(records: list[dict], **match) -> dict | None:
    """The record of ``records`` matching every ``match`` field with the most steps per second."""
    found = [
        r
        for r in records
        if all(r.get(k) == v for k, v in match.items()) and _is_number(r.get("steps_per_second"))
    ]
    return max(found, key=lambda r: r["steps_per_second"], default=None)


def _at(record: dict | None) -> str:
    if record is None:
        return NOT_RECORDED
    envs = record.get("num_envs")
    power = (
        f" (2^{int(math.log2(envs))} games)"
        if _is_number(envs) and envs > 0 and envs & (envs - 1) == 0
        else ""
    )
    return (
        f"{exact(record['steps_per_second'] if _is_number(record['steps_per_second']) else None, '')}{power}"
    )


def gpu_runs(src: Sources) -> dict[str, list[dict]]:
    """The GPU measurement files' records, by file."""
    runs: dict[str, list[dict]] = {}
    for name, record in src.jsonl("gpu_*.jsonl"):
        runs.setdefault(name, []).append(record)
    return runs


def gpu_ratios(records: list[dict]) -> list[tuple[str, dict, float | None]]:
    """(game, its best in-launch record, its share of Pgx connect_four's best in-launch rate)."""
    ok = [r for r in records if "error" not in r]
    pgx = _best(ok, part="pgx", game="connect_four", mode="launch")
    games = sorted({str(r.get("game")) for r in ok if r.get("part") == "bench"})
    out = []
    for game in games:
        best = _best(ok, part="bench", game=game, mode="launch")
        share = best["steps_per_second"] / pgx["steps_per_second"] if best and pgx else None
        out.append((game, best, share))
    return out


def gpu_page(root: Path) -> Page:
    """The engine, Pgx and the trainer on a GPU, and the device parity checks."""
    src = Sources(root, set())
    engine_rows, detail_rows, pgx_rows, parity_rows, trainer_rows, failed_rows = [], [], [], [], [], []
    for name, records in gpu_runs(src).items():
        ok = [r for r in records if "error" not in r]
        pgx_sm = _best(ok, part="pgx", game="sparrow_mahjong", mode="launch")
        for game, best, share in gpu_ratios(records):
            python = _best(ok, part="bench", game=game, mode="python")
            sm = best["steps_per_second"] / pgx_sm["steps_per_second"] if best and pgx_sm else None
            r = best or python or {}
            engine_rows.append(
                [
                    text(game),
                    _at(best),
                    _at(python),
                    percent(share),
                    fixed(sm, 1, "×"),
                    when(r, name),
                    host(r),
                    commit(r),
                    _protocol(
                        f"medians of {exact(r.get('repeats'))} repeats",
                        "random legal actions with auto-reset",
                    ),
                ]
            )
        for r in ok:
            if r.get("part") in ("bench", "pgx"):
                row = [
                    text(("Pgx " if r.get("part") == "pgx" else "") + str(r.get("game"))),
                    text(r.get("mode")),
                    exact(r.get("num_envs")),
                    exact(r.get("steps_per_second")),
                    exact(r.get("seconds"), " s"),
                    when(r, name),
                    host(r),
                    commit(r),
                ]
                (pgx_rows if r.get("part") == "pgx" else detail_rows).append(row)
            elif r.get("part") in ("parity", "trainer_parity"):
                parity_rows.append(
                    [
                        text(r.get("game_id")),
                        text(r.get("part")),
                        exact(r.get("num_players")),
                        exact(r.get("num_envs")),
                        text(r.get("pool", "")) if r.get("pool") else "",
                        exact(r.get("steps")),
                        exact(r.get("games_ended")),
                        "none" if "mismatch" in r and r["mismatch"] is None else text(r.get("mismatch")),
                        when(r, name),
                        host(r),
                        commit(r),
                    ]
                )
            elif r.get("part") == "trainer":
                greedy = r.get("winrate_vs_greedy") if isinstance(r.get("winrate_vs_greedy"), dict) else {}
                trainer_rows.append(
                    [
                        text(r.get("game")),
                        exact(r.get("num_players")),
                        exact(r.get("num_envs")),
                        text(r.get("opponents")),
                        exact(r.get("timesteps_per_second")),
                        percent(r.get("rollout_share")),
                        rate_with_interval(greedy.get("rate"), greedy.get("interval"), greedy.get("games")),
                        when(r, name),
                        host(r),
                        commit(r),
                        _protocol(
                            f"{exact(r.get('train_seconds'))} s of training",
                            f"arguments {text(' '.join(map(str, r['argv'])) if isinstance(r.get('argv'), list) else r.get('argv'))}",
                        ),
                    ]
                )
        failed_rows += [
            [
                text(r.get("failed_part", r.get("part"))),
                text(r.get("game", "")) if r.get("game") else "",
                text(r.get("error")),
                when(r, name),
                host(r),
                commit(r),
            ]
            for r in records
            if "error" in r
        ]
    detail_header = ["game", "mode", "games", "steps/s", "seconds per repeat", "date", "host", "git"]
    sections = [
        _section(
            "Engine",
            "Best steps/s over the batch sizes: inside one launch (`launch`) and stepped from Python "
            "(`python`); the shares divide by Pgx's best in-launch rate on the same device.",
            table(
                [
                    "game",
                    "steps/s in one launch (games)",
                    "steps/s from Python (games)",
                    "of Pgx connect_four",
                    "vs Pgx sparrow_mahjong",
                    "date",
                    "host",
                    "git",
                    "protocol",
                ],
                engine_rows,
                key=lambda row: (row[5], row[0]),
            ),
        ),
        _section(
            "Trainer",
            "`device-train --device cuda`: policy, rollouts and update on the GPU.",
            table(
                [
                    "game",
                    "players",
                    "games",
                    "opponents",
                    "timesteps/s",
                    "rollout share",
                    "vs greedy",
                    "date",
                    "host",
                    "git",
                    "protocol",
                ],
                trainer_rows,
                key=lambda row: (row[7], row[0]),
            ),
        ),
        _section(
            "Pgx anchors",
            "Pgx on JAX's GPU backend, every batch size measured.",
            table(detail_header, pgx_rows, key=lambda row: (row[5], row[0], row[1], row[2].rjust(12))),
        ),
        _section(
            "Every batch size",
            "The engine at every batch size measured.",
            table(detail_header, detail_rows, key=lambda row: (row[5], row[0], row[1], row[2].rjust(12))),
        ),
        _section(
            "Parity on the device",
            "GPU games stepped beside the CPU engine with the same seeds and actions; a mismatch "
            "names the first difference.",
            table(
                [
                    "game",
                    "check",
                    "players",
                    "games",
                    "opponent pool",
                    "steps",
                    "games ended",
                    "mismatch",
                    "date",
                    "host",
                    "git",
                ],
                parity_rows,
                key=lambda row: (row[8], row[0], row[1], row[2]),
            ),
        ),
        _section(
            "Failed parts",
            "Parts of a run that raised instead of measuring; a later run in the same file replaced them.",
            table(
                ["part", "game", "error", "date", "host", "git"],
                failed_rows,
                key=lambda row: (row[3], row[0]),
            ),
        ),
    ]
    return Page("gpu", "GPU", sections, sorted(src.used))


def _by_trainer(runs: list, trainer: str, field: str) -> list:
    return [run.get(field) for run in runs if isinstance(run, dict) and run.get("trainer") == trainer]


def training_page(root: Path) -> Page:
    """Training throughput and the trained agents' strength after equal wall time."""
    src = Sources(root, set())
    throughput = src.jsonl("training_throughput_*.jsonl")
    anchors = {r.get("time"): r.get("timesteps_per_s") for _, r in throughput if r.get("anchor")}
    throughput_rows = []
    for name, r in throughput:
        anchor = anchors.get(r.get("time"))
        ratio = (
            r["timesteps_per_s"] / anchor
            if _is_number(r.get("timesteps_per_s")) and _is_number(anchor)
            else None
        )
        throughput_rows.append(
            [
                text(r.get("trainer")),
                text(r.get("game")),
                text(r.get("opponents")),
                exact(r.get("timesteps_per_s")),
                "anchor" if r.get("anchor") else fixed(ratio, 2, "×"),
                when(r, name),
                host(r),
                commit(r),
                _protocol(
                    text(r.get("command")), f"median of {exact(r.get('repeats'))}", text(r.get("source"))
                ),
            ]
        )
    pair_rows = []
    for name, r in src.jsonl("device_train_cpu_2*.jsonl"):
        runs = r.get("runs") if isinstance(r.get("runs"), list) else []
        sb3, ours = (
            median(_by_trainer(runs, t, "timesteps_per_s")) for t in ("sb3 MaskablePPO", "array-side PPO")
        )
        pair_rows.append(
            [
                exact(ours),
                exact(sb3),
                fixed(ours / sb3 if ours and sb3 else None, 2, "×"),
                ", ".join(fixed(v, 3) for v in _by_trainer(runs, "array-side PPO", "winrate_vs_greedy"))
                or NOT_RECORDED,
                ", ".join(fixed(v, 3) for v in _by_trainer(runs, "sb3 MaskablePPO", "winrate_vs_greedy"))
                or NOT_RECORDED,
                when(r, name),
                host(r),
                commit(r),
                _protocol(
                    f"{exact(r.get('minutes_each'))} min each",
                    text(r.get("game")),
                    f"opponents {text(r.get('opponents'))}",
                    f"device-train flags {text(r.get('device_ppo_args')) if r.get('device_ppo_args') else 'none'}",
                    f"{len(runs)} runs alternated",
                ),
            ]
        )
    screening_rows = [
        [
            text(r.get("label", r.get("config"))),
            text(r.get("args", r.get("device_ppo_args_over_old_defaults"))) or NOT_RECORDED,
            exact(r.get("timesteps_per_s", r.get("tps"))),
            rate_with_interval(r.get("winrate_vs_greedy", r.get("wr_greedy")), r.get("interval")),
            exact(r.get("rollout_seconds", r.get("rollout_s")), " s"),
            exact(r.get("update_seconds", r.get("update_s")), " s"),
            when(r, name),
            host(r),
            commit(r),
            _protocol(
                f"{exact(r.get('minutes'))} min",
                f"seed {exact(r.get('seed'))}",
                f"load {exact(r.get('load_before'))} before",
                text(r.get("note", r.get("start"))),
            ),
        ]
        for name, r in src.jsonl("device_train_cpu_screening_*.jsonl")
    ]
    parts_rows = []
    for name, r in src.jsonl("device_ppo_parts_*.jsonl"):
        parts = r.get("us_per_decision") if isinstance(r.get("us_per_decision"), dict) else {}
        for part, values in parts.items():
            values = values if isinstance(values, list) else []
            numbers = [v for v in values if _is_number(v)]
            parts_rows.append(
                [
                    text(part),
                    fixed(median(values), 3, " µs"),
                    f"{fixed(min(numbers), 3)}-{fixed(max(numbers), 3)}" if numbers else NOT_RECORDED,
                    exact(len(values)),
                    when(r, name),
                    host(r),
                    commit(r),
                    _protocol(
                        f"{exact(r.get('num_envs'))} games x {exact(r.get('num_steps'))} steps",
                        f"batch {exact(r.get('batch_size'))}",
                        f"torch threads {exact(r.get('torch_threads'))}",
                    ),
                ]
            )
    champion_rows = []
    for name, summary in src.json_files(CHAMPION_RUNS, "**/summary.json"):
        if not isinstance(summary, dict):
            raise DataError(f"{name} is not a JSON object")
        args_path = root / Path(name).parent / "args.json"
        args = read_json(args_path, args_path.relative_to(root).as_posix()) if args_path.exists() else {}
        args = args if isinstance(args, dict) else {}
        if args_path.exists():
            src.used.add(args_path.relative_to(root).as_posix())
        greedy = (
            summary.get("winrate_vs_greedy") if isinstance(summary.get("winrate_vs_greedy"), dict) else {}
        )
        champion_rows.append(
            [
                text(Path(name).parent.relative_to(CHAMPION_RUNS).as_posix()),
                text(args.get("game")),
                text(args.get("option")),
                exact(summary.get("timesteps")),
                fixed(
                    summary.get("train_seconds") / 60 if _is_number(summary.get("train_seconds")) else None,
                    1,
                    " min",
                ),
                exact(summary.get("timesteps_per_second")),
                rate_with_interval(greedy.get("rate"), greedy.get("interval"), greedy.get("games")),
                NOT_RECORDED,
                NOT_RECORDED,
                NOT_RECORDED,
                _protocol(
                    f"seed {exact(args.get('seed'))}",
                    f"opponents {text(args.get('opponents'))}",
                    f"{exact(args.get('num_envs'))} games",
                    f"net {text(args.get('net_arch'))}",
                ),
            ]
        )
    sections = [
        _section(
            "Self-play throughput (SB3)",
            "`monster-zoo train`'s vector env against the PettingZoo SB3 connect-four tutorial's setup.",
            table(
                [
                    "trainer",
                    "game",
                    "opponents",
                    "timesteps/s",
                    "vs the tutorial",
                    "date",
                    "host",
                    "git",
                    "protocol",
                ],
                throughput_rows,
                key=lambda row: (row[5], row[0], row[2]),
            ),
        ),
        _section(
            "device-train against SB3 at equal wall time",
            "2-player Marry the Monster, the two trainers alternated for the same minutes each; each "
            "agent's win rate against greedy over 200 games (medians of the runs' timesteps/s).",
            table(
                [
                    "device-train timesteps/s",
                    "SB3 timesteps/s",
                    "ratio",
                    "device-train vs greedy, per run",
                    "SB3 vs greedy, per run",
                    "date",
                    "host",
                    "git",
                    "protocol",
                ],
                pair_rows,
                key=lambda row: (row[5],),
            ),
        ),
        _section(
            "device-train settings screened",
            "One run per setting, 2 minutes each, win rate against greedy over 200 games.",
            table(
                [
                    "setting",
                    "flags",
                    "timesteps/s",
                    "vs greedy",
                    "rollout",
                    "update",
                    "date",
                    "host",
                    "git",
                    "protocol",
                ],
                screening_rows,
                key=lambda row: (row[6], row[0]),
            ),
        ),
        _section(
            "device-train's parts",
            "Microseconds per decision of each part of a PPO iteration on the CPU (median and range over repeats).",
            table(
                ["part", "median", "range", "repeats", "date", "host", "git", "protocol"],
                parts_rows,
                key=lambda row: (row[4], row[0]),
            ),
        ),
        _section(
            "The PPO champions' training runs",
            "`monster-zoo train` runs whose policies ship as champions; the win rate is the run's final evaluation.",
            table(
                [
                    "run",
                    "game",
                    "options",
                    "timesteps",
                    "training",
                    "timesteps/s",
                    "vs greedy",
                    "date",
                    "host",
                    "git",
                    "protocol",
                ],
                champion_rows,
                key=lambda row: (row[0],),
            ),
        ),
        "On a GPU the same trainer's figures are on the [GPU page](gpu.md).",
    ]
    return Page("training", "Training", sections, sorted(src.used))


def strength_rows(src: Sources) -> list[tuple[str, dict]]:
    """The learned search's strength records."""
    return src.jsonl("az_strength_*.jsonl")


def agents_page(root: Path) -> Page:
    """The learned search's strength, the PPO champions' evaluations and the leaderboard's rankings."""
    src = Sources(root, set())

    def strength_row(name: str, r: dict) -> list[str]:
        return [
            text(r.get("game")),
            exact(r.get("num_players")),
            text(r.get("agent")),
            text(r.get("opponent")),
            text(r.get("budget")),
            rate_with_interval(r.get("win_rate"), r.get("interval95"), r.get("games")),
            fixed(r.get("equal_share"), 3),
            exact(r.get("az_simulations")),
            f"{exact(r.get('az_ms_per_move'))} / {exact(r.get('opponent_ms_per_move'))}",
            when(r, name),
            host(r),
            commit(r),
            _protocol(
                f"seeds {text(r.get('seeds'))}",
                f"rollout weight {exact(r.get('az_rollout_weight'))}",
                text(r.get("command")),
                text(r.get("source")),
            ),
        ]

    header = [
        "game",
        "players",
        "agent",
        "opponent",
        "budget",
        "win rate [95%]",
        "equal share",
        "simulations",
        "CPU ms a move (agent / opponent)",
        "date",
        "host",
        "git",
        "protocol",
    ]
    strength = strength_rows(src)
    groups = {
        "against mcts": [strength_row(n, r) for n, r in strength if r.get("opponent") == "mcts"],
        "against greedy": [
            strength_row(n, r)
            for n, r in strength
            if r.get("opponent") == "greedy" and r.get("budget") != "network alone"
        ],
        "network alone": [
            strength_row(n, r)
            for n, r in strength
            if r.get("opponent") != "mcts" and r.get("budget") == "network alone"
        ],
    }
    evaluation_rows = []
    for name, evaluation in src.json_files(CHAMPION_RUNS, "**/evaluation.json"):
        runs = (
            evaluation.get("runs")
            if isinstance(evaluation, dict) and isinstance(evaluation.get("runs"), dict)
            else {}
        )
        for run, result in runs.items():
            result = result if isinstance(result, dict) else {}
            greedy = result.get("vs_greedy") if isinstance(result.get("vs_greedy"), dict) else {}
            rand = result.get("vs_random") if isinstance(result.get("vs_random"), dict) else {}
            evaluation_rows.append(
                [
                    text(Path(name).parent.relative_to(CHAMPION_RUNS).as_posix()),
                    text(run),
                    text(result.get("seed")),
                    exact(result.get("timesteps")),
                    rate_with_interval(greedy.get("rate"), greedy.get("interval")),
                    rate_with_interval(rand.get("rate"), rand.get("interval")),
                    "yes" if str(result.get("seed")) == str(evaluation.get("shipped_seed")) else "no",
                    NOT_RECORDED,
                    NOT_RECORDED,
                    NOT_RECORDED,
                    text(evaluation.get("protocol")),
                ]
            )
    board_rows = []
    for name, board in src.json_files(LEADERBOARD, "*.json"):
        board = board if isinstance(board, dict) else {}
        ratings = board.get("ratings") if isinstance(board.get("ratings"), list) else []
        ranking = " > ".join(
            f"{text(r.get('agent'))} ({fixed(r.get('ordinal'), 1)})" for r in ratings if isinstance(r, dict)
        )
        board_rows.append(
            [
                text(board.get("game")),
                exact(board.get("num_players")),
                exact(board.get("games_per_pairing")),
                ranking or NOT_RECORDED,
                fixed(board.get("elapsed_s") / 60 if _is_number(board.get("elapsed_s")) else None, 1, " min"),
                when(board, name) if board.get("time") else NOT_RECORDED,
                host(board),
                commit(board),
                _protocol(
                    f"seed {exact(board.get('seed'))}", f"{exact(board.get('rated_games'))} rated games"
                ),
            ]
        )
    sections = [
        _section(
            "Learned search against mcts",
            "`az` (or its network) in one seat, the tuned search in every other seat; seats rotated, "
            "deals paired. The budget says how `az`'s simulations were sized.",
            table(header, groups["against mcts"], key=lambda row: (row[0], row[1].rjust(3), row[4])),
        ),
        _section(
            "Learned search against greedy",
            "`az` at its shipped simulation count against greedy in every other seat.",
            table(header, groups["against greedy"], key=lambda row: (row[0], row[1].rjust(3))),
        ),
        _section(
            "The network alone",
            "The policy network without its search, against greedy and against the PPO champion.",
            table(header, groups["network alone"], key=lambda row: (row[0], row[1].rjust(3), row[3])),
        ),
        _section(
            "PPO champions' evaluation",
            "Every seed trained for a champion, evaluated on the same deals; the shipped one is marked.",
            table(
                [
                    "champion",
                    "run",
                    "seed",
                    "timesteps",
                    "vs greedy",
                    "vs random",
                    "shipped",
                    "date",
                    "host",
                    "git",
                    "protocol",
                ],
                evaluation_rows,
                key=lambda row: (row[0], row[2]),
            ),
        ),
        _section(
            "Leaderboard",
            "Every agent against every other in each game (openskill ordinal, best first); the "
            "[leaderboard page](../leaderboard.md) has the win-rate tables.",
            table(
                [
                    "game",
                    "players",
                    "games per pairing",
                    "ranking (ordinal)",
                    "wall time",
                    "date",
                    "host",
                    "git",
                    "protocol",
                ],
                board_rows,
                key=lambda row: (row[0], row[1].rjust(3)),
            ),
        ),
    ]
    return Page("agents", "Agents", sections, sorted(src.used))


# ----------------------------------------------------------------------------------------------
# The headline


def headline_rows(root: Path, prefix: str) -> tuple[list[list[str]], list[str]]:
    """The headline figures as rows (figure, value, measured on, where), with links to the pages
    under ``prefix``, and the files they come from."""
    src = Sources(root, set())
    rows = []

    def measured(record: dict, name: str) -> str:
        return f"{when(record, name)}, {host(record)}, git {commit(record)}"

    speed = src.jsonl("cpu_speed_*.jsonl")
    batched = [(n, r, ratio) for n, r, ratio in batched_per_core(speed) if ratio is not None]
    if batched:
        values = sorted(ratio for _, _, ratio in batched)
        rows.append(
            [
                "Batched CPU engine per core vs OpenSpiel `connect_four`",
                f"{values[0]:.2f}×-{values[-1]:.2f}× over {len(values)} games",
                measured(batched[-1][1], batched[-1][0]),
                f"[speed]({prefix}speed.md#batched-engine)",
            ]
        )
    for name, records in sorted(gpu_runs(src).items()):
        shares = [(game, share) for game, _, share in gpu_ratios(records) if share is not None]
        if shares:
            low, high = min(shares, key=lambda s: s[1]), max(shares, key=lambda s: s[1])
            first = next(r for r in records if "error" not in r)
            rows.append(
                [
                    "GPU engine in one launch, share of Pgx `connect_four` on the same GPU",
                    f"{percent(low[1])} ({text(low[0])}) to {percent(high[1])} ({text(high[0])})",
                    measured(first, name),
                    f"[GPU]({prefix}gpu.md#engine)",
                ]
            )
        for r in records:
            if r.get("part") == "trainer" and _is_number(r.get("timesteps_per_second")):
                rows.append(
                    [
                        "device-train on a GPU, timesteps/s",
                        f"{exact(r['timesteps_per_second'])} ({text(r.get('game'))}, {exact(r.get('num_envs'))} games)",
                        measured(r, name),
                        f"[GPU]({prefix}gpu.md#trainer)",
                    ]
                )
    pairs = src.jsonl("device_train_cpu_2*.jsonl")
    if pairs:
        name, latest = max(pairs, key=lambda p: str(p[1].get("time")))
        runs = latest.get("runs") if isinstance(latest.get("runs"), list) else []
        ours = median(_by_trainer(runs, "array-side PPO", "timesteps_per_s"))
        if ours is not None:
            rows.append(
                [
                    "device-train on CPU, timesteps/s",
                    f"{exact(ours)} (median of {len(_by_trainer(runs, 'array-side PPO', 'timesteps_per_s'))} runs)",
                    measured(latest, name),
                    f"[training]({prefix}training.md#device-train-against-sb3-at-equal-wall-time)",
                ]
            )
    equal = [
        (n, r)
        for n, r in strength_rows(src)
        if r.get("opponent") == "mcts" and r.get("budget") == "equal time" and _is_number(r.get("win_rate"))
    ]
    if equal:
        name, best = max(equal, key=lambda p: (p[1]["win_rate"], str(p[1].get("game"))))
        rows.append(
            [
                "Best learned search vs `mcts` at equal time",
                f"{rate_with_interval(best['win_rate'], best.get('interval95'), best.get('games'))}, "
                f"{text(best.get('agent'))}, {exact(best.get('num_players'))} players",
                measured(best, name),
                f"[agents]({prefix}agents.md#learned-search-against-mcts)",
            ]
        )
    latest_command: dict[str, tuple[str, dict]] = {}
    for name, r in src.jsonl("commands_*.jsonl"):
        command = str(r.get("command"))
        if command in ("make test", "make demo") and (
            command not in latest_command or str(r.get("time")) > str(latest_command[command][1].get("time"))
        ):
            latest_command[command] = (name, r)
    for command, (name, r) in sorted(latest_command.items()):
        rows.append(
            [
                f"`{command}` wall time",
                _minutes(r.get("wall_s")),
                measured(r, name),
                f"[speed]({prefix}speed.md#command-times)",
            ]
        )
    return rows, sorted(src.used)


def render_headline(root: Path = REPOSITORY, prefix: str = "docs/results/") -> str:
    """The README's headline table (4-6 figures, each linked to the page that gives its protocol)."""
    rows, _ = headline_rows(root, prefix)
    lines = ["| figure | value | measured | details |", "|---|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def replace_marked_block(
    text_in: str, block: str, start: str = HEADLINE_START, end: str = HEADLINE_END
) -> str:
    """``text_in`` with what lies between the ``start`` and ``end`` markers replaced by ``block``;
    a DataError when the markers are missing, repeated or out of order."""
    if text_in.count(start) != 1 or text_in.count(end) != 1 or text_in.index(start) > text_in.index(end):
        raise DataError(f"the README needs exactly one {start} followed by one {end}, on lines of their own")
    head, rest = text_in.split(start)
    _, tail = rest.split(end)
    return f"{head}{start}\n{block}\n{end}{tail}"


def index_page(root: Path, pages: list[Page]) -> Page:
    """The results index: what each page holds and the headline figures."""
    rows, sources = headline_rows(root, "")
    lines = ["| figure | value | measured | details |", "|---|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    listing = "\n".join(f"- [{page.title}]({page.name}.md): {DESCRIPTIONS[page.name]}" for page in pages)
    toctree = "```{toctree}\n:hidden:\n\n" + "\n".join(page.name for page in pages) + "\n```"
    sections = [
        _section("Headline", "The figures the README quotes, each linked to its table.", "\n".join(lines)),
        _section(
            "Pages",
            "Every table of figures, each row with its date, host, git commit and protocol.",
            listing
            + "\n- [Leaderboard](../leaderboard.md): every agent against every other, the win-rate tables.",
        ),
        toctree,
    ]
    return Page("index", "Results", sections, sources)


DESCRIPTIONS = {
    "speed": "the CPU engines against PettingZoo, OpenSpiel and Pgx; the greedy kernels; the commands' wall times.",
    "gpu": "the engine, Pgx and the trainer on a GPU; parity on the device.",
    "training": "training throughput; device-train against SB3; the champions' training runs.",
    "agents": "the learned search's strength; the PPO champions' evaluations; the leaderboard's rankings.",
}


def render_all(root: Path = REPOSITORY) -> dict[Path, str]:
    """Every generated file under ``root`` and the text the data renders for it (the README only
    when it holds the headline markers)."""
    pages = [speed_page(root), gpu_page(root), training_page(root), agents_page(root)]
    out = {root / RESULTS / f"{page.name}.md": page.markdown() for page in pages}
    out[root / RESULTS / "index.md"] = index_page(root, pages).markdown()
    readme = root / README
    if readme.exists():
        current = read_regular_file(readme, MAX_FILE_BYTES, README, DataError).decode("utf-8")
        if HEADLINE_START in current or HEADLINE_END in current:
            out[readme] = replace_marked_block(current, render_headline(root))
    return out


def stale(root: Path = REPOSITORY) -> list[Path]:
    """The generated files whose committed text differs from what the data renders."""
    differ = []
    for path, wanted in render_all(root).items():
        have = path.read_text(encoding="utf-8") if path.is_file() else None
        if have != wanted:
            differ.append(path)
    return differ


def main(argv: list[str] | None = None) -> int:
    """Render the pages (or, with ``--check``, list those out of date); the exit status."""
    parser = argparse.ArgumentParser(
        prog="python docs/render_results.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a page is out of date")
    parser.add_argument("--root", type=Path, default=REPOSITORY, help="the repository to render")
    args = parser.parse_args(argv)
    try:
        rendered = render_all(args.root)
    except DataError as err:
        print(f"render_results: {err}", file=sys.stderr)
        return 2
    changed = [p for p, t in rendered.items() if not p.is_file() or p.read_text(encoding="utf-8") != t]
    if args.check:
        for path in changed:
            print(f"out of date: {path} (run `python docs/render_results.py`)", file=sys.stderr)
        return 1 if changed else 0
    for path in changed:
        write_atomic(path, rendered[path])
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
