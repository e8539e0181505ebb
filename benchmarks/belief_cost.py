"""What the belief costs a search: its CPU time as a share of a move's, at the shipped budgets.

    python -m monster_zoo.benchmarks.belief_cost --games 4 --out results/belief_cost.jsonl
    python -m monster_zoo.benchmarks.belief_cost --games 1 --game-ids monstargh-v0 --out /tmp/c.jsonl  # a smoke test
    python -m monster_zoo.benchmarks.belief_cost --search az --games 4 --out results/belief_cost_az.jsonl

Per game (at its smallest player count, or ``--players``), ``<game>-mcts-v3`` (the tuned search
with simulations dealt from its belief; with ``--search az`` the learned search's belief version,
``<game>-az-vK`` of :data:`~monster_zoo.agents.az.shipped.BELIEF_VERSIONS`) plays seeded games in one seat against ``--opponent`` in
the others, seats rotated, after ``--warm-up`` untimed games (default 1: a process's first moves
load or compile the kernels). In the searching process, ``time.process_time`` measures each of its
moves whole, the belief's part of it (bringing the particles up to the game: every move since the
last one weighed and resampled), and what the belief does between its moves (keeping a redeal of
each view it is told). The line per game gives the belief's CPU milliseconds per move, the move's,
and the share, ``(belief in the move + between moves) / (move + between moves)``, with the host and
its load at the start and the end: run it on an idle machine for a figure to quote (the share is
a ratio of two times measured together, so load moves it less than it moves either).
The JSON lines (a header with the git revision, then one line per game) go to ``--out`` (written
atomically; an existing file needs ``--overwrite``).
"""

import argparse
import json
import os
import sys
import time

import numpy as np

from monster_zoo import envs
from monster_zoo.agents.az.shipped import belief_versions
from monster_zoo.agents.registry import make_agent
from monster_zoo.benchmarks.bench import measurement_header
from monster_zoo.envs.core.safe_writing import output_problem, write_atomic
from monster_zoo.evaluation.match import iter_games


class BeliefClock:
    """A believing search whose moves, belief updates and watching are timed in CPU seconds."""

    def __init__(self, agent):
        self.agent = agent
        self.moves: list[float] = []
        self.belief: list[float] = []
        self.between = 0.0

    def __getattr__(self, name):
        return getattr(self.agent, name)

    def watch(self, seat, state, mover=-1, action=-1):
        """The agent's watching, timed."""
        start = time.process_time()
        self.agent.watch(seat, state, mover, action)
        self.between += time.process_time() - start

    def act(self, observation, action_mask, state=None):
        """The agent's move, timed whole and in its belief's part."""
        belief = self.agent.belief
        spent = [0.0]
        catch_up = belief.catch_up

        def timed(now):
            start = time.process_time()
            catch_up(now)
            spent[0] += time.process_time() - start

        belief.catch_up = timed
        start = time.process_time()
        try:
            action = self.agent.act(observation, action_mask, state)
        finally:
            del belief.catch_up
        self.moves.append(time.process_time() - start)
        self.belief.append(spent[0])
        return action


#: The searches whose belief this measures: the tuned search's version 3, or az's belief version.
SEARCHES = ("mcts", "az")


def believing_search(game_id: str, search: str) -> str:
    """The versioned name of ``game_id``'s ``search`` (one of :data:`SEARCHES`) with beliefs;
    ValueError where the game ships no network for ``az`` to search."""
    game = envs.spec(game_id).name
    if search == "mcts":
        return f"{game}-mcts-v3"
    versions = belief_versions(game_id)
    if not versions:
        raise ValueError(f"--search az: no az network ships for {game_id}, so it has no belief version")
    return f"{game}-az-v{max(versions)}"


#: Seeds of the warm-up games start here, far from any timed game's.
WARM_UP_SEED = 1_000_000


def measure(
    game_id: str,
    opponent: str,
    num_players: int,
    games: int,
    seed: int,
    search: str = "mcts",
    warm_up: int = 1,
) -> dict:
    """One game's line (see the module doc), after ``warm_up`` untimed games: a process's first
    moves load or compile the kernels, which no move at play pays."""
    name = believing_search(game_id, search)
    options = {"num_players": num_players}
    names = [name] + [opponent] * (num_players - 1)
    for _ in iter_games(game_id, names, warm_up, seed + WARM_UP_SEED, options):
        pass
    clock = BeliefClock(make_agent(name, game_id, seed, options))
    field = [clock] + [make_agent(opponent, game_id, seed + i, options) for i in range(1, num_players)]
    load = os.getloadavg()[0]
    for _ in iter_games(game_id, names, games, seed, options, agents=field):
        pass
    moves, belief = np.asarray(clock.moves), np.asarray(clock.belief)
    return {
        "game": game_id,
        "agent": name,
        "opponent": opponent,
        "num_players": num_players,
        "games": games,
        "warm_up_games": warm_up,
        "moves": int(moves.size),
        "simulations": getattr(clock.agent, "simulations", None) or clock.agent.settings.simulations,
        "particles": clock.agent.belief_settings.particles,
        "move_ms": round(1000 * float(moves.mean()), 3),
        "belief_ms": round(1000 * float(belief.mean()), 3),
        "belief_p95_ms": round(1000 * float(np.percentile(belief, 95)), 3),
        "between_moves_ms": round(1000 * clock.between / max(1, moves.size), 3),
        "share": round(float((belief.sum() + clock.between) / (moves.sum() + clock.between)), 4),
        "load_1min": [round(load, 2), round(os.getloadavg()[0], 2)],
    }


def main(argv=None) -> int:
    hidden = [g for g in envs.available() if envs.spec(g).hides_information]
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.benchmarks.belief_cost",
        description="The belief's CPU time as a share of a move's, at the shipped budgets.",
    )
    parser.add_argument("--game-ids", default=",".join(hidden), help="comma-separated game ids")
    parser.add_argument(
        "--search",
        choices=SEARCHES,
        default="mcts",
        help="the search with beliefs: mcts-v3 or az's belief version",
    )
    parser.add_argument("--opponent", default="greedy", help="agent name in the other seats")
    parser.add_argument("--games", type=int, default=4, help="games per game id, seats rotated")
    parser.add_argument("--players", type=int, default=None, help="player count (default: the smallest)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--warm-up", type=int, default=1, help="untimed games first (kernels load or compile)"
    )
    parser.add_argument("--out", required=True, help="JSON-lines file to write")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    args = parser.parse_args(argv)
    game_ids = [g.strip() for g in args.game_ids.split(",") if g.strip()]
    bad = [g for g in game_ids if g not in hidden]
    if bad:
        parser.error(
            f"--game-ids: {', '.join(bad)} not among the games that hide information: {', '.join(hidden)}"
        )
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.warm_up < 0:
        parser.error("--warm-up must be 0 or more")
    if problem := output_problem("--out", args.out, overwrite=args.overwrite):
        parser.error(problem)
    lines = [measurement_header()]
    for game_id in game_ids:
        spec = envs.spec(game_id)
        n = args.players or spec.min_players
        if not spec.min_players <= n <= spec.max_players:
            parser.error(f"{game_id} plays {spec.min_players}-{spec.max_players} players, not {n}")
        try:
            lines.append(measure(game_id, args.opponent, n, args.games, args.seed, args.search, args.warm_up))
        except ValueError as error:  # no network to search, or a count the network does not play
            parser.error(str(error))
        print(json.dumps(lines[-1]), flush=True)
    write_atomic(args.out, "".join(json.dumps(line) + "\n" for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
