"""Selection rules of the learned search screened at equal CPU time, on the same deals.

    python -m monster_zoo.training.az.selection_screen --help
    python -m monster_zoo.training.az.selection_screen --players 2 --rollout-weight 1 \\
        --network agents/champions/monster_factory-az-v2.npz --opponent monster_factory-mcts-v2 \\
        --rules puct,puct-c3,uct-1,uct-2,gumbel --games 200 --workers 2 \\
        --out-dir results/monster_factory_selection

Which rule picks a simulation's actions (:class:`~monster_zoo.agents.az.search.SearchSettings`'s
``selection`` and its constants) is chosen by measurement: every rule plays one ``strength`` series
against the same opponent, sized to the same CPU time per move (each rule its own simulations, so a
costlier rule buys fewer), from the same seed, so every rule meets the same deals. A rule is a name
of :data:`RULES` or ``label:key=value,...`` over the fields of :data:`FIELDS`
(``uct-0.7:selection=uct,exploration=0.7``).

Every rule's report is ``<label>.json`` in ``--out-dir``; a stopped screen resumes where it stopped
(a report already there that measured the same comparison is read, not played again). The screen
is written beside them as ``screen.json`` and printed: each rule's win rate with its 95% Wilson
interval, its simulations and CPU milliseconds per move, and its paired difference with the first
rule (per deal, a win 1, a draw 1/2, a loss 0; the mean difference with a 95% normal interval), the
measure of choice when the rules' intervals overlap. Everything is written atomically.
"""

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from monster_zoo.agents.az.search import SearchSettings
from monster_zoo.agents.network import read_network
from monster_zoo.envs.core.safe_writing import write_atomic
from monster_zoo.evaluation.match import DRAW, WIN
from monster_zoo.training.az.strength import measure
from monster_zoo.training.az.strength_curve import CurveError, reuse_or_play

#: The catalogue of rules by name: the shipped rule first, then the alternatives to it.
RULES = {
    "puct": {},
    "puct-c0.5": {"c_puct": 0.5},
    "puct-c3": {"c_puct": 3.0},
    "uct-0.5": {"selection": "uct", "exploration": 0.5},
    "uct-1": {"selection": "uct", "exploration": 1.0},
    "uct-2": {"selection": "uct", "exploration": 2.0},
    "gumbel": {"selection": "gumbel", "gumbel_scale": 1.0},
    "halving-noise": {"gumbel_scale": 1.0},
}
DEFAULT_RULES = "puct,puct-c3,uct-1,uct-2,gumbel"
#: The search's fields a rule may set, with how a value is read.
FIELDS = {
    "selection": str,
    "exploration": float,
    "c_puct": float,
    "considered": int,
    "gumbel_scale": float,
    "c_visit": float,
    "c_scale": float,
}
Z95 = 1.959963984540054
SCORE = {WIN: 1.0, DRAW: 0.5}  # a loss scores 0


def parse_rule(text: str) -> tuple[str, dict]:
    """``(label, search constants)`` of a rule: a name of :data:`RULES`, or
    ``label:key=value,...`` over :data:`FIELDS`; :class:`CurveError` naming the valid ones."""
    if text in RULES:
        return text, dict(RULES[text])
    label, sep, body = text.partition(":")
    if (
        not sep
        or not label
        or not body
        or not label.replace("-", "").replace(".", "").replace("_", "").isalnum()
    ):
        raise CurveError(
            f"rule {text!r} is neither one of {', '.join(RULES)} nor label:key=value,... (a label "
            f"of letters, digits, '-', '.', '_'; keys {', '.join(FIELDS)})"
        )
    search = {}
    for part in body.split(","):
        key, eq, value = part.partition("=")
        if not eq or key not in FIELDS:
            raise CurveError(f"rule {text!r}: {part!r} is not key=value with a key of {', '.join(FIELDS)}")
        try:
            search[key] = FIELDS[key](value)
        except ValueError:
            raise CurveError(
                f"rule {text!r}: {key} must be a {FIELDS[key].__name__}, not {value!r}"
            ) from None
    try:
        SearchSettings(**search)
    except ValueError as err:
        raise CurveError(f"rule {text!r}: {err}") from None
    return label, search


def parse_rules(text: str) -> list[tuple[str, dict]]:
    """The rules of ``--rules`` (separated by ``;`` where one holds commas, else by ``,``), labels
    distinct; :class:`CurveError` otherwise."""
    parts = text.split(";") if ";" in text or ":" in text else text.split(",")
    rules = [parse_rule(part.strip()) for part in parts if part.strip()]
    labels = [label for label, _ in rules]
    if not rules or len(set(labels)) != len(labels):
        raise CurveError(f"--rules must name distinct rules; got {text!r}")
    return rules


def scores(report: dict) -> np.ndarray:
    """Each game's score of the searching seat: 1 for a win, 1/2 for a draw, 0 for a loss."""
    return np.array([SCORE.get(outcome, 0.0) for outcome in report["outcomes"]])


