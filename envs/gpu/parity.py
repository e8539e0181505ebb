"""The GPU engine against the CPU engine, step by step: the check behind the parity guarantee.

:func:`compare` plays the same seeded random games on both engines until every slot's game has ended
(auto-reset included: the ending step and the next game's first observation are compared too) and
compares, after every step, the states, masks, observations, rewards and ends; then it runs random
steps inside one launch on both and compares again. :func:`compare_learner` does the same for the
learner-seat games of training (random opponents, or random play and frozen networks). Run by
``tests/test_gpu_engine.py`` and ``tests/test_gpu_learner_games.py`` under numba-cuda's simulator and
by ``benchmarks/gpu_device_check.py`` on a GPU.
"""

from dataclasses import asdict, dataclass

import numpy as np

FIELDS = ("obs", "masks", "rewards", "terminated", "truncated")


@dataclass
class Parity:
    """What :func:`compare` found for one game and player count."""

    game_id: str
    num_players: int
    num_envs: int
    steps: int  # batch steps taken (each one step in every slot)
    games_ended: int  # games that ended in those steps, over all slots
    random_steps: int  # steps per slot inside one launch, after the stepped games
    mismatch: str | None  # the first difference, or None: identical throughout

    def as_dict(self) -> dict:
        return asdict(self)


def _host(array) -> np.ndarray:
    return array.copy_to_host() if hasattr(array, "copy_to_host") else np.asarray(array)


def compare(
    game_id: str,
    num_players: int,
    num_envs: int,
    seed: int = 0,
    max_steps: int = 5000,
    random_steps: int = 50,
) -> Parity:
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
            result.mismatch = (
                f"{where}: states differ in slots {np.flatnonzero((cpu.states != gpu.states).any(1))[:8]}"
            )
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
        result.mismatch = (
            f"random steps in one launch: {finished[0]} games finished on the CPU, {finished[1]} on the GPU"
        )
    elif not np.array_equal(cpu.states, gpu.states) or not np.array_equal(cpu.masks, _host(gpu.masks)):
        result.mismatch = "random steps in one launch: states or masks differ"
    return result


class PairedNetwork:
    """One frozen network as both drivers of the learner-seat games take it: ``policy_mlp`` for the
    CPU's numba forward pass, ``policy_logits`` (torch, on ``device``) for the GPU's. ``layers``:
    ``(weight[in, out], bias[out], "tanh" or None)``."""

    name = "paired network"

    def __init__(self, layers, device: str):
        import torch

        from ..core.opponents import ACT_NONE, ACT_TANH, MLPWeights

        self.policy_mlp = MLPWeights(
            [(w, b, ACT_TANH if act == "tanh" else ACT_NONE) for w, b, act in layers]
        )
        self._layers = [
            (
                torch.tensor(w.T, dtype=torch.float32, device=device),
                torch.tensor(b, dtype=torch.float32, device=device),
                act,
            )
            for w, b, act in layers
        ]

    def policy_logits(self, x):
        """The logits of observations ``x`` (a float32 tensor on the network's device)."""
        import torch

        for weight, bias, act in self._layers:
            x = x @ weight.T + bias
            x = torch.tanh(x) if act == "tanh" else x
        return x

    def act_batch(self, observations, masks, states=None):
        """Never called: both drivers play the network inside their kernels."""
        raise NotImplementedError("a PairedNetwork is played by the drivers' kernels")

    @classmethod
    def random(cls, spec, seed: int, device: str, hidden: int = 16) -> "PairedNetwork":
        """A network of one tanh layer of ``hidden`` units with weights drawn from ``seed``."""
        draw = np.random.default_rng(seed)
        sizes = [spec.obs_size, hidden, spec.num_actions]
        return cls(
            [
                (
                    draw.normal(0, 0.5, (sizes[k], sizes[k + 1])),
                    draw.normal(0, 0.5, sizes[k + 1]),
                    "tanh" if k == 0 else None,
                )
                for k in range(2)
            ],
            device,
        )


class KernelOpponent:
    """A numba policy kernel as an opponent of the learner-seat games (``policy_kernel``), without the
    agents package (``envs`` does not import it)."""

    def __init__(self, name: str, kernel):
        self.name, self.policy_kernel = name, kernel

    def act_batch(self, observations, masks, states=None):
        """Never called: both drivers play the kernel inside their own."""
        raise NotImplementedError("a KernelOpponent is played by the drivers' kernels")


POOLS = ("random", "greedy", "snapshots")


