"""What a kind of agent tells the registry: one :class:`AgentKind` per package of ``agents/``.

Each kind of agent lives in its own package ``agents/<kind>/``, whose ``kind.py`` declares
``KIND = AgentKind(...)``: the names it answers to and their versions, how it makes an agent for a
game, the model files it reads (each as a name prefix and a reader) and the per-game settings it
takes (the key it owns in a game declaration's ``agents`` mapping, and how it reads and checks
them). :mod:`monster_zoo.agents.registry` finds the kinds by their folders, as the env registry
finds the games; nothing else lists them.

A ``kind.py`` stays light: it imports its agent classes inside the functions that make them, so
listing the names of every kind loads no kernel and no model.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Request:
    """What the registry asks a kind to make: an agent for ``game_id`` with the (checked) rule
    ``options``, seeded ``seed``. ``name`` is the short name asked (``"mcts-fast"``), ``version`` the
    version a versioned name asked for (None: the newest); ``path`` the model file a prefixed name
    gave (``"runs/x.npz"`` of ``"ppo:runs/x.npz"``), else None."""

    game_id: str
    options: Mapping | None  # None: an env whose config cannot be read back into options
    seed: int = 0
    name: str = ""
    version: int | None = None
    path: str | None = None


@dataclass(frozen=True)
class ModelPrefix:
    """A name prefix under which a kind plays a model file: ``ppo:<model.npz>``. ``shown`` is how
    the valid names list it (``"ppo:<model.npz>"``, with what it is where that helps); ``read``
    makes the agent from a :class:`Request` whose ``path`` is the text after the prefix."""

    prefix: str
    shown: str
    read: Callable[[Request], Any]
    # False where the text after the prefix names no file (``llm:<model>``, a model at an endpoint):
    # the command line then never treats it as an input that an output must not overwrite.
    reads_file: bool = True


@dataclass(frozen=True)
class AgentSettings:
    """The per-game settings a kind takes: the ``key`` it owns in a game declaration's ``agents``
    mapping, and ``read``, which turns the declared mapping into the kind's settings object and
    raises ValueError naming the problem (an unknown field, a value out of range)."""

    key: str
    read: Callable[[Mapping], Any]


def always(game_id: str) -> bool:
    """Every game lists the kind's names."""
    return True


@dataclass(frozen=True)
class AgentKind:
    """One kind of agent.

    ``names(game_id)`` maps each short name the kind answers to for the game to the versions it
    answers to by versioned name, ``<game>-<short>-v<version>`` (ascending; the short name plays
    the newest unless ``plays`` says otherwise); ``make(request)`` makes one. ``listed(game_id)`` says whether the names are offered
    for the game (a kind whose agent ships per game is listed only where one ships; asked for
    elsewhere, its ``make`` says so and how to get one). ``any_version``: a versioned name of a
    version not in ``names`` still goes to ``make``, which says which versions exist (the
    champions, whose versions differ by player count). ``models`` are the model-file prefixes it
    reads, ``settings`` its per-game settings (None: it takes none). ``plays(game_id, short)``, where
    given, is the version a short name plays when it is not the newest (a new version that has yet
    to measure stronger); None: the newest."""

    summary: str
    names: Callable[[str], Mapping[str, Sequence[int]]]
    make: Callable[[Request], Any] | None = None
    listed: Callable[[str], bool] = always
    any_version: bool = False
    models: tuple[ModelPrefix, ...] = ()
    settings: AgentSettings | None = None
    plays: Callable[[str, str], int | None] | None = None
