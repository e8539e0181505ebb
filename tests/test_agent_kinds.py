"""What every kind of agent must be: one ``KIND`` per package, found by its folder, with
names, versions, model-file prefixes and per-game settings the registry can rely on.

The kinds are the registry's own list (``agents/<kind>/kind.py``) plus the test-only kinds of
``tests/fixture_agents/`` (registered by ``conftest.py``), so a new kind is checked here without a
line in this file; the test-only game joins ``game_id`` (the module is marked ``conformance``).
"""

import ast
import dataclasses
import importlib
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURE_AGENT_KINDS, FIXTURE_GAMES, redeclare

from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.agents.base import Agent
from monster_zoo.agents.kind import AgentKind, Request
from monster_zoo.agents.registry import KINDS_DIR, agent_kinds, available_agents, is_model, model_file
from monster_zoo.envs.registry import declaration

pytestmark = pytest.mark.conformance  # the test-only game of tests/fixture_games/ runs these too
NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
ROOT = Path(__file__).resolve().parents[1]


def test_the_registry_finds_every_kind_by_its_folder():
    folders = sorted(path.parent.name for path in KINDS_DIR.glob("*/kind.py"))
    assert {"random", "greedy", "search", "ppo", "az", "human"} <= set(folders)
    assert sorted(agent_kinds()) == sorted(folders + FIXTURE_AGENT_KINDS)
    assert all(isinstance(kind, AgentKind) and kind.summary for kind in agent_kinds().values())


def test_the_registry_names_no_kind_and_imports_no_class_from_a_string():
    """No list of kinds, no prefix table and no ``"module", "Class"`` pair left in the registry's code
    (its docstrings may give examples)."""
    source = (KINDS_DIR / "registry.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    strings = " ".join(
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    )
    names = {
        name
        for kind in agent_kinds().values()
        for game_id in envs.available()
        for name in kind.names(game_id)
    }
    prefixes = {prefix.prefix for kind in agent_kinds().values() for prefix in kind.models}
    assert not [
        word
        for word in {*agent_kinds(), *names, *prefixes}
        if re.search(rf"(?<![\w-]){re.escape(word)}", strings)
    ]
    assert "getattr(importlib" not in source and "inspect" not in source


def test_names_versions_and_prefixes_are_well_formed(game_id):
    short_names, prefixes, file_prefixes, keys = [], [], [], []
    for kind in agent_kinds().values():
        for name, versions in kind.names(game_id).items():
            assert NAME.fullmatch(name), name
            assert list(versions) == sorted(set(versions)) and all(
                isinstance(v, int) and v >= 1 for v in versions
            )
            short_names.append(name)
        prefixes += [prefix.prefix for prefix in kind.models]
        file_prefixes += [prefix.prefix for prefix in kind.models if prefix.reads_file]
        keys += [kind.settings.key] if kind.settings is not None else []
    for found in (short_names, prefixes, keys):
        assert len(found) == len(set(found)), f"claimed twice: {found}"
    assert all(
        prefix.endswith(":") and not any(p != prefix and p.startswith(prefix) for p in prefixes)
        for prefix in prefixes
    )
    assert all(
        is_model(f"{prefix}x.npz") and model_file(f"{prefix}x.npz") == "x.npz" for prefix in file_prefixes
    )


def test_every_declared_setting_is_owned_and_valid(game_id):
    """A game declares settings only under keys a kind owns, and that kind reads them."""
    owners = {kind.settings.key: kind for kind in agent_kinds().values() if kind.settings is not None}
    for key, settings in declaration(game_id).agents.items():
        assert key in owners, f"{game_id} declares settings for {key!r}, which no kind of agent owns"
        owners[key].settings.read(settings)


def test_every_kind_refuses_settings_it_does_not_take():
    for _name, kind in agent_kinds().items():
        if kind.settings is not None:
            with pytest.raises(ValueError, match="no_such_field"):
                kind.settings.read({"no_such_field": 1})


