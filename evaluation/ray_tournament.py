"""A tournament's games spread over Ray workers, on this machine or a cluster (``evaluate --ray``).

    monster-zoo evaluate --ray --agents greedy mcts random --games 400
    monster-zoo evaluate --ray --address 10.0.0.5:6379 --agents greedy mcts random --games 4000

Every game of :func:`monster_zoo.evaluation.match.iter_games` is a function of its index, the seed and
the agents alone (the deal, the seats and every agent's generator are derived from them), so a
pairing's series is cut into pieces of ``games_per_task`` games, each played by one Ray task, and
the records are read back in game order. The table, the ratings and ``tournament.json`` are then
exactly those of the local run with the same seed. Needs the ``distributed`` extra; the workers
need the same monster-zoo installed.
"""

from collections.abc import Iterator, Sequence

import ray

from monster_zoo.evaluation.match import iter_games


@ray.remote
def play_games(
    game_id: str,
    seat_names: Sequence[str],
    first: int,
    stop: int,
    seed: int,
    options: dict,
    keep_actions: int = 0,
) -> tuple:
    """Games ``first .. stop-1`` of a series as records (the first ``keep_actions`` of the series
    with their actions), and the id of the Ray node that played them."""
    records = list(
        iter_games(game_id, seat_names, stop, seed, options, keep_actions=keep_actions, first=first)
    )
    return ray.get_runtime_context().get_node_id(), records


class RaySeries:
    """``play_series`` for :func:`monster_zoo.evaluation.tournament.run_tournament` that plays on Ray.

    Calling it submits a series' tasks at once and returns an iterator over the records in game
    order; ``nodes`` collects the ids of the nodes that played (``node_games`` counts their games).
    """

    def __init__(self, games_per_task: int = 10):
        if games_per_task < 1:
            raise ValueError(f"games_per_task must be >= 1, got {games_per_task}")
        self.games_per_task = games_per_task
        self.node_games: dict[str, int] = {}

    @property
    def nodes(self) -> list[str]:
        """Ids of the Ray nodes that played games so far."""
        return sorted(self.node_games)

    def __call__(
        self,
        game_id: str,
        seat_names: Sequence[str],
        games: int,
        seed: int = 0,
        options: dict = None,
        keep_actions: int = 0,
    ) -> Iterator[dict]:
        step = self.games_per_task
        tasks = [
            play_games.remote(
                game_id,
                list(seat_names),
                first,
                min(first + step, games),
                seed,
                dict(options or {}),
                keep_actions,
            )
            for first in range(0, games, step)
        ]
        return self._records(tasks)

    def _records(self, tasks) -> Iterator[dict]:
        for task in tasks:
            node, records = ray.get(task)
            self.node_games[node] = self.node_games.get(node, 0) + len(records)
            yield from records
