"""A game's one declaration: everything the library needs to know about it, in one place.

Each game's package declares ``GAME = Game(...)`` in its ``game.py``: its identity, the modules
that hold its kernels, action names, text view and picture, its sizes and options, the prefix
of its rule ids, its greedy baseline, and per-game settings for kinds of agent as an open mapping
that this module does not read (each kind of agent owns its key and checks its settings). Every
registry reads these declarations instead of keeping a
list: :mod:`monster_zoo.envs.registry` finds the games by their page modules' file names
(``envs/<name>_v<version>.py``), and the spec, the AEC env classes, the agents and the search
settings all come from here.

>>> from monster_zoo.envs.registry import declaration
>>> declaration("marry_the_monster-v0").title
'Marry the Monster'
"""
from dataclasses import dataclass, field
from functools import cached_property
from types import ModuleType
from typing import Callable, Mapping, Optional, Sequence

from .aec import RENDER_FPS, RENDER_MODES, KernelAECEnv, wrap
from .contract import GameSpec


@dataclass(frozen=True)
class Baseline:
    """A baseline written for one game: the module that holds its numba policy kernel (for the
    ``"greedy"`` baseline, ``greedy_action`` with ``contract.POLICY_SIG``, which the greedy agent,
    the training vec env and the searches' greedy rollouts play) and its version (a changed play is
    a new version)."""

    module: str
    version: int = 1


@dataclass(frozen=True, eq=False)
class Game:
    """One game's declaration. ``rules`` holds the contract's kernels, ``REASONS`` and
    ``OBS_SIZE``; ``observation``, where a game declares one, holds ``observe_into``,
    ``determinize`` and ``OBS_SIZE`` instead of ``rules``; ``actions`` holds ``NUM_ACTIONS``,
    ``action_to_str`` and ``str_to_action``; ``text_view`` holds ``to_text`` (and ``private_text``, ``LEGEND``, ``card_text`` where the
    game has them); ``picture`` holds ``draw``, ``describe_action``, ``public_scores`` and
    ``SCORE_LABEL``. ``baselines`` are the policy kernels written for this game by name
(``"greedy"``). ``agents`` holds per-game settings of kinds of agent, keyed by the key a kind owns
(``{"mcts": {...}, "az": {...}}``): plain data this module never reads, checked by the kind that
owns the key (``monster_zoo.agents``), so a new kind of agent with per-game settings touches no
file of ``envs/``."""

    name: str
    version: int
    title: str
    rules: ModuleType
    actions: ModuleType
    text_view: ModuleType
    picture: ModuleType
    min_players: int
    max_players: int
    state_size: int
    options: Sequence
    make_config: Callable
    default_max_steps: int
    observation_version: int      # what each version changed: CHANGELOG.md
    rule_prefix: str              # rule ids in seeds/<name>/rules.md read <rule_prefix>-<n>
    baselines: Mapping[str, Baseline] = field(default_factory=dict)
    agents: Mapping[str, Mapping] = field(default_factory=dict)  # per-game settings by kind of agent
    page: Optional[str] = None    # its documentation page (default monster_zoo.envs.<name>_v<version>)
    observation: Optional[ModuleType] = None  # holds observe_into, determinize, OBS_SIZE (default: rules)
    hides_information: bool = True  # False where every seat sees the whole state (determinize is a no-op)
    picture_share: float = 0.6    # how far into a game the documentation's sample picture is taken

    @property
    def id(self) -> str:
        """The game id, ``<name>-v<version>``."""
        return f"{self.name}-v{self.version}"

    @property
    def page_module(self) -> str:
        """The module of the game's documentation page, where ``SPEC``, ``raw_env`` and ``env`` are
        published (and where pickles find ``raw_env``)."""
        return self.page or f"monster_zoo.envs.{self.name}_v{self.version}"

    @cached_property
    def spec(self) -> GameSpec:
        """The :class:`~monster_zoo.envs.core.contract.GameSpec` generic code reads."""
        rules, actions, text_view, picture = self.rules, self.actions, self.text_view, self.picture
        observation = rules if self.observation is None else self.observation
        return GameSpec(
            name=self.name, version=self.version, title=self.title, min_players=self.min_players,
            max_players=self.max_players, state_size=self.state_size, obs_size=observation.OBS_SIZE,
            num_actions=actions.NUM_ACTIONS, max_game_length=self.default_max_steps,
            init_state=rules.init_state, legal_mask=rules.legal_mask, apply_action=rules.apply_action,
            returns=rules.returns, observe_into=observation.observe_into, illegal_reason=rules.illegal_reason,
            determinize=observation.determinize, reasons=rules.REASONS, options=self.options,
            make_config=self.make_config, to_text=text_view.to_text, action_to_str=actions.action_to_str,
            str_to_action=actions.str_to_action, private_text=getattr(text_view, "private_text", None),
            legend=getattr(text_view, "LEGEND", ""), card_text=getattr(text_view, "card_text", None),
            draw=picture.draw, describe_action=picture.describe_action,
            public_scores=picture.public_scores, score_label=picture.SCORE_LABEL,
            observation_version=self.observation_version)

    @cached_property
    def raw_env(self) -> type:
        """The game's AEC env class without wrappers (PettingZoo's ``raw_env``)."""
        metadata = {"name": f"{self.name}_v{self.version}", "render_modes": RENDER_MODES,
                    "render_fps": RENDER_FPS, "is_parallelizable": False}
        return type("raw_env", (KernelAECEnv,), {
            "spec": self.spec, "metadata": metadata, "__module__": self.page_module, "__qualname__": "raw_env",
            "__doc__": f"{self.title} without wrappers; see ``{self.page_module}`` for the docs."})

    def env(self, **options):
        """The game's AEC env wrapped like PettingZoo's classic envs; ``options`` are the game's."""
        return wrap(self.raw_env(**options))
