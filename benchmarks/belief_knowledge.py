"""What a seat's belief knows of the hidden cards, against the uniform redeal, per game.

    python -m monster_zoo.benchmarks.belief_knowledge --out results/belief.jsonl --plots results/belief
    python -m monster_zoo.benchmarks.belief_knowledge --games 1 --opponents greedy --out /tmp/b.jsonl  # a smoke test

Seeded games are played by one kind of player in every seat (by default ``greedy``, then the tuned
search ``mcts``; ``--opponents`` names others), and every seat keeps the belief that ``<game>-mcts-v3`` keeps
(:class:`~monster_zoo.agents.belief.tracker.Belief`, the settings the game declares, with
``--particles``, ``--epsilon`` and ``--refresh`` laid over them), told the deal and every
move. At each decision the seat on move's belief is compared with the uniform redeal of the same
view (the game's ``determinize``, as many samples as the belief has particles) on what the seat
cannot see: each other seat's observation holds that seat's private cards, so for each entry of it
that the seat's view does not settle (some redeal differs from the truth there), the
probability each gives the true value (the particles' weights, or the samples' share, that show it;
with ``k`` of ``m`` samples agreeing, ``(k + 1/2) / (m + 1)``, so no entry scores minus infinity) is
logged. The line per game and opponent gives the mean log-probability of both, their difference
(nats per hidden entry: above 0 the belief knows more than a redeal) over all decisions and over
tenths of the game (how the belief sharpens), the games, decisions and entries counted, seeds and
settings. It measures probabilities, not time: the machine's load does not change it.

The JSON lines (a header with the git revision and the host, then one line per game and opponent)
go to ``--out`` (written at the end, atomically; an existing file needs ``--overwrite``), and
``--plots`` gets one picture per game, ``<game>.png``: the gain over the game for each opponent.
"""

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

from monster_zoo import envs
from monster_zoo.agents.belief.opponent import opponent_model
from monster_zoo.agents.belief.settings import BeliefSettings
from monster_zoo.agents.belief.tracker import Belief
from monster_zoo.agents.registry import make_agent
from monster_zoo.agents.search.tuned import search_config
from monster_zoo.benchmarks.bench import measurement_header
from monster_zoo.envs.core.contract import H_STEPS
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.core.safe_writing import output_problem, write_atomic
from monster_zoo.envs.registry import declaration
from monster_zoo.evaluation.plots import _pyplot, _save

OPPONENTS = ("greedy", "mcts")
TENTHS = 10
SAMPLE_SALT = 1 << 40  # the redeals' generator is apart from the beliefs', which they never change


def hidden_games() -> list[str]:
    """The registered games that hide information (in the others a belief has nothing to learn)."""
    return [g for g in envs.available() if declaration(g).hides_information]


def views_of(spec, states: np.ndarray, seat: int) -> np.ndarray:
    """``seat``'s observation of each state, one row each."""
    out = np.zeros((len(states), spec.obs_size), np.float32)
    for i, state in enumerate(states):
        spec.observe_into(state, seat, out[i])
    return out


def log_probabilities(spec, belief: Belief, state: np.ndarray, seat: int, rng: np.ndarray):
    """``(belief's, redeal's)`` summed log-probability of the true values of the other seats' hidden
    entries, and the number of entries (see the module doc); the redeal draws from ``rng``."""
    count = belief.settings.particles
    samples = np.repeat(state[None, :], count, axis=0)
    for sample in samples:
        spec.determinize(sample, seat, rng)
    believed, uniform, entries = 0.0, 0.0, 0
    for other in range(int(state[0])):
        if other == seat:
            continue
        truth = views_of(spec, state[None, :], other)[0]
        particle_views = views_of(spec, belief.particles, other)
        sample_views = views_of(spec, samples, other)
        unsettled = (sample_views != truth).any(axis=0)
        if not unsettled.any():
            continue
        belief_share = belief.weights @ (particle_views[:, unsettled] == truth[unsettled])
        sample_share = (sample_views[:, unsettled] == truth[unsettled]).mean(axis=0)
        believed += float(np.log((count * belief_share + 0.5) / (count + 1)).sum())
        uniform += float(np.log((count * sample_share + 0.5) / (count + 1)).sum())
        entries += int(unsettled.sum())
    return believed, uniform, entries


def play_and_measure(game_id: str, opponent: str, num_players: int, seed: int, settings: BeliefSettings):
    """One seeded game with ``opponent`` in every seat; per decision ``(share of the game played,
    belief's log-probability, redeal's, entries)``."""
    spec = envs.spec(game_id)
    options = {"num_players": num_players}
    env = envs.make(game_id, **options)
    raw = env.unwrapped
    players = [make_agent(opponent, game_id, seed * 10 + s, options) for s in range(num_players)]
    rng, redeals = make_rng(seed), make_rng(seed + SAMPLE_SALT)
    beliefs = [Belief(spec, settings, opponent_model(game_id, settings), rng) for _ in range(num_players)]
    env.reset(seed=seed)
    for s, b in enumerate(beliefs):
        b.start(s, raw.engine_state)
    decisions = []
    for name in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        seat = raw.possible_agents.index(name)
        state = np.array(raw.engine_state)
        beliefs[seat].catch_up(state)
        decisions.append((int(state[H_STEPS]), *log_probabilities(spec, beliefs[seat], state, seat, redeals)))
        action = players[seat].act(obs["observation"], obs["action_mask"], raw.engine_state)
        env.step(action)
        for b in beliefs:
            b.heard(seat, action, raw.engine_state)
    length = max(1, int(raw.engine_state[H_STEPS]))
    env.close()
    return [(step / length, *rest) for step, *rest in decisions]


