"""Reference throughputs that give our numbers a scale: PettingZoo, OpenSpiel and Pgx.

Every runner here has the same shape, ``run(seconds) -> (steps, elapsed)``: it plays
random legal moves for at least ``seconds`` of wall time, auto-resetting finished games,
and returns how many actions it applied and how long that took. The AEC loop is also the
one used for our own AEC envs, so that both sides of a ratio run the same Python code.
Pgx, the batched anchor, has the shape of our batched engine instead (:class:`PgxBatch`:
``step_random(k)`` plays ``k`` steps in every slot), so the benchmark times both alike.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

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


# Pgx's games that the benchmark runs: Connect Four (the anchor every ratio uses) and Sparrow
# Mahjong, a three-player tile game with a shuffled wall and hidden hands, whose chance and hidden
# information are what our card games have and Connect Four lacks.
PGX_GAMES = ("connect_four", "sparrow_mahjong")


def pgx_available() -> bool:
    """Whether Pgx and JAX are installed (the ``bench`` extra), checked without importing them."""
    import importlib.util

    return all(importlib.util.find_spec(name) is not None for name in ("pgx", "jax"))


def start_jax(threads: int) -> int:
    """Start JAX's CPU backend with a thread pool of ``threads`` workers; return the count used.

    XLA sizes its CPU thread pool from the cores the process may run on when the backend
    starts, so the calling thread is limited to ``threads`` of its cores for that moment and
    given all of them back afterwards (the pool's threads keep the narrower set). A backend
    that is already running keeps its pool, and ``XLA_FLAGS`` set by the user is left alone.
    """
    import os

    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    threads = min(threads, len(allowed)) if allowed else threads
    if allowed:
        os.sched_setaffinity(0, allowed[:threads])
    try:
        import jax

        jax.config.update("jax_platforms", "cpu")
        jax.devices()
    finally:
        if allowed:
            os.sched_setaffinity(0, allowed)
    return threads


class PgxBatch:
    """``batch_size`` games of Pgx's ``name`` played with random legal actions, like our engine.

    ``jax.vmap`` of Pgx's ``step`` wrapped in ``pgx.experimental.auto_reset`` (a finished game
    starts again in the same step), with actions drawn by ``jax.random.categorical`` over the
    log of ``legal_action_mask``; :meth:`step_random` runs ``num_steps`` such steps in one
    jitted call (a ``lax.fori_loop`` whose length is an argument, so every ``num_steps``
    shares one compile) and blocks until the result is ready.
    """

    def __init__(self, name: str, batch_size: int, seed: int = 0):
        import jax
        import jax.numpy as jnp
        import pgx
        from pgx.experimental import auto_reset

        self.name, self.batch_size = name, batch_size
        env = pgx.make(name)
        step = jax.vmap(auto_reset(env.step, env.init))

        def one_step(_, carry):
            state, key, finished = carry
            key, action_key, step_key = jax.random.split(key, 3)
            logits = jnp.log(state.legal_action_mask.astype(jnp.float32))
            actions = jax.random.categorical(action_key, logits, axis=-1)
            state = step(state, actions, jax.random.split(step_key, batch_size))
            return state, key, finished + jnp.sum(state.terminated | state.truncated)

        def steps(state, key, num_steps):
            return jax.lax.fori_loop(0, num_steps, one_step, (state, key, jnp.int32(0)))

        self._steps = jax.jit(steps)
        init_key, self._key = jax.random.split(jax.random.PRNGKey(seed))
        self.state = jax.jit(jax.vmap(env.init))(jax.random.split(init_key, batch_size))

    def step_random(self, num_steps: int) -> int:
        """Play ``num_steps`` random legal steps in every game; return how many games ended."""
        import jax

        self.state, self._key, finished = self._steps(self.state, self._key, int(num_steps))
        return int(jax.block_until_ready(finished))


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
