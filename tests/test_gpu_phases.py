"""Games stepped phase by phase on a GPU: Monster Arena declares its phases, the GPU engine's in-launch
loop steps each warp's games by their most common phase, and every game ends exactly as the CPU
engine plays it (under numba-cuda's simulator, in a subprocess). Each phase's code stays a function of
its own on a GPU (``@standalone``), checked on the linked cubin."""

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import monster_zoo
from monster_zoo.benchmarks import gpu_warp_phases
from monster_zoo.envs.gpu.drivers import game_phases
from monster_zoo.envs.monster_arena.state_layout import PHASE_NAMES

ROOT = Path(__file__).resolve().parents[1]
ARENA = "monster_arena-v0"
needs_linker = pytest.mark.skipif(
    subprocess.run(
        [sys.executable, "-c", "from cuda.bindings import nvjitlink; nvjitlink.version(); import numba_cuda"],
        capture_output=True,
    ).returncode
    != 0,
    reason="numba-cuda or nvJitLink is not installed (the gpu extra; make test installs it)",
)


def test_arena_declares_its_phases_and_games_without_them_keep_the_plain_loop():
    phase_of, count = game_phases(monster_zoo.spec(ARENA))
    assert count == len(PHASE_NAMES)
    assert phase_of is monster_zoo.spec(ARENA).rules.phase_of
    plain = [
        g for g in monster_zoo.available() if getattr(monster_zoo.spec(g).rules, "phase_of", None) is None
    ]
    assert plain and all(game_phases(monster_zoo.spec(g)) is None for g in plain)


def test_arena_phase_is_always_below_its_phase_count_and_random_play_visits_every_decision():
    """Over seeded random games at every player count, ``phase_of`` stays in range (the GPU loop counts
    votes by it) and each decision phase is met."""
    spec = monster_zoo.spec(ARENA)
    phase_of, count = game_phases(spec)
    seen = Counter()
    for n in range(spec.min_players, spec.max_players + 1):
        _, config, states, rngs, action_rngs = gpu_warp_phases.start_games(ARENA, 8, seed=n, num_players=n)
        step = gpu_warp_phases.make_stepper(spec, config)
        for k in range(states.shape[0]):
            for _ in range(400):
                phase = phase_of.py_func(states[k])
                assert 0 <= phase < count
                seen[phase] += 1
                step(states[k], rngs[k], action_rngs[k])
    assert set(seen) == set(range(count - 1)), seen  # every phase but the end, which resets at once


def test_the_warp_model_plays_the_same_games_under_both_schedules_with_fewer_phase_runs():
    row = gpu_warp_phases.model(ARENA, warps=2, steps=40, warmup=60, seed=3, num_players=None)
    assert row["same_games"] is True
    assert abs(sum(row["phases_share"].values()) - 1) < 1e-3 and max(map(int, row["phases_share"])) > 1
    assert row["majority_first_phase_runs_per_step"] < row["lockstep_phase_runs_per_step"]
    assert 1 <= row["majority_first_games_per_round"] <= 32


def test_the_warp_model_skips_a_game_without_phases_and_refuses_bad_options():
    plain = next(g for g in monster_zoo.available() if game_phases(monster_zoo.spec(g)) is None)
    assert "skipped" in gpu_warp_phases.model(plain, warps=1, steps=1, warmup=0, seed=0, num_players=None)
    with pytest.raises(SystemExit):
        gpu_warp_phases.parse_args(["--warps", "0"])
    with pytest.raises(SystemExit, match="available"):
        gpu_warp_phases.main(["--games", "chess-v0"])


PHASED_SCRIPT = """
import json, sys, warnings
import numpy as np
import monster_zoo
from monster_zoo.envs.monster_arena.state_layout import PHASE
warnings.simplefilter("ignore", RuntimeWarning)  # the generator's uint64 arithmetic wraps by design
num_envs, steps = int(sys.argv[1]), int(sys.argv[2])
cpu = monster_zoo.make_batch("monster_arena-v0", num_envs=num_envs, seed=5)
gpu = monster_zoo.make_batch("monster_arena-v0", num_envs=num_envs, seed=5, device="cuda")
cpu.reset(); gpu.reset()
for launch in range(2):
    done = cpu.step_random(steps), gpu.step_random(steps)
    print(json.dumps({
        "finished": [int(d) for d in done],
        "states": bool(np.array_equal(cpu.states, gpu.states)),
        "masks": bool(np.array_equal(cpu.masks, gpu.masks.copy_to_host())),
        "phases": sorted({int(p) for p in cpu.states[:, PHASE]}),
    }), flush=True)
"""


def test_simulated_phase_by_phase_loop_equals_the_cpu_engine():
    """48 Arena games (a full warp and half of one) in two launches of random steps: every state, mask
    and count of finished games as on the CPU, while the games are spread over several phases."""
    done = subprocess.run(
        [sys.executable, "-c", PHASED_SCRIPT, "48", "30"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    launches = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(launches) == 2
    for launch in launches:
        assert launch["states"] and launch["masks"], launch
        assert launch["finished"][0] == launch["finished"][1], launch
    assert len(launches[-1]["phases"]) >= 3, launches  # the warps really had phases to order


@needs_linker
def test_arena_phases_stay_functions_of_their_own_on_a_gpu():
    """``apply_action`` linked for cc 9.0: each phase's step and the automatic steps are functions of the
    cubin, not copies inlined into the entry."""
    from monster_zoo.benchmarks.gpu_code_size import contract_kernel_sources, readable
    from monster_zoo.envs.gpu.ptx_check import check_kernel

    function, argtypes = contract_kernel_sources(monster_zoo.spec(ARENA))["apply_action"]
    figures = check_kernel(function, argtypes, (9, 0))
    assert figures.ok, figures.error
    functions = Counter(readable(name) for name in figures.function_bytes)
    steps = {"main_step", "attack_step", "react_step", "place_step", "build_step", "advance", "end_turn"}
    assert all(functions[name] == 1 for name in steps), functions
    assert np.all(np.array(list(figures.function_bytes.values())) > 0)
