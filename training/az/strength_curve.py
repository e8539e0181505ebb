"""The learned search's strength as a curve: over its CPU budget, or over its training.

    python -m monster_zoo.training.az.strength_curve --help
    python -m monster_zoo.training.az.strength_curve budget --players 2 --opponent mcts \\
        --network agents/champions/monster_factory-az-v2.npz --rollout-weight 1 \\
        --multiples 1,2,4 --games 200 --out-dir results/monster_factory_budget
    python -m monster_zoo.training.az.strength_curve budget --players 3 --opponent mighty_monsters-mcts-v2 \\
        --agent mighty_monsters-mcts-v3 --game mighty_monsters-v0 --multiples 1,2 \\
        --out-dir results/mighty_monsters_mcts_budget
    python -m monster_zoo.training.az.strength_curve training --players 2 --opponent mcts \\
        --run runs/<run> --rollout-weight 1 --games 100 --out-dir results/monster_factory_training

One ``strength`` series answers one question: does ``az`` beat its opponent at equal CPU time per
move? Where it does not, two curves say more:

- ``budget`` plays ``az`` at multiples of its equal-time simulations: the multiple 1 is sized by
  ``strength`` (its pilot games included), every other multiple plays that count times the
  multiple. The curve shows the budget (as the ratio of CPU time per move spent by the two sides)
  at which ``az`` reaches a target, if it does. ``--belief`` plays ``az`` with beliefs, and
  ``--agent`` (with ``--game``) a named search of the registry in its place (an ``mcts`` version),
  as ``strength`` does.
- ``training`` plays the networks a training run saved (its ``--init-network`` first, then every
  ``--every``-th checkpoint and the last) at one count, sized at equal time for the first: the
  networks share one shape, so one count is one budget. The curve shows whether training moves
  the equal-time result.

Every point is a ``strength`` report in ``--out-dir`` (``x<multiple>.json``, ``init.json``,
``round_<k>.json``), all on the same deals. A stopped curve resumes where it stopped: a point
whose report is already there (and measured the same comparison) is read, not played again. The
curve itself is written beside them, as ``curve.json`` and ``curve.png``: win rates with their 95%
Wilson intervals, the equal share and ``--target`` drawn across. Everything is written atomically.
"""

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from monster_zoo import envs
from monster_zoo.agents.network import read_network
from monster_zoo.envs.core.bounded_reading import read_json_file
from monster_zoo.envs.core.escaping import plot_text
from monster_zoo.envs.core.safe_writing import write_atomic
from monster_zoo.training.az.pooled import ReportError, read_report
from monster_zoo.training.az.strength import MAX_BUDGET_MS, measure, searcher_label

MAX_MULTIPLE = 64.0
MAX_ARGS_BYTES = 1 << 20  # a run's args.json is about 1.5 KB
CHECKPOINT = re.compile(r"round_(\d{5,})\.npz")


class CurveError(ValueError):
    """A curve that cannot be played or resumed; the message says why."""


def parse_multiples(text: str) -> list[float]:
    """``"1,2,4"`` as ``[1.0, 2.0, 4.0]``: distinct, increasing, one of them 1, none above
    :data:`MAX_MULTIPLE`; :class:`CurveError` otherwise."""
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise CurveError(
            f"--multiples must be numbers separated by commas, e.g. 1,2,4; got {text!r}"
        ) from None
    if values != sorted(set(values)) or not all(0 < v <= MAX_MULTIPLE for v in values) or 1.0 not in values:
        raise CurveError(
            f"--multiples must be increasing numbers in (0, {MAX_MULTIPLE:.0f}] that include 1 "
            f"(the equal-time point the others scale); got {text!r}"
        )
    return values


def multiple_name(multiple: float) -> str:
    """The point's name: ``x1``, ``x2``, ``x0.5``."""
    return f"x{multiple:g}"


def run_networks(run_dir: Path, every: int) -> list[tuple[str, str, int]]:
    """``(name, path, round)`` of the networks a training run saved: the network it started from
    (``init``, round 0) where its ``args.json`` names one that exists, then every ``every``-th
    checkpoint of ``networks/`` and always the last."""
    args_path = run_dir / "args.json"
    what = f"the run's arguments {str(args_path)!r}"
    args = read_json_file(args_path, MAX_ARGS_BYTES, 4, what, CurveError)
    init = args.get("init_network") if isinstance(args, dict) else None
    found = sorted(
        (int(m.group(1)), p)
        for p in (run_dir / "networks").glob("round_*.npz")
        if (m := CHECKPOINT.fullmatch(p.name)) and p.is_file()
    )
    if not found:
        raise CurveError(
            f"{str(run_dir)!r} has no checkpoints (networks/round_<k>.npz): "
            "is it a run folder of monster-zoo az?"
        )
    kept = [item for i, item in enumerate(found) if (i + 1) % every == 0 or i == len(found) - 1]
    networks = [(p.stem, str(p), k) for k, p in kept]
    if isinstance(init, str) and init and Path(init).is_file():
        networks.insert(0, ("init", init, 0))
    return networks


