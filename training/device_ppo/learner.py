"""The learner of the array-side trainer: actor and critic networks, TorchRL's PPO parts.

Taken from TorchRL (the ``device-train`` extra) rather than written again: ``ClipPPOLoss`` (the
clipped surrogate, value and entropy terms), ``MaskedCategorical`` (sampling and log-probabilities
over the legal actions only) and ``generalized_advantage_estimate`` (GAE over a rollout laid out
``[games, steps, 1]``). What is ours is only the glue: the rollout buffers are torch tensors filled
from the engine's arrays, and the actor's layers have the shape of a PPO policy file.
"""
import copy
from typing import List, Sequence

import numpy as np
import torch
from torch import nn

from .torchrl_parts import (ClipPPOLoss, MaskedCategorical, ProbabilisticActor, TensorDict, TensorDictModule,
                            ValueOperator, generalized_advantage_estimate)


def mlp(sizes: Sequence[int], last_gain: float) -> nn.Sequential:
    """Linear layers of ``sizes`` with tanh between them, the last one bare, initialised as SB3's
    MlpPolicy does: orthogonal weights (gain sqrt(2) in the hidden layers, ``last_gain`` in the last),
    zero biases."""
    layers: List[nn.Module] = []
    for k in range(len(sizes) - 1):
        linear = nn.Linear(sizes[k], sizes[k + 1])
        nn.init.orthogonal_(linear.weight, gain=last_gain if k == len(sizes) - 2 else np.sqrt(2))
        nn.init.zeros_(linear.bias)
        layers.append(linear)
        if k < len(sizes) - 2:
            layers.append(nn.Tanh())
    return nn.Sequential(*layers)


class Learner:
    """Actor, critic, Adam and the PPO loss for observations of ``obs_size`` and ``num_actions`` actions."""

    def __init__(self, obs_size: int, num_actions: int, hidden: Sequence[int], learning_rate: float,
                 clip_coef: float, ent_coef: float, device: str = "cpu"):
        self.actor_net = mlp([obs_size, *hidden, num_actions], 0.01).to(device)
        self.critic_net = mlp([obs_size, *hidden, 1], 1.0).to(device)
        logits = TensorDictModule(self.actor_net, in_keys=["observation"], out_keys=["logits"])
        self.actor = ProbabilisticActor(logits, in_keys={"logits": "logits", "mask": "action_mask"},
                                        distribution_class=MaskedCategorical, return_log_prob=True)
        self.critic = ValueOperator(self.critic_net, in_keys=["observation"])
        self.loss = ClipPPOLoss(self.actor, self.critic, clip_epsilon=clip_coef, entropy_coeff=ent_coef,
                                normalize_advantage=True)
        self.log_prob_key = self.loss.tensor_keys.sample_log_prob
        # eps as SB3's: torch's 1e-8 lets Adam take full-size steps on gradients near zero
        self.optimizer = torch.optim.Adam(self.loss.parameters(), lr=learning_rate, eps=1e-5)

    @torch.no_grad()
    def act(self, observations: torch.Tensor, masks: torch.Tensor):
        """``(actions, log-probabilities, values)`` of the current policy for one step of every game."""
        logits = self.actor_net(observations)
        dist = MaskedCategorical(logits=logits, mask=masks)
        actions = dist.sample()
        return actions, dist.log_prob(actions), self.critic_net(observations).squeeze(-1)

    @torch.no_grad()
    def value(self, observations: torch.Tensor) -> torch.Tensor:
        """The critic's value of each observation."""
        return self.critic_net(observations).squeeze(-1)

    def update(self, rollout: dict, gamma: float, gae_lambda: float, epochs: int, minibatch: int,
               generator: torch.Generator) -> dict:
        """PPO on one rollout (tensors ``[steps, games, ...]``, plus ``next_value`` ``[games]``):
        GAE, then ``epochs`` passes in shuffled minibatches of ``minibatch``; the last losses."""
        values = rollout["values"].T.unsqueeze(-1)  # [games, steps, 1], the layout GAE reads
        next_values = torch.cat([values[:, 1:], rollout["next_value"].view(-1, 1, 1)], dim=1)
        done = rollout["dones"].T.unsqueeze(-1)
        advantage, target = generalized_advantage_estimate(gamma, gae_lambda, values, next_values,
                                                           rollout["rewards"].T.unsqueeze(-1), done, done)
        steps, games = rollout["actions"].shape
        data = TensorDict({"observation": rollout["observations"].transpose(0, 1).reshape(steps * games, -1),
                           "action_mask": rollout["masks"].transpose(0, 1).reshape(steps * games, -1),
                           "action": rollout["actions"].T.reshape(-1),
                           self.log_prob_key: rollout["log_probs"].T.reshape(-1),
                           "advantage": advantage.reshape(-1, 1), "value_target": target.reshape(-1, 1)},
                          batch_size=[steps * games])
        losses = {}
        for _ in range(epochs):
            order = torch.randperm(steps * games, generator=generator, device="cpu").to(data.device)
            for start in range(0, steps * games, minibatch):
                parts = self.loss(data[order[start:start + minibatch]])
                total = parts["loss_objective"] + parts["loss_critic"] + parts["loss_entropy"]
                self.optimizer.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(self.loss.parameters(), 0.5)
                self.optimizer.step()
                losses = {k: float(v.detach()) for k, v in parts.items() if k.startswith("loss_")}
        return losses

    def frozen_actor(self) -> nn.Sequential:
        """A copy of the actor network that later updates leave as it is (a self-play snapshot's
        logits, on the learner's device)."""
        frozen = copy.deepcopy(self.actor_net).eval()
        frozen.requires_grad_(False)
        return frozen

    def actor_layers(self) -> list:
        """The actor as numpy layers ``[(weight[in, out], bias, activation)]`` (a PPO policy file's)."""
        linears = [m for m in self.actor_net if isinstance(m, nn.Linear)]
        return [(np.ascontiguousarray(m.weight.detach().cpu().numpy().T, dtype=np.float64),
                 m.bias.detach().cpu().numpy().astype(np.float64), "tanh" if k < len(linears) - 1 else None)
                for k, m in enumerate(linears)]

    def state_dict(self) -> dict:
        """Every tensor a resumed run needs: both networks and the optimizer."""
        return {"actor": self.actor_net.state_dict(), "critic": self.critic_net.state_dict(),
                "optimizer": self.optimizer.state_dict()}

    def load_state_dict(self, state: dict) -> None:
        """Restore :meth:`state_dict`'s tensors (RuntimeError/KeyError/ValueError if they do not fit)."""
        self.actor_net.load_state_dict(state["actor"])
        self.critic_net.load_state_dict(state["critic"])
        self.optimizer.load_state_dict(state["optimizer"])
