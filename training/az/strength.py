"""The learned search against an opponent at the same CPU time per move (the strength protocol).

    python -m monster_zoo.training.az.strength --help
    python -m monster_zoo.training.az.strength --network runs/<run>/network.npz --players 2 \\
        --opponent mcts --games 200 --workers 2 --out results/az_vs_mcts_2p.json
    python -m monster_zoo.training.az.strength --agent monstargh-mcts-v3 --game monstargh-v0 \\
        --players 2 --opponent monstargh-mcts-v2 --games 200 --out results/mcts_v3_vs_v2_2p.json

A search's strength depends on its budget, so comparing two searches means giving both the same
CPU time per move. This tool measures the opponent's CPU seconds per move (``time.process_time``
in the searching process) on positions of greedy games and sizes the ``az`` search's simulations
to match it, at most 100 ms (the protocol's cap; a slower opponent meets ``az`` at the cap).
``--budget-ms`` sets the budget instead; the opponent is never re-sized: a named search keeps its
tuned simulations. A few pilot games against the real opponent, on deals of
their own (``--pilot-games``), then correct the count from both sides' CPU time in real play,
which greedy games' positions can misjudge: at equal time the search is sized to what the
opponent spent in those same games. ``--rollout-weight`` mixes the game's rollouts into
the search's leaf values, and the sizing counts their cost; ``--c-puct`` and ``--considered`` set
the search's other constants and ``--selection`` (with ``--exploration`` and ``--gumbel-scale``)
its selection rule, so they can be compared at equal time. ``--belief`` deals the
search's simulations from its seat's belief (:mod:`monster_zoo.agents.belief`); ``--agent`` (with
``--game``) plays a named search of the registry in place of a network, sized the same way from
its own simulations: ``<game>-mcts-v3`` against ``<game>-mcts-v2`` at equal time.

The series is seat-rotated and deal-paired (``az`` in one seat, the opponent in all the others,
:func:`monster_zoo.evaluation.match.iter_games`) and split over ``--workers`` processes. Every
move's CPU time is measured during the games too, so the report gives the budgets as they were
spent, not only as planned: win rate with its 95% Wilson interval, games, seed, simulations, the
pilot's correction, mean and 95th-percentile milliseconds per move of each side, wall time, and
the host (CPU name, cores, the load at the start and the end), since CPU times mean little
without the CPU they were spent on.
The result goes to ``--out`` as JSON (written atomically; an existing file needs ``--overwrite``).
``--results FILE`` keeps every finished game (its outcome and both sides' CPU seconds per move)
in a JSON-lines file as it ends, after the sizing's line (:mod:`monster_zoo.evaluation.results_file`);
a series stopped anywhere continues with ``--resume``, which reuses the recorded sizing and plays
only the games the file lacks: every game is seeded by its index, so the resumed series is the
series played whole.
"""

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from monster_zoo import envs
from monster_zoo.agents.az.agent import AZAgent
from monster_zoo.agents.az.search import SELECTIONS, SearchSettings
from monster_zoo.agents.network import read_network
from monster_zoo.agents.registry import make_agent
from monster_zoo.envs.core.safe_writing import output_problem, write_atomic
from monster_zoo.evaluation.host import git_revision, host_facts
from monster_zoo.evaluation.match import DRAW, WIN, iter_games, progress_bar, seat_outcome, wilson_interval
from monster_zoo.evaluation.results_file import GamesFile, ResultsError

MAX_BUDGET_MS = 100.0  # the protocol's cap: at most 0.1 CPU s per move for the searching agent
SAMPLE_GAMES = 3  # greedy games whose positions size the budget
SAMPLE_POSITIONS = 24
SIZING_SIMULATIONS = 400
PILOT_SEED_OFFSET = 1_000_000  # pilot games play deals of their own, never the series'
SECONDS_DIGITS = 6  # a move's CPU seconds in the results file: microseconds


class StrengthResults(GamesFile):
    """A strength series' results file (``--results``): the run's settings with its sizing, then a
    line per game: its index, the searching seat's outcome, each side's CPU seconds per move."""

    FORMAT = "monster-zoo strength results"
    VERSION = 1
    WRITER = "python -m monster_zoo.training.az.strength"
    GAME_FIELDS = {"game": int, "outcome": str, "searcher_seconds": list, "opponent_seconds": list}


