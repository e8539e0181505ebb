"""Which game an agent was made for, and the refusal when it is asked to play another.

A game, for an agent, is its id with the options that change its rules: the player count
and the game's own rule options (Mighty Monsters' variants, MONSTArgh!'s species and
tiebreak, ...). The options that change neither the rules nor what a seat observes (the
truncation limit, the reward mode, illegal-action handling, rendering, the observation's
form) are no part of it, so an agent plays under any of their values.

Games are compared by the rule entries of the kernel config (``envs.config``): every entry
but the truncation limit and the reward mode. An AEC env holds its options, a batched
engine, learner env or vec env only its config; comparing configs serves both, and two
spellings of the same rules (species named in another order) are the same game.

Agents that read the rules from the engine state (random, greedy, the searches) are made
for a game id and play any of its player counts and rule options
(:meth:`GameRules.any_rules`); a trained policy is made for one player count and one set of
rule options (:meth:`GameRules.from_options`), because the observation of another table
means something else even where its size is the same.
"""

import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from monster_zoo import envs
from monster_zoo.agents.model_file import PLAY_TIME_OPTIONS, describe, rule_options
from monster_zoo.envs.core.contract import C_MAX_STEPS, C_NUM_PLAYERS, C_REWARD_MODE, GameSpec
from monster_zoo.envs.core.game import Game
from monster_zoo.envs.core.seated_view import seated_index

_PLAY_TIME_ENTRIES = (C_MAX_STEPS, C_REWARD_MODE)
# Reading a config back into options tries every combination of the options that list their
# values; more combinations than this are not tried (no game comes near it).
_MAX_COMBINATIONS = 256


class WrongGameError(ValueError):
    """An agent was asked to play a game, player count or rule option it was not made for."""


def rule_entries(config) -> tuple[int, ...]:
    """The entries of a kernel config that set the rules (``num_players`` first)."""
    return tuple(int(v) for k, v in enumerate(np.asarray(config).reshape(-1)) if k not in _PLAY_TIME_ENTRIES)


@dataclass(frozen=True)
class GameRules:
    """A game id and, unless ``rules`` is None (any player count and rule options), the rule
    entries of its config; ``options`` are its rule options where known (for messages)."""

    game_id: str
    rules: tuple[int, ...] | None = None
    options: Mapping | None = field(default=None, compare=False)
    # The game's sizes, which tell a game's views apart (every registered game differs in each).
    num_actions: int = field(init=False, compare=False)
    obs_size: int = field(init=False, compare=False)
    state_size: int = field(init=False, compare=False)
    # The observation's seat entries that tell its player count (None where the game has none).
    seated_index: np.ndarray | None = field(init=False, compare=False, repr=False)

    def __post_init__(self):
        spec = envs.spec(self.game_id)  # an unknown id fails here, listing the registered ones
        object.__setattr__(self, "num_actions", spec.num_actions)
        object.__setattr__(self, "obs_size", spec.obs_size)
        object.__setattr__(self, "state_size", spec.state_size)
        object.__setattr__(self, "seated_index", seated_index(spec.seated_slots))

    @classmethod
    def any_rules(cls, game_id: str) -> "GameRules":
        """``game_id`` at any player count and rule options."""
        return cls(game_id)

    @classmethod
    def from_options(cls, game_id: str, options: Mapping | None = None) -> "GameRules":
        """``game_id`` with ``options`` over its defaults (validated: bad ones raise as ``make`` does)."""
        given = dict(options or {})
        bound = rule_options(game_id, given)
        return cls(game_id, rule_entries(envs.config(game_id, given)), bound)

    @classmethod
    def from_config(cls, game_id: str, config, options: Mapping | None = None) -> "GameRules":
        """``game_id`` with the kernel ``config``; its rule options are ``options`` when given
        (they must give this config), else read back from the config where they can be."""
        rules = rule_entries(config)
        if options is not None:
            named = cls.from_options(game_id, options)
            if named.rules != rules:
                raise ValueError(
                    f"the options {describe(game_id, named.options)} do not give the config "
                    f"{list(np.asarray(config))}"
                )
            return named
        return cls(game_id, rules, _options_of(game_id, rules))

    @property
    def num_players(self) -> int | None:
        """The player count (None for any)."""
        return None if self.rules is None else self.rules[C_NUM_PLAYERS]

    def admits(self, other: "GameRules") -> bool:
        """Whether an agent made for this game may play ``other``."""
        return self.game_id == other.game_id and (self.rules is None or self.rules == other.rules)

    def describe(self) -> str:
        """``monstargh-v0 with num_players=2, species='random', tiebreak='share'`` (for messages)."""
        if self.rules is None:
            return f"{self.game_id} (any player count and rule options)"
        if self.options is not None:
            return describe(self.game_id, self.options)
        return (
            f"{self.game_id} with num_players={self.num_players} and rule options other than the "
            f"defaults (rule config {list(self.rules)})"
        )


