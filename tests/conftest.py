"""Shared fixtures for the generic tests: registered games, their option sets, and a warm numba cache.

Every test that asks for the fixture ``game_id`` runs once per registered game, and
every test that asks for ``case`` once per (game, option set), so a game added to
the registry is covered by the conformance tests without touching them.

The test-only games of ``tests/fixture_games/`` (each declared in its ``game.py`` exactly as a
shipped game is) are registered unlisted and join ``game_id`` and ``case`` in the modules marked
``conformance``, which check what every game must do; the other modules check the shipped games'
own artefacts (golden playthroughs, pinned versions, pictures, documentation) and leave them out.
"""

import importlib
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

# pgx (the bench extra's Pgx anchor) installs a top-level ``tests`` package of its own, which
# would win over this folder, a namespace package, in ``from tests.<helper> import ...``: bind
# the name to this folder before any test module imports it.
if str(Path(__file__).resolve().parent) not in list(getattr(sys.modules.get("tests"), "__path__", [])):
    sys.modules["tests"] = types.ModuleType("tests", "monster-zoo's test suite")
    sys.modules["tests"].__path__ = [str(Path(__file__).resolve().parent)]

from monster_zoo import envs
from monster_zoo.envs.core.batch import random_playout
from monster_zoo.envs.core.rng import make_rng


def register_fixture_games() -> list[str]:
    """Register every game declared under ``tests/fixture_games/`` (unlisted); return their ids."""
    ids = []
    for declared in sorted((Path(__file__).resolve().parent / "fixture_games").glob("*/game.py")):
        game = importlib.import_module(f"fixture_games.{declared.parent.name}.game").GAME
        envs.register(game, listed=False)
        ids.append(game.id)
    return ids


FIXTURE_GAMES = register_fixture_games()


def register_fixture_agent_kinds() -> list[str]:
    """Register every kind of agent declared under ``tests/fixture_agents/``; return their names."""
    from monster_zoo.agents.registry import register_kind

    names = []
    for declared in sorted((Path(__file__).resolve().parent / "fixture_agents").glob("*/kind.py")):
        register_kind(
            declared.parent.name, importlib.import_module(f"fixture_agents.{declared.parent.name}.kind").KIND
        )
        names.append(declared.parent.name)
    return names


FIXTURE_AGENT_KINDS = register_fixture_agent_kinds()
CONFORMANCE = "conformance"

# Options exercised elsewhere on purpose (render modes, illegal-action handling, the flat
# observation form) or needing a value rather than a choice; they are left at their
# defaults in option sets.
_NOT_IN_OPTION_SETS = {"num_players", "render_mode", "illegal_action", "observation"}


@dataclass(frozen=True)
class GameCase:
    """One registered game with one option set."""

    game_id: str
    options: dict = field(default_factory=dict)

    @property
    def spec(self):
        """The game's GameSpec."""
        return envs.spec(self.game_id)

    @property
    def label(self) -> str:
        """A readable pytest id, e.g. ``marry_the_monster-v0[num_players=2]``."""
        opts = ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        return f"{self.game_id}[{opts}]" if opts else self.game_id

    def make(self, **extra):
        """The wrapped env with this case's options plus ``extra``."""
        return envs.make(self.game_id, **{**self.options, **extra})

    def make_batch(self, num_envs: int, seed: int = 0):
        """A BatchEngine with this case's options."""
        return envs.make_batch(self.game_id, num_envs, seed, **self.options)

    def config(self) -> np.ndarray:
        """The kernel config vector of this case's options."""
        return envs.config(self.game_id, self.options)


def option_sets(game_id: str) -> list[dict]:
    """Option sets a game is tested under, derived from its declared options.

    Every player count from ``min_players`` to ``max_players``, then every
    non-default value of each other option that lists its choices (for Marry the
    Monster: ``num_players`` 2..5 and ``reward="score"``).
    """
    s = envs.spec(game_id)
    names = {o.name for o in s.options}
    sets = (
        [{"num_players": n} for n in range(s.min_players, s.max_players + 1)]
        if "num_players" in names
        else [{}]
    )
    for opt in s.options:
        if opt.name in _NOT_IN_OPTION_SETS or opt.choices is None:
            continue
        sets += [{opt.name: value} for value in opt.choices if value != opt.default]
    return sets


def all_cases() -> list[GameCase]:
    """Every (game, option set) pair of the registry, the test-only games included."""
    return [GameCase(g, opts) for g in envs.available() + FIXTURE_GAMES for opts in option_sets(g)]


def pytest_collection_modifyitems(config, items):
    """Leave the test-only games out of every module not marked ``conformance``."""
    kept, left_out = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        game = params.get("game_id", getattr(params.get("case"), "game_id", None))
        fixture_only = game in FIXTURE_GAMES and item.get_closest_marker(CONFORMANCE) is None
        (left_out if fixture_only else kept).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


# Parametrized fixtures rather than a collection hook, so a test module that parametrizes
# ``game_id`` or ``case`` itself simply overrides them.
@pytest.fixture(scope="session", params=envs.available() + FIXTURE_GAMES)
def game_id(request) -> str:
    """Each registered game id in turn (the test-only games in conformance modules)."""
    return request.param


@pytest.fixture(scope="session", params=all_cases(), ids=lambda c: c.label)
def case(request) -> GameCase:
    """Each registered game under each of its option sets in turn."""
    return request.param


@pytest.fixture(scope="session", autouse=True)
def warm_numba_cache():
    """Load (or compile once) every game's kernels and the batched drivers before any test.

    Timings of individual tests then measure the tests, not numba; with a warm
    on-disk cache this takes about a second.
    """
    for game_id in envs.available():
        env = envs.make(game_id)
        env.reset(seed=0)
        agent = env.agent_selection
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
        engine = envs.make_batch(game_id, 2, seed=0)
        engine.reset()
        engine.step(engine.random_actions())
        engine.step_random(1)
        s = envs.spec(game_id)
        state = env.unwrapped.state()
        s.illegal_reason(state, 0)
        s.determinize(state, 0, make_rng(0))


@pytest.fixture(scope="session")
def game_ids() -> list[str]:
    """Ids of every registered game."""
    return envs.available()


@pytest.fixture(scope="session")
def game_option_sets() -> dict[str, list[dict]]:
    """Option sets per registered game (see :func:`option_sets`)."""
    return {g: option_sets(g) for g in envs.available() + FIXTURE_GAMES}


def reachable_state(game_id: str, options: dict, seed: int, num_steps: int) -> np.ndarray:
    """A state reached by ``num_steps`` uniformly random legal actions from ``reset(seed=seed)``.

    Uses the engine's own single-state driver, which starts a new game when one ends,
    so any ``num_steps`` gives a live state.
    """
    return random_playout(envs.spec(game_id), envs.config(game_id, options), num_steps, seed)[0]


@pytest.fixture(scope="session")
def make_reachable_state() -> Callable[..., np.ndarray]:
    """The factory :func:`reachable_state` (session scoped, so hypothesis tests may use it)."""
    return reachable_state


def redeclare(monkeypatch, game_id: str, **changes):
    """For one test, serve ``game_id`` by a copy of its declaration with ``changes`` (e.g. a smaller
    search budget in ``agents``): every registry and agent reads the copy, and the original comes back after."""
    import dataclasses

    from monster_zoo.envs import registry

    game = registry.declaration(game_id)
    changed = dataclasses.replace(game, **changes)
    monkeypatch.setitem(
        registry._GAMES,
        game_id,
        types.SimpleNamespace(GAME=changed, SPEC=game.spec, env=game.env, raw_env=game.raw_env),
    )
    return changed
