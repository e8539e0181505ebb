"""Monster Arena as a PettingZoo AEC env: the game's declaration for the generic adapter."""
import numpy as np

from ..core.aec import RENDER_FPS, RENDER_MODES, KernelAECEnv, game_spec, wrap
from ..core.contract import REWARD_SCORE, REWARD_WIN
from ..core.options import COMMON_OPTIONS, Option, max_steps_option
from . import actions, drawing, render, rules
from .components import DATA, MAX_PLAYERS, MIN_PLAYERS
from .layout import STATE_SIZE

DEFAULT_MAX_STEPS = 2000

OPTIONS = (
    Option("num_players", int(DATA["default_players"]), "Number of players, 2-6 (ruling AR1); 4 by default: "
           "auctions have real competition and the arena real targets, while games stay short.",
           choices=tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))),
    max_steps_option(DEFAULT_MAX_STEPS),
) + COMMON_OPTIONS


def make_config(options: dict) -> np.ndarray:
    """Kernel config vector (num_players, max_steps, reward mode) from validated options."""
    reward = REWARD_WIN if options["reward"] == "win" else REWARD_SCORE
    return np.array([options["num_players"], options["max_steps"], reward], dtype=np.int64)


SPEC = game_spec(
    rules, actions, render, drawing, name="monster_arena", version=0, title="Monster Arena",
    min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, state_size=STATE_SIZE,
    max_game_length=DEFAULT_MAX_STEPS, options=OPTIONS, make_config=make_config,
)


class raw_env(KernelAECEnv):
    """Monster Arena without wrappers; see ``monster_zoo.envs.monster_arena_v0`` for the docs."""

    spec = SPEC
    metadata = {"name": "monster_arena_v0", "render_modes": RENDER_MODES, "render_fps": RENDER_FPS,
                "is_parallelizable": False}


def env(**options):
    """Monster Arena wrapped like PettingZoo's classic envs."""
    return wrap(raw_env(**options))
