"""Registry of baseline agents by name, in RLCard's manner.

Each game's baselines answer to a short name (``"random"``, ``"greedy"``) and to
a versioned one, ``<game>-<kind>-v<version>`` (``"marry_the_monster-greedy-v1"``).
A versioned name always means the same behaviour: change a baseline's play and
its version goes up, so results quoted against a name stay comparable. The short
name plays the newest version; older versions stay available by their versioned
names (``marry_the_monster-mcts-v1``, the untuned search).

A trained policy answers to ``ppo:<path of its policy file .npz>`` (numpy alone
plays it; see :mod:`monster_zoo.agents.policy_file`), which must have been trained for
the game and options it is asked to play. A Stable-Baselines3 ``.zip`` runs code
when loaded, so it loads only as ``ppo-trusted:<path>`` (needs the ``train`` extra).

Learned search (:mod:`monster_zoo.agents.az_agent`) answers to ``az:<network.npz>`` (the
search guided by the network of that file, trained by ``monster-zoo az``) and
``az-net:<network.npz>`` (the network alone); a network plays the game, rule options and
player counts it was trained for. ``az`` / ``<game>-az-v1`` and ``az-net`` / ``<game>-az-net-v1``
play the network shipped for the game: they are listed only for a game where one ships, and
asking for them elsewhere says so and how to train one.

Any name may carry a short label for tables and plots: ``demo=ppo:runs/x/final_model.npz``.
"""
import importlib
import inspect
import re
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from monster_zoo import envs

from .base import Agent
from .game_rules import GameRules, game_of
# versioned_name is documented as the registry's (docs/api/agents.md), so it is named here as well
from .agent_names import PREVIOUS_VERSIONS, SHIPPED_NETWORK_KINDS, game_name, kinds_of, versioned_name  # noqa: F401
from .shipped_networks import network_ships

PPO_PREFIX = "ppo:"
TRUSTED_PREFIX = "ppo-trusted:"
AZ_PREFIX = "az:"
AZ_NET_PREFIX = "az-net:"
# Prefixes of the names that play a model file: the file's path follows the prefix.
MODEL_PREFIXES = (PPO_PREFIX, TRUSTED_PREFIX, AZ_PREFIX, AZ_NET_PREFIX)


def available_agents(game_id: str) -> List[str]:
    """Names ``make_agent`` accepts for ``game_id``: short kinds, then versioned names."""
    from .champions import champion_player_counts

    game = game_name(game_id)
    kinds = kinds_of(game_id)
    if not champion_player_counts(game):
        del kinds["champion"]  # named only where a champion ships
    if not network_ships(game_id):
        for kind in SHIPPED_NETWORK_KINDS:
            del kinds[kind]
    versions = [(kind, v) for kind, (v, _, _) in kinds.items() if kind != "champion"] + list(PREVIOUS_VERSIONS)
    if "champion" in kinds:
        from .champions import all_champion_versions

        versions += [("champion", v) for v in all_champion_versions(game)]
    return sorted(kinds) + sorted(f"{game}-{kind}-v{v}" for kind, v in versions)


def champion_version(game_id: str, name: str) -> Optional[int]:
    """The version a ``<game>-champion-vK`` name asks for (None for any other name)."""
    match = re.fullmatch(rf"{re.escape(game_name(game_id))}-champion-v(\d+)", name)
    return int(match.group(1)) if match else None


def _resolve(game_id: str, name: str) -> Tuple[str, str]:
    """(module, class) of the baseline ``name`` (short or versioned); ValueError listing valid names."""
    game = game_name(game_id)
    kinds = kinds_of(game_id)
    if name in kinds:
        return kinds[name][1:]
    if champion_version(game_id, name) is not None and "champion" in kinds:
        return kinds["champion"][1:]
    for kind, (v, module, class_name) in kinds.items():
        if name == f"{game}-{kind}-v{v}":
            return module, class_name
    for (kind, v), found in PREVIOUS_VERSIONS.items():
        if name == f"{game}-{kind}-v{v}":
            return found
    raise ValueError(f"unknown agent {name!r} for {game_id}; valid names: "
                     f"{', '.join(available_agents(game_id))} or {PPO_PREFIX}<model.npz>, "
                     f"{TRUSTED_PREFIX}<sb3.zip>, {AZ_PREFIX}<network.npz> (learned search), "
                     f"{AZ_NET_PREFIX}<network.npz> (its network alone)")


