"""Every game on a GPU from the same kernels, checked without a GPU.

* ``monster-zoo gpu check`` compiles every game's GPU drivers (the batched engine's and the learner-seat
  games') to PTX for cc 8.0 and 9.0 (numba-cuda's NVVM from pip wheels, no driver); :data:`COMPILING`
  names the games expected to pass: all of them.
* Under numba-cuda's simulator (``NUMBA_ENABLE_CUDASIM=1``, in a subprocess: the switch is read when
  numba-cuda is imported) the GPU engine reproduces the CPU engine exactly, for every game at its
  smallest and largest player count, over seeded random games played to their end, auto-reset
  included, then random steps inside one launch. The simulator runs the rules as Python (a few
  milliseconds a step), so the default run plays 2 games per case and the slow run 32.
* ``device="cuda"`` where numba-cuda or a GPU is missing is refused at once with what to install or
  check; a bad device is refused with the valid ones; the CPU engine never imports numba-cuda.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import monster_zoo

ROOT = Path(__file__).resolve().parents[1]
COMPILING = tuple(monster_zoo.available())  # the games whose GPU drivers must compile to PTX: every one
needs_numba_cuda = pytest.mark.skipif(
    subprocess.run([sys.executable, "-c", "import numba_cuda"], capture_output=True).returncode != 0,
    reason="numba-cuda is not installed (the gpu extra; make test installs it)",
)

PARITY_SCRIPT = """
import json, sys, warnings
import monster_zoo
from monster_zoo.envs.gpu.parity import compare
# The generator's uint64 arithmetic wraps by design; numpy warns about it when the simulator runs
# the kernels as Python (numba never does).
warnings.simplefilter("ignore", RuntimeWarning)
num_envs = int(sys.argv[1])
for game_id in monster_zoo.available():
    spec = monster_zoo.spec(game_id)
    for n in sorted({spec.min_players, spec.max_players}):
        print(json.dumps(compare(game_id, n, num_envs, seed=11, random_steps=20).as_dict()), flush=True)
"""


def simulated_parity(num_envs: int, timeout: int) -> list:
    """:func:`monster_zoo.envs.gpu.parity.compare` for every game at both player-count ends, under the
    simulator in a subprocess; one dict per case."""
    done = subprocess.run(
        [sys.executable, "-c", PARITY_SCRIPT, str(num_envs)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines()]


def check_parity(results: list, num_envs: int) -> None:
    cases = {(r["game_id"], r["num_players"]) for r in results}
    expected = {
        (g, n)
        for g in monster_zoo.available()
        for n in (monster_zoo.spec(g).min_players, monster_zoo.spec(g).max_players)
    }
    assert cases == expected
    for r in results:
        assert r["mismatch"] is None, r
        assert r["games_ended"] >= num_envs and r["random_steps"] > 0, r


def gpu_check(*arguments: str, timeout: int = 900) -> subprocess.CompletedProcess:
    """``monster-zoo gpu check ARGUMENTS`` in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "monster_zoo.training", "gpu", "check", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def check_compiled(done: subprocess.CompletedProcess, games, parts: dict) -> None:
    """``done`` printed one ``ok`` line per game and part (``{part: its driver count}``) for cc 8.0 and
    9.0, then the count of games that compiled, and exited 0."""
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert len(lines) == len(games) * len(parts) + 1, lines
    for game_id in games:
        for part, drivers in parts.items():
            line = next(x for x in lines if x.split()[:2] == [game_id, part])
            assert (" ok " in line) == (game_id in COMPILING), line
            assert f"cc 8.0, 9.0: {drivers} drivers" in line, line
    assert lines[-1].startswith(f"{len(games)} of {len(games)} games compile to PTX"), lines[-1]


@needs_numba_cuda
def test_gpu_check_compiles_every_game_to_ptx():
    """The batched engine's drivers of every game here; the learner-seat games' drivers (whose
    compile, greedy's search included, takes far longer) of one game in
    ``tests/test_gpu_learner_games.py`` and of every game in the slow test below."""
    check_compiled(gpu_check("--parts", "engine"), COMPILING, {"engine": 5})


@pytest.mark.slow
@needs_numba_cuda
def test_gpu_check_compiles_every_games_engine_and_learner_seat_drivers_by_default():
    check_compiled(gpu_check(timeout=3600), COMPILING, {"engine": 5, "learner": 2})


@needs_numba_cuda
def test_gpu_check_refuses_an_unknown_part_naming_the_parts():
    done = gpu_check("--parts", "engine,tpu", timeout=120)
    assert done.returncode == 2 and "each part must be one of engine, learner" in done.stderr, done.stderr
    assert done.stdout == ""


