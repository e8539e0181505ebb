"""Monster Arena's declaration: its options, its kernels' modules and what its agents need (see
``monster_zoo.envs.core.game``)."""

import numpy as np

from ..core.game import Baseline, Game
from ..core.options import COMMON_OPTIONS, Option, common_config, int_between, max_steps_option
from . import actions, observation, picture, rules, text_view
from .components import DATA, MAX_PLAYERS, MIN_PLAYERS
from .state_layout import STATE_SIZE

DEFAULT_MAX_STEPS = 2000
MAX_QUIET_ENDING = 1000  # more quiet rounds than this would outlast any sensible step limit

OPTIONS = (
    Option(
        "num_players",
        int(DATA["default_players"]),
        "Number of players, 2-6 (ruling AR1); 4 by default: "
        "auctions have real competition and the arena real targets, while games stay short.",
        choices=tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
    ),
    max_steps_option(DEFAULT_MAX_STEPS),
    Option(
        "quiet_ending_rounds",
        0,
        "0 (the default, ruling AR9): no quiet ending, the arena goes on "
        "until a monster falls or max_steps truncates; k >= 1 (opt-in, AR-45): k arena rounds in a "
        "row without a destroyed card end the game and the survivors share the win.",
        check=int_between(0, MAX_QUIET_ENDING),
        valid=f"an integer from 0 (no quiet ending) to {MAX_QUIET_ENDING}",
    ),
) + COMMON_OPTIONS


def make_config(options: dict) -> np.ndarray:
    """Kernel config vector (num_players, max_steps, reward mode, quiet_ending_rounds) from validated
    options."""
    return common_config(options, options["quiet_ending_rounds"])


GAME = Game(
    name="monster_arena",
    version=0,
    title="Monster Arena",
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
    rule_prefix="AR",
    picture_share=0.9,  # the docs picture once the monsters fight
    # version 2: the chance of a hit is a probability (version 1 compared counts of dice outcomes)
    baselines={"greedy": Baseline("monster_zoo.envs.monster_arena.greedy", version=2)},
    agents={
        "mcts": {
            "simulations": 1_200,
            "exploration": 1.0,
            "rollout": "greedy",
            # the belief of mcts-v3 and az's belief versions: its opponent model fitted to the
            # tuned search's moves (python -m monster_zoo.benchmarks.belief_model)
            "belief": {"network": "monster_arena-az-v2.npz", "temperature": 4.0},
        },
        # az: rollout values alone (the network gives priors), at mcts's time (training/AZ.md)
        "az": {
            "simulations": 965,
            "rollout_weight": 1.0,
            "budget_ms": 32.0,
            # version 2 (self-play at 256 simulations and rollout weight 0.5 from version 1,
            # training/AZ.md): the count strength sized to mcts's CPU time
            "versions": {2: {"simulations": 902, "rollout_weight": 1.0, "budget_ms": 31.0}},
        },
    },
)
