"""The trainers page's tables: the trainer adapters against what a user reaches the games with
without them, the CleanRL-style example against ``device-train`` at equal wall time, and torch's
thread count in the trainer (for ``render_results.py``).

``trainer_adapters_*.jsonl`` holds runs of ``python -m monster_zoo.benchmarks.trainer_adapters``:
each run's facts (a ``"record": "run"`` line: time, git revision, CPU, cores, load, versions) and
after it one line per comparison of that run, so a comparison takes its date, host and commit
from the run line before it.
"""

from pathlib import Path

from results_format import (
    NOT_RECORDED,
    Page,
    Sources,
    columns,
    commit,
    exact,
    fixed,
    host,
    is_number,
    load,
    protocol,
    rate_with_interval,
    section,
    table,
    text,
    when,
)

# What each comparison sets side by side: (ours, theirs, what theirs is).
COMPARED = {
    "gymnasium": (
        "vector_env",
        "sync_vector_env",
        "`make_vector_env` against gymnasium's `SyncVectorEnv` over as many `make_learner_env`",
    ),
    "torchrl": (
        "torchrl_env",
        "pettingzoo_wrapper",
        "a TorchRL `Collector` over `make_torchrl_env` against the same collector over TorchRL's `PettingZooWrapper` of the AEC env",
    ),
    "rllib": (
        "vector_runner",
        "rllib_env",
        "one RLlib env runner over `vector_ppo_config` against one over `ppo_config` (`RLlibGameEnv`)",
    ),
}


def runs_with_facts(records: list[tuple[str, dict]]) -> list[tuple[str, dict, dict]]:
    """(file, run facts, comparison) for every comparison line, its facts those of the last run
    line before it in its file (empty when there is none); the run's ``git_revision`` and
    ``git_dirty`` read as the ``commit`` formatter expects them."""
    out, facts, current = [], {}, None
    for name, record in records:
        if name != current:
            facts, current = {}, name
        if record.get("record") == "run":
            facts = {**record, "git": record.get("git_revision", record.get("git"))}
        elif record.get("comparison"):
            out.append((name, facts, record))
    return out


def _sizes(record: dict) -> str:
    """The games of a comparison and its steps or frames a repeat."""
    per_repeat = [f"{exact(record[key])} {key} a repeat" for key in ("steps", "frames") if key in record]
    return ", ".join([f"{exact(record.get('num_envs'))} games", *per_repeat])


def adapter_rows(found: list[tuple[str, dict, dict]]) -> list[list[str]]:
    """One row per adapter comparison: the medians of both sides and their ratio."""
    rows = []
    for name, facts, r in found:
        if r.get("comparison") not in COMPARED:
            continue
        ours_key, theirs_key, what = COMPARED[r["comparison"]]
        medians = r.get("medians") if isinstance(r.get("medians"), dict) else {}
        repeats = r.get("repeats") if isinstance(r.get("repeats"), dict) else {}
        count = len(repeats.get(ours_key)) if isinstance(repeats.get(ours_key), list) else None
        rows.append(
            [
                text(r["comparison"]),
                exact(r.get("num_envs")),
                text(r.get("unit")),
                exact(medians.get(ours_key)),
                exact(medians.get(theirs_key)),
                fixed(r.get("ratio"), 1, "×"),
                when(facts, name),
                host(facts),
                commit(facts),
                protocol(
                    what,
                    _sizes(r),
                    f"medians of {exact(count)} interleaved repeats" if count else "",
                    text(facts.get("game")),
                    f"{exact(facts.get('num_players'))} players" if facts.get("num_players") else "",
                    f"load {load(facts.get('load_1min'))} at the start, {load(r.get('load_1min_after'))} after",
                    "quick settings: numbers mean little" if facts.get("quick") else "",
                ),
            ]
        )
    return rows


def _rates(side: dict) -> str:
    rates = side.get("winrates") if isinstance(side.get("winrates"), dict) else {}
    shown = []
    for baseline in sorted(rates):
        r = rates[baseline] if isinstance(rates[baseline], dict) else {}
        shown.append(
            f"vs {text(baseline)} {rate_with_interval(r.get('rate'), r.get('interval'), r.get('games'))}"
        )
    return "; ".join(shown) or NOT_RECORDED


