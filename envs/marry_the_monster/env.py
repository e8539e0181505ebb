"""Marry the Monster as a PettingZoo AEC env: the game's declaration for the generic adapter."""
import numpy as np

from ..core.aec import RENDER_FPS, RENDER_MODES, KernelAECEnv, game_spec, wrap
from ..core.contract import REWARD_SCORE, REWARD_WIN
from ..core.options import COMMON_OPTIONS, Option, max_steps_option
from . import actions, picture, rules, text_view
from .components import DATA, MAX_PLAYERS, MIN_PLAYERS
from .state_layout import STATE_SIZE

DEFAULT_MAX_STEPS = 5000

OPTIONS = (
    Option("num_players", int(DATA["default_players"]), "Number of players, 3-5 as printed, 2 as a variant "
           "(ruling MtM2).", choices=tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))),
    max_steps_option(DEFAULT_MAX_STEPS),
) + COMMON_OPTIONS


def make_config(options: dict) -> np.ndarray:
    """Kernel config vector (num_players, max_steps, reward mode) from validated options."""
    reward = REWARD_WIN if options["reward"] == "win" else REWARD_SCORE
    return np.array([options["num_players"], options["max_steps"], reward], dtype=np.int64)


SPEC = game_spec(
    rules, actions, text_view, picture, name="marry_the_monster", version=0, title="Marry the Monster",
    min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, state_size=STATE_SIZE,
    max_game_length=DEFAULT_MAX_STEPS, options=OPTIONS, make_config=make_config,
    observation_version=2,  # what each version changed: CHANGELOG.md, "Pre-release history"
)


class raw_env(KernelAECEnv):
    """Marry the Monster without wrappers; see ``monster_zoo.envs.marry_the_monster_v0`` for the docs."""

    spec = SPEC
    metadata = {"name": "marry_the_monster_v0", "render_modes": RENDER_MODES, "render_fps": RENDER_FPS,
                "is_parallelizable": False}


def env(**options):
    """Marry the Monster wrapped like PettingZoo's classic envs."""
    return wrap(raw_env(**options))
