"""Play agents against each other through the real AEC env and report win rates.

    python -m monster_zoo.evaluation.match --game marry_the_monster-v0 --agents greedy random random --games 60 --seed 0

One agent per seat; the number of agents sets ``num_players``. Seats rotate so
that every agent plays every seat equally often, and seeds are paired across
rotations: game ``g`` seats the agents with rotation ``g mod n`` on the deal of
env seed ``seed + g // n``, so each deal is played once from every seat and
luck of the deal cancels out. A game counts as a win for an agent whose final
return is strictly the best at the table (with the default ``reward="win"``:
the winner's +1), as a draw for every seat sharing the best return (a truncated
game gives everyone 0) and as a loss otherwise. The table gives each win rate
with its 95% Wilson interval. ``monster_zoo.evaluation.tournament`` builds on the same games.

Wherever the runner takes agents it takes names (``"greedy"``, ``"ppo:x.npz"``) or agent
objects (``make_agent(...)``, an :class:`~monster_zoo.agents.base.Agent` of your own); every
agent made for a game is checked against the match's game, player count and rule options
before each game (:meth:`~monster_zoo.agents.base.Agent.check_game`).
"""

import argparse
import json
import math
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from monster_zoo import envs
from monster_zoo.agents.base import Agent
from monster_zoo.agents.registry import agent_labels, make_agent
from monster_zoo.envs.core.escaping import visible
from monster_zoo.envs.core.options import parse_option
from monster_zoo.envs.core.safe_writing import write_atomic

# An entry of a match's field: an agent's name, or an agent built already.
AgentEntry = str | Agent

Z95 = 1.959963984540054
WIN, DRAW, LOSS = "win", "draw", "loss"


def wilson_interval(wins: int, games: int, z: float = Z95):
    """Wilson score interval of a win rate ``wins / games``; ``(0, 1)`` for no games."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1.0 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class AgentStats:
    """Totals of one entry of the agent list over a match."""

    agent: str
    games: int = 0
    wins: int = 0
    draws: int = 0  # shared the best return: a tie or a truncated game
    reward_sum: float = 0.0
    length_sum: int = 0  # actions in the games this agent played

    @property
    def win_rate(self) -> float:
        """Share of games won (strictly the best return)."""
        return self.wins / self.games if self.games else 0.0

    def summary(self) -> dict:
        """Plain numbers for the table and the JSON results."""
        low, high = wilson_interval(self.wins, self.games)
        return {
            "agent": self.agent,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "win_rate": self.win_rate,
            "win_rate_low": low,
            "win_rate_high": high,
            "mean_reward": self.reward_sum / max(self.games, 1),
            "mean_length": self.length_sum / max(self.games, 1),
        }


@dataclass
class MatchResult:
    """A finished match: per-agent totals and one record per game."""

    game_id: str
    agents: list[str]  # the field's names (an agent given as an object: its name)
    seed: int
    options: dict
    stats: list[AgentStats]
    records: list[dict] = field(default_factory=list)
    elapsed_s: float = 0.0

    def table(self) -> str:
        """The results as a markdown table for the terminal (labels with their control characters
        shown as escapes: they come from the command line and from model files)."""
        lines = [
            "| agent | games | wins | draws/truncations | win rate [95% CI] | mean reward | mean length |",
            "|---|---:|---:|---:|---|---:|---:|",
        ]
        for s in (st.summary() for st in self.stats):
            lines.append(
                f"| {visible(s['agent'])} | {s['games']} | {s['wins']} | {s['draws']} | "
                f"{s['win_rate']:.3f} [{s['win_rate_low']:.3f}, {s['win_rate_high']:.3f}] | "
                f"{s['mean_reward']:+.3f} | {s['mean_length']:.1f} |"
            )
        return "\n".join(lines)

    def to_json(self) -> dict:
        """Everything about the match as JSON-ready data."""
        return {
            "game": self.game_id,
            "agents": self.agents,
            "seed": self.seed,
            "options": self.options,
            "games": len(self.records),
            "elapsed_s": self.elapsed_s,
            "results": [s.summary() for s in self.stats],
            "records": self.records,
        }


def agent_seed(seed: int, game: int, index: int) -> int:
    """Seed of entry ``index`` of the agent list in game ``game`` (make_rng mixes it well)."""
    return (seed * 1_000_003 + game) * 101 + index


def seat_outcome(rewards: Sequence[float], seat: int) -> str:
    """WIN if ``seat``'s return is strictly the best, DRAW if it shares the best, else LOSS.

    With ``reward="win"`` this is the sign of the seat's reward (+1 winner, 0 for all
    in a truncated game); with ``reward="score"`` it still means "came first", where
    the sign would only mean "beat the average".
    """
    best = max(rewards)
    if rewards[seat] < best:
        return LOSS
    return DRAW if sum(r == best for r in rewards) > 1 else WIN


def seat_balanced(games: int, num_players: int) -> int:
    """``games`` rounded up to a multiple of ``num_players``, so every rotation is played equally."""
    return -(-games // num_players) * num_players


class _NoBar:
    """Stands in for a tqdm bar when progress is off or tqdm is not installed."""

    def update(self, n: int = 1) -> None:
        """Ignore progress."""

    def close(self) -> None:
        """Nothing to close."""


def progress_bar(total: int, desc: str, enabled: bool = True, position: int | None = None):
    """A tqdm bar counting games, or a silent stand-in (tqdm is an optional extra); ``position``
    is the bar's terminal line when several processes show one each."""
    if enabled:
        try:
            from tqdm import tqdm

            # miniters=1: tqdm's dynamic miniters, set by a table's quick early pairings, printed
            # a slow pairing's games only every 20-60 of them, so a running table looked stuck
            return tqdm(total=total, desc=desc, unit="game", miniters=1, position=position)
        except ImportError:
            pass
    return _NoBar()


