"""Warm start: teach a fresh policy a teacher's moves before self-play begins.

PPO from random weights spends its first millions of steps discovering what the greedy
baseline already knows, and in four of the five games it had not caught up after a
million. Cloning a teacher first (``train --warm-start greedy``) starts PPO from a policy
that plays about as well as the teacher, so self-play spends its budget on getting
better than it.

The data are the teacher's decisions in games it plays against itself on the batched
engine: in every slot the seat on move sees its own observation (what the learner will
see) and the teacher decides from the engine state under the state contract of
:mod:`monster_zoo.agents.base` (a teacher reads only what its seat may know). The policy's
action distribution, masked as in training, is fitted to those decisions by cross-entropy.
"""

from dataclasses import dataclass

import numpy as np

from monster_zoo import envs
from monster_zoo.envs.core.batch import BatchEngine


@dataclass
class Demonstrations:
    """A teacher's decisions: the mover's observation, its legal actions and the chosen action."""

    observations: np.ndarray  # float32 [n, obs_size]
    masks: np.ndarray  # bool [n, num_actions]
    actions: np.ndarray  # int64 [n]


def collect(
    game_id: str, options: dict | None, teacher, samples: int, seed: int = 0, num_envs: int = 64
) -> Demonstrations:
    """``samples`` decisions of ``teacher`` (an agent that reads the state) playing every seat."""
    if not getattr(teacher, "needs_state", False):
        raise ValueError(
            f"teacher {teacher.name!r} must decide from the engine state (a baseline such as greedy)"
        )
    spec = envs.spec(game_id)
    engine = BatchEngine(spec, envs.config(game_id, dict(options or {})), num_envs, seed)
    obs, masks = engine.reset()
    steps = -(-samples // num_envs)
    observations = np.empty((steps * num_envs, spec.obs_size), np.float32)
    legal = np.empty((steps * num_envs, spec.num_actions), bool)
    actions = np.empty(steps * num_envs, np.int64)
    for step in range(steps):
        rows = slice(step * num_envs, (step + 1) * num_envs)
        states, legal_now = (
            np.array(engine.states),
            np.array(masks),
        )  # writable: kernels take no read-only arrays
        chosen = np.array([teacher.act(obs[i], legal_now[i], states[i]) for i in range(num_envs)], np.int64)
        observations[rows], legal[rows], actions[rows] = obs, legal_now != 0, chosen
        obs, masks, _, _, _ = engine.step(chosen)
    return Demonstrations(observations[:samples], legal[:samples], actions[:samples])


def clone(
    policy,
    demos: Demonstrations,
    epochs: int = 3,
    batch_size: int = 1024,
    learning_rate: float = 1e-3,
    seed: int = 0,
) -> dict[str, float]:
    """Fit ``policy`` (a MaskablePPO policy) to ``demos`` by cross-entropy on its masked action
    distribution; return the loss and the share of held-out decisions it now matches."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    n = len(demos.actions)
    held_out = max(1, n // 10)
    order = torch.randperm(n, generator=generator)
    test, train = order[:held_out], order[held_out:]
    obs = torch.as_tensor(demos.observations)
    masks = demos.masks
    actions = torch.as_tensor(demos.actions)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    loss = torch.zeros(())
    for _ in range(epochs):
        shuffled = train[torch.randperm(len(train), generator=generator)]
        for start in range(0, len(shuffled), batch_size):
            rows = shuffled[start : start + batch_size]
            distribution = policy.get_distribution(obs[rows], action_masks=masks[rows.numpy()])
            loss = -distribution.log_prob(actions[rows]).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    policy.set_training_mode(False)
    with torch.no_grad():
        distribution = policy.get_distribution(obs[test], action_masks=masks[test.numpy()])
        predicted = distribution.distribution.probs.argmax(dim=1)
    return {
        "loss": float(loss.detach()),
        "held_out_agreement": float((predicted == actions[test]).float().mean()),
        "samples": n,
    }
