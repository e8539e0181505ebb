"""The GPU engine against the CPU engine, step by step: the check behind the parity guarantee.

:func:`compare` plays the same seeded random games on both engines until every slot's game has ended
(auto-reset included: the ending step and the next game's first observation are compared too) and
compares, after every step, the states, masks, observations, rewards and ends; then it runs random
steps inside one launch on both and compares again. Run by ``tests/test_gpu_engine.py`` under
numba-cuda's simulator and by ``benchmarks/gpu_device_check.py`` on a GPU.
"""
from dataclasses import asdict, dataclass
from typing import Optional

import numpy as np

FIELDS = ("obs", "masks", "rewards", "terminated", "truncated")


@dataclass
class Parity:
    """What :func:`compare` found for one game and player count."""

    game_id: str
    num_players: int
    num_envs: int
    steps: int              # batch steps taken (each one step in every slot)
    games_ended: int        # games that ended in those steps, over all slots
    random_steps: int       # steps per slot inside one launch, after the stepped games
    mismatch: Optional[str]  # the first difference, or None: identical throughout

    def as_dict(self) -> dict:
        return asdict(self)


def _host(array) -> np.ndarray:
    return array.copy_to_host() if hasattr(array, "copy_to_host") else np.asarray(array)


def compare(game_id: str, num_players: int, num_envs: int, seed: int = 0, max_steps: int = 5000,
            random_steps: int = 50) -> Parity:
    """Step ``num_envs`` games of ``game_id`` on the CPU and GPU engines with the CPU engine's random
    actions until every slot has ended a game (at most ``max_steps``), then ``random_steps`` inside one
    launch, comparing everything after each call. The first difference ends the comparison."""
    from .. import make_batch

    cpu = make_batch(game_id, num_envs=num_envs, seed=seed, num_players=num_players)
    gpu = make_batch(game_id, num_envs=num_envs, seed=seed, num_players=num_players, device="cuda")
    result = Parity(game_id, num_players, num_envs, 0, 0, 0, None)

    def differs(where: str, cpu_arrays, gpu_arrays) -> bool:
        for name, ours, theirs in zip(FIELDS, cpu_arrays, gpu_arrays):
            if not np.array_equal(ours, _host(theirs)):
                slot = int(np.argwhere(ours != _host(theirs))[0][0])
                result.mismatch = f"{where}: {name} differs first in slot {slot}"
                return True
        if not np.array_equal(cpu.states, gpu.states):
            result.mismatch = f"{where}: states differ in slots {np.flatnonzero((cpu.states != gpu.states).any(1))[:8]}"
            return True
        return False

    if differs("reset", cpu.reset(), gpu.reset()):
        return result
    ended = np.zeros(num_envs, np.bool_)
    while not ended.all() and result.steps < max_steps:
        actions = cpu.random_actions()
        if not np.array_equal(actions, _host(gpu.random_actions())):
            result.mismatch = f"step {result.steps}: random actions differ"
            return result
        stepped = cpu.step(actions)
        if differs(f"step {result.steps}", stepped, gpu.step(actions)):
            return result
        result.steps += 1
        finished = stepped[3] | stepped[4]
        result.games_ended += int(finished.sum())
        ended |= finished
    if not ended.all():
        result.mismatch = f"not every game ended within {max_steps} steps"
        return result
    finished = cpu.step_random(random_steps), gpu.step_random(random_steps)
    result.random_steps = random_steps
    if finished[0] != finished[1]:
        result.mismatch = (f"random steps in one launch: {finished[0]} games finished on the CPU, "
                           f"{finished[1]} on the GPU")
    elif not np.array_equal(cpu.states, gpu.states) or not np.array_equal(cpu.masks, _host(gpu.masks)):
        result.mismatch = "random steps in one launch: states or masks differ"
    return result