def learner_pools(spec, pool: str, device: str) -> list:
    """``[(opponents, weights), ...]``: the pool a learner-seat comparison starts with and the one it
    switches to. ``pool``: ``"random"`` (random play throughout), ``"greedy"`` (random play, then
    greedy and random play) or ``"snapshots"`` (random play and frozen networks, :class:`PairedNetwork`)."""
    from ..core.opponents import RandomOpponent
    from .learner_drivers import greedy_kernel

    if pool == "random":
        return [([RandomOpponent()], None)]
    if pool == "greedy":
        return [
            ([RandomOpponent()], None),
            ([KernelOpponent("greedy", greedy_kernel(spec)), RandomOpponent()], [0.7, 0.3]),
        ]
    return [
        ([RandomOpponent(), PairedNetwork.random(spec, 1, device)], [0.3, 0.7]),
        (
            [PairedNetwork.random(spec, 2, device), PairedNetwork.random(spec, 3, device), RandomOpponent()],
            [0.4, 0.4, 0.2],
        ),
    ]


def compare_learner(
    game_id: str,
    num_players: int,
    num_envs: int,
    pool: str = "random",
    seed: int = 11,
    max_steps: int = 3000,
    switch_at: int = 8,
    illegal_every: int = 0,
) -> dict:
    """Play the learner-seat games on the CPU (:class:`~monster_zoo.envs.core.selfplay.LearnerGames`)
    and the GPU (:class:`~.learner_games.GpuLearnerGames`) with the same seed, opponents (:func:`learner_pools`,
    the pool replaced after ``switch_at`` steps) and random legal learner actions until ``num_envs``
    games have ended, comparing after every step the states, learner seats, game seeds, the learner's
    view and the final views of the games that ended. The first difference ends the comparison.
    ``illegal_every`` > 0: both drivers under ``illegal_action="penalize"``, and in each slot, once in
    that many steps on average, the learner plays an action its mask forbids (or one out of range
    where all are legal), which loses it that game; whether each game was lost so is compared too,
    and the comparison runs until ``num_envs`` games have ended otherwise."""
    from .. import config
    from .. import spec as game_spec
    from ..core.selfplay import LearnerGames
    from .learner_games import TORCH_DEVICE, GpuLearnerGames

    spec = game_spec(game_id)
    rules = config(game_id, {"num_players": num_players})
    pools = learner_pools(spec, pool, TORCH_DEVICE)
    illegal_action = "penalize" if illegal_every else "raise"
    cpu = LearnerGames(spec, rules, num_envs, *pools[0], seed=seed, illegal_action=illegal_action)
    gpu = GpuLearnerGames(spec, rules, num_envs, *pools[0], seed=seed, illegal_action=illegal_action)
    result = {
        "game_id": game_id,
        "num_players": num_players,
        "num_envs": num_envs,
        "pool": pool,
        "steps": 0,
        "games_ended": 0,
        "illegal_played": 0,
        "mismatch": None,
    }

    def differs(where, ours, theirs) -> bool:
        arrays = [
            (name, a, b)
            for name, a, b in zip(
                ("observations", "masks", "rewards", "terminated", "truncated"), ours, theirs
            )
        ]
        arrays += [(name, getattr(cpu, name), getattr(gpu, name)) for name in ("learner_seats", "game_seeds")]
        arrays.append(("states", cpu.states, gpu.states))
        if illegal_every:
            arrays.append(("illegal", cpu.illegal, gpu.illegal))
        if len(ours) == 5:  # a step: the final views of the games that ended
            done = np.asarray(ours[3]) | np.asarray(ours[4])
            arrays += [
                (name, getattr(cpu, name)[done], _host(getattr(gpu, name))[done])
                for name in ("final_observations", "final_returns", "final_seats", "final_game_seeds")
            ]
        for name, a, b in arrays:
            if not np.array_equal(np.asarray(a), _host(b)):
                result["mismatch"] = f"{where}: {name} differs"
                return True
        return False

    if differs("reset", cpu.reset(), gpu.reset()):
        return result
    draw = np.random.default_rng(seed)
    while result["games_ended"] - result["illegal_played"] < num_envs and result["steps"] < max_steps:
        if result["steps"] == switch_at and len(pools) > 1:
            cpu.set_opponents(*pools[1])
            gpu.set_opponents(*pools[1])
        actions = np.array([draw.choice(np.flatnonzero(m)) for m in np.asarray(cpu.masks)])
        for slot in np.flatnonzero(draw.random(num_envs) * illegal_every < 1) if illegal_every else ():
            forbidden = np.flatnonzero(np.asarray(cpu.masks)[slot] == 0)
            actions[slot] = forbidden[0] if forbidden.size else spec.num_actions
            result["illegal_played"] += 1
        ours = cpu.step(actions)
        if differs(f"step {result['steps']}", ours, gpu.step(actions)):
            return result
        result["steps"] += 1
        result["games_ended"] += int((np.asarray(ours[3]) | np.asarray(ours[4])).sum())
    if result["games_ended"] - result["illegal_played"] < num_envs:  # games played to their end
        result["mismatch"] = f"fewer than {num_envs} games ended within {max_steps} steps"
    return result
