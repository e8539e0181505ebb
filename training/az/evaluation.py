"""Periodic evaluation of expert iteration: the search and the network alone against fixed opponents.

Each evaluation plays, at every player count asked for, the search (``az`` at the evaluation
budget) in one seat against an opponent in all the others, for each opponent of the list
(``greedy``, ``mcts``, ``mcts-fast``, any name :func:`monster_zoo.agents.make_agent` knows, and
``previous``: the search over the network of the previous evaluation, at the same budget), and
the network alone (``az-net``) against greedy. Games run through
:func:`monster_zoo.training.learner_eval.evaluate_against`: seats rotated, deals paired (every
evaluation meets the same deals), win rates with 95% Wilson intervals.

Metric names follow the SB3 trainer's: ``eval/winrate_vs_<opponent>`` for the search and
``eval/winrate_net_vs_greedy`` for the network alone at the first count listed, with ``_<n>p``
appended at the others.
"""

from collections.abc import Sequence

from monster_zoo.agents import make_agent
from monster_zoo.agents.az.agent import AZAgent, AZNetAgent
from monster_zoo.agents.network import AZNetwork

from ..learner_eval import WinRate, evaluate_against

PREVIOUS = "previous"
EVAL_SEED = 10_000_000


def metric_name(kind: str, player_counts: Sequence[int], num_players: int) -> str:
    """``eval/winrate_<kind>``, suffixed ``_<n>p`` for every count but the first."""
    return f"eval/winrate_{kind}" + ("" if num_players == player_counts[0] else f"_{num_players}p")


def evaluate(
    network: AZNetwork,
    previous: AZNetwork | None,
    opponents: Sequence[str],
    player_counts: Sequence[int],
    games: int,
    simulations: int,
    seed: int,
    options: dict | None = None,
    rollout_weight: float = 0.0,
) -> dict[str, WinRate]:
    """Win rates by metric name (see the module docstring); ``previous`` None skips that opponent.
    ``rollout_weight`` is the search's at play (the trainer's ``--rollout-weight``): a network
    trained to search with rollouts is judged with them."""
    rates = {}
    for n in player_counts:
        table = {**(options or {}), "num_players": n}
        search = AZAgent(
            seed, network, network.game_id, table, simulations=simulations, rollout_weight=rollout_weight
        )
        for k, name in enumerate(opponents):
            if name == PREVIOUS:
                if previous is None:
                    continue
                opponent = AZAgent(
                    seed + 1,
                    previous,
                    network.game_id,
                    table,
                    simulations=simulations,
                    rollout_weight=rollout_weight,
                )
                opponent.name = PREVIOUS
            else:
                opponent = make_agent(name, network.game_id, seed=seed + 1 + k, options=table)
            rates[metric_name(f"vs_{name}", player_counts, n)] = evaluate_against(
                search, opponent, network.game_id, games, seed=EVAL_SEED + seed, **table
            )
        alone = AZNetAgent(seed, network, network.game_id, table)
        greedy = make_agent("greedy", network.game_id, seed=seed + 1, options=table)
        rates[metric_name("net_vs_greedy", player_counts, n)] = evaluate_against(
            alone, greedy, network.game_id, games, seed=EVAL_SEED + seed, **table
        )
    return rates
