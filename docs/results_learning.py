"""The training and agents pages' tables from the measurement files, the champions' training
results and the leaderboard's records (for ``render_results.py``).

Each function reads only through :class:`results_format.Sources` (which remembers the files a page
used, for its notice) and formats every value through ``results_format``.
"""

from pathlib import Path

from results_az import findings_section, selection_section
from results_beliefs import belief_section, budget_section, cost_section, knowledge_section, model_section
from results_format import (
    NOT_RECORDED,
    DataError,
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
    median,
    protocol,
    rate_with_interval,
    read_json,
    section,
    table,
    text,
    when,
)

LEADERBOARD = "docs/leaderboard"
CHAMPION_RUNS = "training/results/champions"
TRAINING_RESULTS = "training/results"


def by_trainer(runs: list, trainer: str, field: str) -> list:
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
            if is_number(r.get("timesteps_per_s")) and is_number(anchor)
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
                protocol(
                    text(r.get("command")), f"median of {exact(r.get('repeats'))}", text(r.get("source"))
                ),
            ]
        )
    pair_rows = []
    for name, r in src.jsonl("device_train_cpu_2*.jsonl"):
        runs = r.get("runs") if isinstance(r.get("runs"), list) else []
        sb3, ours = (
            median(by_trainer(runs, t, "timesteps_per_s")) for t in ("sb3 MaskablePPO", "array-side PPO")
        )
        pair_rows.append(
            [
                exact(ours),
                exact(sb3),
                fixed(ours / sb3 if ours and sb3 else None, 2, "×"),
                ", ".join(fixed(v, 3) for v in by_trainer(runs, "array-side PPO", "winrate_vs_greedy"))
                or NOT_RECORDED,
                ", ".join(fixed(v, 3) for v in by_trainer(runs, "sb3 MaskablePPO", "winrate_vs_greedy"))
                or NOT_RECORDED,
                when(r, name),
                host(r),
                commit(r),
                protocol(
                    f"{exact(r.get('minutes_each'))} min each",
                    text(r.get("game")),
                    f"opponents {text(r.get('opponents'))}",
                    f"device-train flags {arguments(r.get('device_ppo_args')) if r.get('device_ppo_args') else 'none'}",
                    f"{len(runs)} runs alternated",
                ),
            ]
        )
    screening_rows = [
        [
            text(r.get("label", r.get("config"))),
            arguments(r.get("args", r.get("device_ppo_args_over_old_defaults"))),
            exact(r.get("timesteps_per_s", r.get("tps"))),
            rate_with_interval(r.get("winrate_vs_greedy", r.get("wr_greedy")), r.get("interval")),
            exact(r.get("rollout_seconds", r.get("rollout_s")), " s"),
            exact(r.get("update_seconds", r.get("update_s")), " s"),
            when(r, name),
            host(r),
            commit(r),
            protocol(
                f"{exact(r.get('minutes'))} min",
                f"seed {exact(r.get('seed'))}",
                f"load {load(r.get('load_before'))} before",
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
            numbers = [v for v in values if is_number(v)]
            parts_rows.append(
                [
                    text(part),
                    fixed(median(values), 3, " µs"),
                    f"{fixed(min(numbers), 3)}-{fixed(max(numbers), 3)}" if numbers else NOT_RECORDED,
                    exact(len(values)),
                    when(r, name),
                    host(r),
                    commit(r),
                    protocol(
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
                    summary.get("train_seconds") / 60 if is_number(summary.get("train_seconds")) else None,
                    1,
                    " min",
                ),
                exact(summary.get("timesteps_per_second")),
                rate_with_interval(greedy.get("rate"), greedy.get("interval"), greedy.get("games")),
                NOT_RECORDED,
                NOT_RECORDED,
                NOT_RECORDED,
                protocol(
                    f"seed {exact(args.get('seed'))}",
                    f"opponents {text(args.get('opponents'))}",
                    f"{exact(args.get('num_envs'))} games",
                    f"net {text(args.get('net_arch'))}",
                ),
            ]
        )
    sections = [
        section(
            "Self-play throughput (SB3)",
            "`monster-zoo train`'s vector env against the PettingZoo SB3 connect-four tutorial's setup.",
            table(
                columns(
                    "trainer | game | opponents | timesteps/s | vs the tutorial | date | host | git | protocol"
                ),
                throughput_rows,
                key=lambda row: (row[5], row[0], row[2]),
            ),
        ),
        section(
            "device-train against SB3 at equal wall time",
            "2-player Marry the Monster, the two trainers alternated for the same minutes each; each "
            "agent's win rate against greedy over 200 games (medians of the runs' timesteps/s).",
            table(
                columns(
                    "device-train timesteps/s | SB3 timesteps/s | ratio | device-train vs greedy, per run | SB3 vs greedy, per run | date | host | git | protocol"
                ),
                pair_rows,
                key=lambda row: (row[5],),
            ),
        ),
        section(
            "device-train settings screened",
            "One run per setting, 2 minutes each, win rate against greedy over 200 games.",
            table(
                columns(
                    "setting | flags | timesteps/s | vs greedy | rollout | update | date | host | git | protocol"
                ),
                screening_rows,
                key=lambda row: (row[6], row[0]),
            ),
        ),
        section(
            "device-train's parts",
            "Microseconds per decision of each part of a PPO iteration on the CPU (median and range over repeats).",
            table(
                ["part", "median", "range", "repeats", "date", "host", "git", "protocol"],
                parts_rows,
                key=lambda row: (row[4], row[0]),
            ),
        ),
        section(
            "The PPO champions' training runs",
            "`monster-zoo train` runs whose policies ship as champions; the win rate is the run's final evaluation.",
            table(
                columns(
                    "run | game | options | timesteps | training | timesteps/s | vs greedy | date | host | git | protocol"
                ),
                champion_rows,
                key=lambda row: (row[0],),
            ),
        ),
        section(
            "Champion runs side by side",
            "Candidate champions trained at once on one machine, one core each, for the same wall "
            "time; each run's final policy against greedy and against random.",
            table(
                columns(
                    "run | game | players | seed | timesteps | training | timesteps/s | vs greedy | vs random | date | host | git | protocol"
                ),
                batch_rows(src),
                key=lambda row: (row[1], row[2].rjust(3), row[3].rjust(3)),
            ),
        ),
        "On a GPU the same trainer's figures are on the [GPU page](gpu.md).",
    ]
    return Page("training", "Training", sections, sorted(src.used))


def batch_rows(src: Sources) -> list[list[str]]:
    """One row per run of the champions' batches (``training/results/champions/batch_*.jsonl``)."""
    rows = []
    for name, r in src.jsonl("batch_*.jsonl", CHAMPION_RUNS):
        args = r.get("args") if isinstance(r.get("args"), dict) else {}
        rates = {}
        for opponent in ("greedy", "random"):
            key = next((k for k in r if k.startswith(f"vs_{opponent}_")), None)
            found = r.get(key) if key and isinstance(r.get(key), dict) else {}
            games = key.rsplit("_", 1)[1] if key else None
            rates[opponent] = rate_with_interval(
                found.get("rate"), found.get("interval"), int(games) if games and games.isdigit() else None
            )
        rows.append(
            [
                text(r.get("run")),
                text(r.get("game")),
                exact(r.get("num_players")),
                exact(r.get("seed")),
                exact(r.get("timesteps")),
                fixed(r.get("train_seconds") / 60 if is_number(r.get("train_seconds")) else None, 1, " min"),
                exact(r.get("timesteps_per_second")),
                rates["greedy"],
                rates["random"],
                when(r, name),
                text(r.get("machine")),
                commit(r),
                protocol(
                    f"opponents {text(args.get('opponents'))}",
                    f"warm start {text(args.get('warm_start'))}",
                    f"{exact(args.get('num_envs'))} games",
                    f"net {text(args.get('net_arch'))}",
                    f"torch threads {exact(args.get('torch_threads'))}",
                ),
            ]
        )
    return rows


def strength_rows(src: Sources) -> list[tuple[str, dict]]:
    """The learned search's strength records."""
    return src.jsonl("az_strength_*.jsonl")


def search_baseline_rows(src: Sources, pattern: str) -> list[list[str]]:
    """One row per ``search_report`` measurement in the files of ``training/results`` matching
    ``pattern``: the search in one seat against greedy in the others."""
    rows = []
    for name, r in src.jsonl(pattern, TRAINING_RESULTS):
        bounds = [r.get("low"), r.get("high")]
        rows.append(
            [
                text(r.get("game")),
                exact(r.get("num_players")),
                f"{exact(r.get('simulations'))} simulations, exploration {exact(r.get('exploration'))}, "
                f"{text(r.get('rollout'))} rollouts",
                rate_with_interval(
                    r.get("win_rate"), bounds if all(map(is_number, bounds)) else None, r.get("games")
                ),
                fixed(r.get("even_share"), 2),
                f"{fixed(r.get('cpu_s_per_move'), 3)} ({fixed(r.get('cpu_s_longest_move'), 3)})",
                when(r, name),
                host(r),
                commit(r),
                protocol(
                    f"seed {exact(r.get('seed'))}",
                    f"{exact(r.get('moves'))} search moves in {fixed(r.get('wall_s'), 0, ' s')}",
                    f"load {load(r.get('load_average'))} at the end",
                    text(r.get("note")) if r.get("note") else "",
                    text(r.get("source")) if r.get("source") else "",
                ),
            ]
        )
    return rows


def agents_page(root: Path) -> Page:
    """The search baselines against greedy, the learned search's strength, the searches with beliefs
    against those without, the PPO champions' evaluations and the leaderboard's rankings."""
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
            protocol(
                f"seeds {text(r.get('seeds'))}",
                f"rollout weight {exact(r.get('az_rollout_weight'))}",
                text(r.get("command")),
                text(r.get("source")),
            ),
        ]

    header = columns(
        "game | players | agent | opponent | budget | win rate [95%] | equal share | simulations | CPU ms a move (agent / opponent) | date | host | git | protocol"
    )
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
        measured = board.get("measured") if isinstance(board.get("measured"), dict) else {}
        board_rows.append(
            [
                text(board.get("game")),
                exact(board.get("num_players")),
                exact(board.get("games_per_pairing")),
                ranking or NOT_RECORDED,
                fixed(board.get("elapsed_s") / 60 if is_number(board.get("elapsed_s")) else None, 1, " min"),
                when(measured, name) if measured.get("time") else NOT_RECORDED,
                host(measured),
                commit(measured),
                protocol(
                    f"seed {exact(board.get('seed'))}",
                    f"{exact(board.get('rated_games'))} rated games",
                    f"load {load(measured.get('load_1min'))} at the end" if "load_1min" in measured else "",
                ),
            ]
        )
    sections = [
        section(
            "Search baselines against greedy",
            "The tuned `mcts` in one seat against greedy in every other seat, seats rotated, deals "
            "paired (`python -m monster_zoo.evaluation.search_report --game <id> --players <n> "
            "--games <g>`). CPU time per move is the search's process CPU time after one untimed "
            "decision that compiles it; the longest move is in brackets.",
            table(
                columns(
                    "game | players | configuration | win rate vs greedy [95%] | even share | CPU s per move, mean (longest) | date | host | git | protocol"
                ),
                search_baseline_rows(src, "search.jsonl"),
                key=lambda row: (row[1].rjust(3), row[0], row[2]),
            ),
        ),
        section(
            "Search candidates screened",
            "The candidates the settings above were chosen from, 20 or 21 games each as a screen, the "
            "same protocol.",
            table(
                columns(
                    "game | players | configuration | win rate vs greedy [95%] | even share | CPU s per move, mean (longest) | date | host | git | protocol"
                ),
                search_baseline_rows(src, "search_screen.jsonl"),
                key=lambda row: (row[0], row[1].rjust(3), row[2]),
            ),
        ),
        section(
            "Learned search against mcts",
            "`az` (or its network) in one seat, the tuned search in every other seat; seats rotated, "
            "deals paired. The budget says how `az`'s simulations were sized.",
            table(header, groups["against mcts"], key=lambda row: (row[0], row[1].rjust(3), row[4])),
        ),
        belief_section(src),
        budget_section(src),
        model_section(src),
        knowledge_section(src),
        cost_section(src),
        section(
            "Learned search against greedy",
            "`az` at its shipped simulation count against greedy in every other seat.",
            table(header, groups["against greedy"], key=lambda row: (row[0], row[1].rjust(3))),
        ),
        section(
            "The network alone",
            "The policy network without its search, against greedy and against the PPO champion.",
            table(header, groups["network alone"], key=lambda row: (row[0], row[1].rjust(3), row[3])),
        ),
        findings_section(src),
        selection_section(src),
        section(
            "PPO champions' evaluation",
            "Every seed trained for a champion, evaluated on the same deals; the shipped one is marked.",
            table(
                columns(
                    "champion | run | seed | timesteps | vs greedy | vs random | shipped | date | host | git | protocol"
                ),
                evaluation_rows,
                key=lambda row: (row[0], row[2]),
            ),
        ),
        section(
            "Leaderboard",
            "Every agent against every other in each game (openskill ordinal, best first); the "
            "[leaderboard page](../leaderboard.md) has the win-rate tables.",
            table(
                columns(
                    "game | players | games per pairing | ranking (ordinal) | wall time | date | host | git | protocol"
                ),
                board_rows,
                key=lambda row: (row[0], row[1].rjust(3)),
            ),
        ),
    ]
    return Page("agents", "Agents", sections, sorted(src.used))
