"""What a new game may be: the games, their options, and the agents that may take a seat.

Everything comes from the registries (``monster_zoo.envs.available``, each game's declared
options, ``monster_zoo.agents.registry.available_agents``); nothing here names a game. Trained
models are offered only from the folder named on the command line (``--models-dir``), by their
file names: a page can choose one of those files and nothing else, so no request can make the
server read a file of its choosing.
"""
import os
import stat
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Optional

from monster_zoo import envs
from monster_zoo.agents.az.kind import AZ_NET_PREFIX, AZ_PREFIX
from monster_zoo.agents.ppo.kind import PPO_PREFIX
from monster_zoo.agents.registry import available_agents

HUMAN = "human"
# Options the app sets itself: moves are checked before they reach the env (illegal_action
# "raise" never fires), the seat's view is drawn from the state, and pictures are SVG.
APP_OPTIONS = {"illegal_action": "raise", "observation": "dict", "render_mode": None}
MODEL_SUFFIX = ".npz"
MODEL_PREFIXES = (PPO_PREFIX, AZ_PREFIX, AZ_NET_PREFIX)
MAX_MODEL_FILES = 200


def option_entry(option) -> Dict:
    """One option as the setup form shows it: its name, text, default and either its choices
    or the kind of value it takes (an integer or text, checked by the game when the game starts)."""
    entry = {"name": option.name, "doc": option.doc, "default": option.default}
    if option.choices is not None:
        entry["choices"] = list(option.choices)
    else:
        is_int = isinstance(option.default, int) and not isinstance(option.default, bool)
        entry["kind"] = "integer" if is_int else "text"
        entry["valid"] = option.valid
    return entry


def model_files(models_dir: Optional[Path]) -> List[str]:
    """The names of the model files (``.npz``, regular files, not links) directly in ``models_dir``,
    sorted; none without a folder."""
    if models_dir is None:
        return []
    names = []
    with os.scandir(models_dir) as entries:
        for entry in entries:
            if entry.name.endswith(MODEL_SUFFIX) and stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode):
                names.append(entry.name)
    return sorted(names)[:MAX_MODEL_FILES]


@lru_cache(maxsize=None)
def registered_agents(game_id: str) -> tuple:
    """``available_agents(game_id)``, asked once per server (it checks the shipped files' hashes)."""
    return tuple(available_agents(game_id))


def agent_choices(game_id: str, models_dir: Optional[Path]) -> List[str]:
    """The names a seat of ``game_id`` may take: the registered agents, then each model file of
    ``models_dir`` under each model prefix (``ppo:NAME``, ``az:NAME``, ``az-net:NAME``)."""
    return [*registered_agents(game_id)] + [prefix + name for name in model_files(models_dir)
                                            for prefix in MODEL_PREFIXES]


def catalogue(models_dir: Optional[Path]) -> List[Dict]:
    """Every game with its title, player range, options (those the app leaves to the player) and
    agent names, for the setup form."""
    games = []
    for game_id in envs.available():
        spec = envs.spec(game_id)
        games.append({"id": game_id, "title": spec.title, "min_players": spec.min_players,
                      "max_players": spec.max_players,
                      "options": [option_entry(o) for o in spec.options if o.name not in APP_OPTIONS],
                      "agents": agent_choices(game_id, models_dir)})
    return games
