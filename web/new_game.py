"""A request for a new game, checked before anything is built: the game, its options, who sits in
each seat and the seed.

    {"game": "marry_the_monster-v0", "options": {"num_players": 3},
     "seats": ["human", "greedy", "random"], "seed": 7}

``seats`` names one entry per seat: ``"human"`` for a person at this screen, or an agent
name of :func:`~monster_zoo.web.catalogue.agent_choices`. A game without a human seat is
watched. ``seed`` (optional, a fresh one otherwise) seeds the deal and the agents, so the same
seed and the same moves play the same game.
"""

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from monster_zoo import envs
from monster_zoo.envs.core.inputs import SEED_MODULUS
from monster_zoo.envs.core.options import resolve_options

from .catalogue import (
    APP_OPTIONS,
    HUMAN,
    MODEL_PREFIXES,
    agent_choices,
    agent_option_values,
    agent_player_counts,
)
from .refusals import bad_request, integer_field, json_object, not_found, shown, unprocessable

FIELDS = ("game", "options", "seats", "seed")
MAX_OPTION_CHARS = 200
MAX_OPTIONS = 32


@dataclass(frozen=True)
class GameSetup:
    """A checked request for a new game."""

    game_id: str
    options: dict[str, Any]  # every option resolved, the app's own included
    seats: list[str]  # HUMAN or an agent name as the page named it
    seed: int

    @property
    def humans(self) -> list[int]:
        """The seats a person plays."""
        return [s for s, name in enumerate(self.seats) if name == HUMAN]


def _option_value(name: str, value: Any) -> Any:
    """A JSON option value the games may take: a number, text, a bool, null or a list of text."""
    if isinstance(value, list):
        if len(value) <= 16 and all(isinstance(v, str) and len(v) <= MAX_OPTION_CHARS for v in value):
            return value
    elif (
        value is None
        or isinstance(value, (bool, int, float))
        or (isinstance(value, str) and len(value) <= MAX_OPTION_CHARS)
    ):
        return value
    raise bad_request(f"option {name!r} has a value no game takes: {shown(value)}")


def check_options(game_id: str, given: Any) -> dict[str, Any]:
    """``given`` merged over the game's defaults and checked by the game itself (422 listing the
    valid options or values); the options the app sets itself are refused if given."""
    if given is None:
        given = {}
    if not isinstance(given, dict):
        raise bad_request(f"'options' must be an object of option names to values, got {shown(given)}")
    if len(given) > MAX_OPTIONS or any(len(name) > MAX_OPTION_CHARS for name in given):
        raise bad_request(
            f"'options' names at most {MAX_OPTIONS} options, each of at most {MAX_OPTION_CHARS} characters"
        )
    own = sorted(set(given) & set(APP_OPTIONS))
    if own:
        raise unprocessable(f"option(s) {', '.join(own)} are set by the app, not by the page")
    values = {name: _option_value(name, value) for name, value in given.items()}
    spec = envs.spec(game_id)
    try:
        options = resolve_options(game_id, spec.options, {**values, **APP_OPTIONS})
        spec.make_config(options)  # values each option accepts alone but not together (MONSTArgh!'s species)
    except (TypeError, ValueError) as err:
        raise unprocessable(str(err)) from None
    return options


def check_seats(game_id: str, seats: Any, options: dict[str, Any], models_dir: Path | None) -> list[str]:
    """``seats`` if it names a seat per player of ``options``, each ``human`` or an agent the game
    offers that plays this many players with these options."""
    num_players = int(envs.spec(game_id).make_config(options)[0])
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise bad_request(f"'seats' must be a list of names, one per seat, got {shown(seats)}")
    if len(seats) != num_players:
        raise unprocessable(
            f"'seats' names {len(seats)} seats but this game has {num_players} players "
            "(set the option num_players to change that)"
        )
    valid = agent_choices(game_id, models_dir)
    counts = agent_player_counts(game_id)
    for seat, name in enumerate(seats):
        if name != HUMAN and name not in valid:
            models = (
                ""
                if models_dir is not None
                else (
                    "; model files are offered only from the folder given by 'monster-zoo serve --models-dir'"
                )
            )
            raise unprocessable(
                f"seat {seat}: unknown agent {shown(name)} for {game_id}; valid: {HUMAN}, "
                f"{', '.join(valid)}{models}"
            )
        if name in counts and num_players not in counts[name]:
            plays = " or ".join(map(str, counts[name])) or "no"
            raise unprocessable(
                f"player_{seat}: {name} plays this game with {plays} players only, not "
                f"{num_players}; choose another player for that seat, or another number of players"
            )
        for option, accepted in agent_option_values(game_id).get(name, {}).items():
            if options[option] not in accepted:
                raise unprocessable(
                    f"player_{seat}: {name} does not play this game with {option} "
                    f"{options[option]!r} (it plays {' or '.join(map(repr, accepted))}); choose "
                    "another player for that seat, or another value of that option"
                )
    return list(seats)


def check_setup(body: Any, models_dir: Path | None) -> GameSetup:
    """The :class:`GameSetup` of a request body, or the RequestError saying what is wrong."""
    body = json_object(body, FIELDS)
    game_id = body.get("game")
    if not isinstance(game_id, str):
        raise bad_request(f"field 'game' must be a game id, one of: {', '.join(envs.available())}")
    if game_id not in envs.available():
        raise not_found(f"unknown game {shown(game_id)}; available: {', '.join(envs.available())}")
    options = check_options(game_id, body.get("options"))
    seats = check_seats(game_id, body.get("seats"), options, models_dir)
    seed = integer_field(body, "seed", 0, SEED_MODULUS - 1)
    return GameSetup(game_id, options, seats, secrets.randbelow(SEED_MODULUS) if seed is None else seed)


def agent_path_name(name: str, models_dir: Path | None) -> str:
    """The name ``make_agent`` takes for seat name ``name``: a model file's name resolved inside
    ``models_dir`` (the page names files by their names alone), any other name as it is."""
    for prefix in MODEL_PREFIXES:
        if name.startswith(prefix) and models_dir is not None:
            return prefix + str(models_dir / name[len(prefix) :])
    return name
