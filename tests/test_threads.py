"""Threads on a shared machine (``monster_zoo.envs.core.threads``): safe defaults, fork safety.

numba's default GNU OpenMP layer both spins (two processes slow each other down many
times over) and aborts a forked child that runs a parallel region; these tests pin the
choices that avoid it: one thread by default, serial small batches, the workqueue layer.
"""

import json
import multiprocessing
import os
import subprocess
import sys

import gymnasium
import numba
import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.envs.core import threads
from monster_zoo.envs.registry import gymnasium_id

GAME = "marry_the_monster-v0"
needs_two_threads = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 numba threads")
needs_fork = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork() here"
)

# Run in a fresh interpreter, since this test process may already have started numba's pool.
POOL_PROBE = """
import json, numpy as np
from numba.np.ufunc import parallel
import monster_zoo
from monster_zoo.envs.core import threads
started = {}
env = monster_zoo.make_learner_env("%(game)s")
env.reset(seed=0)
for _ in range(20):
    env.step(int(np.flatnonzero(env.action_masks())[0]))
aec = monster_zoo.make("%(game)s")
aec.reset(seed=0)
aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))
started["single envs"] = parallel._is_initialized
small = monster_zoo.make_batch("%(game)s", threads.get_parallel_min_batch() - 1)
small.reset()
small.step(small.random_actions())
small.step_random(5)
started["small batch"] = parallel._is_initialized
print(json.dumps({"threads": threads.get_num_threads(), "started": started,
                  "layer": monster_zoo.envs.core.threads.numba.config.THREADING_LAYER}))
"""


def probe(**environment) -> dict:
    """The pool probe's report, run with ``environment`` added to ours."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MONSTER_ZOO_", "NUMBA_THREADING"))}
    out = subprocess.run(
        [sys.executable, "-c", POOL_PROBE % {"game": GAME}],
        env={**env, **environment},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_defaults_are_one_thread_on_the_workqueue_layer():
    report = probe()
    assert report["threads"] == 1 and report["layer"] == threads.THREADING_LAYER
    assert not any(report["started"].values()), report


@needs_two_threads
def test_single_envs_and_small_batches_never_start_a_thread_pool():
    report = probe(MONSTER_ZOO_NUM_THREADS="2")
    assert report["threads"] == 2
    assert report["started"] == {"single envs": False, "small batch": False}


def test_a_threading_layer_the_user_chose_is_kept():
    assert probe(NUMBA_THREADING_LAYER="omp")["layer"] == "omp"


def test_bad_settings_are_refused_with_the_valid_range(monkeypatch):
    with pytest.raises(ValueError, match="threads must be an integer from 1 to"):
        threads.set_num_threads(0)
    with pytest.raises(ValueError, match="min_batch must be a positive integer"):
        threads.set_parallel_min_batch(0)
    monkeypatch.setenv(threads.THREADS_VARIABLE, "many")
    with pytest.raises(ValueError, match="MONSTER_ZOO_NUM_THREADS='many' must be a positive integer"):
        threads._positive_int_from_environment(threads.THREADS_VARIABLE, 1)


def batch_fingerprint() -> int:
    """A parallel batch run (when two threads are allowed), summed."""
    engine = envs.make_batch(GAME, 16, seed=3)
    engine.reset()
    for _ in range(30):
        engine.step(engine.random_actions())
    engine.step_random(50)
    return int(engine.states.sum())


def _child_fingerprint(queue) -> None:
    with threads.using(2, min_batch=1):
        queue.put(batch_fingerprint())


@needs_two_threads
@needs_fork
def test_forking_after_a_parallel_step_works():
    with threads.using(2, min_batch=1):
        expected = batch_fingerprint()  # numba's pool is running in this process now
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child_fingerprint, args=(queue,))
    child.start()
    child.join(120)
    assert child.exitcode == 0, "the forked child died running a parallel region"
    assert queue.get(timeout=10) == expected


def legal_actions(infos, num_envs: int) -> np.ndarray:
    """The first legal action per sub-env (0 where a game just ended and the next step resets)."""
    masks = infos["action_mask"]
    return np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in masks[:num_envs]])


def run_vector_env(vector_env, steps: int = 30):
    obs, infos = vector_env.reset(seed=7)
    trace = [obs.copy()]
    for _ in range(steps):
        obs, rewards, terminated, truncated, infos = vector_env.step(
            legal_actions(infos, vector_env.num_envs)
        )
        trace += [obs.copy(), rewards.copy()]
    vector_env.close()
    return trace


@needs_fork
def test_async_vector_env_with_fork_works_after_a_step():
    if numba.config.NUMBA_NUM_THREADS >= 2:
        with threads.using(2, min_batch=1):
            batch_fingerprint()  # the parent has stepped in parallel before forking
    else:
        batch_fingerprint()
    makers = [lambda: gymnasium.make(gymnasium_id(GAME), num_players=2)] * 2
    forked = run_vector_env(gymnasium.vector.AsyncVectorEnv(makers, context="fork"))
    default = run_vector_env(gymnasium.vector.AsyncVectorEnv(makers))  # fork on Linux
    serial = run_vector_env(gymnasium.vector.SyncVectorEnv(makers))
    for a, b, c in zip(forked, default, serial):
        assert np.array_equal(a, c) and np.array_equal(b, c)
