"""Games are declared once (``GAME`` in ``envs/<game>/game.py``) and found by their page modules'
file names: the registry keeps no list, and every registry reads the declaration."""

import dataclasses
import importlib
import pickle
import re
from pathlib import Path

import pytest

from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.agents.az.shipped import PlaySettings, newest_version, play_settings
from monster_zoo.agents.belief.settings import BeliefSettings
from monster_zoo.agents.registry import versioned_name
from monster_zoo.agents.search.settings import SearchConfig
from monster_zoo.agents.search.tuned import search_config
from monster_zoo.envs import registry
from monster_zoo.envs.core.game import Baseline, Game

pytestmark = pytest.mark.conformance  # the test-only games of tests/fixture_games/ run these too

ENVS_DIR = Path(registry.__file__).resolve().parent


def test_every_page_file_is_a_registered_game_and_nothing_else():
    pages = {
        f"{m['name']}-v{m['version']}"
        for p in ENVS_DIR.glob("*_v*.py")
        if (m := re.fullmatch(r"(?P<name>[a-z][a-z0-9_]*)_v(?P<version>\d+)", p.stem))
    }
    assert pages and envs.available() == sorted(pages)


def test_each_declaration_is_what_its_page_publishes(game_id):
    game = registry.declaration(game_id)
    page = registry._module(game_id)
    assert isinstance(game, Game) and game.id == game_id
    assert page.SPEC is game.spec and page.raw_env is game.raw_env and envs.spec(game_id) is game.spec
    assert game.raw_env.metadata["name"] == game_id.replace("-", "_")
    assert re.fullmatch(r"[A-Z]+", game.rule_prefix)
    raw = envs.make(game_id, wrapped=False)
    raw.reset(seed=1)
    assert type(pickle.loads(pickle.dumps(raw))) is game.raw_env  # pickles find the class on its page


def test_agents_and_search_read_the_declaration(game_id):
    game = registry.declaration(game_id)
    greedy = game.baselines["greedy"]
    assert versioned_name(game_id, "greedy") == f"{game.name}-greedy-v{greedy.version}"
    assert make_agent("greedy", game_id).policy_kernel is importlib.import_module(greedy.module).greedy_action
    declared = dict(game.agents["mcts"])
    belief = BeliefSettings(**declared.pop("belief", {}))  # its fields laid over the defaults
    assert search_config(game_id) == SearchConfig(**declared, belief=belief)
    flat = dict(game.agents.get("az", {}))
    own = flat.pop("versions", {})  # each later version's fields, laid over the flat ones
    assert play_settings(game_id, 1) == PlaySettings(**flat)
    for version, changed in own.items():
        assert play_settings(game_id, version) == PlaySettings(**{**flat, **changed})
    assert play_settings(game_id) == play_settings(game_id, newest_version(game_id))


@pytest.fixture
def gymnasium_ids():
    """Gymnasium ids registered during a test are dropped after it (registering a game also
    registers its learner env with gymnasium)."""
    import gymnasium

    before = set(gymnasium.registry)
    yield
    for added in set(gymnasium.registry) - before:
        del gymnasium.registry[added]


def test_a_game_registered_unlisted_is_served_but_not_listed(monkeypatch, gymnasium_ids):
    monkeypatch.setattr(registry, "_GAMES", dict(registry._GAMES))
    monkeypatch.setattr(registry, "_UNLISTED", set(registry._UNLISTED))
    shipped = registry.declaration("marry_the_monster-v0")
    twin = dataclasses.replace(
        shipped,
        name="monster_twin",
        version=3,
        title="Twin",
        page="monster_zoo.envs.marry_the_monster_v0",
        baselines={"greedy": Baseline("monster_zoo.envs.marry_the_monster.greedy", version=3)},
        agents={**shipped.agents, "mcts": {"simulations": 7, "exploration": 1.0, "rollout": "random"}},
    )
    envs.register(twin, listed=False)
    assert "monster_twin-v3" not in envs.available()
    env = envs.make("monster_twin-v3", num_players=2)
    env.reset(seed=0)
    assert env.unwrapped.spec.env_id == "monster_twin-v3" and registry.declaration("monster_twin-v3") is twin
    assert search_config("monster_twin-v3").simulations == 7
    assert versioned_name("monster_twin-v3", "greedy") == "monster_twin-greedy-v3"
    envs.register(twin)
    assert "monster_twin-v3" in envs.available()


def test_register_refuses_a_mixed_call():
    game = registry.declaration("marry_the_monster-v0")
    with pytest.raises(TypeError, match="takes no module"):
        envs.register(game, "monster_zoo.envs.marry_the_monster_v0")
    with pytest.raises(TypeError, match="must name the module"):
        envs.register("some_game-v0")


def test_a_search_declaration_refuses_an_unknown_rollout():
    with pytest.raises(ValueError, match="random, greedy"):
        SearchConfig(10, 1.0, "cleverest")
