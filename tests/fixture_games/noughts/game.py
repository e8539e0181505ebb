"""Monster Noughts' declaration, and its page (the module where ``raw_env`` is published, so that
pickles find it): the test-only game registered by ``tests/conftest.py`` without being listed."""

import numpy as np

from monster_zoo.envs.core.game import Baseline, Game
from monster_zoo.envs.core.options import COMMON_OPTIONS, Option, common_config, max_steps_option

from . import actions, observation, picture, rules, text_view
from .state_layout import NUM_CELLS, NUM_ROUNDS, STATE_SIZE

DEFAULT_MAX_STEPS = NUM_ROUNDS * NUM_CELLS + 1  # a match never takes more moves than this

OPTIONS = (
    Option("num_players", 2, "Two players (NC-1).", choices=(2,)),
    max_steps_option(DEFAULT_MAX_STEPS),
) + COMMON_OPTIONS


def make_config(options: dict) -> np.ndarray:
    """Kernel config vector (num_players, max_steps, reward mode) from validated options."""
    return common_config(options)


GAME = Game(
    name="monster_noughts",
    version=0,
    title="Monster Noughts",
    rules=rules,
    observation=observation,
    actions=actions,
    text_view=text_view,
    picture=picture,
    min_players=2,
    max_players=2,
    state_size=STATE_SIZE,
    default_max_steps=DEFAULT_MAX_STEPS,
    options=OPTIONS,
    make_config=make_config,
    observation_version=1,
    rule_prefix="NC",
    hides_information=False,
    baselines={"greedy": Baseline(f"{__package__}.greedy")},
    agents={
        "mcts": {"simulations": 200, "exploration": 1.0, "rollout": "random"},
        "nth-legal": {"skip": 1},
    },  # the test-only kind of agent (tests/fixture_agents/) plays it
    page=__name__,
)

SPEC, raw_env, env = GAME.spec, GAME.raw_env, GAME.env