def race_rows(found: list[tuple[str, dict, dict]]) -> list[list[str]]:
    """One row per trainer of each race: its timesteps, rate and win rates after the same wall time."""
    rows = []
    for name, facts, r in found:
        if r.get("comparison") != "race":
            continue
        for key, trainer in (
            ("cleanrl_example", "`examples/cleanrl_masked_ppo.py`"),
            ("device_train", "`device-train`"),
        ):
            side = r.get(key) if isinstance(r.get(key), dict) else {}
            rows.append(
                [
                    trainer,
                    text(side.get("settings")),
                    exact(side.get("timesteps")),
                    exact(side.get("train_seconds"), " s"),
                    exact(side.get("timesteps_per_second")),
                    _rates(side),
                    when(facts, name),
                    host(facts),
                    commit(facts),
                    protocol(
                        f"{exact(r.get('seconds_each'))} s of training each, one after the other",
                        text(facts.get("game")),
                        f"{exact(facts.get('num_players'))} players" if facts.get("num_players") else "",
                        f"the final policy's most likely legal action, {exact(r.get('eval_games'))} games a baseline, seats rotated",
                        f"device-train / example timesteps/s {fixed(r.get('ratio'), 2, '×')}",
                        "quick settings: numbers mean little" if facts.get("quick") else "",
                    ),
                ]
            )
    return rows


def thread_rows(records: list[tuple[str, dict]]) -> list[list[str]]:
    """One row per load condition and torch thread count, with the speed against one thread in
    the same condition."""
    one = {
        (r.get("other_load"), str(r.get("load_range"))): r for _, r in records if r.get("torch_threads") == 1
    }

    def versus(r: dict, field: str) -> str:
        base = one.get((r.get("other_load"), str(r.get("load_range"))), {}).get(field)
        value = r.get(field)
        return fixed(value / base if is_number(value) and is_number(base) and base else None, 2, "×")

    rows = []
    for name, r in records:
        span = r.get("load_range")
        loads = (
            f"{load(span[0])}-{load(span[1])}" if isinstance(span, list) and len(span) == 2 else text(span)
        )
        rows.append(
            [
                text(r.get("other_load")),
                loads,
                exact(r.get("torch_threads")),
                fixed(r.get("ppo_update_s"), 2, " s"),
                exact(r.get("trainer_steps_per_s")),
                versus(r, "trainer_steps_per_s"),
                exact(r.get("trainer_steps_per_s_beside_busy")),
                versus(r, "trainer_steps_per_s_beside_busy"),
                when(r, name),
                host(r),
                commit(r),
                protocol(
                    text(r.get("command")),
                    f"{exact(r.get('runs'))} runs of {exact(r.get('repeats'))} repeats",
                    f"{exact(r.get('busy'))} busy process beside" if r.get("busy") else "",
                    text(r.get("source")),
                ),
            ]
        )
    return rows


def race_section(rows: list[list[str]]) -> str:
    """The race's table, or how to record one where none is."""
    title = "The CleanRL-style example against device-train"
    if not rows:
        return (
            f"## {title}\n\nNo race is recorded yet: `python -m monster_zoo.benchmarks.trainer_adapters "
            "--only-race --race SECONDS --json docs/measurements/trainer_adapters_cpu.jsonl` runs one."
        )
    return section(
        title,
        "Both trained for the same wall time on the same machine, one after the other, then evaluated "
        "alike against the baselines (`python -m monster_zoo.benchmarks.trainer_adapters --only-race "
        "--race SECONDS`).",
        table(
            columns(
                "trainer | settings | timesteps | training | timesteps/s | win rate [95%] | date | host | git | protocol"
            ),
            rows,
            key=lambda row: (row[6],),
        ),
    )


def trainers_page(root: Path) -> Page:
    """The trainer adapters' rates, the CleanRL-style example against device-train, torch threads."""
    src = Sources(root, set())
    found = runs_with_facts(src.jsonl("trainer_adapters_*.jsonl"))
    threads = src.jsonl("torch_threads_*.jsonl")
    sections = [
        section(
            "Trainer adapters",
            "Each adapter against the way a user reaches the games without it, both sides timed in "
            "the same run with their repeats interleaved; the ratio divides the medians "
            "(`python -m monster_zoo.benchmarks.trainer_adapters --rllib`). How to use each one: "
            "[Use your own trainer](../guides/own_trainer.md).",
            table(
                columns(
                    "comparison | games | unit | with the adapter | without it | ratio | date | host | git | protocol"
                ),
                adapter_rows(found),
                key=lambda row: (row[6], row[0], row[1].rjust(8)),
            ),
        ),
        race_section(race_rows(found)),
        section(
            "Torch threads in the trainer",
            "`monster-zoo train`'s torch work at 1 and 2 threads: its PPO update alone, its own "
            "timesteps/s alone and beside one process that spins on a core; each speed is also "
            "given against one thread in the same condition.",
            table(
                columns(
                    "other load | load average | torch threads | PPO update | timesteps/s alone | vs 1 thread | timesteps/s beside 1 busy process | vs 1 thread | date | host | git | protocol"
                ),
                thread_rows(threads),
                key=lambda row: (row[8], row[1], row[2]),
            ),
        ),
    ]
    return Page("trainers", "Trainers", sections, sorted(src.used))
