"""Kernels handed to drivers as first-class values (``monster_zoo.envs.core.kernels.first_class``).

numba looks up a dispatcher's compiled version twice on every call of a driver that takes it as a
``FunctionType`` parameter; the drivers the learner games call many times a step take
:class:`~monster_zoo.envs.core.kernels.FirstClassKernel` values instead, made once. These tests pin
that the lookup is gone, that nothing else changes, and that the long-loop drivers keep the
dispatchers (whose calls are the cheaper inside a loop).
"""

import numpy as np
import pytest
from numba import types
from numba.core.registry import CPUDispatcher

from monster_zoo import envs
from monster_zoo.envs.core import batch, kernels, selfplay
from monster_zoo.envs.core.contract import APPLY_ACTION_T, LEGAL_MASK_T, OBSERVE_T

GAME = "marry_the_monster-v0"


@pytest.fixture
def lookups(monkeypatch):
    """Counts numba's compiled-version lookups on dispatchers while the test runs."""
    counted = {"calls": 0}
    original = CPUDispatcher.get_compile_result

    def counting(self, sig):
        counted["calls"] += 1
        return original(self, sig)

    monkeypatch.setattr(CPUDispatcher, "get_compile_result", counting)
    return counted


def test_first_class_is_made_once_per_kernel_and_type():
    spec = envs.spec(GAME)
    value = kernels.first_class(spec.apply_action, APPLY_ACTION_T)
    assert kernels.first_class(spec.apply_action, APPLY_ACTION_T) is value
    assert value.dispatcher is spec.apply_action and value._numba_type_ == APPLY_ACTION_T
    assert kernels.first_class(spec.legal_mask, LEGAL_MASK_T) is not value


def test_what_is_not_a_dispatcher_passes_unchanged_and_numba_refuses_it():
    def plain(state, action, rng):
        return None

    assert kernels.first_class(plain, APPLY_ACTION_T) is plain
    games = selfplay.LearnerGames(envs.spec(GAME), envs.config(GAME, {}), 2, seed=0)
    games.reset()
    with pytest.raises(Exception, match="(?i)type|argument"):
        selfplay.apply_in_slots(
            games.states, np.zeros(0, np.int64), np.zeros(0, np.int64), games.game_rngs, plain
        )


def test_learner_game_steps_look_up_no_compiled_kernel(lookups):
    games = selfplay.LearnerGames(envs.spec(GAME), envs.config(GAME, {}), 8, seed=3)
    games.reset()
    for _ in range(3):  # the first steps make the first-class values
        games.step(np.array([np.flatnonzero(m)[0] for m in games.masks]))
    lookups["calls"] = 0
    for _ in range(20):
        games.step(np.array([np.flatnonzero(m)[0] for m in games.masks]))
    assert lookups["calls"] == 0


def test_engine_steps_look_up_no_compiled_kernel_but_random_steps_keep_dispatchers(lookups):
    engine = envs.make_batch(GAME, num_envs=4, seed=1)
    engine.reset()
    engine.step(engine.random_actions())
    lookups["calls"] = 0
    for _ in range(10):
        engine.step(engine.random_actions())
    assert lookups["calls"] == 0
    engine.step_random(2)
    assert lookups["calls"] > 0  # a long loop: numba's own conversion, calls straight into the kernels


def test_first_class_arguments_change_no_trajectory():
    """The same seeded random steps with the kernels passed either way give the same states."""
    spec = envs.spec(GAME)
    runs = []
    for convert in (True, False):
        driver = kernels.LazyKernel(
            batch.batch_step.serial.py_func, batch.batch_step.serial.signature, first_class_args=convert
        )
        engine = envs.make_batch(GAME, num_envs=16, seed=5)
        engine.reset()
        rng = np.random.default_rng(0)
        for _ in range(300):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in engine._masks])
            driver(
                engine._states,
                engine.config,
                engine.rngs,
                actions,
                engine._masks,
                engine._counts,
                engine._obs,
                engine._rewards,
                engine._terminated,
                engine._truncated,
                spec.init_state,
                spec.legal_mask,
                spec.apply_action,
                spec.returns,
                spec.observe_into,
            )
        runs.append(engine._states.copy())
    assert np.array_equal(*runs)


def test_only_function_parameters_are_converted():
    lazy = kernels.LazyKernel(
        lambda states, n, observe_into: None,
        types.void(types.int32[:, ::1], types.int64, OBSERVE_T),
        first_class_args=True,
    )
    assert lazy._function_args == [(2, OBSERVE_T)]
    assert kernels.LazyKernel(lazy.py_func, lazy.signature)._function_args == []
