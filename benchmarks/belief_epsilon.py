"""Fit the belief's opponent model: the epsilon under which the moves of real players are likeliest.

    python -m monster_zoo.benchmarks.belief_epsilon --opponent mcts --games 4 --out results/epsilon.jsonl
    python -m monster_zoo.benchmarks.belief_epsilon --opponent greedy --games 1 --out /tmp/e.jsonl  # a smoke test

Per game (its smallest player count, or ``--players``), ``--games`` seeded games are played once by
``--opponent`` in every seat and their moves recorded; then, for each epsilon of ``--epsilons``,
every seat's belief (:class:`~monster_zoo.agents.belief.tracker.Belief`, the default settings but
epsilon) follows the recorded games, and the log of each move's evidence (the probability the belief
gave what the seat saw after it) is summed: the log-likelihood of the games under that epsilon's
model. The line per game and epsilon gives the mean log evidence per move, the moves and the moves
at which no particle survived (whose evidence is 0: left out of the mean, counted apart); the
likeliest epsilon is the fitted one. The JSON lines (a header with the git revision and the host)
go to ``--out`` (written atomically; an existing file needs ``--overwrite``).
"""

import argparse
import dataclasses
import json
import sys

import numpy as np

from monster_zoo import envs
from monster_zoo.agents.belief.settings import BeliefSettings
from monster_zoo.agents.belief.tracker import Belief
from monster_zoo.agents.greedy.agent import greedy_kernel
from monster_zoo.agents.registry import make_agent
from monster_zoo.benchmarks.belief_knowledge import hidden_games
from monster_zoo.benchmarks.bench import _git
from monster_zoo.envs.core.contract import H_CURRENT
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.core.safe_writing import output_problem, write_atomic
from monster_zoo.evaluation.host import host_facts
from monster_zoo.evaluation.match import play_game

EPSILONS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.8)


def record_moves(game_id: str, opponent: str, num_players: int, seed: int) -> list[int]:
    """The moves of one seeded game with ``opponent`` in every seat."""
    options = {"num_players": num_players}
    env = envs.make(game_id, **options)
    moves: list[int] = []
    players = [make_agent(opponent, game_id, seed * 10 + s, options) for s in range(num_players)]
    play_game(env, players, seed, on_action=lambda _, action: moves.append(int(action)))
    env.close()
    return moves


def follow(game_id: str, num_players: int, seed: int, moves: list[int], settings: BeliefSettings):
    """Every seat's belief along the recorded game: ``(summed log evidence, moves, moves at which the
    belief was dealt again)``."""
    spec = envs.spec(game_id)
    env = envs.make(game_id, num_players=num_players)
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = make_rng(seed)
    beliefs = [Belief(spec, settings, greedy_kernel(game_id), rng) for _ in range(num_players)]
    for s, b in enumerate(beliefs):
        b.start(s, raw.engine_state)
    for action in moves:
        mover = int(raw.engine_state[H_CURRENT])
        raw.step(action)
        for b in beliefs:
            b.heard(mover, action, raw.engine_state)
    total, count, lost = 0.0, 0, 0
    for b in beliefs:
        b.absorb()
        evidence = np.asarray(b.evidence)
        total += float(np.log(evidence[evidence > 0]).sum())
        count += evidence.size
        lost += int((evidence == 0).sum())
    env.close()
    return total, count, lost


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.benchmarks.belief_epsilon",
        description="The opponent model's epsilon under which recorded games are likeliest.",
    )
    parser.add_argument("--game-ids", default=",".join(hidden_games()), help="comma-separated game ids")
    parser.add_argument("--opponent", default="mcts", help="agent name playing every seat")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--players", type=int, default=None, help="player count (default: the smallest)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epsilons", default=",".join(map(str, EPSILONS)), help="comma-separated, in (0, 1]")
    parser.add_argument("--out", required=True, help="JSON-lines file to write")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    args = parser.parse_args(argv)
    game_ids = [g.strip() for g in args.game_ids.split(",") if g.strip()]
    bad = [g for g in game_ids if g not in hidden_games()]
    if bad:
        parser.error(
            f"--game-ids: {', '.join(bad)} not among the games that hide information: {', '.join(hidden_games())}"
        )
    if args.games < 1:
        parser.error("--games must be at least 1")
    try:
        epsilons = [float(e) for e in args.epsilons.split(",")]
        settings = [dataclasses.replace(BeliefSettings(), epsilon=e) for e in epsilons]
    except ValueError as error:
        parser.error(f"--epsilons: {error}")
    if problem := output_problem("--out", args.out, overwrite=args.overwrite):
        parser.error(problem)
    lines = [
        {
            "kind": "header",
            "git_revision": _git("rev-parse", "HEAD"),
            "host": host_facts(),
            "argv": sys.argv[1:],
        }
    ]
    for game_id in game_ids:
        n = args.players or envs.spec(game_id).min_players
        seeds = range(args.seed, args.seed + args.games)
        try:
            games = [(s, record_moves(game_id, args.opponent, n, s)) for s in seeds]
        except ValueError as error:
            parser.error(f"--opponent: {error}")
        for chosen in settings:
            results = [follow(game_id, n, s, moves, chosen) for s, moves in games]
            total, count, lost = (sum(r[k] for r in results) for k in range(3))
            line = {
                "game": game_id,
                "opponent": args.opponent,
                "num_players": n,
                "games": args.games,
                "epsilon": chosen.epsilon,
                "mean_log_evidence": round(total / max(1, count - lost), 4),
                "moves": count,
                "dealt_again": lost,
            }
            print(json.dumps(line), flush=True)
            lines.append(line)
    write_atomic(args.out, "".join(json.dumps(line) + "\n" for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