def _options_of(game_id: str, rules: tuple[int, ...]) -> dict | None:
    """The rule options that give ``rules``: the player count with the defaults, or with other
    values of the options that list them; None when no combination tried gives them."""
    spec = envs.spec(game_id)
    listed = [
        o
        for o in spec.options
        if o.choices is not None and o.name not in PLAY_TIME_OPTIONS and o.name != "num_players"
    ]
    values = [o.choices for o in listed]
    for k, combination in enumerate(itertools.product(*values)):
        if k == _MAX_COMBINATIONS:
            break
        options = {"num_players": rules[C_NUM_PLAYERS], **{o.name: v for o, v in zip(listed, combination)}}
        try:
            candidate = GameRules.from_options(game_id, options)
        except (TypeError, ValueError):
            return None  # a player count the game does not have
        if candidate.rules == rules:
            return candidate.options
    return None


def game_of(game, options: Mapping | None = None) -> GameRules:
    """The game of ``game``: a game id (with ``options``), or a monster-zoo env - an AEC env
    (wrapped or raw), a batched engine, a learner env or an SB3 vec env - whose options or config
    give the player count and rule options.

    ``options`` given with an env must describe the env's game; they are needed only where its
    config cannot be read back into options (a batched engine with named MONSTArgh! species).
    """
    if isinstance(game, str):
        return GameRules.from_options(game, options)
    raw = getattr(game, "unwrapped", game)
    spec = getattr(raw, "game_spec", None) or getattr(raw, "spec", None)
    if not isinstance(spec, (Game, GameSpec)):
        raise TypeError(
            f"expected a game id or a monster-zoo env (AEC env, raw env, batched engine, learner "
            f"env or vec env), got {type(game).__name__}"
        )
    own = getattr(raw, "options", None)
    if isinstance(own, Mapping):
        found = GameRules.from_options(spec.env_id, own)
    else:
        config = getattr(raw, "config", None)
        if config is None:
            config = raw.games.config  # learner env and vec env: their LearnerGames hold it
        found = GameRules.from_config(spec.env_id, config)
    if options is not None:
        named = GameRules.from_options(spec.env_id, options)
        if named != found:
            raise ValueError(
                f"options={json.dumps(dict(options))} describe {named.describe()}, but the env "
                f"plays {found.describe()}: pass the env alone, it knows its options"
            )
        return named if found.options is None else found
    if found.options is None:
        raise ValueError(
            f"the rule options of this {spec.env_id} engine cannot be read back from its config "
            f"{list(found.rules)}: pass the options it was built with as options="
        )
    return found


def game_with_sizes(what: str, size: int) -> str:
    """Which registered game's ``what`` (an action mask, an observation or a state) has ``size``
    values, as a phrase for messages: ``"marry_the_monster-v0's size"``."""
    attribute = {"an action mask": "num_actions", "an observation": "obs_size", "a state": "state_size"}[what]
    found = [g for g in envs.available() if getattr(envs.spec(g), attribute) == size]
    if len(found) == 1:
        return f"{found[0]}'s size"
    return f"the size of {', '.join(found)}" if found else "no registered game's size"
