"""The learner-seat games on the GPU against the CPU's, under numba-cuda's simulator.

For every game at its smallest and largest player count, :class:`GpuLearnerGames` and the CPU's
:class:`LearnerGames` are given the same seed, opponents and learner actions and must hold the same
states, learner seats, game seeds, masks, observations, rewards, ends and final views after every
step, with random opponents, with greedy (its kernel compiled for the GPU from the CPU's source)
and with a pool of random play and frozen torch networks (the same network as the CPU's numba
forward pass), the pool replaced mid-run (games in progress keep their opponent). The simulator
runs the rules as Python (in a subprocess: the switch is read when numba-cuda is imported), so the
default run plays 3 slots per case until 3 games have ended, the slow run 16. Also: opponents the
GPU cannot play (an agent acting from Python) and illegal learner actions are refused, changing
nothing; and ``monster-zoo gpu check --parts learner`` compiles the drivers to PTX for cc 8.0 and 9.0
without a GPU.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import monster_zoo

ROOT = Path(__file__).resolve().parents[1]
needs_numba_cuda = pytest.mark.skipif(
    subprocess.run([sys.executable, "-c", "import numba_cuda"], capture_output=True).returncode != 0,
    reason="numba-cuda is not installed (the gpu extra; make test installs it)",
)
needs_torch = pytest.mark.skipif(
    subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode != 0,
    reason="torch is not installed (the device-train extra)",
)

PARITY_SCRIPT = """
import json, sys, warnings
import monster_zoo
from monster_zoo.envs.gpu.parity import compare_learner
warnings.simplefilter("ignore", RuntimeWarning)  # splitmix64's uint64 wrap, run by numpy in the simulator
num_envs = int(sys.argv[1])
for game_id in monster_zoo.available():
    spec = monster_zoo.spec(game_id)
    for players in sorted({spec.min_players, spec.max_players}):
        for pool in ("random", "greedy", "snapshots"):
            print(json.dumps(compare_learner(game_id, players, num_envs, pool)), flush=True)
"""


def simulated_parity(num_envs: int, timeout: int) -> list:
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
    expected = {
        (g, n, pool)
        for g in monster_zoo.available()
        for pool in ("random", "greedy", "snapshots")
        for n in (monster_zoo.spec(g).min_players, monster_zoo.spec(g).max_players)
    }
    assert {(r["game_id"], r["num_players"], r["pool"]) for r in results} == expected
    for r in results:
        assert r["mismatch"] is None, r
        assert r["games_ended"] >= num_envs, r


@needs_numba_cuda
@needs_torch
def test_gpu_learner_games_play_the_cpu_games():
    check_parity(simulated_parity(3, timeout=600), 3)


@pytest.mark.slow
@needs_numba_cuda
@needs_torch
def test_gpu_learner_games_play_the_cpu_games_at_more_slots():
    check_parity(simulated_parity(16, timeout=3000), 16)


PENALIZE_SCRIPT = """
import json, warnings
import numpy as np
import monster_zoo
from monster_zoo import envs
from monster_zoo.envs.gpu.learner_games import GpuLearnerGames
from monster_zoo.envs.gpu.parity import compare_learner
warnings.simplefilter("ignore", RuntimeWarning)  # splitmix64's uint64 wrap, run by numpy in the simulator
for game_id in monster_zoo.available():
    spec = monster_zoo.spec(game_id)
    for players in sorted({spec.min_players, spec.max_players}):
        for pool in ("random", "greedy"):
            print(json.dumps(compare_learner(game_id, players, 3, pool, illegal_every=40)), flush=True)
game = "marry_the_monster-v0"
spec, config = envs.spec(game), envs.config(game, {"num_players": 2})
try:
    GpuLearnerGames(spec, config, 2, illegal_action="forfeit")
except ValueError as error:
    print("option:", error)
