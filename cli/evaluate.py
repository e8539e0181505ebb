"""``monster-zoo evaluate``: a round-robin tournament with win rates and ratings, and learning curves."""

import argparse
import sys
from pathlib import Path

from monster_zoo.cli.common import (
    EVAL_EXTRA,
    PROG,
    game_arguments,
    missing_packages,
    model_files,
    overwrite_argument,
)
from monster_zoo.llm.arguments import add_llm_arguments

RECORDS_GLOB = "game_*.json"  # the match records evaluate --save-records writes
# The first line of a tournament, before the game's kernels load and the agents are timed.
STARTING = (
    f"{PROG} evaluate: loading the game and timing each agent on a few moves for an estimate; "
    "the first run on a machine compiles the kernels (cached after it)..."
)
LLM_PREFIX = "llm:"  # a chat model at an endpoint (the llm kind), scored apart from the tournament


def add_parser(commands) -> argparse.ArgumentParser:
    """The ``evaluate`` command and its arguments."""
    evaluate = commands.add_parser(
        "evaluate",
        help="round-robin tournament with win rates and ratings; learning curves",
        description="Play every pair of agents head to head (one seat against the other seats, seats "
        "rotated, deals paired), then print win rates with 95% Wilson intervals and openskill ratings.",
    )
    game_arguments(evaluate)
    evaluate.add_argument(
        "--agents",
        nargs="+",
        metavar="NAME",
        help="the field: agent names such as random, greedy, mcts, ppo:<model.npz>; "
        "LABEL=NAME shows NAME as LABEL in tables and plots (e.g. demo=ppo:runs/x/final_model.npz)",
    )
    evaluate.add_argument(
        "--games",
        type=int,
        default=40,
        help="games per pairing, rounded up to a multiple of the player count (default %(default)s)",
    )
    evaluate.add_argument(
        "--out", type=Path, metavar="DIR", help="write tournament.md, tournament.json and win_rates.png here"
    )
    evaluate.add_argument(
        "--curves",
        nargs="+",
        type=Path,
        metavar="RUN_DIR",
        help="training run folders (each with metrics.csv): plot learning_curves.png into --out",
    )
    evaluate.add_argument("--no-progress", action="store_true", help="do not show a progress bar")
    evaluate.add_argument(
        "--save-records",
        type=Path,
        metavar="DIR",
        help="write match records of a sample of the games here (see --records-per-pairing)",
    )
    evaluate.add_argument(
        "--records-per-pairing",
        type=int,
        default=2,
        metavar="N",
        help="with --save-records: the first N games of each pairing (default %(default)s)",
    )
    evaluate.add_argument(
        "--ray",
        action="store_true",
        help="spread the games over Ray workers (same results as without; needs the distributed extra)",
    )
    evaluate.add_argument(
        "--address",
        metavar="HOST:PORT",
        help="with --ray: join this running Ray cluster instead of starting a local Ray",
    )
    models = evaluate.add_argument_group(
        "language models",
        "an llm:<model> entry of --agents is a chat model at an OpenAI-compatible endpoint; "
        "each is scored against the field's other entries (seats rotated, deals paired) and rated among "
        "them, with its illegal-move policy, legal-move and retry rates, endpoint failures, tokens and "
        "latency; --out writes llm_scores.md and llm_scores.json, --save-records the model's games",
    )
    models.add_argument(
        "--base-url",
        metavar="URL",
        help="the endpoint's base URL, e.g. http://127.0.0.1:8000/v1 for vLLM (default: "
        "$MONSTER_ZOO_LLM_BASE_URL, else http://127.0.0.1:8000/v1)",
    )
    add_llm_arguments(models)
    overwrite_argument(evaluate)
    return evaluate


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``evaluate``: the tournament (markdown to stdout, files into ``--out``) and learning curves."""
    import importlib.util

    if args.agents is None and args.curves is None:
        parser.error("give --agents (a tournament), --curves (learning curves), or both")
    if args.curves and args.out is None:
        parser.error("--curves needs --out DIR for the picture")
    if args.games < 1:
        parser.error("--games must be at least 1")
    problem = _output_problem(args)
    if problem:
        parser.error(problem)
    if args.records_per_pairing < 1:
        parser.error("--records-per-pairing must be at least 1")
    if args.agents is not None:  # at once: loading the game and timing the agents can take a while
        print(STARTING, file=sys.stderr, flush=True)

    from monster_zoo import envs
    from monster_zoo.envs.core.escaping import visible
    from monster_zoo.envs.core.records import save_record

    try:
        envs.config(args.game, dict(args.option))
    except (ValueError, TypeError) as err:  # unknown games or options, values the state cannot hold
        parser.error(str(err))

    missing = missing_packages(EVAL_EXTRA)
    if missing:
        print(
            f"{PROG} evaluate: {', '.join(missing)} not installed; install the eval extra:\n"
            f"    pip install -e '.[eval]'",
            file=sys.stderr,
        )
        return 1
    from monster_zoo.evaluation import plots
    from monster_zoo.evaluation.tournament import run_tournament

    if args.address and not args.ray:
        parser.error("--address needs --ray")
    if args.ray and importlib.util.find_spec("ray") is None:
        print(
            f"{PROG} evaluate --ray: ray is not installed; install the distributed extra:\n"
            f"    pip install -e '.[distributed]'",
            file=sys.stderr,
        )
        return 1
    if args.agents is not None and any(name.startswith(LLM_PREFIX) for name in args.agents):
        return _score_models(args, parser)
    if args.results is not None or args.resume:
        parser.error("--results and --resume keep the games of llm:<model> entries; this field has none")
    if args.agents is not None:
        series = {}
        if args.ray:
            import ray

            from monster_zoo.evaluation.ray_tournament import RaySeries

            ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
            series["play_series"] = RaySeries()
        try:
            print(expected_duration(args), file=sys.stderr, flush=True)
            result = run_tournament(
                args.game,
                args.agents,
                args.games,
                args.seed,
                dict(args.option),
                progress=not args.no_progress,
                records_per_pairing=args.records_per_pairing if args.save_records else 0,
                **series,
            )
        except (ValueError, TypeError) as err:  # unknown games, agents or options; a bad field
            parser.error(str(err))
        finally:
            if args.ray:
                ray.shutdown()
        # the results and the records first: nothing optional (a plot, even printing) may cost them
        written = list(result.write(args.out).values()) if args.out is not None else []
        for i, record in enumerate(result.match_records if args.save_records is not None else ()):
            save_record(record, args.save_records / f"game_{i:03d}.json")
        if result.games_per_pairing != args.games:
            print(
                f"note: played {result.games_per_pairing} games per pairing instead of {args.games} so "
                f"that every agent plays every seat equally often",
                file=sys.stderr,
            )
        print(result.markdown())
        print(f"\nelapsed {result.elapsed_s:.1f} s")
        if args.ray:
            print(
                f"played on {len(series['play_series'].nodes)} Ray node(s): "
                + ", ".join(
                    f"{node[:12]} ({games} games)"
                    for node, games in sorted(series["play_series"].node_games.items())
                )
            )
        if args.save_records is not None:
            print(f"wrote {len(result.match_records)} match records into {visible(str(args.save_records))}")
        if args.out is not None:
            written += _optional_picture(
                "the win-rate plot", plots.plot_win_matrix, result.to_json(), args.out / "win_rates.png"
            )
            print("wrote " + ", ".join(visible(str(p)) for p in written))
    if args.curves:
        try:
            curves = plots.plot_learning_curves(args.curves, args.out / "learning_curves.png")
        except (ValueError, KeyError, OSError) as err:  # a metrics.csv without win rates, or unreadable
            print(f"{PROG} evaluate: cannot plot the learning curves: {visible(str(err))}", file=sys.stderr)
            return 1
        print(f"wrote {visible(str(curves))}")
    return 0


def _score_models(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``evaluate`` with ``llm:<model>`` entries: each model against every other entry of the field
    (:func:`monster_zoo.llm.scoring.score_named_models`), a markdown table per model on stdout, and
    with ``--out`` the tables as markdown and JSON; every game kept in ``--results`` as it ends."""
    from monster_zoo.agents.llm.agent import LlmSettings
    from monster_zoo.agents.llm.chat import ChatError
    from monster_zoo.envs.core.escaping import visible
    from monster_zoo.envs.core.records import save_record
    from monster_zoo.llm.arguments import llm_settings, open_results
    from monster_zoo.llm.scoring import run_settings, score_named_models, split_field, write_scores

    if args.curves:
        parser.error("--curves is for tournaments of agents, not for fields with llm:<model> entries")
    if args.ray:
        parser.error("--ray is for tournaments of agents, not for llm:<model> entries")
    results = None
    try:
        settings = llm_settings(args, args.base_url or LlmSettings.from_environment().base_url)
        models, baselines = split_field(args.agents)
        results = open_results(
            args,
            run_settings(args.game, models, baselines, args.games, args.seed, dict(args.option), settings),
        )
        scores = score_named_models(
            args.game,
            args.agents,
            args.games,
            args.seed,
            dict(args.option),
            settings,
            results,
            progress=not args.no_progress,
            records_per_baseline=args.records_per_pairing if args.save_records else 0,
        )
    except (ValueError, TypeError) as err:  # unknown games, agents or options; a field of models only
        parser.error(str(err))
    except ChatError as err:  # the endpoint failed for good or refused the request
        print(f"{PROG} evaluate: the run stopped: {visible(str(err))}", file=sys.stderr)
        if results is not None:
            print(
                f"finished games kept in {visible(str(args.results))}: {len(results.games)}; continue "
                "with the same command and --resume",
                file=sys.stderr,
            )
        return 1
    written = write_scores(list(scores.values()), args.out) if args.out is not None else []
    records = [record for score in scores.values() for record in score.match_records]
    for i, record in enumerate(records if args.save_records is not None else ()):
        save_record(record, args.save_records / f"game_{i:03d}.json")
    for score in scores.values():
        print(score.markdown())
    print(f"\nelapsed {sum(score.elapsed_s for score in scores.values()):.1f} s")
    if args.save_records is not None:
        print(f"wrote {len(records)} match records into {visible(str(args.save_records))}")
    if written:
        print("wrote " + ", ".join(visible(str(p)) for p in written))
    return 0