def summarise(game_id: str, opponent: str, num_players: int, seeds: list[int], settings, decisions) -> dict:
    """The line of one game and opponent (see the module doc)."""
    rows = np.array([d for d in decisions if d[3] > 0], dtype=np.float64).reshape(-1, 4)
    entries = rows[:, 3].sum() if len(rows) else 0.0
    belief = rows[:, 1].sum() / entries if entries else 0.0
    uniform = rows[:, 2].sum() / entries if entries else 0.0
    tenths = []
    for k in range(TENTHS):
        part = rows[(rows[:, 0] >= k / TENTHS) & (rows[:, 0] < (k + 1) / TENTHS)]
        count = part[:, 3].sum()
        tenths.append(None if count == 0 else round(float((part[:, 1] - part[:, 2]).sum() / count), 4))
    return {
        "game": game_id,
        "opponent": opponent,
        "num_players": num_players,
        "games": len(seeds),
        "seeds": seeds,
        "decisions": len(rows),
        "entries": int(entries),
        "belief_log_p": round(float(belief), 4),
        "uniform_log_p": round(float(uniform), 4),
        "gain": round(float(belief - uniform), 4),
        "gain_by_tenth": tenths,
        "settings": vars(settings),
    }


def plot_game(game_id: str, lines: list[dict], folder: Path) -> Path:
    """``<game>.png``: the belief's gain over the redeal through the game, one curve per opponent."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(6, 3.6))
    middles = (np.arange(TENTHS) + 0.5) / TENTHS
    for line in lines:
        gains = np.array([np.nan if g is None else g for g in line["gain_by_tenth"]])
        axes.plot(middles, gains, marker="o", label=f"against {line['opponent']} ({line['games']} games)")
    axes.axhline(0.0, color="grey", linewidth=0.8)
    axes.set_xlabel("share of the game played")
    axes.set_ylabel("log p(true hidden entry): belief - redeal")
    axes.set_title(f"{envs.spec(game_id).title}: what the belief knows ({lines[0]['num_players']} players)")
    axes.legend()
    return _save(figure, folder / f"{game_id.split('-')[0]}.png")


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.benchmarks.belief_knowledge",
        description="How much the belief knows of the hidden cards, against the uniform redeal.",
    )
    parser.add_argument("--game-ids", default=",".join(hidden_games()), help="comma-separated game ids")
    parser.add_argument(
        "--opponents",
        default=",".join(OPPONENTS),
        help="comma-separated agent names, each playing every seat",
    )
    parser.add_argument("--games", type=int, default=10, help="seeded games per game and opponent")
    parser.add_argument("--players", type=int, default=None, help="player count (default: the smallest)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed")
    parser.add_argument("--particles", type=int, default=None, help="(default: the game's declared settings)")
    parser.add_argument("--epsilon", type=float, default=None, help="(default: the game's declared settings)")
    parser.add_argument("--refresh", type=float, default=None, help="(default: the game's declared settings)")
    parser.add_argument("--out", required=True, help="JSON-lines file to write")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    parser.add_argument("--plots", default=None, help="folder for one picture per game")
    args = parser.parse_args(argv)
    known = hidden_games()
    args.game_ids = [g.strip() for g in args.game_ids.split(",") if g.strip()]
    bad = [g for g in args.game_ids if g not in known]
    if bad:
        parser.error(
            f"--game-ids: {', '.join(bad)} not among the games that hide information: {', '.join(known)}"
        )
    args.opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    if not args.opponents:
        parser.error(f"--opponents must name agents (default {', '.join(OPPONENTS)})")
    for game_id in args.game_ids:
        for opponent in args.opponents:
            try:
                make_agent(opponent, game_id, 0, {"num_players": envs.spec(game_id).min_players})
            except ValueError as error:
                parser.error(f"--opponents: {error}")
    if args.games < 1:
        parser.error("--games must be at least 1")
    given = {k: v for k in ("particles", "epsilon", "refresh") if (v := getattr(args, k)) is not None}
    try:
        args.settings = {g: dataclasses.replace(search_config(g).belief, **given) for g in args.game_ids}
    except ValueError as error:
        parser.error(str(error))
    problem = output_problem("--out", args.out, overwrite=args.overwrite)
    if problem:
        parser.error(problem)
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    lines = [measurement_header()]
    start = time.perf_counter()
    for game_id in args.game_ids:
        spec = envs.spec(game_id)
        n = args.players or spec.min_players
        if not spec.min_players <= n <= spec.max_players:
            raise SystemExit(f"{game_id} plays {spec.min_players}-{spec.max_players} players, not {n}")
        per_game = []
        for opponent in args.opponents:
            seeds = list(range(args.seed, args.seed + args.games))
            settings = args.settings[game_id]
            decisions = [d for s in seeds for d in play_and_measure(game_id, opponent, n, s, settings)]
            line = summarise(game_id, opponent, n, seeds, settings, decisions)
            print(json.dumps(line), flush=True)
            per_game.append(line)
        lines += per_game
        if args.plots:
            Path(args.plots).mkdir(parents=True, exist_ok=True)
            plot_game(game_id, per_game, Path(args.plots))
    lines[0]["seconds"] = round(time.perf_counter() - start, 1)
    write_atomic(args.out, "".join(json.dumps(line) + "\n" for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
