"""Mighty Monsters as a PettingZoo AEC env: the game's declaration for the generic adapter."""
import numpy as np

from ..core.aec import RENDER_FPS, RENDER_MODES, KernelAECEnv, game_spec, wrap
from ..core.contract import REWARD_SCORE, REWARD_WIN
from ..core.options import COMMON_OPTIONS, Option, max_steps_option
from . import actions, picture, rules, text_view
from .components import DATA, MAX_PLAYERS, MIN_PLAYERS
from .state_layout import STATE_SIZE

DEFAULT_MAX_STEPS = 1000

OPTIONS = (
    Option("num_players", int(DATA["default_players"]), "Number of players, 3-6 (ruling MM1); default 4, "
           "the rulebook's set-up example.", choices=tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))),
    Option("setup_hand", "choose", "'choose': each player picks the 2 cards to lay face down at setup; "
           "'random': the env deals them at random (ruling MM2).", choices=("choose", "random")),
    Option("guard_lineup", False, "Variant Guard Line-Up: each round's guards sorted by level from the "
           "main gate (ruling MM10).", choices=(False, True)),
    Option("kings_rules", False, "Variant The King's New Rules: a king tile changes each round's rules "
           "(ruling MM10).", choices=(False, True)),
    max_steps_option(DEFAULT_MAX_STEPS),
) + COMMON_OPTIONS


def make_config(options: dict) -> np.ndarray:
    """Kernel config vector (num_players, max_steps, reward mode, setup random, guard line-up,
    king's rules) from validated options."""
    reward = REWARD_WIN if options["reward"] == "win" else REWARD_SCORE
    return np.array([options["num_players"], options["max_steps"], reward,
                     int(options["setup_hand"] == "random"), int(options["guard_lineup"]),
                     int(options["kings_rules"])], dtype=np.int64)


SPEC = game_spec(
    rules, actions, text_view, picture, name="mighty_monsters", version=0, title="Mighty Monsters",
    min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, state_size=STATE_SIZE,
    max_game_length=DEFAULT_MAX_STEPS, options=OPTIONS, make_config=make_config,
    observation_version=2,  # what each version changed: CHANGELOG.md, "Pre-release history"
)


class raw_env(KernelAECEnv):
    """Mighty Monsters without wrappers; see ``monster_zoo.envs.mighty_monsters_v0`` for the docs."""

    spec = SPEC
    metadata = {"name": "mighty_monsters_v0", "render_modes": RENDER_MODES, "render_fps": RENDER_FPS,
                "is_parallelizable": False}


def env(**options):
    """Mighty Monsters wrapped like PettingZoo's classic envs."""
    return wrap(raw_env(**options))
