"""Monster Factory's declaration: its options, its kernels' modules and what its agents need (see
``monster_zoo.envs.core.game``)."""

import numpy as np

from ..core.game import Baseline, Game
from ..core.options import COMMON_OPTIONS, Option, common_config, max_steps_option
from . import actions, observation, picture, rules, text_view
from .components import DEFAULT_PLAYERS, MAX_PLAYERS, MIN_PLAYERS
from .state_layout import STATE_SIZE

# Every action takes one of the 88 tiles out of the supply, so no game is longer than 88 actions.
DEFAULT_MAX_STEPS = 100

# The options apply the rules the library adds to every game: the player count (MF-1), the step
# limit of max_steps_option (MF-17), and illegal_action in COMMON_OPTIONS (ruling C5).
OPTIONS = (
    Option(
        "num_players",
        DEFAULT_PLAYERS,
        "Number of players, 2-6 (ruling MF1); default 4, the middle of the printed range.",
        choices=tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
    ),
    Option(
        "start_tiles",
        "choose",
        "'choose': in seat order, each player picks a start tile kind "
        "from the supply; 'random': start tiles are drawn (ruling MF3).",
        choices=("choose", "random"),
    ),
    max_steps_option(DEFAULT_MAX_STEPS),
) + COMMON_OPTIONS


def make_config(options: dict) -> np.ndarray:
    """Kernel config vector (num_players, max_steps, reward mode, start tiles) from validated options."""
    return common_config(
        options, rules.START_CHOOSE if options["start_tiles"] == "choose" else rules.START_RANDOM
    )


GAME = Game(
    name="monster_factory",
    version=0,
    title="Monster Factory",
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
    observation_version=3,  # what each version changed: CHANGELOG.md, "Pre-release history"
    rule_prefix="MF",
    hides_information=False,  # every tile is public and the supply has no order (MF-18)
    baselines={"greedy": Baseline("monster_zoo.envs.monster_factory.greedy")},
    agents={
        "mcts": {"simulations": 1_000, "exploration": 1.0, "rollout": "greedy"},
        "ppo": {"placement": observation.PLACEMENT},  # where a placement network finds its inputs
        # az: rollout values alone (the network gives priors), at mcts's time (training/AZ.md)
        "az": {
            "simulations": 789,
            "rollout_weight": 1.0,
            "budget_ms": 50.0,
            # version 2 (self-play at 256 simulations and rollout weight 0.5 from version 1,
            # training/AZ.md): the count strength sized to mcts's CPU time
            "versions": {2: {"simulations": 790, "rollout_weight": 1.0, "budget_ms": 52.6}},
        },
    },
)
