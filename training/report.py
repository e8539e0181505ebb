"""The results table of ``training/README.md``: baselines, search and trained policies, over seeds.

    python -m monster_zoo.training.report --game marry_the_monster-v0 --option num_players=2 \\
        --runs runs/<seed 1 run> runs/<seed 2 run> runs/<seed 3 run>

For each seed ``s`` (one per training run, or ``--seeds``) it plays, with
:func:`monster_zoo.training.learner_eval.evaluate_against` (seats rotated, deals seeded from
``s``): greedy vs random, MCTS vs greedy, and the run's final PPO policy vs random, vs
greedy and vs the search (``--search-games``). Each row reports mean ± std of the win rate
over the seeds and the per-seed values, as markdown (and JSON with ``--json``); a row with
0 games is left out (the search's own row against greedy is measured once and for all by
``monster_zoo.evaluation.search_report``).
"""

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from monster_zoo.agents import make_agent
from monster_zoo.envs.core.escaping import markdown_cell
from monster_zoo.envs.core.safe_writing import output_problem, write_atomic
from monster_zoo.training.learner_eval import evaluate_against
from monster_zoo.training.run_start import parse_options


def row(label: str, rates: list[float], seconds: float) -> dict:
    """One table row: the label, per-seed win rates, their mean and standard deviation."""
    std = statistics.stdev(rates) if len(rates) > 1 else 0.0
    return {
        "matchup": label,
        "rates": rates,
        "mean": statistics.fmean(rates),
        "std": std,
        "seconds": round(seconds, 1),
    }


def markdown(rows: Sequence[dict], games: dict) -> str:
    """The rows as a markdown table."""
    lines = [
        "| matchup | win rate, mean ± std over seeds | per seed | games per seed |",
        "| --- | ---: | --- | ---: |",
    ]
    for r in rows:
        per_seed = ", ".join(f"{x:.3f}" for x in r["rates"])
        lines.append(
            f"| {markdown_cell(r['matchup'])} | {r['mean']:.3f} ± {r['std']:.3f} | {per_seed} | "
            f"{games[r['matchup']]} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Play every matchup for every seed; print the markdown table."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.training.report", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--game", default="marry_the_monster-v0", help="game id (default %(default)s)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="game option, repeatable"
    )
    parser.add_argument(
        "--runs",
        nargs="*",
        default=[],
        metavar="RUN_DIR",
        help="training run folders (final_model.npz and summary.json); their seeds are used",
    )
    parser.add_argument(
        "--seeds", nargs="*", type=int, default=[1, 2, 3], help="seeds when no --runs are given"
    )
    parser.add_argument(
        "--games", type=int, default=400, help="games per matchup and seed (default %(default)s)"
    )
    parser.add_argument("--mcts", default="mcts", help="the search agent's name (default %(default)s)")
    parser.add_argument(
        "--mcts-games", type=int, default=100, help="games of MCTS vs greedy per seed (0: none)"
    )
    parser.add_argument(
        "--search-games",
        type=int,
        default=0,
        help="games of each run's PPO policy vs MCTS per seed (default 0: none)",
    )
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument("--overwrite", action="store_true", help="replace --json if it exists")
    args = parser.parse_args(argv)
    for flag, value in (
        ("--games", args.games),
        ("--mcts-games", args.mcts_games),
        ("--search-games", args.search_games),
    ):
        if value < 0:
            parser.error(f"{flag} must be >= 0, got {value}")
    try:
        options = parse_options(args.option)
    except ValueError as error:
        parser.error(str(error))
    # checked before the hours of games, not after
    problem = args.json is not None and output_problem("--json", args.json, overwrite=args.overwrite)
    if problem:
        parser.error(problem)
    runs = [Path(r) for r in args.runs]
    seeds = [int(r.name.split("__")[2]) for r in runs] or args.seeds

    def rates_of(label, make_pair, games):
        start, rates = time.time(), []
        for s in seeds:
            agent, opponent = make_pair(s)
            rates.append(
                evaluate_against(agent, opponent, args.game, games, seed=1_000_000 * s, **options).rate
            )
            print(f"  {label}, seed {s}: {rates[-1]:.3f}", file=sys.stderr, flush=True)
        return row(label, rates, time.time() - start)

    def agent(name):
        return lambda s: make_agent(name, args.game, seed=s, options=options)

    pair = {
        "greedy vs random": (lambda s: (agent("greedy")(s), agent("random")(s + 1)), args.games),
        f"{args.mcts} vs greedy": (lambda s: (agent(args.mcts)(s), agent("greedy")(s + 1)), args.mcts_games),
    }
    if runs:
        model = {int(r.name.split("__")[2]): f"ppo:{r / 'final_model.npz'}" for r in runs}
        pair["PPO vs random"] = (lambda s: (agent(model[s])(s), agent("random")(s + 1)), args.games)
        pair["PPO vs greedy"] = (lambda s: (agent(model[s])(s), agent("greedy")(s + 1)), args.games)
        pair[f"PPO vs {args.mcts}"] = (
            lambda s: (agent(model[s])(s), agent(args.mcts)(s + 1)),
            args.search_games,
        )
    pair = {label: (make, games) for label, (make, games) in pair.items() if games > 0}
    rows = [rates_of(label, make, games) for label, (make, games) in pair.items()]
    print(markdown(rows, {label: games for label, (_, games) in pair.items()}))
    if runs:
        summaries = [json.loads((r / "summary.json").read_text()) for r in runs]
        speeds = [s["timesteps_per_second"] for s in summaries]
        print(
            f"\nPPO training: {', '.join(str(s['timesteps']) for s in summaries)} timesteps in "
            f"{', '.join(str(round(s['train_seconds'] / 60, 1)) for s in summaries)} min; "
            f"{statistics.fmean(speeds):,.0f} timesteps/s on average"
        )
    if args.json:
        write_atomic(args.json, json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
