"""How long a tournament will take, said before it starts (a field with ``mcts`` can run for many
minutes, which the user should know before waiting).

Each agent of the field is timed on a few positions of one game played by random moves (its own
cost per move, on this machine, now), and the game's length is that of a few random games; a
pairing's game then costs its length shared among the seats, each move at its seat's agent's
cost. An agent's first move compiles its kernels (or loads them from numba's cache on disk): it is
played apart, its time reported as compiling (:func:`warm_up`), and never counted as a move's cost. Random games are longer or shorter than games between strong agents, and a busy machine
slows every move, so the figure is a guide within a factor of about two, not a promise.
"""

import heapq
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from monster_zoo import envs
from monster_zoo.agents.base import Agent
from monster_zoo.envs.core.escaping import visible

PROBE_GAMES = 3  # random games whose mean length stands for a game's
PROBE_MOVES = 3  # positions each agent is timed on
PROBE_SEED = 12_345  # the probes' own games: not a deal the tournament plays


def _random_positions(game_id: str, options: Mapping, seed: int):
    """Yield ``(observation, mask, state)`` of the seat on move at every step of one random game."""
    env = envs.make(game_id, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    try:
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            seen = env.observe(env.agent_selection)
            yield seen["observation"], seen["action_mask"], env.unwrapped.engine_state.copy()
            env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))
    finally:
        env.close()


def game_length(game_id: str, options: Mapping) -> float:
    """The mean number of moves of :data:`PROBE_GAMES` random games of ``game_id``."""
    return float(
        np.mean(
            [sum(1 for _ in _random_positions(game_id, options, PROBE_SEED + g)) for g in range(PROBE_GAMES)]
        )
    )


def _probe_positions(game_id: str, options: Mapping) -> list:
    """:data:`PROBE_MOVES` positions spread over one random game."""
    positions = list(_random_positions(game_id, options, PROBE_SEED))
    return [positions[int(i)] for i in np.linspace(0, len(positions) - 1, PROBE_MOVES + 2)[1:-1]]


def _act(agent: Agent, position) -> None:
    """``agent``'s move at ``position``, given the state as the match runner gives it."""
    observation, mask, state = position
    agent.act(observation, mask, state if agent.needs_state else None)


def warm_up(game_id: str, agents: Mapping[str, Agent], options: Mapping) -> float:
    """Wall seconds of a random game and each agent's first move: what compiling (or loading from
    numba's cache) the game's and the agents' kernels costs before the first real move."""
    start = time.perf_counter()
    first = _probe_positions(game_id, options)[0]
    for agent in agents.values():
        _act(agent, first)
    return time.perf_counter() - start


def move_costs(game_id: str, agents: Mapping[str, Agent], options: Mapping) -> dict[str, float]:
    """CPU seconds per move of each agent, timed on :data:`PROBE_MOVES` positions spread over a
    random game after one untimed move (its first compiles its kernels: :func:`warm_up`)."""
    picked = _probe_positions(game_id, options)
    costs = {}
    for name, agent in agents.items():
        _act(agent, picked[0])
        start = time.process_time()
        for position in picked:
            _act(agent, position)
        costs[name] = (time.process_time() - start) / len(picked)
    return costs


def expected_seconds(
    plan: Sequence[tuple[str, str]], num_players: int, games: int, length: float, costs: Mapping[str, float]
) -> float:
    """Seconds to play ``games`` games of every pairing ``(lone, other)`` of ``plan``: each game's
    ``length`` moves shared evenly among the seats, the lone agent in one, the other in the rest."""
    return sum(
        games * length / num_players * (costs[lone] + (num_players - 1) * costs[other])
        for lone, other in plan
    )


def describe_duration(seconds: float) -> str:
    """``"about 40 s"``, ``"about 12 min"``, ``"about 2.5 h"``."""
    if seconds < 90:
        return f"about {max(seconds, 1):.0f} s"
    if seconds < 90 * 60:
        return f"about {seconds / 60:.0f} min"
    return f"about {seconds / 3600:.1f} h"


def wall_seconds(seconds: Sequence[float], jobs: int) -> float:
    """Wall seconds of tasks lasting ``seconds`` on ``jobs`` processes, the longest started first,
    each on the process that frees first."""
    finishes = [0.0] * max(1, min(jobs, len(seconds)))
    for task in sorted(seconds, reverse=True):
        heapq.heappush(finishes, heapq.heappop(finishes) + task)
    return max(finishes)


@dataclass(frozen=True)
class FieldEstimate:
    """What a field's tournament should cost: its play, and the compiling before it."""

    seconds: float  # of play, on one process
    compiling: float  # wall seconds of the agents' first moves (compiling or loading their kernels)
    length: float  # moves of a game
    costs: dict  # CPU seconds per move, by agent
    pairings: int
    games: int  # per pairing

    def details(self) -> str:
        """``"3 pairings x 40 games of about 50 moves; CPU s per move: mcts 0.1, greedy 0.001"``."""
        per_move = ", ".join(
            f"{visible(name)} {cost:.2g}" for name, cost in sorted(self.costs.items(), key=lambda c: -c[1])
        )
        pairings = f"{self.pairings} pairing" + ("" if self.pairings == 1 else "s")
        return f"{pairings} x {self.games} games of about {self.length:.0f} moves; CPU s per move: {per_move}"


def field_estimate(
    game_id: str,
    agents: Mapping[str, Agent],
    options: Mapping,
    plan: Sequence[tuple[str, str]],
    games: int,
) -> FieldEstimate:
    """Time ``agents`` (by label) on this machine and estimate the ``games`` games of every pairing
    of ``plan`` (``options`` seat the game: ``num_players`` included)."""
    compiling = warm_up(game_id, agents, options)
    costs = move_costs(game_id, agents, options)
    length = game_length(game_id, options)
    seconds = expected_seconds(plan, options["num_players"], games, length, costs)
    return FieldEstimate(seconds, compiling, length, costs, len(plan), games)
