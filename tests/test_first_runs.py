"""First runs compile only what they use: ``import monster_zoo`` compiles nothing,
an AEC env loads its own game and none of the shared drivers, and every shared kernel that is
used has one specialisation, not one per literal or per caller.

Each probe runs in a fresh interpreter (this process has long since loaded everything); it
counts what numba compiled or loaded from its cache, so a warm cache keeps the test quick.
"""

import json
import subprocess
import sys

GAME = "marry_the_monster-v0"

REPORT = """
import gc, json, sys
modules = sorted(m for m in sys.modules if m.startswith("monster_zoo"))  # before the report's own imports
from numba.core.registry import CPUDispatcher
from monster_zoo.envs.core.kernels import LazyKernel
dispatchers = {f"{d.py_func.__module__}.{d.py_func.__name__}": len(d.overloads) for d in gc.get_objects()
               if isinstance(d, CPUDispatcher) and d.py_func.__module__.startswith("monster_zoo") and d.overloads}
lazy = {f"{k.__module__}.{k.__qualname__}": k.compiled for k in gc.get_objects() if isinstance(k, LazyKernel)}
print(json.dumps({"modules": modules,
                  "compiled": dispatchers, "lazy": lazy}))
"""


def probe(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; return its modules, compiled kernels and lazy kernels."""
    done = subprocess.run([sys.executable, "-c", code + REPORT], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def core(report: dict) -> dict:
    return {name: n for name, n in report["compiled"].items() if name.startswith("monster_zoo.envs.core.")}


def test_import_compiles_and_loads_no_game():
    report = probe("import monster_zoo")
    assert report["compiled"] == {}
    assert not [
        m
        for m in report["modules"]
        if m.startswith("monster_zoo.envs.") and m.count(".") >= 2 and m != "monster_zoo.envs.registry"
    ], report["modules"]


def test_an_aec_env_loads_its_game_only_and_no_driver():
    report = probe(f"""
import monster_zoo, numpy as np
env = monster_zoo.make({GAME!r}); env.reset(seed=0)
env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
""")
    games = {
        m.split(".")[2] for m in report["modules"] if m.count(".") >= 2 and m.startswith("monster_zoo.envs.")
    }
    assert games == {"core", "registry", "marry_the_monster", "marry_the_monster_v0"}
    assert not any(m.endswith((".batch", ".selfplay", ".opponents")) for m in report["modules"])
    assert all(n == 1 for n in core(report).values()), core(report)


def test_training_compiles_no_batched_engine_driver_and_each_kernel_once():
    report = probe(f"""
import monster_zoo, numpy as np
venv = monster_zoo.make_vec_env({GAME!r}, 8, seed=1, num_players=2)
venv.reset()
for _ in range(30):
    venv.step(np.array([np.flatnonzero(m)[0] for m in venv.action_masks()]))
""")
    lazy = report["lazy"]
    drivers = [name for name in lazy if ".batch." in name]
    assert len(drivers) == 8  # four drivers, serial and parallel
    assert not any(lazy[name] for name in drivers), lazy
    assert not any(compiled for name, compiled in lazy.items() if name.endswith("_parallel")), lazy
    assert lazy["monster_zoo.envs.core.selfplay.learner_view"]
    assert all(n == 1 for n in core(report).values()), core(report)


# A toy game whose kernels compile in a moment, so that the shared drivers can be compiled cold
# (an empty numba cache) in the default test run: what they compile is then all in sight.
TOY_GAME = """
import numpy as np
from numba import njit
from monster_zoo.envs.core import contract as c
from monster_zoo.envs.core.batch import BatchEngine
from monster_zoo.envs.core.header import start_game

@njit(c.INIT_STATE_SIG)
def init_state(state, config, rng):
    start_game(state, config)

@njit(c.LEGAL_MASK_SIG)
def legal_mask(state, mask):
    mask[:] = 0
    mask[state[c.HEADER_SIZE] % 3::3] = 1
    return (mask != 0).sum()

@njit(c.APPLY_ACTION_SIG)
def apply_action(state, action, rng):
    state[c.H_STEPS] += 1
    state[c.HEADER_SIZE] += action
    state[c.H_TERMINAL] = state[c.HEADER_SIZE] > 300

@njit(c.RETURNS_SIG)
def returns(state, out):
    out[:] = 1.0

@njit(c.OBSERVE_SIG)
def observe_into(state, player, out):
    out[0] = state[c.HEADER_SIZE]

spec = c.GameSpec("toy", 0, "Toy", 1, 1, c.HEADER_SIZE + 1, 1, 50, 100, init_state, legal_mask, apply_action,
                  returns, observe_into, None, None, {}, (), None, None, None, None)
engine = BatchEngine(spec, np.array([1, 100, 0]), num_envs=4, seed=0)
engine.reset()
engine.step(engine.random_actions())
assert engine.step_random(200) > 0
"""


def test_the_shared_drivers_compile_each_kernel_once(tmp_path):
    """Compiled cold, every shared kernel the batched engine uses has one specialisation (the
    random pick was once compiled twice, the second time for a literal count), and no
    parallel build is made with one thread."""
    code = (
        f"import os; os.environ['NUMBA_CACHE_DIR'] = {str(tmp_path)!r}\n"
        + TOY_GAME
        + "\nimport monster_zoo.envs.core.batch as batch\n"
        + "assert not any(k.parallel.compiled for k in (batch.batch_reset, batch.batch_random_steps))\n"
    )
    compiled = core(probe(code))
    assert compiled["monster_zoo.envs.core.rng.rng_pick_counted"] == 1
    assert compiled["monster_zoo.envs.core.rng.rng_below"] == 1
    assert compiled["monster_zoo.envs.core.batch.random_steps"] == 1
    assert all(n == 1 for n in compiled.values()), compiled
