"""Frozen networks as opponents of the learner games, while the pool changes (self-play snapshots).

The learner games stack the weights of the networks at the table into one array, kept for many
steps. A network retired from the pool and freed may leave its ``id`` to the next one made; the
stack must never be reused for the newcomer (it once was: the newcomer played a retired
snapshot's weights).
"""

import gc

import numpy as np

from monster_zoo import envs
from monster_zoo.envs.core import selfplay
from monster_zoo.envs.core.opponents import ACT_NONE, ACT_TANH, MLPWeights, RandomOpponent
from monster_zoo.envs.core.selfplay import LearnerGames

GAME = "marry_the_monster-v0"


class Snapshot:
    """A small random network, played inside numba."""

    name = "snapshot"

    def __init__(self, spec, seed: int):
        draw = np.random.default_rng(seed)
        self.policy_mlp = MLPWeights(
            [
                (draw.normal(0, 0.5, (spec.obs_size, 8)), draw.normal(0, 0.5, 8), ACT_TANH),
                (draw.normal(0, 0.5, (8, spec.num_actions)), draw.normal(0, 0.5, spec.num_actions), ACT_NONE),
            ]
        )

    def act_batch(self, observations, masks, states=None):
        raise NotImplementedError("played inside numba")


def test_each_network_plays_its_own_weights_while_snapshots_come_and_go(monkeypatch):
    spec = envs.spec(GAME)
    played = []
    original = selfplay.advance_with_mlps

    def recording(states, slots, learner, game_rngs, policy_rngs, members, params, *rest):
        played.append((slots.copy(), members.copy(), params.copy()))
        return original(states, slots, learner, game_rngs, policy_rngs, members, params, *rest)

    monkeypatch.setattr(selfplay, "advance_with_mlps", recording)
    games = LearnerGames(spec, envs.config(GAME, {}), 4, [Snapshot(spec, 0)], seed=0)
    games.reset()
    checked = 0
    for k in range(1, 60):
        games.set_opponents([RandomOpponent()])  # the last snapshot leaves the pool and the tables
        games.restart(np.arange(4))
        gc.collect()
        snapshot = Snapshot(spec, k)  # often where the freed one lay
        games.set_opponents([snapshot])
        played.clear()
        games.restart(np.arange(4))
        for _ in range(2):
            games.step(np.array([np.flatnonzero(m)[0] for m in games.masks]))
        for slots, members, params in played:
            for slot, member in zip(slots, members):
                assert games.slot_opponents[slot] is snapshot
                assert np.array_equal(params[member], snapshot.policy_mlp.params)
                checked += 1
    assert checked > 100