def reuse_or_play(path: Path, expected: dict, play) -> dict:
    """The report in ``path`` if it measured the comparison ``expected`` describes (network,
    players, opponent, seed, games, rollout weight, and simulations where given), else
    :class:`CurveError`; where there is none, ``play()``'s report, written to ``path`` first."""
    if path.exists():
        try:
            report = read_report(path)
        except ReportError as err:
            raise CurveError(str(err)) from None
        differs = {k: (report.get(k), v) for k, v in expected.items() if report.get(k) != v}
        if differs:
            raise CurveError(
                f"{str(path)!r} measured another comparison ({', '.join(f'{k}: {a!r}, not {b!r}' for k, (a, b) in differs.items())}): "
                "give another --out-dir, or remove the file"
            )
        return report
    report = play()
    write_atomic(path, json.dumps(report, indent=1))
    return report


def point(name: str, x: float, network_file: str, report: dict) -> dict:
    """A curve's point from its report. ``time_ratio`` is the CPU time per move the two sides
    spent, the searching side over its opponent (``None`` where the opponent's is too small to
    time); ``network_file`` is the network's file, or the named search that played."""
    az_ms, opponent_ms = report["az"]["mean_ms"], report["opponent_moves"]["mean_ms"]
    return {
        "name": name,
        "x": x,
        "network": report["network"],
        "network_file": network_file,
        "searcher": report.get("searcher", "az"),
        "simulations": report["az_simulations"],
        "az_ms": az_ms,
        "opponent_ms": opponent_ms,
        "time_ratio": round(az_ms / opponent_ms, 3) if opponent_ms >= 0.01 else None,
        "win_rate": report["win_rate"],
        "interval95": report["interval95"],
        "games": report["games"],
        "report": f"{name}.json",
    }


def budget_curve(
    network: str | None,
    players: int,
    opponent: str,
    multiples: Sequence[float],
    games: int,
    seed: int,
    out_dir: Path,
    series: dict,
    progress: bool = False,
) -> list[dict]:
    """The ``budget`` curve's points (see the module doc); ``series`` holds the rest of
    :func:`~monster_zoo.training.az.strength.measure`'s arguments (``agent`` and ``game_id`` for a
    named search in place of ``network``, ``belief`` for az with beliefs)."""
    agent, belief = series.get("agent"), bool(series.get("belief"))
    expected = {
        "network": read_network(network).name if network is not None else None,
        "num_players": players,
        "opponent": opponent,
        "seed": seed,
        "games": games,
        "az_rollout_weight": series.get("rollout_weight", 0.0),
    }
    if agent is not None or belief:  # older plain az reports name no searcher, so only these check it
        expected["searcher"] = searcher_label(agent, belief)
    if agent is not None:  # a named search has no network to name its game
        expected["game"] = series["game_id"]
    base = reuse_or_play(
        out_dir / "x1.json",
        expected,
        lambda: measure(network, opponent, players, games, seed, progress=progress, **series),
    )
    equal = base["az_simulations"]
    points = []
    for multiple in multiples:
        count = max(1, round(multiple * equal))
        name = multiple_name(multiple)
        report = (
            base
            if multiple == 1
            else reuse_or_play(
                out_dir / f"{name}.json",
                {**expected, "az_simulations": count},
                lambda: measure(
                    network,
                    opponent,
                    players,
                    games,
                    seed,
                    simulations=count,
                    progress=progress,
                    **{k: v for k, v in series.items() if k != "pilot_games"},
                ),
            )
        )
        points.append(point(name, multiple, network if network is not None else str(agent), report))
    return points


def training_curve(
    run_dir: Path,
    every: int,
    players: int,
    opponent: str,
    games: int,
    seed: int,
    out_dir: Path,
    series: dict,
    progress: bool = False,
) -> list[dict]:
    """The ``training`` curve's points (see the module doc)."""
    networks = run_networks(run_dir, every)
    expected = {
        "num_players": players,
        "opponent": opponent,
        "seed": seed,
        "games": games,
        "az_rollout_weight": series.get("rollout_weight", 0.0),
    }
    first_name, first_path, first_round = networks[0]
    first = reuse_or_play(
        out_dir / f"{first_name}.json",
        {**expected, "network": read_network(first_path).name},
        lambda: measure(first_path, opponent, players, games, seed, progress=progress, **series),
    )
    count = first["az_simulations"]
    fixed = {k: v for k, v in series.items() if k != "pilot_games"}
    points = [point(first_name, first_round, first_path, first)]
    for name, path, k in networks[1:]:
        report = reuse_or_play(
            out_dir / f"{name}.json",
            {**expected, "network": read_network(path).name, "az_simulations": count},
            lambda: measure(
                path,
                opponent,
                players,
                games,
                seed,
                simulations=count,
                progress=progress,
                **fixed,
            ),
        )
        points.append(point(name, k, path, report))
    return points


