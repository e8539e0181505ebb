"""Registry of baseline agents by name, in RLCard's manner.

Each game's baselines answer to a short name (``"random"``, ``"greedy"``) and to
a versioned one, ``<game>-<kind>-v<version>`` (``"marry_the_monster-greedy-v1"``).
A versioned name always means the same behaviour: change a baseline's play and
its version goes up, so results quoted against a name stay comparable. The short
name plays the newest version; older versions stay available by their versioned
names (``marry_the_monster-mcts-v1``, the untuned search).

A trained policy answers to ``ppo:<path of its policy file .npz>`` (numpy alone
plays it; see :mod:`monster_zoo.agents.model_file`), which must have been trained for
the game and options it is asked to play. A Stable-Baselines3 ``.zip`` runs code
when loaded, so it loads only as ``ppo-trusted:<path>`` (needs the ``train`` extra).

Learned search (:mod:`monster_zoo.agents.az.agent`) answers to ``az:<network.npz>`` (the
search guided by the network of that file, trained by ``monster-zoo az``) and
``az-net:<network.npz>`` (the network alone); a network plays the game, rule options and
player counts it was trained for. ``az`` / ``<game>-az-vK`` and ``az-net`` / ``<game>-az-net-vK``
play version K of the network shipped for the game (the short names the newest): they are listed
only for a game where one ships, and asking for them elsewhere says so and how to train one.

Any name may carry a short label for tables and plots: ``demo=ppo:runs/x/final_model.npz``.

Which names exist is said by the kinds of agent themselves: each package ``agents/<kind>/`` declares
``KIND`` (:class:`monster_zoo.agents.kind.AgentKind`) in its ``kind.py``, found here by its folder
(as the env registry finds games by their pages), so adding a kind touches no file of this one.
"""

import importlib
import re
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path

from monster_zoo import envs
from monster_zoo.agents.base import Agent
from monster_zoo.agents.game_rules import GameRules, game_of
from monster_zoo.agents.kind import AgentKind, ModelPrefix, Request

KINDS_DIR = Path(__file__).resolve().parent
# kinds registered by hand (tests' own kinds), by name, beside those found in the folders
_REGISTERED: dict[str, AgentKind] = {}


@cache
def _found_kinds() -> tuple[tuple[str, AgentKind], ...]:
    """``(name, KIND)`` of every package ``agents/<name>/`` with a ``kind.py``, by name."""
    return tuple(
        (path.parent.name, importlib.import_module(f"{__package__}.{path.parent.name}.kind").KIND)
        for path in sorted(KINDS_DIR.glob("*/kind.py"))
    )


def register_kind(name: str, kind: AgentKind) -> None:
    """Add a kind of agent that lives outside ``agents/`` (a test's own kind); the kinds of
    ``agents/`` need no call."""
    if not isinstance(kind, AgentKind):
        raise TypeError(
            f"register_kind({name!r}, kind): kind must be an AgentKind, not {type(kind).__name__}"
        )
    _REGISTERED[name] = kind


def unregister_kind(name: str) -> None:
    """Remove a kind added by :func:`register_kind` (unknown names are ignored)."""
    _REGISTERED.pop(name, None)


def agent_kinds() -> dict[str, AgentKind]:
    """Every kind of agent by name: those of ``agents/``'s packages, then those registered by hand."""
    return {**dict(_found_kinds()), **_REGISTERED}


def _model_prefixes() -> Iterator[ModelPrefix]:
    """Every model-file prefix of every kind."""
    for kind in agent_kinds().values():
        yield from kind.models


def game_name(game_id: str) -> str:
    """The game's name (``marry_the_monster``) for a registry id; ValueError if unknown."""
    return envs.spec(game_id).name


def versioned_name(game_id: str, short: str) -> str:
    """The versioned name of the version ``short`` plays for ``game_id`` (``marry_the_monster-mcts-v2``)."""
    for kind in agent_kinds().values():
        versions = kind.names(game_id).get(short)
        if versions:
            played = kind.plays(game_id, short) if kind.plays is not None else None
            return f"{game_name(game_id)}-{short}-v{versions[-1] if played is None else played}"
    raise ValueError(f"no kind of agent answers to {short!r} for {game_id}")


def available_agents(game_id: str) -> list[str]:
    """Names ``make_agent`` accepts for ``game_id``: short kinds, then versioned names."""
    game = game_name(game_id)
    short: list[str] = []
    versioned: list[str] = []
    for kind in agent_kinds().values():
        names = kind.names(game_id)
        if names and kind.listed(game_id):
            short += names
            versioned += [f"{game}-{name}-v{v}" for name, versions in names.items() for v in versions]
    return sorted(short) + sorted(versioned)


