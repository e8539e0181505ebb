"""How a search configuration does against greedy, and what a move costs it.

    python -m monster_zoo.evaluation.search_report --game monstargh-v0 --players 2 --games 200
    python -m monster_zoo.evaluation.search_report --game monster_factory-v0 --players 2 --games 40 \\
        --simulations 16000 --exploration 1.5 --rollout random        # a candidate configuration

The search plays one seat and the game's greedy baseline every other seat; seats rotate and
deals are paired (:func:`monster_zoo.evaluation.match.iter_games`), so the result is the
equal-deal protocol's: the search's win rate with its 95% Wilson interval, against the even share 1/n.
Without ``--simulations``/``--exploration``/``--rollout`` the game's registered
configuration (:func:`monster_zoo.agents.search.tuned.search_config`, from the game's declaration) plays. Time per move is
the search's process CPU time per decision (mean and maximum, after one untimed decision that
compiles the search), which other processes on the machine disturb far less than wall time; the
machine's load average is printed too. One markdown row goes to stdout and one JSON line, with the
time, the CPU, its cores and the git commit it was measured at, is appended to ``--json``.
"""

import argparse
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path

from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.agents.search.tuned import ROLLOUTS, TunedMCTS, rollout_kernel, search_config
from monster_zoo.envs.core.safe_writing import write_atomic
from monster_zoo.evaluation.arg_checks import seed_argument
from monster_zoo.evaluation.host import cpu_name, git_revision
from monster_zoo.evaluation.match import WIN, iter_games, progress_bar, seat_outcome, wilson_interval

DEFAULT_JSON = Path("benchmarks/results/search.jsonl")


class TimedSearch:
    """Wraps a search agent, adding up the process CPU time of its decisions."""

    def __init__(self, agent):
        self.agent, self.name, self.needs_state = agent, agent.name, True
        self.moves, self.seconds, self.longest = 0, 0.0, 0.0

    def reset(self, seed: int) -> None:
        """Reseed the search."""
        self.agent.reset(seed)

    def act(self, observation, action_mask, state=None) -> int:
        """The search's decision, timed."""
        start = time.process_time()
        action = self.agent.act(observation, action_mask, state)
        spent = time.process_time() - start
        self.moves, self.seconds, self.longest = (
            self.moves + 1,
            self.seconds + spent,
            max(self.longest, spent),
        )
        return action


def configured_search(
    game_id: str, seed: int, simulations: int | None, exploration: float | None, rollout: str | None
) -> TunedMCTS:
    """The game's search baseline with any of its settings replaced."""
    agent = TunedMCTS(seed, game_id=game_id)
    config = search_config(game_id)
    agent.simulations = simulations or config.simulations
    agent.exploration = config.exploration if exploration is None else exploration
    agent.rollout = rollout or config.rollout
    agent.rollout_policy = rollout_kernel(game_id, agent.rollout)
    return agent


def warm_up(agent, game_id: str, options: dict) -> None:
    """One untimed decision, so the numba compile (or cache load) of the search for this game's
    kernels is not counted as a move."""
    env = envs.make(game_id, **options)
    env.reset(seed=0)
    obs, *_ = env.last()
    agent.act(obs["observation"], obs["action_mask"], env.unwrapped.engine_state)
    env.close()


def measure(
    game_id: str,
    num_players: int,
    games: int,
    seed: int = 0,
    simulations: int | None = None,
    exploration: float | None = None,
    rollout: str | None = None,
    progress: bool = True,
) -> dict:
    """Play the search against greedy; return the result as a dict (see the module doc)."""
    options = {"num_players": num_players}
    search = TimedSearch(configured_search(game_id, seed, simulations, exploration, rollout))
    warm_up(search.agent, game_id, options)
    field = [search] + [make_agent("greedy", game_id, seed + i, options) for i in range(1, num_players)]
    names = ["search"] + ["greedy"] * (num_players - 1)
    wins = played = 0
    bar = progress_bar(games, f"{game_id} {num_players}p search vs greedy", progress)
    start = time.perf_counter()
    for record in iter_games(game_id, names, games, seed, options, field):
        wins += seat_outcome(record["rewards"], record["seats"].index(0)) == WIN
        played += 1
        bar.update(1)
    bar.close()
    low, high = wilson_interval(wins, played)
    agent = search.agent
    return {
        "game": game_id,
        "num_players": num_players,
        "games": played,
        "seed": seed,
        "simulations": agent.simulations,
        "exploration": agent.exploration,
        "rollout": agent.rollout,
        "wins": wins,
        "win_rate": wins / played,
        "low": low,
        "high": high,
        "even_share": 1 / num_players,
        "cpu_s_per_move": search.seconds / max(search.moves, 1),
        "cpu_s_longest_move": search.longest,
        "moves": search.moves,
        "wall_s": time.perf_counter() - start,
        "load_average": os.getloadavg()[0],
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "cpu": cpu_name(),
        "cores": len(os.sched_getaffinity(0)),
        "git": git_revision(),
    }


def markdown_row(r: dict) -> str:
    """One row: game, players, configuration, win rate [interval], time per move."""
    return (
        f"| {r['game']} | {r['num_players']} | {r['simulations']:,} sims, c={r['exploration']:g}, "
        f"{r['rollout']} rollouts | {r['win_rate']:.3f} [{r['low']:.3f}, {r['high']:.3f}] "
        f"({r['wins']}/{r['games']}) | {r['even_share']:.2f} | {r['cpu_s_per_move']:.3f} "
        f"(max {r['cpu_s_longest_move']:.3f}) | {r['load_average']:.1f} |"
    )


def build_parser() -> argparse.ArgumentParser:
    """The command line of the report."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.evaluation.search_report", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--game",
        required=True,
        choices=envs.available(),
        metavar="GAME_ID",
        help=f"the game ({', '.join(envs.available())})",
    )
    parser.add_argument("--players", type=int, required=True, help="player count (the search takes one seat)")
    parser.add_argument("--games", type=int, default=200, help="games, seat-rotated (default %(default)s)")
    parser.add_argument(
        "--seed", type=seed_argument, default=0, help="deals and agent seeds (default %(default)s)"
    )
    parser.add_argument(
        "--simulations", type=int, help="simulations per move (default: the game's configuration)"
    )
    parser.add_argument(
        "--exploration", type=float, help="UCB exploration constant (default: the configuration's)"
    )
    parser.add_argument("--rollout", choices=ROLLOUTS, help="rollout policy (default: the configuration's)")
    parser.add_argument(
        "--json", type=Path, default=DEFAULT_JSON, help="append the result here (default %(default)s)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, print the markdown row, append the JSON line; return 0."""
    parser = build_parser()
    args = parser.parse_args(argv)
    spec = envs.spec(args.game)
    if not spec.min_players <= args.players <= spec.max_players:
        parser.error(f"--players must be from {spec.min_players} to {spec.max_players} for {args.game}")
    if args.games < 1 or (args.simulations is not None and args.simulations < 1):
        parser.error("--games and --simulations must be at least 1")
    if args.exploration is not None and not 0 <= args.exploration <= 100:
        parser.error("--exploration must be from 0 to 100")
    result = measure(
        args.game,
        args.players,
        args.games,
        args.seed,
        args.simulations,
        args.exploration,
        args.rollout,
        progress=not args.no_progress,
    )
    print(markdown_row(result))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    old = args.json.read_text(encoding="utf-8") if args.json.is_file() else ""
    write_atomic(args.json, old + json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
