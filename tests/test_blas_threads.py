"""Trained policies play with numpy's BLAS on one thread (``agents/ppo/agent.one_blas_thread``):
their matrices are small, and two BLAS threads ran a champion's forward pass 50 times slower
whenever another process shared the 2-core machine."""

import numpy as np
from threadpoolctl import threadpool_info

from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.agents.ppo import agent as ppo_agent


def _blas_threads():
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_a_champion_forward_pass_runs_blas_on_one_thread_and_restores_it(monkeypatch):
    before = _blas_threads()
    assert before, "numpy loaded no BLAS that threadpoolctl sees"
    seen = []

    def recording_tanh(x):
        seen.append(_blas_threads())
        return np.tanh(x)

    monkeypatch.setitem(ppo_agent._NUMPY_ACTIVATIONS, "tanh", recording_tanh)
    game = "marry_the_monster-v0"
    champion = make_agent("marry_the_monster-champion-v1", game, 0, {"num_players": 2})  # a PPO policy
    env = envs.make(game, num_players=2)
    env.reset(seed=3)
    view = env.observe(env.agent_selection)
    action = champion.act(view["observation"], view["action_mask"], env.unwrapped.engine_state)
    assert view["action_mask"][action] == 1
    assert seen and all(threads == [1] * len(before) for threads in seen), seen
    assert _blas_threads() == before