def expected_duration(args: argparse.Namespace) -> str:
    """The line ``evaluate`` prints before the first game: how long the field should take, from
    each agent's cost per move timed here (:mod:`monster_zoo.evaluation.estimate`)."""
    from monster_zoo import envs
    from monster_zoo.agents.registry import agent_labels, make_agent
    from monster_zoo.evaluation import estimate
    from monster_zoo.evaluation.match import seat_balanced
    from monster_zoo.evaluation.tournament import pairings_to_play

    options = dict(args.option)
    num_players = len(envs.make(args.game, **options).unwrapped.possible_agents)
    seated = {**options, "num_players": num_players}
    agents = [make_agent(name, args.game, args.seed, seated) for name in args.agents]
    labels = agent_labels(args.agents, agents)
    games = seat_balanced(args.games, num_players)
    found = estimate.field_estimate(
        args.game, dict(zip(labels, agents)), seated, pairings_to_play(labels, num_players), games
    )
    return (
        f"expected duration: {estimate.describe_duration(found.seconds)} of play ({found.details()}; "
        f"measured here and now, a guide within a factor of about two), after {found.compiling:.1f} s "
        f"of compiling the kernels, which numba caches on disk for the next runs"
    )


def _optional_picture(what: str, plot, *args) -> list[Path]:
    """``[plot(*args)]``, or a warning and ``[]`` if it fails: a picture is never worth a run."""
    from monster_zoo.envs.core.escaping import visible

    try:
        return [plot(*args)]
    except Exception as err:
        print(
            f"warning: {what} was not written ({type(err).__name__}: {visible(str(err))[:300]})",
            file=sys.stderr,
        )
        return []


