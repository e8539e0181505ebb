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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import ModuleType

from .aec import RENDER_FPS, RENDER_MODES, KernelAECEnv, wrap


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
    observation_version: int  # what each version changed: CHANGELOG.md
    rule_prefix: str  # rule ids in seeds/<name>/rules.md read <rule_prefix>-<n>
    baselines: Mapping[str, Baseline] = field(default_factory=dict)
    agents: Mapping[str, Mapping] = field(default_factory=dict)  # per-game settings by kind of agent
    page: str | None = None  # its documentation page (default monster_zoo.envs.<name>_v<version>)
    observation: ModuleType | None = None  # holds observe_into, determinize, OBS_SIZE (default: rules)
    hides_information: bool = True  # False where every seat sees the whole state (determinize is a no-op)
    picture_share: float = 0.6  # how far into a game the documentation's sample picture is taken

    @property
    def id(self) -> str:
        """The game id, ``<name>-v<version>``."""
        return f"{self.name}-v{self.version}"

    @property
    def page_module(self) -> str:
        """The module of the game's documentation page, where ``SPEC``, ``raw_env`` and ``env`` are
        published (and where pickles find ``raw_env``)."""
        return self.page or f"monster_zoo.envs.{self.name}_v{self.version}"

    @property
    def spec(self) -> "Game":
        """The declaration itself, which is what generic code reads (kept so that pages publish
        ``SPEC = GAME.spec`` and ``env.unwrapped.spec`` keeps its name); nothing is copied."""
        return self

    # --- what generic code reads, from the modules the declaration names (the game contract of
    # :class:`~monster_zoo.envs.core.contract.GameSpec`, read here instead of copied into one) ---
    @property
    def env_id(self) -> str:
        """The registry id, e.g. ``marry_the_monster-v0`` (the same as :attr:`id`)."""
        return self.id

    @property
    def _observer(self) -> ModuleType:
        """The module holding ``observe_into``, ``determinize`` and ``OBS_SIZE``."""
        return self.rules if self.observation is None else self.observation

    @property
    def obs_size(self) -> int:
        """Entries of one seat's observation."""
        return self._observer.OBS_SIZE

    @property
    def seated_slots(self) -> Sequence[int] | None:
        """The observation's entry of each relative seat that reads 1 while that seat is at the table
        and 0 beyond the player count (``SEATED_SLOTS`` beside ``observe_into``), from which the player
        count a view was written for is read; None where the game declares none."""
        return getattr(self._observer, "SEATED_SLOTS", None)

    @property
    def num_actions(self) -> int:
        """Size of the game's one ``Discrete`` action space."""
        return self.actions.NUM_ACTIONS

    @property
    def max_game_length(self) -> int:
        """The default truncation limit in actions (C4)."""
        return self.default_max_steps

    @property
    def init_state(self) -> Callable:
        """The kernel that deals a new game."""
        return self.rules.init_state

    @property
    def legal_mask(self) -> Callable:
        """The kernel that writes the legal actions of the seat on move."""
        return self.rules.legal_mask

    @property
    def apply_action(self) -> Callable:
        """The kernel that plays one action."""
        return self.rules.apply_action

    @property
    def returns(self) -> Callable:
        """The kernel that writes every seat's return."""
        return self.rules.returns

    @property
    def illegal_reason(self) -> Callable:
        """The kernel that says why an action is illegal (0 when legal, else a key of :attr:`reasons`)."""
        return self.rules.illegal_reason

    @property
    def reasons(self) -> Mapping[int, str]:
        """Why an action is illegal, by the codes of :attr:`illegal_reason`."""
        return self.rules.REASONS

    @property
    def observe_into(self) -> Callable:
        """The kernel that writes a seat's observation (every entry, whatever it held)."""
        return self._observer.observe_into

    @property
    def determinize(self) -> Callable:
        """The kernel that redeals what a seat cannot see."""
        return self._observer.determinize

    @property
    def graft_hidden(self) -> Callable | None:
        """The kernel that copies one state's guess at the other seats' own cards into another
        (``GRAFT_HIDDEN_SIG``), where the game keeps what no seat has seen; else None."""
        return getattr(self._observer, "graft_hidden", None)

    @property
    def to_text(self) -> Callable:
        """The public text view of a state."""
        return self.text_view.to_text

    @property
    def private_text(self) -> Callable | None:
        """What only one seat sees, as text (None: nothing is private)."""
        return getattr(self.text_view, "private_text", None)

    @property
    def legend(self) -> str:
        """What the symbols of :attr:`to_text` mean, for people at a terminal."""
        return getattr(self.text_view, "LEGEND", "")

    @property
    def card_text(self) -> Callable | None:
        """A card's text by its name, for games whose cards have names and texts."""
        return getattr(self.text_view, "card_text", None)

    @property
    def action_to_str(self) -> Callable:
        """An action's name, ``(action, state=None) -> str``."""
        return self.actions.action_to_str

    @property
    def str_to_action(self) -> Callable:
        """The action a name stands for."""
        return self.actions.str_to_action

    @property
    def draw(self) -> Callable:
        """The SVG picture of a state as a seat (or the public) sees it."""
        return self.picture.draw

    @property
    def describe_action(self) -> Callable:
        """An action's name as a seat may know it."""
        return self.picture.describe_action

    @property
    def public_scores(self) -> Callable:
        """The public score per seat."""
        return self.picture.public_scores

    @property
    def score_label(self) -> str:
        """What :attr:`public_scores` counts (points, gold, stars...)."""
        return self.picture.SCORE_LABEL

    @cached_property
    def raw_env(self) -> type:
        """The game's AEC env class without wrappers (PettingZoo's ``raw_env``)."""
        metadata = {
            "name": f"{self.name}_v{self.version}",
            "render_modes": RENDER_MODES,
            "render_fps": RENDER_FPS,
            "is_parallelizable": False,
        }
        return type(
            "raw_env",
            (KernelAECEnv,),
            {
                "spec": self.spec,
                "metadata": metadata,
                "__module__": self.page_module,
                "__qualname__": "raw_env",
                "__doc__": f"{self.title} without wrappers; see ``{self.page_module}`` for the docs.",
            },
        )

    def env(self, **options):
        """The game's AEC env wrapped like PettingZoo's classic envs; ``options`` are the game's."""
        return wrap(self.raw_env(**options))
