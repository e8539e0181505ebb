"""Record what seeded searches of the learned search decide (``tests/test_az_search_golden.py`` checks it).

    python tests/record_az_search.py        # writes tests/golden/az_search.json

For version 1 of every shipped network (a versioned file never changes, so a later version
leaves these records as they are), a few live positions at its smallest player count, searched with
Gumbel noise, without and with rollouts mixed into the leaves: the chosen action, the root's
visit counts and the improved policy (their non-zero entries, by action). Making the search or its forward pass
faster must leave all of them as they are: re-record only for a change that is meant
to change the search's decisions, and say so in CHANGELOG.md.
"""

import json
from pathlib import Path

import numpy as np

from monster_zoo import envs
from monster_zoo.agents.az.search import SearchSettings, gumbel_search, trees
from monster_zoo.agents.az.shipped import FIRST_VERSION, shipped_network_path
from monster_zoo.agents.network import read_network
from monster_zoo.agents.search.tree import UNTRIED, no_determinize
from monster_zoo.agents.search.tuned import tuned_rollout
from monster_zoo.envs.core.batch import random_playout
from monster_zoo.envs.core.header import running
from monster_zoo.envs.core.rng import make_rng

GOLDEN = Path(__file__).resolve().parent / "golden" / "az_search.json"
SIMULATIONS = 32
POSITIONS = 3
ROLLOUT_WEIGHTS = (0.0, 0.5)


def shipped_games() -> list[str]:
    """The games a network ships for."""
    return [g for g in envs.available() if shipped_network_path(g, FIRST_VERSION).is_file()]


def searches(game_id: str) -> list[dict]:
    """The recorded searches of ``game_id``'s shipped network: one per position and rollout weight."""
    spec = envs.spec(game_id)
    network = read_network(shipped_network_path(game_id, FIRST_VERSION))
    config = envs.config(game_id, {"num_players": network.player_counts[0]})
    children, visits, values, priors = (a[0] for a in trees(1, SIMULATIONS + 1, spec.num_actions))
    policy = np.zeros(spec.num_actions, np.float32)
    out, seed = [], 0
    while len(out) < POSITIONS * len(ROLLOUT_WEIGHTS):
        state = random_playout(spec, config, 3 + 5 * seed, seed)[0]
        seed += 1
        if not running.py_func(state):
            continue
        for weight in ROLLOUT_WEIGHTS:
            settings = SearchSettings(
                simulations=SIMULATIONS, gumbel_scale=1.0, rollout_weight=weight
            ).as_array()
            action = gumbel_search(
                state,
                settings,
                spec.determinize is not None,
                make_rng(seed),
                network.params,
                network.shapes,
                children,
                visits,
                values,
                priors,
                policy,
                spec.legal_mask,
                spec.apply_action,
                spec.returns,
                spec.observe_into,
                spec.determinize or no_determinize,
                tuned_rollout(game_id),
            )
            tried = np.flatnonzero(children[0] != UNTRIED)
            out.append(
                {
                    "seed": seed - 1,
                    "rollout_weight": weight,
                    "action": int(action),
                    "root_visits": {str(a): int(visits[children[0, a]]) for a in tried},
                    "policy": {str(a): float(policy[a]) for a in np.flatnonzero(policy)},
                }
            )
    return out


def record() -> dict[str, list[dict]]:
    """Every shipped network's recorded searches, by game."""
    return {game_id: searches(game_id) for game_id in shipped_games()}


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")