def _output_problem(args: argparse.Namespace) -> str | None:
    """Why ``evaluate`` could not write its results or read its curves, found before any game is
    played (so a long tournament is never lost to a bad path): folders that cannot be written,
    outputs that exist (without ``--overwrite``) or are links, special files or inputs."""
    from monster_zoo.envs.core.safe_writing import output_problem
    from monster_zoo.evaluation.arg_checks import first_problem, writable_dir

    missing = [str(d) for d in args.curves or () if not (Path(d) / "metrics.csv").is_file()]
    inputs = model_files(args.agents or ()) + [str(Path(d) / "metrics.csv") for d in args.curves or ()]
    outputs = []
    models = any(name.startswith(LLM_PREFIX) for name in args.agents or ())
    if args.out is not None:
        tables = (
            ["llm_scores.md", "llm_scores.json"]
            if models
            else ["tournament.md", "tournament.json", "win_rates.png"]
        )
        names = (tables if args.agents else []) + (["learning_curves.png"] if args.curves else [])
        outputs = [output_problem("--out", args.out / name, inputs, args.overwrite) for name in names]
    saved = sorted(Path(args.save_records).glob(RECORDS_GLOB)) if args.save_records is not None else []
    return first_problem(
        writable_dir("--out", args.out) if args.out is not None else None,
        writable_dir("--save-records", args.save_records) if args.save_records is not None else None,
        *outputs,
        f"--save-records {args.save_records} already holds match records ({saved[0].name}, ...); choose an "
        "empty folder or pass --overwrite to replace them"
        if saved and not args.overwrite
        else None,
        *[output_problem("--save-records", path, inputs, True) for path in saved],
        f"--curves: no metrics.csv in {', '.join(missing)} (give training run folders)" if missing else None,
    )