@needs_numba_cuda
def test_gpu_check_names_an_unknown_game():
    done = gpu_check("chess-v0", timeout=120)
    assert done.returncode == 2 and "unknown game(s) chess-v0" in done.stderr and COMPILING[0] in done.stderr


@needs_numba_cuda
def test_simulated_gpu_engine_equals_the_cpu_engine_for_every_game():
    check_parity(simulated_parity(num_envs=2, timeout=900), num_envs=2)


@pytest.mark.slow
@pytest.mark.timeout(3600)  # about 7 minutes at load 1-4 on 2 cores; the simulator runs the rules as Python
@needs_numba_cuda
def test_simulated_gpu_engine_equals_the_cpu_engine_over_32_games_each():
    check_parity(simulated_parity(num_envs=32, timeout=3600), num_envs=32)


def test_a_device_other_than_cpu_or_cuda_is_refused_with_the_valid_ones():
    with pytest.raises(ValueError, match="device must be one of 'cpu', 'cuda', got 'gpu'"):
        monster_zoo.make_batch(COMPILING[0], num_envs=2, device="gpu")


@needs_numba_cuda
def test_cuda_without_a_gpu_is_refused_saying_what_to_check():
    script = (
        "import monster_zoo\ntry:\n"
        "    monster_zoo.make_batch('marry_the_monster-v0', num_envs=2, device='cuda')\n"
        "except RuntimeError as e:\n    print(e)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env
    )
    assert "finds no usable CUDA GPU" in done.stdout and "nvidia-smi" in done.stdout, (
        done.stdout + done.stderr
    )


def test_cuda_without_numba_cuda_is_refused_saying_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba_cuda", None)  # import numba_cuda now raises ImportError
    with pytest.raises(RuntimeError, match=r"needs numba-cuda: pip install 'monster-zoo\[gpu\]'"):
        monster_zoo.make_batch(COMPILING[0], num_envs=2, device="cuda")


def test_gpu_check_without_numba_cuda_says_what_to_install(monkeypatch, capsys):
    from monster_zoo.envs.gpu import command

    monkeypatch.setitem(sys.modules, "numba_cuda", None)
    assert command.main(["check", COMPILING[0]]) == 1
    assert "pip install 'monster-zoo[gpu]'" in capsys.readouterr().err


def test_the_cpu_engine_never_imports_numba_cuda():
    script = (
        "import sys, monster_zoo\nb = monster_zoo.make_batch('marry_the_monster-v0', num_envs=4)\nb.reset()\n"
        "b.step(b.random_actions()); b.step_random(10)\n"
        "print(sorted(m for m in sys.modules if m.startswith(('numba_cuda', 'numba.cuda'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr[-2000:]


BAD_ACTIONS_SCRIPT = """
import warnings
import numpy as np
import monster_zoo
from monster_zoo.envs.core.illegal import IllegalActionError
warnings.simplefilter("ignore", RuntimeWarning)
engine = monster_zoo.make_batch("mighty_monsters-v0", num_envs=3, seed=4, device="cuda")
engine.reset()
masks = engine.masks.copy_to_host()
legal = [int(np.flatnonzero(m)[0]) for m in masks]
illegal = int(np.flatnonzero(masks[1] == 0)[0])
before = engine.states
for bad in ([legal[0], illegal, legal[2]], [legal[0], 2 ** 64, legal[2]], [legal[0], 3.5, legal[2]],
            np.array(legal)[:, None], legal[:2]):
    try:
        engine.step(bad)
    except IllegalActionError as error:
        print("refused:", str(error).splitlines()[0][:120])
    assert np.array_equal(engine.states, before)
engine.masks.copy_to_device(np.ones_like(masks))  # writing the handed-out mask allows nothing
try:
    engine.step([legal[0], illegal, legal[2]])
except IllegalActionError:
    print("refused after writing the handed-out mask")
engine.step(legal)
print("stepped", bool((engine.states != before).any()))
"""


@needs_numba_cuda
def test_simulated_gpu_engine_refuses_bad_actions_changing_nothing():
    done = subprocess.run(
        [sys.executable, "-c", BAD_ACTIONS_SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert len([x for x in lines if x.startswith("refused: ")]) == 5, lines
    assert lines[0].startswith("refused: slot 1: player_") and "2**64" not in lines[1]
    assert "18446744073709551616" in lines[1] and "3.5" in lines[2] and "shape (3, 1)" in lines[3], lines
    assert "a list of 2" in lines[4], lines
    assert lines[-2:] == ["refused after writing the handed-out mask", "stepped True"], lines