def split_label(name: str) -> Tuple[Optional[str], str]:
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
    ``az:``, ``az-net:``)."""
    return name.startswith(MODEL_PREFIXES)


def model_file(name: str) -> Optional[str]:
    """The path of the model file an agent name reads (``ppo:x.npz``, ``LABEL=az:x.npz``: ``x.npz``),
    or None for a name that reads no file."""
    rest = split_label(name)[1]
    for prefix in MODEL_PREFIXES:
        if rest.startswith(prefix) and rest[len(prefix):]:
            return rest[len(prefix):]
    return None


def agent_labels(names: Sequence[str], agents: Sequence[Agent]) -> List[str]:
    """Short labels of a field for tables and plots, numbered ``" #k"`` where they repeat.

    A name's own label (``demo=...``) wins; a model otherwise shows the name recorded
    in its file (``demo-s1``), any other agent its name as given.
    """
    short = []
    for name, agent in zip(names, agents):
        label, rest = split_label(name)
        short.append(label or (agent.name if is_model(rest) else rest))
    return [f"{s} #{short[:i].count(s) + 1}" if short.count(s) > 1 else s for i, s in enumerate(short)]


def _is_sb3_zip(path: str) -> bool:
    """Whether ``path`` is a zip with SB3's ``data`` entry (reads the zip's directory only)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return "data" in archive.namelist()
    except (OSError, zipfile.BadZipFile):
        return False


def _load_model(path: str, game_id: str, seed: int, options: Optional[Dict], trusted: bool) -> Agent:
    """A trained policy from ``path``: a policy file, or an SB3 zip when ``trusted``."""
    from .policy_file import ModelFileError, is_policy_file

    if not path:
        raise ValueError(f"agent {PPO_PREFIX} needs the path of a model file: {PPO_PREFIX}<model.npz>")
    from .ppo_agent import PPOAgent  # no torch: a policy file plays with numpy alone

    if is_policy_file(path):
        return PPOAgent.load(path, game_id, seed, options=options)
    if trusted:
        return PPOAgent.load_trusted_zip(path, game_id, seed, options=options)
    if Path(path).suffix != ".npz" and _is_sb3_zip(path):
        npz = Path(path).with_suffix(".npz")
        beside = f" The trainer writes one beside its zips: {PPO_PREFIX}{npz}." if npz.is_file() else ""
        raise ModelFileError(
            f"model {path!r} is a Stable-Baselines3 zip, and loading one unpickles its contents, which can "
            f"run any code. Play a policy file instead (.npz, plain data).{beside} For a zip you trust: "
            f"convert it once with 'monster-zoo export-model --trust-model {path} OUT.npz', or load it "
            f"as {TRUSTED_PREFIX}{path}")
    return PPOAgent.load(path, game_id, seed, options=options)  # refuses it with the reason


def _load_network(path: str, game_id: str, seed: int, options: Optional[Dict], alone: bool) -> Agent:
    """Learned search over the network file ``path``, or with ``alone`` the network alone."""
    prefix = AZ_NET_PREFIX if alone else AZ_PREFIX
    if not path:
        raise ValueError(f"agent {prefix} needs the path of a network file: {prefix}<network.npz> (a training "
                         f"run of monster-zoo az writes runs/<run>/network.npz)")
    from .az_agent import load_az

    return load_az(path, game_id, seed, options, alone=alone)


def make_agent(name: str, game, seed: int = 0, options: Optional[Dict] = None) -> Agent:
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
    game_id, options = target.game_id, target.options
    label, name = split_label(name)
    agent = None
    for prefix in (PPO_PREFIX, TRUSTED_PREFIX):
        if name.startswith(prefix):
            agent = _load_model(name[len(prefix):], game_id, seed, options, prefix == TRUSTED_PREFIX)
    for prefix in (AZ_PREFIX, AZ_NET_PREFIX):
        if name.startswith(prefix):
            agent = _load_network(name[len(prefix):], game_id, seed, options, prefix == AZ_NET_PREFIX)
    if agent is None:
        module, class_name = _resolve(game_id, name)
        cls = getattr(importlib.import_module(module), class_name)
        # Generic agents that work through the game's kernels (MCTS) are told the game, and
        # those that differ by player count (champions) its options.
        parameters = inspect.signature(cls).parameters
        extra = {key: value for key, value in (("game_id", game_id), ("options", options),
                                               ("version", champion_version(game_id, name)))
                 if key in parameters}
        agent = cls(seed, **extra)
    if agent.made_for is None:  # an agent that reads the rules from the state: its game's id is enough
        agent.made_for = GameRules.any_rules(game_id)
    if label is not None:
        agent.name = label
    return agent
