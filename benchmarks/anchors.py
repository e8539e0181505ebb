"""Reference throughputs that give our numbers a scale: PettingZoo and OpenSpiel.

Every runner here has the same shape, ``run(seconds) -> (steps, elapsed)``: it plays
random legal moves for at least ``seconds`` of wall time, auto-resetting finished games,
and returns how many actions it applied and how long that took. The AEC loop is also the
one used for our own AEC envs, so that both sides of a ratio run the same Python code.
"""

from __future__ import annotations

import random
import time
from typing import Callable

import numpy as np

Runner = Callable[[float], tuple[int, float]]


def aec_random_steps(env, seconds: float, rng: random.Random) -> tuple[int, float]:
    """Step a PettingZoo AEC env with random legal actions for ``seconds``.

    This is the loop of ``pettingzoo.test.performance_benchmark`` (``agent_iter`` over
    ``num_agents`` agents, ``env.last()``, a random choice over ``flatnonzero`` of the
    action mask, ``env.step``, a reset once every agent is terminated or truncated)
    with its fixed five seconds replaced by ``seconds`` and its global ``random``
    replaced by ``rng`` so that runs are reproducible. The env must already be reset;
    it is left mid-game, ready for the next call. Returns (steps, elapsed seconds).
    """
    steps = 0
    start = time.perf_counter()
    while True:
        for agent in env.agent_iter(env.num_agents):
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            elif isinstance(obs, dict) and "action_mask" in obs:
                action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
            else:
                action = env.action_space(agent).sample()
            env.step(action)
            steps += 1
            if all(env.terminations.values()) or all(env.truncations.values()):
                env.reset()
        # Like performance_benchmark, the clock is read once per cycle, not per step.
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps, elapsed


def aec_runner(env, seed: int = 0) -> Runner:
    """Reset ``env`` with ``seed`` and return a runner over :func:`aec_random_steps`."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    return lambda seconds: aec_random_steps(env, seconds, rng)


def pettingzoo_connect_four(wrapped: bool = True, seed: int = 0) -> Runner:
    """Runner for PettingZoo's ``connect_four_v3.env()`` (or ``raw_env()`` if not ``wrapped``)."""
    from pettingzoo.classic import connect_four_v3

    env = connect_four_v3.env() if wrapped else connect_four_v3.raw_env()
    return aec_runner(env, seed)


def openspiel_random_steps(game, seconds: float, rng: random.Random) -> tuple[int, float]:
    """Play random OpenSpiel playouts of ``game`` for ``seconds``; return (steps, elapsed).

    Each step is ``state.legal_actions()``, ``rng.choice`` and ``state.apply_action``;
    a terminal state is replaced by a new initial state. Only suits games without
    chance nodes or simultaneous moves, which is what the anchors use.
    """
    steps = 0
    state = game.new_initial_state()
    start = time.perf_counter()
    while True:
        # Reading the clock every 256 actions keeps its cost out of the measurement.
        for _ in range(256):
            if state.is_terminal():
                state = game.new_initial_state()
            state.apply_action(rng.choice(state.legal_actions()))
        steps += 256
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps, elapsed


def openspiel_game(name: str = "connect_four", seed: int = 0) -> Runner:
    """Runner for random playouts of OpenSpiel's ``name`` through ``pyspiel.load_game``."""
    import pyspiel

    game = pyspiel.load_game(name)
    rng = random.Random(seed)
    return lambda seconds: openspiel_random_steps(game, seconds, rng)


def openspiel_available() -> bool:
    """Whether ``pyspiel`` imports (it is only in the ``bench`` extra)."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


def main() -> None:
    """Print one-second throughputs of the anchors: ``python -m monster_zoo.benchmarks.anchors``."""
    runners = {
        "pettingzoo connect_four_v3 env()": pettingzoo_connect_four(wrapped=True),
        "pettingzoo connect_four_v3 raw_env()": pettingzoo_connect_four(wrapped=False),
    }
    if openspiel_available():
        runners["openspiel connect_four"] = openspiel_game("connect_four")
    for name, run in runners.items():
        steps, elapsed = run(1.0)
        print(f"{name}: {steps / elapsed:,.0f} steps/s")


if __name__ == "__main__":
    main()
