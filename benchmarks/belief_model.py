"""Fit the belief's opponent model: the model, temperature and epsilon under which the moves of real
players are likeliest.

    python -m monster_zoo.benchmarks.belief_model --opponent mcts --games 4 --out results/belief_model.jsonl
    python -m monster_zoo.benchmarks.belief_model --opponent greedy --games 1 --out /tmp/m.jsonl  # a smoke test

Per game (its smallest player count, or ``--players``), ``--games`` seeded games are played once by
``--opponent`` in every seat and their moves recorded; then, for each model of ``--models``
(``greedy:EPSILON`` or ``network:TEMPERATURE:GREEDY_SHARE:EPSILON``), every seat's belief
(:class:`~monster_zoo.agents.belief.tracker.Belief`, the settings the game declares, its network
among them, but the model's) follows
the recorded games, and the log of each move's evidence (the probability the belief gave what the
seat saw after it) is summed: the log-likelihood of the games under that model. The line per game
and model gives the mean log evidence per move, the moves and the moves at which no particle
survived (whose evidence is 0: left out of the mean, counted apart); the likeliest model is the
fitted one. The JSON lines (a header with the git revision and the host)
go to ``--out`` (written atomically; an existing file needs ``--overwrite``).
"""

import argparse
import dataclasses
import json
import sys

import numpy as np

from monster_zoo import envs
from monster_zoo.agents.belief.opponent import opponent_model
from monster_zoo.agents.belief.settings import BeliefSettings
from monster_zoo.agents.belief.tracker import Belief
from monster_zoo.agents.registry import make_agent
from monster_zoo.agents.search.tuned import search_config
from monster_zoo.benchmarks.belief_knowledge import hidden_games
from monster_zoo.benchmarks.bench import measurement_header
from monster_zoo.envs.core.contract import H_CURRENT
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.core.safe_writing import output_problem, write_atomic
from monster_zoo.evaluation.match import play_game

MODELS = (
    "greedy:0.5",
    "greedy:0.8",
    "network:2:0:0.2",
    "network:3:0:0.2",
    "network:4:0:0.2",
    "network:2:0.2:0.2",
    "network:3:0.2:0.2",
    "network:4:0.2:0.2",
)


def model_settings(text: str, declared: BeliefSettings) -> BeliefSettings:
    """The ``declared`` settings with the model ``text`` names (``greedy:EPSILON`` or
    ``network:TEMPERATURE:GREEDY_SHARE:EPSILON``); ValueError naming the valid forms."""
    parts = text.strip().split(":")
    try:
        if parts[0] == "greedy" and len(parts) == 2:
            return dataclasses.replace(declared, model="greedy", epsilon=float(parts[1]))
        if parts[0] == "network" and len(parts) == 4:
            temperature, greedy_share, epsilon = map(float, parts[1:])
            return dataclasses.replace(
                declared, model="network", temperature=temperature, greedy_share=greedy_share, epsilon=epsilon
            )
    except ValueError as error:
        raise ValueError(f"{text!r}: {error}") from None
    raise ValueError(f"{text!r} is not greedy:EPSILON or network:TEMPERATURE:GREEDY_SHARE:EPSILON")


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
    beliefs = [Belief(spec, settings, opponent_model(game_id, settings), rng) for _ in range(num_players)]
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
        prog="python -m monster_zoo.benchmarks.belief_model",
        description="The opponent model under which recorded games are likeliest.",
    )
    parser.add_argument("--game-ids", default=",".join(hidden_games()), help="comma-separated game ids")
    parser.add_argument("--opponent", default="mcts", help="agent name playing every seat")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--players", type=int, default=None, help="player count (default: the smallest)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--models",
        default=",".join(MODELS),
        help="comma-separated greedy:EPSILON or network:TEMPERATURE:EPSILON (epsilon in (0, 1], temperature above 0)",
    )
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
        settings = {
            g: [model_settings(m, search_config(g).belief) for m in args.models.split(",")] for g in game_ids
        }
    except ValueError as error:
        parser.error(f"--models: {error}")
    for game_id in game_ids:
        try:
            make_agent(
                args.opponent, game_id, 0, {"num_players": args.players or envs.spec(game_id).min_players}
            )
        except ValueError as error:
            parser.error(f"--opponent: {error}")
    if problem := output_problem("--out", args.out, overwrite=args.overwrite):
        parser.error(problem)
    lines = [measurement_header()]
    for game_id in game_ids:
        n = args.players or envs.spec(game_id).min_players
        seeds = range(args.seed, args.seed + args.games)
        try:
            games = [(s, record_moves(game_id, args.opponent, n, s)) for s in seeds]
        except ValueError as error:
            parser.error(f"--opponent: {error}")
        for chosen in settings[game_id]:
            results = [follow(game_id, n, s, moves, chosen) for s, moves in games]
            total, count, lost = (sum(r[k] for r in results) for k in range(3))
            line = {
                "game": game_id,
                "opponent": args.opponent,
                "num_players": n,
                "games": args.games,
                "model": chosen.model,
                "network": chosen.network if chosen.model == "network" else None,
                "temperature": chosen.temperature if chosen.model == "network" else None,
                "greedy_share": chosen.greedy_share if chosen.model == "network" else None,
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