def play_game(env, seat_agents: Sequence, seed: int, on_action=None) -> dict:
    """Play one game of ``env`` with ``seat_agents[s]`` in seat ``s``; rewards per seat and length.

    Only agents with ``needs_state`` see the engine state; those that also keep a belief over
    the game (a ``watch`` method: the searches with beliefs) are told what their seat saw, the deal
    and every move with the state after it (``watch(seat, state, mover, action)``), under the same
    contract: they read of it only what their seat may know. ``on_action(seat, action)``,
    when given, hears every action before it is applied (so it can still be named in
    the state it applies to): the terminal game uses it to announce the others' moves.
    Every agent made for a game must have been made for this one (WrongGameError naming both
    games otherwise), checked once per game.
    """
    raw = env.unwrapped
    check_field(raw.spec.env_id, raw.options, seat_agents)
    seat = {name: i for i, name in enumerate(raw.possible_agents)}
    rewards = [0.0] * len(seat_agents)
    truncated = False
    length = 0
    env.reset(seed=seed)
    watchers = [(s, a) for s, a in enumerate(seat_agents) if callable(getattr(a, "watch", None))]
    for s, watcher in watchers:
        watcher.watch(s, raw.engine_state)
    for name in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        rewards[seat[name]] += reward
        if termination or truncation:
            truncated |= truncation
            env.step(None)
            continue
        agent = seat_agents[seat[name]]
        state = raw.engine_state if getattr(agent, "needs_state", False) else None
        action = agent.act(obs["observation"], obs["action_mask"], state)
        if on_action is not None:
            on_action(seat[name], action)
        env.step(action)
        length += 1
        for s, watcher in watchers:
            watcher.watch(s, raw.engine_state, seat[name], action)
    return {"rewards": rewards, "length": length, "truncated": truncated}


def check_field(game_id: str, options: dict, agents: Sequence) -> None:
    """WrongGameError unless every agent that knows its game was made for ``game_id`` with
    ``options`` (agents without ``check_game`` are not asked)."""
    config = envs.config(game_id, options)
    for agent in agents:
        check = getattr(agent, "check_game", None)
        if check is not None:
            check(game_id, config, options)


def seated_options(options: dict | None, num_players: int) -> dict:
    """A copy of ``options`` with ``num_players`` set; ValueError if it says otherwise."""
    options = dict(options or {})
    if options.get("num_players", num_players) != num_players:
        raise ValueError(
            f"num_players={options['num_players']} but {num_players} agents were given; "
            "the number of agents sets num_players"
        )
    options["num_players"] = num_players
    return options


def entry_name(entry: AgentEntry) -> str:
    """The name of a field entry: the name itself, or an agent object's ``name``."""
    return entry if isinstance(entry, str) else entry.name


def make_field(game_id: str, entries: Sequence[AgentEntry], seed: int, options: dict) -> list:
    """One agent per entry, for the game with ``options``: a name is built (seeded as entry ``i``
    of game 0; trained models refuse a game they were not trained for), an agent object is
    checked against the game (WrongGameError naming both games) and used as it is."""
    for i, entry in enumerate(entries):
        if not isinstance(entry, str) and not (
            callable(getattr(entry, "act", None)) and callable(getattr(entry, "reset", None))
        ):
            raise TypeError(
                f"agent entry {i} must be an agent name or an agent (with act and reset), not {entry!r}"
            )
    check_field(game_id, options, [entry for entry in entries if not isinstance(entry, str)])
    return [
        make_agent(entry, game_id, agent_seed(seed, 0, i), options) if isinstance(entry, str) else entry
        for i, entry in enumerate(entries)
    ]


