"""Monster Arena as a PettingZoo AEC env: the game's declaration for the generic adapter."""
import numpy as np

from ..core.aec import RENDER_FPS, RENDER_MODES, KernelAECEnv, game_spec, wrap
from ..core.contract import REWARD_SCORE, REWARD_WIN
from ..core.options import COMMON_OPTIONS, Option, int_between, max_steps_option
from . import actions, picture, rules, text_view
from .components import DATA, MAX_PLAYERS, MIN_PLAYERS
from .state_layout import STATE_SIZE

DEFAULT_MAX_STEPS = 2000
MAX_QUIET_ENDING = 1000  # more quiet rounds than this would outlast any sensible step limit

OPTIONS = (
    Option("num_players", int(DATA["default_players"]), "Number of players, 2-6 (ruling AR1); 4 by default: "
           "auctions have real competition and the arena real targets, while games stay short.",
           choices=tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))),
    max_steps_option(DEFAULT_MAX_STEPS),
    Option("quiet_ending_rounds", 0, "0 (the default, ruling AR9): no quiet ending, the arena goes on "
           "until a monster falls or max_steps truncates; k >= 1 (opt-in, AR-45): k arena rounds in a "
           "row without a destroyed card end the game and the survivors share the win.",
           check=int_between(0, MAX_QUIET_ENDING),
           valid=f"an integer from 0 (no quiet ending) to {MAX_QUIET_ENDING}"),
) + COMMON_OPTIONS


def make_config(options: dict) -> np.ndarray:
    """Kernel config vector (num_players, max_steps, reward mode, quiet_ending_rounds) from validated
    options."""
    reward = REWARD_WIN if options["reward"] == "win" else REWARD_SCORE
    return np.array([options["num_players"], options["max_steps"], reward, options["quiet_ending_rounds"]],
                    dtype=np.int64)


SPEC = game_spec(
    rules, actions, text_view, picture, name="monster_arena", version=0, title="Monster Arena",
    min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, state_size=STATE_SIZE,
    max_game_length=DEFAULT_MAX_STEPS, options=OPTIONS, make_config=make_config,
    observation_version=3,  # what each version changed: CHANGELOG.md, "Pre-release history"
)


class raw_env(KernelAECEnv):
    """Monster Arena without wrappers; see ``monster_zoo.envs.monster_arena_v0`` for the docs."""

    spec = SPEC
    metadata = {"name": "monster_arena_v0", "render_modes": RENDER_MODES, "render_fps": RENDER_FPS,
                "is_parallelizable": False}


def env(**options):
    """Monster Arena wrapped like PettingZoo's classic envs."""
    return wrap(raw_env(**options))
