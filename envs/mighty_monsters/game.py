"""Mighty Monsters's declaration: its options, its kernels' modules and what its agents need (see
``monster_zoo.envs.core.game``)."""

import numpy as np

from ..core.game import Baseline, Game
from ..core.options import COMMON_OPTIONS, Option, common_config, max_steps_option
from . import actions, observation, picture, rules, text_view
from .components import DATA, MAX_PLAYERS, MIN_PLAYERS
from .state_layout import STATE_SIZE

DEFAULT_MAX_STEPS = 1000

# The options apply the rules the library adds to every game: the player count (MM-1), the step
# limit of max_steps_option (MM-16), and illegal_action in COMMON_OPTIONS (MM-18).
OPTIONS = (
    Option(
        "num_players",
        int(DATA["default_players"]),
        "Number of players, 3-6 (ruling MM1); default 4, the rulebook's set-up example.",
        choices=tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
    ),
    Option(
        "setup_hand",
        "choose",
        "'choose': each player picks the 2 cards to lay face down at setup; "
        "'random': the env deals them at random (ruling MM2).",
        choices=("choose", "random"),
    ),
    Option(
        "guard_lineup",
        False,
        "Variant Guard Line-Up: each round's guards sorted by level from the main gate (ruling MM10).",
        choices=(False, True),
    ),
    Option(
        "kings_rules",
        False,
        "Variant The King's New Rules: a king tile changes each round's rules (ruling MM10).",
        choices=(False, True),
    ),
    max_steps_option(DEFAULT_MAX_STEPS),
) + COMMON_OPTIONS


def make_config(options: dict) -> np.ndarray:
    """Kernel config vector (num_players, max_steps, reward mode, setup random, guard line-up,
    king's rules) from validated options."""
    return common_config(
        options,
        int(options["setup_hand"] == "random"),
        int(options["guard_lineup"]),
        int(options["kings_rules"]),
    )


GAME = Game(
    name="mighty_monsters",
    version=0,
    title="Mighty Monsters",
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
    rule_prefix="MM",
    baselines={"greedy": Baseline("monster_zoo.envs.mighty_monsters.greedy")},
    agents={
        "mcts": {
            "simulations": 16_000,
            "exploration": 1.0,
            "rollout": "random",
            # the belief of mcts-v3 and az's belief versions: its opponent model fitted to the
            # tuned search's moves (python -m monster_zoo.benchmarks.belief_model)
            "belief": {"network": "mighty_monsters-az-v1.npz"},
        },
        "az": {"simulations": 3580, "budget_ms": 77.0},
    },
)
