"""The speed and GPU pages' tables from the measurement files (for ``render_results.py``).

Each function reads only through :class:`results_format.Sources` (which remembers the files a page
used, for its notice) and formats every value through ``results_format``.
"""

import math
from pathlib import Path

from results_format import (
    NOT_RECORDED,
    Page,
    Sources,
    arguments,
    columns,
    commit,
    exact,
    fixed,
    host,
    is_number,
    load,
    median_range,
    minutes,
    percent,
    protocol,
    rate_with_interval,
    section,
    table,
    text,
    when,
)

LEADERBOARD = "docs/leaderboard"
CHAMPION_RUNS = "training/results/champions"


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
        ok = all(is_number(v) and v > 0 for v in values)
        out.append((name, r, values[0] / values[1] / values[2] if ok else None))
    return out


def speed_page(root: Path) -> Page:
    """CPU engines against their anchors, the greedy kernels' speed, and the commands' wall times."""
    src = Sources(root, set())
    records = src.jsonl("cpu_speed_*.jsonl")

    def runprotocol(r: dict) -> str:
        return protocol(
            text(r.get("command")),
            f"{exact(r.get('runs'))} runs of {exact(r.get('repeats'))} repeats of {exact(r.get('seconds_per_repeat'))} s"
            if r.get("repeats") is not None
            else f"{exact(r.get('runs'))} runs",
            f"load {load(r.get('load_1min_before'))} at the start",
            text(r.get("source")),
        )

    anchor_rows = [
        [
            text(r.get("anchor")),
            exact(r.get("steps_per_second")),
            when(r, n),
            host(r),
            commit(r),
            runprotocol(r),
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
                median_range(vs.get("median"), vs.get("low"), vs.get("high")),
                fixed(per_core, 2, "×"),
                exact(r.get("vs_pgx_connect_four"), "×"),
                exact(r.get("vs_pgx_sparrow_mahjong"), "×"),
                exact(r.get("single_state_steps_per_second")),
                exact(r.get("warm_start_s"), " s"),
                exact(r.get("cold_start_s"), " s"),
                when(r, n),
                host(r),
                commit(r),
                runprotocol(r),
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
                median_range(vs.get("median"), vs.get("low"), vs.get("high")),
                when(r, n),
                host(r),
                commit(r),
                runprotocol(r),
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
            protocol(
                f"{exact(r.get('positions'))} positions of seeded play",
                f"{exact(r.get('repeats'))} repeats",
                f"load {load(r.get('load_1min_before'))} to {load(r.get('load_1min_after'))}",
            ),
        ]
        for n, r in src.jsonl("greedy_speed_*.jsonl")
    ]
    sections = [
        section(
            "Anchors",
            "The reference engines each ratio below divides by, measured in the same run.",
            table(
                ["anchor", "steps/s", "date", "host", "git", "protocol"],
                anchor_rows,
                key=lambda row: (row[2], row[0]),
            ),
        ),
        section(
            "Batched engine",
            '`step_random` inside numba at the best batch size. "Per core" divides the engine\'s '
            "steps/s by its threads and by OpenSpiel's steps/s on one core, from the medians.",
            table(
                columns(
                    "game | steps/s | threads | vs OpenSpiel: median [range] | per core vs OpenSpiel | vs Pgx connect_four | vs Pgx sparrow_mahjong | single-state loop, steps/s | warm start | cold start (compile) | date | host | git | protocol"
                ),
                batched_rows,
                key=lambda row: (row[10], row[0]),
            ),
        ),
        section(
            "AEC environment",
            "`env()` stepped through PettingZoo's API, against PettingZoo's own `connect_four_v3`.",
            table(
                ["game", "steps/s", "vs PettingZoo: median [range]", "date", "host", "git", "protocol"],
                aec_rows,
                key=lambda row: (row[3], row[0]),
            ),
        ),
        section(
            "Greedy baselines",
            "Decisions per second of each game's greedy kernel on one thread, against the kernel at "
            "the baseline commit.",
            table(
                columns(
                    "game | players | decisions/s | per decision | baseline decisions/s | baseline commit | speed-up | date | host | git | protocol"
                ),
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
            minutes(r.get("wall_s")),
            exact(r.get("exit_status")),
            (text(r["stated_estimate"]) if r["stated_estimate"] else "none")
            if "stated_estimate" in r
            else NOT_RECORDED,
            text(r.get("numba_cache")),
            when(r, n),
            host(r),
            commit(r),
            protocol(
                f"load {load(r.get('load_1min_before'))} before, {load(r.get('load_1min_after'))} after",
                f"{fixed(r.get('cpu_share'), 2)} of one core" if r.get("cpu_share") is not None else "",
            ),
        ]
        for n, r in src.jsonl("commands_*.jsonl")
    ]
    body = (
        table(
            columns(
                "command | wall time | minutes | exit status | estimate it printed | numba cache | date | host | git | protocol"
            ),
            rows,
            key=lambda row: (row[0], row[5]),
        )
        if rows
        else "No command has been timed yet: `python -m monster_zoo.benchmarks.command_times` times them."
    )
    return section(
        "Command times",
        "Wall time of the commands the README and the Makefile name, from a fresh shell "
        "(`python -m monster_zoo.benchmarks.command_times`).",
        body,
    )


def _best(records: list[dict], **match) -> dict | None:
    """The record of ``records`` matching every ``match`` field with the most steps per second."""
    found = [
        r
        for r in records
        if all(r.get(k) == v for k, v in match.items()) and is_number(r.get("steps_per_second"))
    ]
    return max(found, key=lambda r: r["steps_per_second"], default=None)


def _at(record: dict | None) -> str:
    if record is None:
        return NOT_RECORDED
    envs = record.get("num_envs")
    power = (
        f" (2^{int(math.log2(envs))} games)"
        if is_number(envs) and envs > 0 and envs & (envs - 1) == 0
        else ""
    )
    return (
        f"{exact(record['steps_per_second'] if is_number(record['steps_per_second']) else None, '')}{power}"
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
                    protocol(
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
                        protocol(
                            f"{exact(r.get('train_seconds'))} s of training",
                            f"arguments {arguments(r.get('argv'))}",
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
        section(
            "Engine",
            "Best steps/s over the batch sizes: inside one launch (`launch`) and stepped from Python "
            "(`python`); the shares divide by Pgx's best in-launch rate on the same device.",
            table(
                columns(
                    "game | steps/s in one launch (games) | steps/s from Python (games) | of Pgx connect_four | vs Pgx sparrow_mahjong | date | host | git | protocol"
                ),
                engine_rows,
                key=lambda row: (row[5], row[0]),
            ),
        ),
        section(
            "Trainer",
            "`device-train --device cuda`: policy, rollouts and update on the GPU.",
            table(
                columns(
                    "game | players | games | opponents | timesteps/s | rollout share | vs greedy | date | host | git | protocol"
                ),
                trainer_rows,
                key=lambda row: (row[7], row[0]),
            ),
        ),
        section(
            "Pgx anchors",
            "Pgx on JAX's GPU backend, every batch size measured.",
            table(detail_header, pgx_rows, key=lambda row: (row[5], row[0], row[1], row[2].rjust(12))),
        ),
        section(
            "Every batch size",
            "The engine at every batch size measured.",
            table(detail_header, detail_rows, key=lambda row: (row[5], row[0], row[1], row[2].rjust(12))),
        ),
        section(
            "Parity on the device",
            "GPU games stepped beside the CPU engine with the same seeds and actions; a mismatch "
            "names the first difference.",
            table(
                columns(
                    "game | check | players | games | opponent pool | steps | games ended | mismatch | date | host | git"
                ),
                parity_rows,
                key=lambda row: (row[8], row[0], row[1], row[2]),
            ),
        ),
        section(
            "Failed parts",
            "Parts of a run that raised an error instead of measuring.",
            table(
                ["part", "game", "error", "date", "host", "git"],
                failed_rows,
                key=lambda row: (row[3], row[0]),
            ),
        ),
    ]
    return Page("gpu", "GPU", sections, sorted(src.used))