def _resolve(game_id: str, name: str) -> tuple[AgentKind, str, int | None]:
    """``(kind, short name, version or None)`` of a short or versioned name; ValueError listing the
    valid names."""
    game = game_name(game_id)
    for kind in agent_kinds().values():
        names = kind.names(game_id)
        if name in names:
            return kind, name, None
        for short, versions in names.items():
            match = re.fullmatch(rf"{re.escape(game)}-{re.escape(short)}-v(\d+)", name)
            if match and (int(match.group(1)) in versions or kind.any_version):
                return kind, short, int(match.group(1))
    files = ", ".join(prefix.shown for prefix in _model_prefixes())
    raise ValueError(
        f"unknown agent {name!r} for {game_id}; valid names: "
        f"{', '.join(available_agents(game_id))} or {files}"
    )


def split_label(name: str) -> tuple[str | None, str]:
    """``"demo=ppo:x.npz"`` -> ``("demo", "ppo:x.npz")``; a name without a label -> ``(None, name)``.

    A label is the text before the first ``=`` when it holds no ``:`` or ``/`` (so a
    path such as ``ppo:runs/lr=3e-4/final_model.npz`` is not mistaken for one).
    """
    label, sep, rest = name.partition("=")
    if sep and label and rest and not set(label) & {":", "/", "\\"}:
        return label, rest
    return None, name


def is_model(name: str) -> bool:
    """Whether ``name`` (label removed) names a trained model file (``ppo:``, ``ppo-trusted:``,
    ``az:``, ``az-net:``: the prefixes of the kinds' ``models``)."""
    return any(name.startswith(prefix.prefix) for prefix in _model_prefixes())


def model_file(name: str) -> str | None:
    """The path of the model file an agent name reads (``ppo:x.npz``, ``LABEL=az:x.npz``: ``x.npz``),
    or None for a name that reads no file."""
    rest = split_label(name)[1]
    for prefix in _model_prefixes():
        if prefix.reads_file and rest.startswith(prefix.prefix) and rest[len(prefix.prefix) :]:
            return rest[len(prefix.prefix) :]
    return None


def agent_labels(names: Sequence[str], agents: Sequence[Agent]) -> list[str]:
    """Short labels of a field for tables and plots, numbered ``" #k"`` where they repeat.

    A name's own label (``demo=...``) wins; a model otherwise shows the name recorded
    in its file (``demo-s1``), any other agent its name as given.
    """
    short = []
    for name, agent in zip(names, agents):
        label, rest = split_label(name)
        short.append(label or (agent.name if is_model(rest) else rest))
    return [f"{s} #{short[:i].count(s) + 1}" if short.count(s) > 1 else s for i, s in enumerate(short)]


def make_agent(name: str, game, seed: int = 0, options: dict | None = None) -> Agent:
    """A new agent ``name`` for ``game``, seeded with ``seed``.

    ``game`` is the game the agent will play: a monster-zoo env - an AEC env (wrapped or raw),
    a batched engine, a learner env or an SB3 vec env - whose id, player count and rule options
    the agent takes (``make_agent("champion", env)``), or a game id with ``options`` (None: the
    game's defaults, so ``make_agent("champion", "monstargh-v0")`` is the 4-player champion;
    ``options={"num_players": 2}`` the 2-player one). ``options`` given with an env must agree with
    it. ``name`` may carry a label (``demo=ppo:x.npz``), which becomes the agent's ``name``.

    The agent knows its game (``agent.made_for``) and refuses to act in another: a trained
    policy (``champion``, ``ppo:``) or learned search (``az:``, ``az-net:``, made for one of its
    network's player counts) in any other game, player count or rule option; random, greedy and
    the searches, which read the rules from the state, in any other game.
    Raises ValueError listing the valid names for an unknown agent, the registered games for
    an unknown game, and the shipped player counts for a champion that does not exist.
    """
    target = game_of(game, options)  # an unknown game or bad options fail first, naming the valid ones
    game_id, rule_options = target.game_id, target.options
    label, name = split_label(name)
    reader = next((prefix for prefix in _model_prefixes() if name.startswith(prefix.prefix)), None)
    if reader is not None:
        agent = reader.read(Request(game_id, rule_options, seed, path=name[len(reader.prefix) :]))
    else:
        kind, short, version = _resolve(game_id, name)
        if kind.make is None:  # a kind that only reads model files names no agent of its own
            raise ValueError(
                f"{name!r} plays only from a model file: " + ", ".join(p.shown for p in kind.models)
            )
        agent = kind.make(Request(game_id, rule_options, seed, name=short, version=version))
    if agent.made_for is None:  # an agent that reads the rules from the state: its game's id is enough
        agent.made_for = GameRules.any_rules(game_id)
    if label is not None:
        agent.name = label
    return agent