def paired_difference(report: dict, base: dict) -> dict | None:
    """The mean per-deal score difference of ``report`` over ``base`` with its 95% normal interval
    (None where the two did not play the same deals: other seed or game count)."""
    if (report["seed"], report["games"]) != (base["seed"], base["games"]):
        return None
    diff = scores(report) - scores(base)
    half = Z95 * float(diff.std(ddof=1)) / math.sqrt(len(diff)) if len(diff) > 1 else math.inf
    mean = float(diff.mean())
    return {"mean": round(mean, 4), "interval95": [round(mean - half, 4), round(mean + half, 4)]}


def screen(
    network: str,
    players: int,
    opponent: str,
    rules: Sequence[tuple[str, dict]],
    games: int,
    seed: int,
    out_dir: Path,
    series: dict,
    progress: bool = False,
) -> dict:
    """Every rule's series (played, or read where its report is there) and the screen's summary;
    ``series`` holds the rest of :func:`~monster_zoo.training.az.strength.measure`'s arguments."""
    expected = {
        "network": read_network(network).name,
        "num_players": players,
        "opponent": opponent,
        "seed": seed,
        "games": games,
        "az_rollout_weight": series.get("rollout_weight", 0.0),
    }
    rows = []
    base = None
    for label, search in rules:
        report = reuse_or_play(
            out_dir / f"{label}.json",
            {**expected, "az_search": search},
            lambda: measure(
                network, opponent, players, games, seed, search=search, progress=progress, **series
            ),
        )
        base = base or report
        rows.append(
            {
                "rule": label,
                "search": search,
                "simulations": report["az_simulations"],
                "az_ms": report["az"]["mean_ms"],
                "opponent_ms": report["opponent_moves"]["mean_ms"],
                "win_rate": report["win_rate"],
                "interval95": report["interval95"],
                "against_first": paired_difference(report, base),
                "report": f"{label}.json",
            }
        )
    return {**expected, "equal_share": round(1 / players, 4), "first": rules[0][0], "rules": rows}


def table(summary: dict) -> str:
    """The screen as aligned text, one rule a line."""
    lines = [f"{'rule':<16}{'sims':>7}{'ms':>7}{'opp ms':>8}  win rate [95%]         vs {summary['first']}"]
    for row in summary["rules"]:
        paired = row["against_first"]
        versus = f"{paired['mean']:+.3f} [{paired['interval95'][0]:+.3f}, {paired['interval95'][1]:+.3f}]"
        lines.append(
            f"{row['rule']:<16}{row['simulations']:>7}{row['az_ms']:>7.1f}{row['opponent_ms']:>8.1f}  "
            f"{row['win_rate']:.3f} [{row['interval95'][0]:.3f}, {row['interval95'][1]:.3f}]  {versus}"
        )
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.training.az.selection_screen",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--network", required=True, help="network file of monster-zoo az")
    parser.add_argument("--players", type=int, required=True, help="player count (one of the network's)")
    parser.add_argument("--opponent", default="mcts", help="agent name in every other seat")
    parser.add_argument(
        "--rules",
        default=DEFAULT_RULES,
        help=f"rules to screen, the first the reference: names of {', '.join(RULES)}, or "
        f"label:key=value,... separated by ';' (keys {', '.join(FIELDS)})",
    )
    parser.add_argument(
        "--games", type=int, default=200, help="games per rule, seats rotated and deals paired"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents")
    parser.add_argument(
        "--rollout-weight", type=float, default=0.0, help="share of a leaf's value from a rollout (0 to 1)"
    )
    parser.add_argument(
        "--pilot-games", type=int, default=None, help="pilot games per rule (not given: one per seat)"
    )
    parser.add_argument("--workers", type=int, default=1, help="processes sharing each rule's games")
    parser.add_argument("--out-dir", required=True, help="folder of the rules' reports and screen.json")
    parser.add_argument("--no-progress", action="store_true", help="no sizing lines and no progress bars")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Screen the rules, print the table and write ``screen.json``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    for flag, ok, need in (
        ("--games", args.games >= 2, "at least 2 (a paired interval needs two deals)"),
        ("--players", args.players >= 1, "a player count"),
        ("--seed", args.seed >= 0, "a non-negative integer"),
        ("--workers", 1 <= args.workers <= 64, "from 1 to 64"),
        ("--rollout-weight", 0 <= args.rollout_weight <= 1, "a number from 0 to 1"),
        ("--pilot-games", args.pilot_games is None or 0 <= args.pilot_games <= 1000, "from 0 to 1000"),
    ):
        if not ok:
            parser.error(f"{flag} must be {need}")
    out_dir = Path(args.out_dir)
    try:
        rules = parse_rules(args.rules)
        out_dir.mkdir(parents=True, exist_ok=True)
        summary = screen(
            args.network,
            args.players,
            args.opponent,
            rules,
            args.games,
            args.seed,
            out_dir,
            {
                "rollout_weight": args.rollout_weight,
                "workers": args.workers,
                "pilot_games": args.pilot_games,
            },
            progress=not args.no_progress,
        )
    except ValueError as error:  # CurveError, and a bad network or opponent from the series
        parser.error(str(error))
    write_atomic(out_dir / "screen.json", json.dumps(summary, indent=1))
    print(table(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
