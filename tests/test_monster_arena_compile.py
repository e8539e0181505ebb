"""Monster Arena's cold compile builds each kernel once.

numba compiles a kernel again for every new combination of argument types it meets: an int32
read from the state where an int64 loop index came before, or a literal constant (``6``,
``True``) that numba types as a literal of its own. Each extra version costs a new user compile
time and nothing else, so the rules pass seats and cards as int64 and flags as runtime values.
This test compiles from an empty cache in a child process (a warm cache would load the callers
and never compile the helpers) and fails on any kernel of the game's modules (``rules``,
``queries``, ``fighting``, ``building``, ``drafting``, ``observation``) compiled twice.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent("""
    import json
    import sys
    import numpy as np
    from numba.core.registry import CPUDispatcher
    import monster_zoo

    env = monster_zoo.make("monster_arena-v0", num_players=3)
    env.reset(seed=1)
    for _ in range(300):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset(seed=2)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    engine = monster_zoo.make_batch("monster_arena-v0", num_envs=4, seed=0)
    engine.reset()
    engine.step(engine.random_actions())
    engine.step_random(3000)  # every phase, attacks, hits and ended games
    prefix = "monster_zoo.envs.monster_arena."
    kernels = {}
    for module_name, module in sorted(sys.modules.items()):
        if not module_name.startswith(prefix):
            continue
        for kernel in vars(module).values():
            if isinstance(kernel, CPUDispatcher) and kernel.py_func.__module__.startswith(prefix):
                assert kernels.setdefault(kernel.__name__, kernel) is kernel, f"two kernels {kernel.__name__}"
    versions = {name: [str(sig) for sig in kernel.signatures] for name, kernel in kernels.items()}
    print(json.dumps(versions))
""")


@pytest.mark.slow  # a cold compile of the whole game: about 15 CPU seconds
def test_cold_compile_builds_each_rules_kernel_once(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    versions = json.loads(done.stdout.strip().splitlines()[-1])
    compiled = {name: sigs for name, sigs in versions.items() if sigs}
    assert {"legal_mask", "apply_action", "init_state", "observe_into"} <= set(compiled)
    twice = {name: sigs for name, sigs in compiled.items() if len(sigs) > 1}
    assert not twice, f"compiled for several argument types: {twice}"