def iter_games(
    game_id: str,
    agent_names: Sequence[AgentEntry],
    games: int,
    seed: int = 0,
    options: dict | None = None,
    agents: Sequence | None = None,
    keep_actions: int = 0,
    first: int = 0,
) -> Iterator[dict]:
    """Play ``games`` seat-rotated, seed-paired games (see the module doc), yielding each record.

    ``agent_names`` holds a name or an agent object per entry. A record holds the game index,
    its deal ``seed``, the ``rotation``, ``seats`` (index into ``agent_names`` of the agent in
    each seat), the ``rewards`` per seat, the ``length`` in actions and whether it was
    ``truncated``; the first ``keep_actions`` games also keep their ``actions`` (to write match
    records). Every caller with the same ``seed`` and player count plays the same deals, whatever
    the agents.
    ``agents``, when given, are the agents of ``make_field`` for these names (built once).
    ``first`` skips games ``0 .. first-1``: the rest are played exactly as in the full series,
    so a series may be split into pieces played anywhere (``evaluate --ray``).
    """
    n = len(agent_names)
    options = seated_options(options, n)
    env = envs.make(game_id, **options)
    agents = list(agents) if agents is not None else make_field(game_id, agent_names, seed, options)
    try:
        for g in range(first, games):
            rotation, deal = g % n, seed + g // n
            order = [(s + rotation) % n for s in range(n)]  # agent index in each seat
            for i, agent in enumerate(agents):
                agent.reset(agent_seed(seed, g, i))
            actions = [] if g < keep_actions else None
            outcome = play_game(
                env,
                [agents[i] for i in order],
                deal,
                on_action=None if actions is None else lambda _, a: actions.append(int(a)),
            )
            yield {
                "game": g,
                "seed": deal,
                "rotation": rotation,
                "seats": order,
                **outcome,
                **({} if actions is None else {"actions": actions}),
            }
    finally:
        env.close()


def run_match(
    game_id: str,
    agent_names: Sequence[AgentEntry],
    games: int,
    seed: int = 0,
    options: dict | None = None,
    progress: bool = True,
) -> MatchResult:
    """Play ``games`` seat-rotated, seed-paired games (see the module doc) and total them.

    ``agent_names`` holds a name or an agent object per entry; an object is reseeded before
    every game like a named agent, so the match stays reproducible from ``seed``.
    """
    options = seated_options(options, len(agent_names))
    agents = make_field(game_id, agent_names, seed, options)
    names = [entry_name(entry) for entry in agent_names]
    labels = agent_labels(names, agents)
    stats = [AgentStats(label) for label in labels]
    result = MatchResult(game_id, names, seed, options, stats)
    bar = progress_bar(games, visible(f"{game_id} {' vs '.join(labels)}"), progress)
    start = time.perf_counter()
    try:
        for record in iter_games(game_id, agent_names, games, seed, options, agents):
            for s, i in enumerate(record["seats"]):
                st = stats[i]
                outcome = seat_outcome(record["rewards"], s)
                st.games += 1
                st.wins += outcome == WIN
                st.draws += outcome == DRAW
                st.reward_sum += record["rewards"][s]
                st.length_sum += record["length"]
            result.records.append(record)
            bar.update(1)
    finally:
        bar.close()
    result.elapsed_s = time.perf_counter() - start
    return result


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m monster_zoo.evaluation.match``."""
    parser = argparse.ArgumentParser(
        prog="python -m monster_zoo.evaluation.match",
        description=__doc__.split("\n\n")[0],
        epilog="Games are rounded up to a multiple of the number of agents so seats stay balanced.",
    )
    parser.add_argument(
        "--game",
        default="marry_the_monster-v0",
        help=f"game id (default %(default)s; available: {', '.join(envs.available())})",
    )
    parser.add_argument(
        "--agents",
        nargs="+",
        default=["greedy", "random", "random"],
        metavar="NAME",
        help="one agent name per seat; their number sets num_players (default: greedy random random)",
    )
    parser.add_argument("--games", type=int, default=60, help="games to play (default %(default)s)")
    parser.add_argument(
        "--seed", type=int, default=0, help="base seed of deals and agents (default %(default)s)"
    )
    parser.add_argument(
        "--option",
        action="append",
        type=parse_option,
        default=[],
        metavar="KEY=VALUE",
        help="game option passed to monster_zoo.make, repeatable (e.g. --option max_steps=2000)",
    )
    parser.add_argument("--json", metavar="PATH", help="also write the results and every game's record here")
    parser.add_argument("--no-progress", action="store_true", help="do not show a progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a match from the command line; print the table and the elapsed time."""
    parser = build_parser()
    args = parser.parse_args(argv)
    n = len(args.agents)
    if args.games < 1:
        parser.error("--games must be at least 1")
    games = seat_balanced(args.games, n)
    if games != args.games:
        print(
            f"note: playing {games} games instead of {args.games} so that every agent plays "
            f"every seat equally often",
            file=sys.stderr,
        )
    start = time.perf_counter()
    try:
        result = run_match(
            args.game, args.agents, games, args.seed, dict(args.option), progress=not args.no_progress
        )
    except (ValueError, TypeError) as err:  # unknown agents, games or options
        parser.error(str(err))
    elapsed = time.perf_counter() - start
    print(
        f"{args.game}: {n} players, {games} games, seed {args.seed}, seats rotated, "
        f"deals paired across rotations"
    )
    print()
    print(result.table())
    print()
    print(f"elapsed {elapsed:.1f} s (games {result.elapsed_s:.1f} s)")
    if args.json:
        write_atomic(args.json, json.dumps(result.to_json(), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
