"""The raw env's lifecycle and option bounds.

The raw env (``make(..., wrapped=False)``) fails before ``reset`` and after every agent retired
exactly like the wrapped env (PettingZoo's order-enforcing wrapper), instead of errors from
inside a kernel; numeric options are refused beyond what the int32 state can hold.
"""

import re

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.envs.core.options import MAX_STEPS_LIMIT

pytestmark = pytest.mark.conformance  # the test-only games of tests/fixture_games/ run these too

CALLS = {
    "step": lambda env: env.step(0),
    "observe": lambda env: env.observe("player_0"),
    "render": lambda env: env.render(),
    "state": lambda env: env.state(),
}


def _error(call):
    try:
        call()
    except Exception as exc:
        return type(exc), str(exc)
    return None


@pytest.mark.parametrize("call", sorted(CALLS))
def test_raw_env_refuses_calls_before_reset_like_the_wrapped_env(game_id, call):
    raw = envs.make(game_id, wrapped=False, render_mode="ansi")
    wrapped = envs.make(game_id, render_mode="ansi")
    got = _error(lambda: CALLS[call](raw))
    assert got == _error(lambda: CALLS[call](wrapped))
    assert got == (AssertionError, f"reset() needs to be called before {call}.")
    raw.reset(seed=0)  # and the env is usable afterwards
    assert raw.observe(raw.agent_selection)["action_mask"].any()


def _play_out(env, seed=0):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        env.step(
            None if term or trunc else int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"])))
        )


@pytest.mark.parametrize("wrapped", [False, True])
def test_step_after_every_agent_retired_warns_and_changes_nothing(game_id, wrapped, caplog):
    env = envs.make(game_id, wrapped=wrapped)
    _play_out(env)
    assert not env.agents
    before = env.unwrapped.state()
    env.step(None)
    assert "step() called after all agents are terminated or truncated" in caplog.text
    assert np.array_equal(env.unwrapped.state(), before)


def test_observe_of_an_unknown_agent_names_the_agents(game_id):
    env = envs.make(game_id, wrapped=False)
    env.reset(seed=0)
    with pytest.raises(KeyError, match="unknown agent 'player_99'; possible agents: player_0"):
        env.observe("player_99")


@pytest.mark.parametrize("bad", [0, -1, MAX_STEPS_LIMIT + 1, 2**63, 2**64 + 5, True, 2.0, "10"])
def test_max_steps_beyond_the_int32_state_is_refused_everywhere(game_id, bad):
    """Ruling C4's step limit of every game; the header slot that holds it is int32."""
    pattern = re.escape(f"max_steps={bad!r} is not valid; expected an integer from 1 to {MAX_STEPS_LIMIT}")
    for build in (
        lambda: envs.make(game_id, max_steps=bad),
        lambda: envs.make(game_id, wrapped=False, max_steps=bad),
        lambda: envs.make_batch(game_id, 2, max_steps=bad),
        lambda: envs.config(game_id, {"max_steps": bad}),
    ):
        with pytest.raises(ValueError, match=pattern):
            build()


def test_max_steps_at_the_limit_is_held_exactly(game_id):
    engine = envs.make_batch(game_id, 2, max_steps=MAX_STEPS_LIMIT)
    engine.reset()
    engine.step(engine.random_actions())
    assert not engine.step(engine.random_actions())[4].any()  # no truncation from a wrapped limit
    assert int(envs.config(game_id, {"max_steps": MAX_STEPS_LIMIT})[1]) == MAX_STEPS_LIMIT
