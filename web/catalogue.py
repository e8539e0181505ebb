"""What a new game may be: the games, their options, and the agents that may take a seat.

Everything comes from the registries (``monster_zoo.envs.available``, each game's declared
options, ``monster_zoo.agents.registry.available_agents``); nothing here names a game. Trained
models are offered only from the folder named on the command line (``--models-dir``), by their
file names: a page can choose one of those files and nothing else, so no request can make the
server read a file of its choosing.
"""

import os
import stat
from functools import cache
from pathlib import Path

from monster_zoo import envs
from monster_zoo.agents.az.kind import AZ_NET_PREFIX, AZ_PREFIX
from monster_zoo.agents.ppo.kind import PPO_PREFIX
from monster_zoo.agents.registry import available_agents, make_agent
from monster_zoo.envs.core.options import resolve_options
from monster_zoo.evaluation.match import check_field

HUMAN = "human"
# Options the app sets itself: moves are checked before they reach the env (illegal_action
# "raise" never fires), the seat's view is drawn from the state, and pictures are SVG.
APP_OPTIONS = {"illegal_action": "raise", "observation": "dict", "render_mode": None}
# Options for learners, not for people at a table: the form leaves them at the game's defaults
# (a request may still set them).
LEARNER_OPTIONS = ("max_steps", "reward")
MODEL_SUFFIX = ".npz"
MODEL_PREFIXES = (PPO_PREFIX, AZ_PREFIX, AZ_NET_PREFIX)
MAX_MODEL_FILES = 200


def option_entry(option) -> dict:
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


def accepted_options(spec) -> list:
    """The options of ``spec`` a request for a new game may set: all but those the app sets itself
    (:data:`APP_OPTIONS`, which :func:`~monster_zoo.web.new_game.check_options` refuses)."""
    return [o for o in spec.options if o.name not in APP_OPTIONS]


def model_files(models_dir: Path | None) -> list[str]:
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


@cache
def registered_agents(game_id: str) -> tuple:
    """``available_agents(game_id)``, asked once per server (it checks the shipped files' hashes)."""
    return tuple(available_agents(game_id))


def plays(name: str, game_id: str, options: dict) -> bool:
    """Whether agent ``name`` plays ``game_id`` with ``options`` (the others at their defaults), as
    the registry and the agent's own check of its game say (a trained agent plays the options it
    was trained with)."""
    try:
        agent = make_agent(name, game_id, 0, options)
        check_field(game_id, resolve_options(game_id, envs.spec(game_id).options, options), [agent])
    except (ValueError, TypeError, OSError):
        return False
    return True


@cache
def agent_player_counts(game_id: str) -> dict[str, list[int]]:
    """The player counts each registered agent of ``game_id`` plays with the game's other options at
    their defaults, asked of the registry itself (a champion plays the counts its manifest ships)."""
    spec = envs.spec(game_id)
    return {
        name: [
            n
            for n in range(spec.min_players, spec.max_players + 1)
            if plays(name, game_id, {"num_players": n})
        ]
        for name in registered_agents(game_id)
    }


def form_choices(spec) -> list:
    """The options with a list of choices that the setup form shows, but the player count."""
    return [
        o
        for o in spec.options
        if o.choices is not None
        and o.name != "num_players"
        and o.name not in APP_OPTIONS
        and o.name not in LEARNER_OPTIONS
    ]


@cache
def agent_option_values(game_id: str) -> dict[str, dict[str, list]]:
    """For each registered agent of ``game_id`` that plays some player count: the values of each of
    the form's choice options it plays (the other options at their defaults)."""
    spec = envs.spec(game_id)
    return {
        name: {
            o.name: [v for v in o.choices if plays(name, game_id, {"num_players": counts[0], o.name: v})]
            for o in form_choices(spec)
        }
        for name, counts in agent_player_counts(game_id).items()
        if counts
    }


def agent_choices(game_id: str, models_dir: Path | None) -> list[str]:
    """The names a seat of ``game_id`` may take: the registered agents, then each model file of
    ``models_dir`` under each model prefix (``ppo:NAME``, ``az:NAME``, ``az-net:NAME``)."""
    return [*registered_agents(game_id)] + [
        prefix + name for name in model_files(models_dir) for prefix in MODEL_PREFIXES
    ]


def game_entry(game_id: str, models_dir: Path | None, options: list) -> dict:
    """``game_id``'s title, player range, ``options`` as the setup form shows them, agent names,
    and the player counts and option values each registered agent plays."""
    spec = envs.spec(game_id)
    return {
        "title": spec.title,
        "min_players": spec.min_players,
        "max_players": spec.max_players,
        "options": [option_entry(o) for o in options],
        "agents": agent_choices(game_id, models_dir),
        "agent_players": agent_player_counts(game_id),
        "agent_options": agent_option_values(game_id),
    }


def catalogue(models_dir: Path | None) -> list[dict]:
    """Every game with its title, player range, options (those a person at the table chooses), agent
    names, and the player counts and option values each registered agent plays (model files:
    checked when a game starts), for the setup form."""
    return [
        {
            "id": game_id,
            **game_entry(
                game_id,
                models_dir,
                [o for o in accepted_options(envs.spec(game_id)) if o.name not in LEARNER_OPTIONS],
            ),
        }
        for game_id in envs.available()
    ]


def client_catalogue(models_dir: Path | None) -> list[dict]:
    """What a program may start (the MCP server's ``list_games``): every game with each option a
    new game accepts (its default, and its choices or the kind of value it takes), the agents a
    seat may take (model files of ``models_dir`` included) and the player counts and option values
    each registered agent plays; a model file is checked against the game when a game starts."""
    return [
        {"game": game_id, **game_entry(game_id, models_dir, accepted_options(envs.spec(game_id)))}
        for game_id in envs.available()
    ]