def plot_curve(curve: dict, path: Path) -> Path:
    """The curve's picture: win rate with its 95% interval against the budget ratio (log scale) or
    the training round, the equal share and the target across."""
    from monster_zoo.evaluation.plots import _pyplot, _save

    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(6.4, 4.2))
    points = curve["points"]
    # a budget curve's x is the time ratio as spent, or the multiple where an opponent is too fast to time
    by_ratio = curve["kind"] == "budget" and all(p["time_ratio"] for p in points)
    xs = [p["time_ratio"] if by_ratio else p["x"] for p in points]
    rates = [p["win_rate"] for p in points]
    below = [r - p["interval95"][0] for r, p in zip(rates, points)]
    above = [p["interval95"][1] - r for r, p in zip(rates, points)]
    searcher = curve.get("searcher", "az")
    axes.errorbar(
        xs, rates, yerr=[below, above], marker="o", capsize=3, label=plot_text(f"{searcher}, 95% interval")
    )
    axes.axhline(
        curve["equal_share"], color="grey", linestyle=":", label=f"equal share {curve['equal_share']:g}"
    )
    if curve.get("target") is not None:
        axes.axhline(curve["target"], color="tab:red", linestyle="--", label=f"target {curve['target']:g}")
    if curve["kind"] == "budget":
        axes.set_xscale("log", base=2)
        axes.margins(x=0.15)  # room for the points' names at the ends
        axes.set_xticks(xs, [f"{x:.2g}x" for x in xs])
        axes.minorticks_off()
        axes.set_xlabel(
            "CPU time per move, searching seat / opponent (as spent)"
            if by_ratio
            else "the searching seat's simulations, multiple of its equal-time count"
        )
        for x, rate, p in zip(xs, rates, points):  # which multiple each point played, where x is the time
            axes.annotate(
                plot_text(p["name"]), (x, rate), textcoords="offset points", xytext=(6, 6), fontsize=8
            )
    else:
        axes.set_xlabel("training round (0: the network it started from)")
    axes.set_ylabel("win rate of the searching seat")
    axes.set_ylim(0, 1)
    axes.set_title(
        plot_text(f"{curve['game']} {curve['num_players']}p: {searcher}")
        + "\n"
        + plot_text(f"against {curve['opponent']}, {curve['games']} games a point"),
        fontsize=10,
    )
    axes.legend(fontsize=8)
    return _save(figure, path)


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.training.az.strength_curve",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    kinds = parser.add_subparsers(dest="kind", required=True, metavar="{budget,training}")
    budget = kinds.add_parser(
        "budget",
        help="az at multiples of its equal-time simulations",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    budget.add_argument("--network", default=None, help="network file of monster-zoo az")
    budget.add_argument(
        "--agent",
        default=None,
        help="a named search to play instead of a network (an mcts version: <game>-mcts-v3); needs --game",
    )
    budget.add_argument("--game", default=None, help="the game id, with --agent (a network names its own)")
    budget.add_argument(
        "--belief",
        action="store_true",
        help="the network's search deals its simulations from its seat's belief",
    )
    budget.add_argument(
        "--multiples", default="1,2,4", help="multiples of the equal-time simulations, increasing, 1 included"
    )
    training = kinds.add_parser(
        "training",
        help="a training run's saved networks at equal time",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    training.add_argument("--run", required=True, type=Path, help="run folder of monster-zoo az (runs/<run>)")
    training.add_argument("--every", type=int, default=1, help="every k-th checkpoint (the last always)")
    for sub in (budget, training):
        sub.add_argument("--players", type=int, required=True, help="player count (one of the network's)")
        sub.add_argument("--opponent", default="mcts", help="agent name in every other seat")
        sub.add_argument(
            "--games", type=int, default=200, help="games a point, seats rotated and deals paired"
        )
        sub.add_argument(
            "--seed", type=int, default=0, help="seed of the deals and the agents (every point's)"
        )
        sub.add_argument(
            "--budget-ms",
            type=float,
            default=None,
            help=f"CPU ms per az move at equal time (default: the opponent's, measured in the "
            f"pilot games; at most {MAX_BUDGET_MS:.0f})",
        )
        sub.add_argument(
            "--rollout-weight",
            type=float,
            default=0.0,
            help="share of a leaf's value from a rollout (0 to 1)",
        )
        sub.add_argument(
            "--pilot-games",
            type=int,
            default=None,
            help="pilot games of the equal-time sizing (not given: one per seat)",
        )
        sub.add_argument("--target", type=float, default=None, help="a win rate to draw across (e.g. 0.6)")
        sub.add_argument("--workers", type=int, default=1, help="processes sharing each point's games")
        sub.add_argument(
            "--out-dir",
            required=True,
            type=Path,
            help="folder of the points' reports and the curve (an existing one resumes)",
        )
        sub.add_argument("--no-progress", action="store_true", help="no sizing lines and no progress bars")
    return parser


def check_args(args: argparse.Namespace) -> str | None:
    """What is wrong with the arguments, with the valid values, or ``None``."""
    for flag, value, ok, need in (
        ("--players", args.players, 1 <= args.players <= 8, "a player count from 1 to 8"),
        ("--games", args.games, args.games >= 1, "at least 1"),
        ("--seed", args.seed, args.seed >= 0, "a non-negative integer"),
        ("--workers", args.workers, 1 <= args.workers <= 64, "from 1 to 64"),
        ("--rollout-weight", args.rollout_weight, 0 <= args.rollout_weight <= 1, "a number from 0 to 1"),
        (
            "--budget-ms",
            args.budget_ms,
            args.budget_ms is None or 0 < args.budget_ms <= MAX_BUDGET_MS,
            f"a number of milliseconds in (0, {MAX_BUDGET_MS:.0f}]",
        ),
        (
            "--pilot-games",
            args.pilot_games,
            args.pilot_games is None or 0 <= args.pilot_games <= 1000,
            "from 0 to 1000",
        ),
        ("--target", args.target, args.target is None or 0 < args.target < 1, "a win rate in (0, 1)"),
        ("--every", getattr(args, "every", 1), getattr(args, "every", 1) >= 1, "at least 1"),
    ):
        if not ok:
            return f"{flag} must be {need}, got {value}"
    if args.kind == "budget":
        if (args.network is None) == (args.agent is None):
            return "give either --network (the az search over a network) or --agent (a named search)"
        if args.agent is not None and args.game not in envs.available():
            return f"--agent needs --game, one of {', '.join(envs.available())}; got {args.game}"
        if args.agent is not None and args.belief:
            return "--belief is the network search's; a named search keeps its own (mcts-v3 has beliefs)"
    if args.out_dir.exists() and not args.out_dir.is_dir():
        return f"--out-dir {str(args.out_dir)!r} is a file, not a folder"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Play (or resume) the curve, write its reports, ``curve.json`` and ``curve.png``, and print
    a line per point."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if problem := check_args(args):
        parser.error(problem)
    series = {
        "budget_ms": args.budget_ms,
        "workers": args.workers,
        "rollout_weight": args.rollout_weight,
        "pilot_games": args.pilot_games,
    }
    progress = not args.no_progress
    try:
        if args.kind == "budget":
            multiples = parse_multiples(args.multiples)
            args.out_dir.mkdir(parents=True, exist_ok=True)
            named = {"agent": args.agent, "game_id": args.game} if args.agent is not None else {}
            points = budget_curve(
                args.network,
                args.players,
                args.opponent,
                multiples,
                args.games,
                args.seed,
                args.out_dir,
                {**series, **named, "belief": args.belief},
                progress,
            )
        else:
            args.out_dir.mkdir(parents=True, exist_ok=True)
            points = training_curve(
                args.run,
                args.every,
                args.players,
                args.opponent,
                args.games,
                args.seed,
                args.out_dir,
                series,
                progress,
            )
    except ValueError as error:  # CurveError, and measure's refusals (a budget over the cap, a bad name)
        parser.error(str(error))
    first = read_report(args.out_dir / points[0]["report"])
    curve = {
        "kind": args.kind,
        "searcher": first.get("searcher", "az"),
        "game": first["game"],
        "num_players": args.players,
        "opponent": args.opponent,
        "games": args.games,
        "seed": args.seed,
        "rollout_weight": args.rollout_weight,
        "equal_share": first["equal_share"],
        "target": args.target,
        "host": first["host"],
        "points": points,
    }
    write_atomic(args.out_dir / "curve.json", json.dumps(curve, indent=1))
    plot_curve(curve, args.out_dir / "curve.png")
    for p in points:
        ratio = f"{p['time_ratio']:g}x" if p["time_ratio"] else "too fast to compare"
        print(
            f"{p['name']}: {p['searcher']} {p['simulations']} simulations, {p['az_ms']} ms/move against {p['opponent_ms']} "
            f"({ratio}): {p['win_rate']:.3f} [{p['interval95'][0]:.3f}, {p['interval95'][1]:.3f}] "
            f"over {p['games']} games"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
