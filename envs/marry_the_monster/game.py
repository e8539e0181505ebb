"""Marry the Monster's declaration: its options, its kernels' modules and what its agents need (see
``monster_zoo.envs.core.game``)."""

import numpy as np

from ..core.game import Baseline, Game
from ..core.options import COMMON_OPTIONS, Option, common_config, max_steps_option
from . import actions, observation, picture, rules, text_view
from .components import DATA, MAX_PLAYERS, MIN_PLAYERS
from .state_layout import STATE_SIZE

DEFAULT_MAX_STEPS = 5000

# The options apply the rules the library adds to every game: the player count (MTM-2), the step
# limit of max_steps_option (MTM-22), and illegal_action in COMMON_OPTIONS (MTM-24).
OPTIONS = (
    Option(
        "num_players",
        int(DATA["default_players"]),
        "Number of players, 3-5 as printed, 2 as a variant (ruling MtM2).",
        choices=tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
    ),
    max_steps_option(DEFAULT_MAX_STEPS),
) + COMMON_OPTIONS


def make_config(options: dict) -> np.ndarray:
    """Kernel config vector (num_players, max_steps, reward mode) from validated options."""
    return common_config(options)


GAME = Game(
    name="marry_the_monster",
    version=0,
    title="Marry the Monster",
    rules=rules,
    observation=observation,
    actions=actions,
    text_view=text_view,
    picture=picture,
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    state_size=STATE_SIZE,
    default_max_steps=DEFAULT_MAX_STEPS,
    options=OPTIONS,
    make_config=make_config,
    observation_version=2,  # what each version changed: CHANGELOG.md, "Pre-release history"
    rule_prefix="MTM",
    baselines={"greedy": Baseline("monster_zoo.envs.marry_the_monster.greedy")},
    agents={
        "mcts": {
            "simulations": 10_000,
            "exploration": 1.0,
            "rollout": "random",
            # the belief of mcts-v3 and az's belief versions: its opponent model fitted to the
            # tuned search's moves (python -m monster_zoo.benchmarks.belief_model)
            "belief": {"network": "marry_the_monster-az-v2.npz"},
        },
        "az": {
            "simulations": 5763,
            "budget_ms": 100.0,
            # version 2 (self-play at 256 simulations from version 1, training/AZ.md): the
            # count strength sized to mcts's CPU time
            "versions": {2: {"simulations": 10104, "rollout_weight": 0.0, "budget_ms": 100.0}},
        },
    },
)