games = GpuLearnerGames(spec, config, 3, seed=4, illegal_action="penalize")
masks = games.reset()[1].copy_to_host()
actions = np.array([int(np.flatnonzero(m)[0]) for m in masks], object)
actions[2] = "seven"  # not an action at all: on the host path, penalized as on the CPU
rewards = games.step(actions)[2].copy_to_host()
print("host path:", rewards.tolist(), games.illegal.copy_to_host().tolist())
"""


@needs_numba_cuda
@needs_torch
def test_gpu_learner_games_penalize_illegal_learner_actions_as_the_cpu_games_do():
    """``illegal_action="penalize"``: in every game at its smallest and largest player count, with random
    and with greedy opponents, the learner now and then plays an action its mask forbids (or one out of
    range); the GPU driver and the CPU's give the same rewards (-1 to the learner), ends, final views,
    ``illegal`` flags, next games and states after every step, until 3 games have also ended by play.
    A bad option is refused naming the valid ones; a value that is no action at all is penalized too."""
    done = subprocess.run(
        [sys.executable, "-c", PENALIZE_SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    results = [json.loads(line) for line in lines if line.startswith("{")]
    expected = {
        (g, n, pool)
        for g in monster_zoo.available()
        for pool in ("random", "greedy")
        for n in (monster_zoo.spec(g).min_players, monster_zoo.spec(g).max_players)
    }
    assert {(r["game_id"], r["num_players"], r["pool"]) for r in results} == expected
    for r in results:
        assert r["mismatch"] is None, r
        assert r["games_ended"] - r["illegal_played"] >= 3, r
    assert sum(r["illegal_played"] for r in results) >= len(results), results  # about one per case and more
    assert (
        "option: marry_the_monster-v0: option illegal_action='forfeit' is not valid; valid values: "
        "'raise', 'penalize'" in done.stdout
    ), done.stdout
    assert "host path: [0.0, 0.0, -1.0] [False, False, True]" in done.stdout, done.stdout


REFUSALS_SCRIPT = """
import numpy as np
from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.envs.core.illegal import IllegalActionError
from monster_zoo.envs.gpu.learner_games import GpuLearnerGames

game = "marry_the_monster-v0"
spec, config = envs.spec(game), envs.config(game, {"num_players": 2})
mcts = make_agent("mcts", game, seed=0, options={"num_players": 2})
try:
    GpuLearnerGames(spec, config, 2, [mcts])
except ValueError as error:
    print("mcts:", error)
games = GpuLearnerGames(spec, config, 2, seed=4)
games.reset()
try:
    games.set_opponents([make_agent("greedy", game, seed=0), mcts])
except ValueError as error:
    print("pool kept:", games.opponents[0].name)
states, masks = games.states, games.masks.copy_to_host()
illegal = np.array([int(np.flatnonzero(m == 0)[0]) for m in masks])
try:
    games.step(illegal)
except IllegalActionError as error:
    print("illegal:", error)
print("unchanged:", np.array_equal(states, games.states) and np.array_equal(masks, games.masks.copy_to_host()))
try:
    games.step(np.zeros(3, np.int64))
except IllegalActionError as error:
    print("shape:", error)
deferred = np.array([int(np.flatnonzero(m)[0]) for m in masks])  # legal in slot 1, illegal in slot 0
deferred[0] = illegal[0]
import torch
games.step(torch.from_numpy(deferred), check=False)  # a tensor on the games' device, as the trainer's
after = games.states
print("deferred left slot 0:", np.array_equal(after[0], states[0]), "moved slot 1:",
      not np.array_equal(after[1], states[1]))
try:
    games.check_actions()
except IllegalActionError as error:
    print("deferred:", error)
games.check_actions()
print("checked again: nothing refused")
"""


@needs_numba_cuda
def test_gpu_learner_games_refuse_python_opponents_and_illegal_actions_changing_nothing():
    done = subprocess.run(
        [sys.executable, "-c", REFUSALS_SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "mcts: opponent 'mcts' cannot play on the GPU" in out and "the game's greedy kernel" in out, out
    assert "pool kept: random" in out, out
    assert "illegal: slot 0: player_" in out and "(the learner)" in out, out
    assert "unchanged: True" in out, out
    assert "shape:" in out, out
    # check=False (the trainer's rollout): nothing read back per step; the slot with an illegal action
    # is left as it was, the others move, and check_actions refuses it once, counting it
    assert "deferred left slot 0: True moved slot 1: True" in out, out
    assert "deferred: 1 learner action(s) the learner may not take were refused" in out, out
    assert "checked again: nothing refused" in out, out


@needs_numba_cuda
def test_gpu_check_compiles_the_learner_seat_drivers_to_ptx():
    """What the simulator cannot show: that the drivers (greedy's search included) compile for a real
    GPU, through ``monster-zoo gpu check`` for cc 8.0 and 9.0 (one game here, about 20 s; every game in
    ``tests/test_gpu_engine.py``'s slow test)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "monster_zoo.training",
            "gpu",
            "check",
            "--parts",
            "learner",
            "marry_the_monster-v0",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    line, summary = done.stdout.splitlines()
    assert line.split()[:3] == ["marry_the_monster-v0", "learner", "ok"], line
    assert "cc 8.0, 9.0: 2 drivers" in line and float(line.split(", ")[-2].split()[0]) > 0.1, (
        line
    )  # MB of PTX
    assert summary.startswith("1 of 1 games compile to PTX") and "(learner drivers)" in summary, summary