class Timed:
    """An agent whose ``act`` calls are timed in CPU seconds of this process (``seconds``)."""

    def __init__(self, agent):
        self.agent = agent
        self.seconds: list[float] = []

    def __getattr__(self, name):
        return getattr(self.agent, name)

    def act(self, observation, action_mask, state=None):
        """The agent's move, its CPU time appended to ``seconds``."""
        start = time.process_time()
        action = self.agent.act(observation, action_mask, state)
        self.seconds.append(time.process_time() - start)
        return action


def sample_positions(game_id: str, options: dict, count: int = SAMPLE_POSITIONS):
    """``(observation, mask, state)`` of up to ``count`` decisions with a choice, from greedy games."""
    env = envs.make(game_id, **options)
    raw = env.unwrapped
    greedy = [make_agent("greedy", game_id, i, options) for i in range(options["num_players"])]
    positions = []
    for seed in range(SAMPLE_GAMES):
        env.reset(seed=seed)
        for k, name in enumerate(env.agent_iter()):
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            if k % 5 == 2 and obs["action_mask"].sum() > 1:
                positions.append(
                    (obs["observation"].copy(), obs["action_mask"].copy(), raw.engine_state.copy())
                )
            seat = raw.possible_agents.index(name)
            env.step(greedy[seat].act(obs["observation"], obs["action_mask"], raw.engine_state))
    env.close()
    step = max(1, len(positions) // count)
    return positions[::step][:count]


def cpu_ms_per_move(agent, positions) -> float:
    """Mean CPU milliseconds of ``agent.act`` over ``positions`` (after one untimed call, which
    may compile)."""
    agent.act(*positions[0])
    start = time.process_time()
    for position in positions:
        agent.act(*position)
    return 1000 * (time.process_time() - start) / len(positions)


def size_simulations(
    network,
    game_id: str,
    options: dict,
    budget_ms: float,
    positions,
    rollout_weight: float = 0.0,
    search: dict | None = None,
) -> int:
    """The simulations per move that make the search cost ``budget_ms`` CPU milliseconds on
    ``positions`` (measured at :data:`SIZING_SIMULATIONS`; a simulation's cost is nearly constant,
    a rollout's on average over the positions). ``search`` holds the search's other constants
    (``c_puct``, ``considered``, ``selection``, ...), as :class:`~monster_zoo.agents.az.agent.AZAgent`
    takes them."""
    probe = AZAgent(
        0,
        network,
        game_id,
        options,
        simulations=SIZING_SIMULATIONS,
        rollout_weight=rollout_weight,
        **(search or {}),
    )
    per_simulation = cpu_ms_per_move(probe, positions) / SIZING_SIMULATIONS
    return max(1, int(budget_ms / per_simulation))


def pilot_simulations(piece: "Piece", budget_ms: float, match_opponent: bool = False) -> dict:
    """Play ``piece`` (pilot games on deals of their own) at its simulations and rescale them so
    the search's mean CPU time per move in real games is the target: ``budget_ms``, or with
    ``match_opponent`` the opponent's mean CPU time per move in these same games (at most the
    protocol's cap). The sample positions of :func:`size_simulations` come from greedy games; a
    search facing its real opponent meets other positions (deeper trees, longer rollouts), and
    so does the opponent, so the sizing is corrected from what the pilot's moves cost. Returns
    the pilot's record: its games, the simulations before and after, both sides' mean ms per
    move and the target."""
    played = play_piece(piece)
    az_ms = 1000 * float(np.mean(played["az_seconds"])) if played["az_seconds"] else 0.0
    opponent_ms = 1000 * float(np.mean(played["opponent_seconds"])) if played["opponent_seconds"] else 0.0
    # both sides' times over the same games: what the deals add to one side they add to the other
    target = min(opponent_ms, MAX_BUDGET_MS) if match_opponent and opponent_ms > 0 else budget_ms
    # a pilot whose search never moved (or moved too fast to time) leaves the sizing as it was
    simulations = max(1, int(piece.simulations * target / az_ms)) if az_ms > 0 else piece.simulations
    return {
        "games": piece.last - piece.first,
        "seed": piece.seed,
        "simulations_before": piece.simulations,
        "simulations": simulations,
        "az_ms_per_move": round(az_ms, 2),
        "opponent_ms_per_move": round(opponent_ms, 2),
        "target_ms": round(target, 2),
    }


@dataclass
class Piece:
    """Games ``first .. last-1`` of the series, played by one worker."""

    game_id: str
    network: str
    simulations: int
    opponent: str
    options: dict
    first: int
    last: int
    seed: int
    rollout_weight: float = 0.0
    search: dict = field(default_factory=dict)
    agent: str | None = None  # a registry search played instead of the network (at ``simulations``)
    belief: bool = False  # the network's search deals its simulations from its seat's belief


def make_searcher(piece: Piece):
    """The searching side of ``piece``: the named search (``piece.agent``) at ``piece.simulations``,
    or the ``az`` search over ``piece.network`` (with beliefs where ``piece.belief``)."""
    if piece.agent is not None:
        agent = make_agent(piece.agent, piece.game_id, piece.seed, piece.options)
        agent.simulations = piece.simulations
        return agent
    return AZAgent(
        piece.seed,
        read_network(piece.network),
        piece.game_id,
        piece.options,
        simulations=piece.simulations,
        rollout_weight=piece.rollout_weight,
        belief=True if piece.belief else None,
        **piece.search,
    )


def play_piece(
    piece: Piece, progress: bool = False, position: int | None = None, results: GamesFile | None = None
) -> dict:
    """Play a piece of the series; the az seat's outcomes and every move's CPU seconds by side, and
    per game (``games``) its index, outcome and both sides' seconds, each also appended to
    ``results`` as the game ends. ``progress`` shows a bar of the piece's games (on terminal line
    ``position``)."""
    n = piece.options["num_players"]
    az = Timed(make_searcher(piece))
    opponents = [
        Timed(make_agent(piece.opponent, piece.game_id, piece.seed + i, piece.options)) for i in range(1, n)
    ]
    outcomes, games = [], []
    marks = [0] * n  # each timer's moves before the game being played
    bar = progress_bar(
        piece.last - piece.first,
        f"{searcher_label(piece.agent, piece.belief)} vs {piece.opponent}, games {piece.first}-{piece.last - 1}",
        progress,
        position,
    )
    for record in iter_games(
        piece.game_id,
        [az, *opponents],
        piece.last,
        piece.seed,
        piece.options,
        agents=[az, *opponents],
        first=piece.first,
    ):
        outcomes.append(seat_outcome(record["rewards"], record["seats"].index(0)))
        # this game's moves: what each timer gained since the previous game ended
        game = {
            "game": int(record["game"]),
            "outcome": outcomes[-1],
            "searcher_seconds": [round(t, SECONDS_DIGITS) for t in az.seconds[marks[0] :]],
            "opponent_seconds": [
                round(t, SECONDS_DIGITS) for o, mark in zip(opponents, marks[1:]) for t in o.seconds[mark:]
            ],
        }
        marks = [len(timed.seconds) for timed in (az, *opponents)]
        games.append(game)
        if results is not None:
            results.append(game)
        bar.update()
    bar.close()
    return {
        "games": games,
        "outcomes": outcomes,
        "az_seconds": az.seconds,
        "opponent_seconds": [s for o in opponents for s in o.seconds],
    }


def searcher_label(agent: str | None, belief: bool) -> str:
    """How reports name the searching side: the named search, or ``az`` (with beliefs)."""
    return agent if agent is not None else ("az with beliefs" if belief else "az")


def sized_agent_simulations(agent: str, game_id: str, options: dict, budget_ms: float, positions) -> int:
    """The simulations that make the named search ``agent`` cost ``budget_ms`` CPU milliseconds on
    ``positions``, scaled from its own count (a simulation's cost is nearly constant);
    ValueError for an agent that sets no simulations."""
    probe = make_agent(agent, game_id, 0, options)
    if not isinstance(getattr(probe, "simulations", None), int):
        raise ValueError(
            f"--agent {agent!r} is not a search with simulations (an mcts version, e.g. mcts-v3)"
        )
    return max(1, int(probe.simulations * budget_ms / cpu_ms_per_move(probe, positions)))


def _milliseconds(seconds: Sequence[float]) -> dict:
    """Mean and 95th percentile of CPU seconds per move, in milliseconds."""
    values = 1000 * np.asarray(seconds)
    return {
        "mean_ms": round(float(values.mean()), 2),
        "p95_ms": round(float(np.percentile(values, 95)), 2),
        "moves": int(values.size),
    }


def measure(
    network_path: str | None,
    opponent: str,
    num_players: int,
    games: int,
    seed: int = 0,
    budget_ms: float | None = None,
    workers: int = 1,
    options: dict | None = None,
    simulations: int | None = None,
    rollout_weight: float = 0.0,
    search: dict | None = None,
    progress: bool = False,
    pilot_games: int | None = None,
    agent: str | None = None,
    game_id: str | None = None,
    belief: bool = False,
    results: str | None = None,
    resume: bool = False,
    overwrite_results: bool = False,
) -> dict:
    """The whole protocol (see the module doc); the report as a dict. ``simulations`` fixes the
    search's simulations instead of sizing them to the budget; otherwise ``pilot_games`` (default:
    one per seat; 0: none) correct the sizing from both sides' CPU time in real games (at equal
    time the plan becomes the opponent's time there; :func:`pilot_simulations`); ``rollout_weight`` and ``search``
    (``c_puct``, ``considered``, ``selection``, ``exploration``, ``gumbel_scale``; the agent's
    defaults where absent) are the search's
    (:class:`~monster_zoo.agents.az.search.SearchSettings`). ``progress`` prints the sized budget
    as soon as it is known and shows a bar of games per worker, on standard error.

    ``agent`` (with ``game_id``) plays a named search of the registry instead of the network (an
    ``mcts`` version, ``<game>-mcts-v3``), sized and corrected as the network's search is;
    ``belief`` deals the network search's simulations from its seat's belief.

    ``results`` keeps every finished game in that file (:class:`StrengthResults`; an existing one
    is refused unless ``overwrite_results``); with ``resume`` the series it holds continues: its
    sizing is reused and only the games it lacks are played (ResultsError where its settings
    differ)."""
    search = dict(search or {})
    network = read_network(network_path) if agent is None else None
    if network is not None:
        game_id = network.game_id
    table = {
        **(network.options if network is not None else {}),
        **(options or {}),
        "num_players": num_players,
    }
    run = {
        "game": game_id,
        "options": table,
        "network": None if network_path is None else str(network_path),
        "agent": agent,
        "belief": belief,
        "opponent": opponent,
        "games": games,
        "seed": seed,
        "budget_ms": budget_ms,
        "simulations": simulations,
        "pilot_games": pilot_games,
        "rollout_weight": rollout_weight,
        "search": search,
    }
    run = json.loads(json.dumps(run))  # as a results file gives it back (tuples read as lists)
    if resume:
        if results is None:
            raise ResultsError("--resume needs --results FILE: the results file of the series to continue")
        sizing = StrengthResults.read(results)[0].get("sizing")
        if not isinstance(sizing, dict) or not isinstance(sizing.get("simulations"), int):
            raise ResultsError(f"--resume: {results} holds no sizing line; start a new results file")
        kept_file = StrengthResults.resume(results, {**run, "sizing": sizing})
    else:
        sizing = size_series(
            network,
            network_path,
            opponent,
            table,
            seed,
            budget_ms,
            simulations,
            rollout_weight,
            search,
            pilot_games,
            agent,
            game_id,
            belief,
        )
        kept_file = (
            None
            if results is None
            else StrengthResults.start(results, {**run, "sizing": sizing}, overwrite_results)
        )
    kept = {g["game"]: g for g in (kept_file.games if kept_file else ()) if 0 <= g["game"] < games}
    simulations, planned, pilot = sizing["simulations"], sizing["planned_ms"], sizing["pilot"]
    if progress:
        # the sizing takes a minute and the games an hour: say what is being played before they start
        corrected = (
            f", {pilot['simulations_before']} before {pilot['games']} pilot games at "
            f"{pilot['az_ms_per_move']:.1f} ms a move against {pilot['opponent_ms_per_move']:.1f}"
            if pilot
            else ""
        )
        print(
            f"{game_id} {num_players}p: {searcher_label(agent, belief)} at {simulations} simulations ({planned:.1f} CPU ms a move planned"
            f"{corrected}) vs {opponent} ({sizing['opponent_sized_ms']:.1f} ms measured on sample positions), {games} games"
            + (f", {len(kept)} of them read back from {results}" if kept else ""),
            file=sys.stderr,
            flush=True,
        )
    pieces = [
        Piece(
            game_id,
            str(network_path),
            simulations,
            opponent,
            table,
            first,
            last,
            seed,
            rollout_weight,
            search,
            agent,
            belief,
        )
        for first, last in unplayed_ranges(set(kept), games, workers)
    ]
    host, revision = host_facts(), git_revision()  # the code as the games start
    writer = None if kept_file is None else StrengthResults(kept_file.path, kept_file.settings)
    start = time.time()
    if workers == 1 or len(pieces) <= 1:
        played = [play_piece(p, progress, results=writer) for p in pieces]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            played = list(
                pool.map(
                    play_piece,
                    pieces,
                    [progress] * len(pieces),
                    range(len(pieces)),
                    [writer] * len(pieces),
                )
            )
    for part in played:
        kept.update((g["game"], g) for g in part["games"])
    every = [kept[g] for g in sorted(kept)]
    outcomes = [g["outcome"] for g in every]
    wins = sum(o == WIN for o in outcomes)
    low, high = wilson_interval(wins, len(outcomes))
    return {
        "game": game_id,
        "num_players": num_players,
        "options": table,
        "network": network.name if network is not None else None,
        "searcher": searcher_label(agent, belief),
        "opponent": opponent,
        "games": len(outcomes),
        "seed": seed,
        "wins": wins,
        "draws": sum(o == DRAW for o in outcomes),
        "win_rate": round(wins / len(outcomes), 4),
        "interval95": [round(low, 4), round(high, 4)],
        "equal_share": round(1 / num_players, 4),
        "az_simulations": simulations,
        "az_rollout_weight": rollout_weight,
        "az_search": search,
        "planned_ms_per_move": round(planned, 2),
        "opponent_sized_ms_per_move": round(sizing["opponent_sized_ms"], 2),
        "pilot": pilot,
        "az": _milliseconds([t for g in every for t in g["searcher_seconds"]]),
        "opponent_moves": _milliseconds([t for g in every for t in g["opponent_seconds"]]),
        "outcomes": outcomes,
        "workers": min(workers, len(pieces)),
        "resumed_games": len(every) - sum(len(part["games"]) for part in played),
        "wall_s": round(time.time() - start, 1),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "git": revision,
        "host": {**host, "load_1min_end": round(os.getloadavg()[0], 2)},
        "sizing_host": sizing["host"],
        "pieces": [asdict(p) for p in pieces],
    }


def size_series(
    network,
    network_path: str | None,
    opponent: str,
    table: dict,
    seed: int,
    budget_ms: float | None,
    simulations: int | None,
    rollout_weight: float,
    search: dict,
    pilot_games: int | None,
    agent: str | None,
    game_id: str,
    belief: bool,
) -> dict:
    """The series' budget (the sizing and pilot of :func:`measure`): the searcher's ``simulations``,
    the ``planned_ms`` a move, the opponent's ms a move on the sample positions
    (``opponent_sized_ms``), the ``pilot``'s record (None without one) and the ``host`` it was
    sized on."""
    host = host_facts()
    num_players = table["num_players"]
    positions = sample_positions(game_id, table)
    opponent_ms = cpu_ms_per_move(make_agent(opponent, game_id, 0, table), positions)
    # equal time up to the protocol's cap: an opponent slower than the cap meets az at the cap
    planned = min(opponent_ms, MAX_BUDGET_MS) if budget_ms is None else budget_ms
    pilot = None
    if simulations is None:
        if network is None:
            simulations = sized_agent_simulations(agent, game_id, table, planned, positions)
        else:
            simulations = size_simulations(
                network, game_id, table, planned, positions, rollout_weight, search
            )
        pilot_games = num_players if pilot_games is None else pilot_games
        if pilot_games > 0:
            pilot = pilot_simulations(
                Piece(
                    game_id,
                    str(network_path),
                    simulations,
                    opponent,
                    table,
                    0,
                    pilot_games,
                    seed + PILOT_SEED_OFFSET,
                    rollout_weight,
                    search,
                    agent,
                    belief,
                ),
                planned,
                match_opponent=budget_ms is None,
            )
            simulations, planned = pilot["simulations"], pilot["target_ms"]
    return {
        "simulations": simulations,
        "planned_ms": planned,
        "opponent_sized_ms": opponent_ms,
        "pilot": pilot,
        "host": host,
    }


def unplayed_ranges(played: set[int], games: int, workers: int) -> list[tuple[int, int]]:
    """``(first, last)`` ranges covering the games ``0 .. games-1`` not in ``played``, shared over
    ``workers`` about evenly (a worker's share split where it meets a played game)."""
    missing = [g for g in range(games) if g not in played]
    bounds = np.linspace(0, len(missing), workers + 1).astype(int)
    ranges = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        share = missing[a:b]
        for k, g in enumerate(share):
            if k == 0 or g != share[k - 1] + 1:
                ranges.append([g, g + 1])
            else:
                ranges[-1][1] = g + 1
    return [(first, last) for first, last in ranges]


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.training.az.strength",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument(
        "--network", default=None, help="network file of monster-zoo az (runs/<run>/network.npz)"
    )
    parser.add_argument(
        "--agent",
        default=None,
        help="a named search to play instead of a network (an mcts version: <game>-mcts-v3); needs --game",
    )
    parser.add_argument("--game", default=None, help="the game id, with --agent (a network names its own)")
    parser.add_argument(
        "--belief",
        action="store_true",
        help="the network's search deals its simulations from its seat's belief",
    )
    parser.add_argument("--opponent", default="mcts", help="agent name in every other seat")
    parser.add_argument("--players", type=int, required=True, help="player count (one of the network's)")
    parser.add_argument("--games", type=int, default=200, help="games, seats rotated and deals paired")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents")
    parser.add_argument(
        "--budget-ms",
        type=float,
        default=None,
        help=f"CPU ms per az move (default: the opponent's, measured in the pilot games; at most "
        f"{MAX_BUDGET_MS:.0f})",
    )
    parser.add_argument(
        "--simulations",
        type=int,
        default=None,
        help="simulations per az move, instead of sizing them to the budget",
    )
    parser.add_argument(
        "--rollout-weight",
        type=float,
        default=0.0,
        help="share of a leaf's value from a rollout of the game's mcts rollout policy (0 to 1)",
    )
    parser.add_argument(
        "--c-puct",
        type=float,
        default=None,
        help=f"the search's PUCT constant below the root (not given: the agent's {SearchSettings.c_puct})",
    )
    parser.add_argument(
        "--considered",
        type=int,
        default=None,
        help="root actions of Gumbel sequential halving (not given: the agent's "
        f"{SearchSettings.considered})",
    )
    parser.add_argument(
        "--selection",
        choices=SELECTIONS,
        default=None,
        help="the search's selection rule (SearchSettings: puct, the default; uct, the priors "
        "breaking ties; gumbel, the Gumbel paper's rule below the root)",
    )
    parser.add_argument(
        "--exploration",
        type=float,
        default=None,
        help=f"UCT's exploration constant, with --selection uct (not given: {SearchSettings.exploration})",
    )
    parser.add_argument(
        "--gumbel-scale",
        type=float,
        default=None,
        help=f"scale of the Gumbel noise on the root's scores (not given: {SearchSettings.gumbel_scale}, "
        "no noise; 1: the paper's)",
    )
    parser.add_argument(
        "--pilot-games",
        type=int,
        default=None,
        help="games on deals of their own that correct the sizing from both sides' CPU time "
        "in real games; without --budget-ms az is sized to the opponent's time there (not "
        "given: one per seat; 0: none; unused with --simulations)",
    )
    parser.add_argument("--workers", type=int, default=1, help="processes sharing the games")
    parser.add_argument("--out", default=None, help="JSON report to write")
    parser.add_argument(
        "--results",
        default=None,
        metavar="FILE",
        help="keep every finished game in this JSON-lines file as it ends (refused if it exists, "
        "unless --overwrite or --resume)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --results: continue the series that file holds (same settings, its sizing), "
        "playing only the games it lacks",
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="no sizing line and no progress bars (standard error)"
    )
    parser.add_argument("--overwrite", action="store_true", help="replace --out and --results if they exist")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the protocol and print (and write) its report."""
    parser = build_parser()
    args = parser.parse_args(argv)
    for flag, value, ok, need in (
        ("--games", args.games, args.games >= 1, "at least 1"),
        ("--seed", args.seed, args.seed >= 0, "a non-negative integer"),
        ("--workers", args.workers, 1 <= args.workers <= 64, "from 1 to 64"),
        ("--simulations", args.simulations, args.simulations is None or args.simulations >= 1, "at least 1"),
        (
            "--pilot-games",
            args.pilot_games,
            args.pilot_games is None or 0 <= args.pilot_games <= 1000,
            "from 0 to 1000",
        ),
        ("--rollout-weight", args.rollout_weight, 0 <= args.rollout_weight <= 1, "a number from 0 to 1"),
        ("--c-puct", args.c_puct, args.c_puct is None or args.c_puct > 0, "a number above 0"),
        ("--considered", args.considered, args.considered is None or args.considered >= 1, "at least 1"),
        ("--exploration", args.exploration, args.exploration is None or args.exploration >= 0, "at least 0"),
        (
            "--gumbel-scale",
            args.gumbel_scale,
            args.gumbel_scale is None or args.gumbel_scale >= 0,
            "at least 0",
        ),
        (
            "--budget-ms",
            args.budget_ms,
            args.budget_ms is None or 0 < args.budget_ms <= MAX_BUDGET_MS,
            f"a number of milliseconds in (0, {MAX_BUDGET_MS:.0f}]",
        ),
    ):
        if not ok:
            parser.error(f"{flag} must be {need}, got {value}")
    if (args.network is None) == (args.agent is None):
        parser.error("give either --network (the az search over a network) or --agent (a named search)")
    if args.agent is not None and args.game not in envs.available():
        parser.error(f"--agent needs --game, one of {', '.join(envs.available())}; got {args.game}")
    if args.agent is not None and args.belief:
        parser.error("--belief is the network search's; a named search keeps its own (mcts-v3 has beliefs)")
    inputs = [args.network] if args.network else []
    if args.out and (problem := output_problem("--out", args.out, inputs, args.overwrite)):
        parser.error(problem)
    if args.resume and args.results is None:
        parser.error("--resume needs --results FILE: the results file of the series to continue")
    if (
        args.results
        and not args.resume
        and (problem := output_problem("--results", args.results, inputs, args.overwrite))
    ):
        parser.error(problem + " (or --resume to continue the series it holds)")
    if args.results and args.out and Path(args.results).resolve() == Path(args.out).resolve():
        parser.error("--results and --out must be different files")
    try:
        report = measure(
            args.network,
            args.opponent,
            args.players,
            args.games,
            args.seed,
            args.budget_ms,
            args.workers,
            simulations=args.simulations,
            rollout_weight=args.rollout_weight,
            search={
                k: v
                for k, v in (
                    ("c_puct", args.c_puct),
                    ("considered", args.considered),
                    ("selection", args.selection),
                    ("exploration", args.exploration),
                    ("gumbel_scale", args.gumbel_scale),
                )
                if v is not None
            },
            progress=not args.no_progress,
            pilot_games=args.pilot_games,
            agent=args.agent,
            game_id=args.game,
            belief=args.belief,
            results=args.results,
            resume=args.resume,
            overwrite_results=args.overwrite,
        )
    except ValueError as error:
        parser.error(str(error))
    text = json.dumps(report, indent=1)
    if args.out:
        write_atomic(Path(args.out), text)
    constants = "".join(f", {name} {value}" for name, value in report["az_search"].items())
    print(
        f"{report['game']} {report['num_players']}p: {report['searcher']} ({report['az_simulations']} simulations, "
        f"rollout weight {report['az_rollout_weight']}{constants}, "
        f"{report['az']['mean_ms']} ms/move) vs {report['opponent']} ({report['opponent_moves']['mean_ms']} ms/move): "
        f"{report['win_rate']:.3f} [{report['interval95'][0]:.3f}, {report['interval95'][1]:.3f}] over "
        f"{report['games']} games (equal share {report['equal_share']}), {report['wall_s']} s wall; "
        f"{report['host']['cpu']}, load {report['host']['load_1min']}-{report['host']['load_1min_end']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
