"""Several ``strength`` reports of one comparison pooled into one result.

    python -m monster_zoo.training.az.pooled --help
    python -m monster_zoo.training.az.pooled results/s0.json results/s1.json --out results/pooled.json

One ``strength`` series plays its games from one seed; a tighter interval needs more games, and
series with different seeds are independent samples of the same comparison. This tool checks that
the reports measured the same thing (game, player count, options, network, opponent, the search's
rollout weight and constants) on different deals (distinct seeds), and that each report's counts
agree with its own game outcomes, then adds their games up: wins, draws, the pooled win rate with
its 95% Wilson interval, CPU milliseconds per move of each side weighted by moves, and a row per
report (its seed, games, simulations, win rate, CPU and load). The simulations may differ between
reports: each series sized its own to the budget on the host that played it.
The result goes to ``--out`` as JSON (written atomically; an existing file needs ``--overwrite``,
and no report can be overwritten).
"""

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from monster_zoo.envs.core.bounded_reading import read_json_file
from monster_zoo.envs.core.safe_writing import output_problem, write_atomic
from monster_zoo.evaluation.match import DRAW, WIN, wilson_interval

MAX_REPORT_BYTES = 16 << 20  # a 200-game report is about 40 KB; a million games still fit
MAX_REPORT_DEPTH = 8  # strength writes four levels
SAME = ("game", "num_players", "options", "network", "opponent", "az_rollout_weight", "az_search")


class ReportError(ValueError):
    """A report that cannot be read or pooled; the message names the file and the problem."""


def _field(report: dict, name: str, kind, what: str):
    """``report[name]`` if it is present and of ``kind``, else :class:`ReportError`."""
    if name not in report:
        raise ReportError(f"{what} has no {name!r}: it is not a report of monster-zoo's strength")
    value = report[name]
    if not isinstance(value, kind) or isinstance(value, bool):  # JSON's true is no count
        kinds = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise ReportError(f"{what}: {name!r} is {type(value).__name__}, not {kinds}")
    return value


def read_report(path) -> dict:
    """The ``strength`` report in ``path``, its counts checked against its outcomes."""
    what = f"report {str(path)!r}"
    report = read_json_file(path, MAX_REPORT_BYTES, MAX_REPORT_DEPTH, what, ReportError)
    if not isinstance(report, dict):
        raise ReportError(f"{what} is not a JSON object")
    games, wins, draws = (_field(report, name, int, what) for name in ("games", "wins", "draws"))
    outcomes = _field(report, "outcomes", list, what)
    _field(report, "seed", int, what)
    if _field(report, "num_players", int, what) < 1:
        raise ReportError(f"{what}: 'num_players' is {report['num_players']}, not a player count")
    for name in ("az", "opponent_moves"):
        part = _field(report, name, dict, what)
        for key, kind in (("mean_ms", (int, float)), ("moves", int)):
            _field(part, key, kind, f"{what} ({name})")
    if not (len(outcomes) == games >= 1 and outcomes.count(WIN) == wins and outcomes.count(DRAW) == draws):
        raise ReportError(
            f"{what}: its games, wins and draws ({games}, {wins}, {draws}) do not match its "
            f"{len(outcomes)} outcomes"
        )
    for name in SAME:
        if name not in report:
            raise ReportError(f"{what} has no {name!r}: it is not a report of monster-zoo's strength")
    return report


def _mean_ms(parts: Sequence[dict]) -> dict:
    """Mean CPU milliseconds per move over several reports' sides, weighted by their moves."""
    moves = sum(p["moves"] for p in parts)
    mean = sum(p["mean_ms"] * p["moves"] for p in parts) / moves if moves else 0.0
    return {"mean_ms": round(mean, 2), "moves": moves}


def pool(reports: Sequence[dict], names: Sequence[str]) -> dict:
    """The reports (read by :func:`read_report`; ``names`` say where each came from) as one
    result; :class:`ReportError` if they measured different things or share a seed."""
    if len(reports) < 2:
        raise ReportError(f"pooling needs at least two reports, got {len(reports)}")
    first = reports[0]
    for report, name in zip(reports[1:], names[1:]):
        for field in SAME:
            if report[field] != first[field]:
                raise ReportError(
                    f"report {name!r} measured another comparison: its {field} is "
                    f"{report[field]!r}, {names[0]!r}'s is {first[field]!r}"
                )
    seeds = [r["seed"] for r in reports]
    if len(set(seeds)) < len(seeds):
        raise ReportError(
            f"the reports share a seed ({', '.join(map(str, seeds))}): the same deals are not "
            f"independent games; play another --seed"
        )
    games = sum(r["games"] for r in reports)
    wins = sum(r["wins"] for r in reports)
    low, high = wilson_interval(wins, games)
    rows = [
        {
            "file": name,
            "seed": r["seed"],
            "games": r["games"],
            "wins": r["wins"],
            "win_rate": round(r["wins"] / r["games"], 4),
            "az_simulations": r.get("az_simulations"),
            "az_mean_ms": r["az"]["mean_ms"],
            "opponent_mean_ms": r["opponent_moves"]["mean_ms"],
            "host": r.get("host"),
        }
        for r, name in zip(reports, names)
    ]
    return {
        **{field: first[field] for field in SAME},
        "games": games,
        "wins": wins,
        "draws": sum(r["draws"] for r in reports),
        "win_rate": round(wins / games, 4),
        "interval95": [round(low, 4), round(high, 4)],
        "equal_share": round(1 / first["num_players"], 4),
        "az": _mean_ms([r["az"] for r in reports]),
        "opponent_moves": _mean_ms([r["opponent_moves"] for r in reports]),
        "reports": rows,
    }


def summary(result: dict) -> str:
    """One line: the pooled rate, its interval, the games and seeds, each side's CPU time."""
    seeds = ", ".join(str(row["seed"]) for row in result["reports"])
    return (
        f"{result['game']} {result['num_players']}p: az vs {result['opponent']}: {result['win_rate']:.3f} "
        f"[{result['interval95'][0]:.3f}, {result['interval95'][1]:.3f}] over {result['games']} games "
        f"(seeds {seeds}; equal share {result['equal_share']}); CPU ms a move az {result['az']['mean_ms']}, "
        f"{result['opponent']} {result['opponent_moves']['mean_ms']}"
    )


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.training.az.pooled",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument(
        "reports", nargs="+", help="JSON reports of python -m monster_zoo.training.az.strength --out"
    )
    parser.add_argument("--out", default=None, help="JSON of the pooled result to write")
    parser.add_argument("--overwrite", action="store_true", help="replace --out if it exists")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Pool the reports and print (and write) the result."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.out and (problem := output_problem("--out", args.out, args.reports, args.overwrite)):
        parser.error(problem)
    try:
        result = pool([read_report(path) for path in args.reports], list(args.reports))
    except ReportError as error:
        parser.error(str(error))
    if args.out:
        write_atomic(Path(args.out), json.dumps(result, indent=1))
    print(summary(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
