"""Render the results pages (``docs/results/*.md``) and the README's headline table from the
tracked measurement files, so that no figure is typed by hand.

``make docs`` runs it before Sphinx; ``python docs/render_results.py --check`` writes nothing and
exits 1 naming every page that differs from what the data renders (``tests/test_results_pages.py``
runs the same comparison). The sources:

* ``docs/measurements/*.jsonl``: one JSON object a line, written by the benchmark scripts
  (``cpu_speed_*``, ``greedy_speed_*``, ``gpu_*``, ``device_train_*``, ``device_ppo_parts_*``,
  ``training_throughput_*``, ``az_strength_*``, ``az_findings_*``, ``commands_*``,
  ``trainer_adapters_*``, ``torch_threads_*``, ``belief_model*``, ``belief_knowledge*``,
  ``belief_cost*``);
* ``training/results/search.jsonl`` and ``search_screen.jsonl``: the search baselines against
  greedy and the candidates they were chosen from (``search_report``);
* ``docs/leaderboard/*.json``: the leaderboard's tournaments (``monster-zoo leaderboard``);
* ``training/results/champions/``: the PPO champions' training summaries, evaluations and
  side-by-side batches (``batch_*.jsonl``);
* ``training/results/belief_strength/*.json``: the searches with beliefs against those without
  (``python -m monster_zoo.training.az.strength --out``), and over their budgets
  (``training/results/belief_budget/*/x*.json``, ``python -m monster_zoo.training.az.strength_curve
  budget``).

Every row carries its date, host, git commit and protocol where its record has them, and "not
recorded" where it does not: a missing field is never filled in. The data files are parsed as
plain JSON within fixed bounds (size, nesting, number of records), every text from them is
escaped for the markdown table cell it lands in, and each page is written atomically.
"""

import argparse
import sys
from pathlib import Path

from results_engines import batched_per_core, gpu_page, gpu_ratios, gpu_runs, speed_page
from results_format import (
    MAX_FILE_BYTES,
    DataError,
    Page,
    Sources,
    commit,
    exact,
    host,
    is_number,
    median,
    minutes,
    percent,
    rate_with_interval,
    section,
    text,
    when,
)
from results_learning import agents_page, by_trainer, strength_rows, training_page
from results_trainers import trainers_page

from monster_zoo.envs.core.bounded_reading import read_regular_file
from monster_zoo.envs.core.safe_writing import write_atomic

REPOSITORY = Path(__file__).resolve().parents[1]
RESULTS = "docs/results"
README = "README.md"
HEADLINE_START = "<!-- results:headline -->"
HEADLINE_END = "<!-- /results:headline -->"


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
            if r.get("part") == "trainer" and is_number(r.get("timesteps_per_second")):
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
        ours = median(by_trainer(runs, "array-side PPO", "timesteps_per_s"))
        if ours is not None:
            rows.append(
                [
                    "device-train on CPU, timesteps/s",
                    f"{exact(ours)} (median of {len(by_trainer(runs, 'array-side PPO', 'timesteps_per_s'))} runs)",
                    measured(latest, name),
                    f"[training]({prefix}training.md#device-train-against-sb3-at-equal-wall-time)",
                ]
            )
    equal = [
        (n, r)
        for n, r in strength_rows(src)
        if r.get("opponent") == "mcts" and r.get("budget") == "equal time" and is_number(r.get("win_rate"))
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
                minutes(r.get("wall_s")),
                measured(r, name),
                f"[speed]({prefix}speed.md#command-times)",
            ]
        )
    return rows, sorted(src.used)


def headline_table(rows: list[list[str]]) -> str:
    """The headline rows as a markdown table."""
    lines = ["| figure | value | measured | details |", "|---|---|---|---|"]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def render_headline(root: Path = REPOSITORY, prefix: str = "docs/results/") -> str:
    """The README's headline table (4-6 figures, each linked to the page that gives its protocol)."""
    return headline_table(headline_rows(root, prefix)[0])


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
    listing = "\n".join(f"- [{page.title}]({page.name}.md): {DESCRIPTIONS[page.name]}" for page in pages)
    toctree = "```{toctree}\n:hidden:\n\n" + "\n".join(page.name for page in pages) + "\n```"
    sections = [
        section("Headline", "The figures the README quotes, each linked to its table.", headline_table(rows)),
        section(
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
    "training": "training throughput; device-train against SB3 and its settings; the champions' training runs, alone and side by side.",
    "trainers": "the trainer adapters against what users reach the games with without them; the CleanRL-style example against device-train; torch threads in the trainer.",
    "agents": "the search baselines against greedy and the candidates screened; the learned search's strength and findings; the searches with beliefs; the PPO champions' evaluations; the leaderboard's rankings.",
}


def render_all(root: Path = REPOSITORY) -> dict[Path, str]:
    """Every generated file under ``root`` and the text the data renders for it (the README only
    when it holds the headline markers)."""
    pages = [speed_page(root), gpu_page(root), training_page(root), trainers_page(root), agents_page(root)]
    out = {root / RESULTS / f"{page.name}.md": page.markdown() for page in pages}
    out[root / RESULTS / "index.md"] = index_page(root, pages).markdown()
    readme = root / README
    if readme.exists():
        current = read_regular_file(readme, MAX_FILE_BYTES, README, DataError).decode("utf-8")
        if HEADLINE_START in current or HEADLINE_END in current:
            out[readme] = replace_marked_block(current, render_headline(root))
    return out


def out_of_date(rendered: dict[Path, str]) -> list[Path]:
    """The files of ``rendered`` whose text on disk differs from what the data renders."""
    return [p for p, t in rendered.items() if not p.is_file() or p.read_text(encoding="utf-8") != t]


def stale(root: Path = REPOSITORY) -> list[Path]:
    """The generated files under ``root`` whose committed text differs from what the data renders."""
    return out_of_date(render_all(root))


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
    changed = out_of_date(rendered)
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