def test_a_bad_declared_setting_is_refused_when_the_agent_is_made(monkeypatch):
    game_id = "marry_the_monster-v0"
    declared = declaration(game_id).agents
    redeclare(monkeypatch, game_id, agents={**declared, "mcts": {**declared["mcts"], "rollout": "cleverest"}})
    with pytest.raises(ValueError, match="random, greedy"):
        make_agent("mcts", game_id)


def test_the_test_kind_plays_where_its_settings_are_declared():
    """The test-only kind, added in its own folder only, is listed, made by short and versioned
    name, and plays with the skip its game declares; games without its settings do not list it."""
    game_id = FIXTURE_GAMES[0]
    name = declaration(game_id).name
    assert {"nth-legal", f"{name}-nth-legal-v1"} <= set(available_agents(game_id))
    assert not any("nth-legal" in agent for agent in available_agents("marry_the_monster-v0"))
    env = envs.make(game_id)
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    for asked in ("nth-legal", f"{name}-nth-legal-v1", "mine=nth-legal"):
        agent = make_agent(asked, game_id)
        assert isinstance(agent, Agent) and agent.made_for is not None
        legal = np.flatnonzero(observation["action_mask"])
        assert agent.act(observation["observation"], observation["action_mask"]) == legal[1 % legal.size]
    assert make_agent("mine=nth-legal", game_id).name == "mine"
    with pytest.raises(ValueError, match="unknown agent 'nth-legal'"):
        make_agent("nth-legal", "marry_the_monster-v0")


def test_a_new_kind_touches_no_file_outside_its_folder():
    """The test-only kind lives in its folder; the registry, the kind module and ``envs/`` never
    name it (its game declares its settings as plain data, in the test-only game's own file)."""
    for kind in FIXTURE_AGENT_KINDS:
        folder = ROOT / "tests" / "fixture_agents" / kind
        assert (folder / "kind.py").is_file()
        text = "".join(
            path.read_text(encoding="utf-8")
            for folder in ("agents", "envs")
            for path in (ROOT / folder).rglob("*.py")
        )
        assert kind not in text and kind.replace("_", "-") not in text


def test_every_kind_makes_what_its_names_promise():
    """Each made agent answers to the request: random and greedy everywhere, the versions of the
    search, a model prefix without a path refused with what to type."""
    game_id = "monster_arena-v0"
    kinds = agent_kinds()
    assert type(kinds["random"].make(Request(game_id, {}, 0, "random"))).__name__ == "RandomAgent"
    assert type(kinds["greedy"].make(Request(game_id, {}, 0, "greedy"))).__name__ == "GreedyAgent"
    untuned = make_agent("monster_arena-mcts-v1", game_id)
    tuned, fast = make_agent("mcts", game_id), make_agent("mcts-fast", game_id)
    assert (untuned.simulations, tuned.simulations, fast.simulations) == (10_000, 1_200, 120)
    for kind in kinds.values():
        for prefix in kind.models:
            with pytest.raises(
                ValueError, match="needs the path of a" if prefix.reads_file else "name the model"
            ):
                make_agent(prefix.prefix, game_id)


def test_a_model_at_an_endpoint_is_no_input_file():
    """``llm:<model>`` names a model at an endpoint, not a file: no output is refused for it, while
    ``ppo:<file>`` stays an input that no output may overwrite."""
    assert model_file("llm:qwen3") is None
    assert model_file("demo=ppo:runs/x.npz") == "runs/x.npz"


def test_kind_modules_load_no_kernel():
    """Listing names imports each ``kind.py`` only: none of them imports numba or its agents at the top."""
    for path in sorted(KINDS_DIR.glob("*/kind.py")):
        top = [
            line
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith(("import", "from"))
        ]
        assert not any("numba" in line or ".agent import" in line for line in top), path
    assert dataclasses.is_dataclass(importlib.import_module("monster_zoo.agents.kind").AgentKind)
