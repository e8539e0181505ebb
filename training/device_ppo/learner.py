"""The learner of the array-side trainer: actor and critic networks, TorchRL's PPO parts.

Taken from TorchRL (the ``device-train`` extra) rather than written again: ``ClipPPOLoss`` (the
clipped surrogate, value and entropy terms, with ``MaskedCategorical``'s log-probabilities and
entropy over the legal actions only) and ``generalized_advantage_estimate`` (GAE over a rollout laid
out ``[games, steps, 1]``). What is ours is only the glue: the rollout buffers are torch tensors filled
from the engine's arrays, the rollout's draws are made without a distribution object per step
(:func:`sample_masked`, the same distribution), and the actor's layers have the shape of a PPO policy
file.
"""

import copy
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from .torchrl_parts import (
    ClipPPOLoss,
    MaskedCategorical,
    ProbabilisticActor,
    TensorDict,
    TensorDictModule,
    ValueOperator,
    generalized_advantage_estimate,
)


def mlp(sizes: Sequence[int], last_gain: float) -> nn.Sequential:
    """Linear layers of ``sizes`` with tanh between them, the last one bare, initialised as SB3's
    MlpPolicy does: orthogonal weights (gain sqrt(2) in the hidden layers, ``last_gain`` in the last),
    zero biases."""
    layers: list[nn.Module] = []
    for k in range(len(sizes) - 1):
        linear = nn.Linear(sizes[k], sizes[k + 1])
        nn.init.orthogonal_(linear.weight, gain=last_gain if k == len(sizes) - 2 else np.sqrt(2))
        nn.init.zeros_(linear.bias)
        layers.append(linear)
        if k < len(sizes) - 2:
            layers.append(nn.Tanh())
    return nn.Sequential(*layers)


def sample_masked(logits: torch.Tensor, masks: torch.Tensor):
    """``(actions, log-probabilities)``: one draw per row from the categorical distribution of
    ``logits`` over the legal actions (``masks`` true), drawn from torch's global generator.

    The same distribution as TorchRL's ``MaskedCategorical`` (which the update's loss uses), drawn by
    inverting the cumulative probabilities: on a CPU, TorchRL's distribution sampled with torch's
    ``multinomial`` took three times as long (``benchmarks/device_ppo_parts.py``), and Gumbel draws
    through ``exponential_`` cost about as much as ``multinomial``. An illegal action has
    probability 0, so its cumulative sum equals its left neighbour's and a draw strictly below that sum
    stops before it; the draw is kept below the legal total, so it never runs past the last legal action."""
    log_probs = torch.log_softmax(logits.masked_fill(~masks, float("-inf")), dim=-1)
    cumulative = log_probs.exp().cumsum(-1)
    total = cumulative[:, -1:]
    draw = torch.minimum(torch.rand_like(total) * total, torch.nextafter(total, torch.zeros_like(total)))
    actions = torch.searchsorted(cumulative, draw, right=True)
    return actions.squeeze(-1), log_probs.gather(-1, actions).squeeze(-1)


class LegalActionsPPOLoss(ClipPPOLoss):
    """TorchRL's clipped PPO loss for a policy over the legal actions (``MaskedCategorical``), without
    a read to the host per minibatch. Uncompiled, TorchRL checks whether the analytic entropy is
    finite (a boolean read on the host: on a GPU, a wait for its queued work in every minibatch) to
    fall back on a sampled entropy; ``MaskedCategorical``'s entropy clamps the illegal actions'
    logits and is always finite, so that check is left out."""

    def _get_entropy(self, dist, adv_shape: torch.Size) -> torch.Tensor:
        return dist.entropy().unsqueeze(-1)


NETWORK_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}
# the update's losses, in the order of the tensor :meth:`Learner.update` returns
LOSSES = ("loss_objective", "loss_critic", "loss_entropy")
# torch.compile's modes the learner takes ("off": eager; "reduce-overhead" also replays CUDA graphs)
COMPILE_MODES = ("off", "default", "reduce-overhead", "max-autotune")


def native_bfloat16(device: str) -> bool:
    """Whether ``device`` computes bfloat16 matrix products in hardware (a CPU with AVX512-BF16 or AMX,
    as oneDNN reports it; a GPU that torch says supports bfloat16). Elsewhere bfloat16 is emulated and
    slower than float32."""
    if torch.device(device).type == "cuda":
        return torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):  # a torch build without oneDNN
        return False


def resolve_network_dtype(name: str, device: str) -> str:
    """``name`` as a dtype of :data:`NETWORK_DTYPES`: ``"auto"`` is bfloat16 where ``device`` has it
    natively, else float32."""
    if name == "auto":
        return "bfloat16" if native_bfloat16(device) else "float32"
    return name


class Learner:
    """Actor, critic, Adam and the PPO loss for observations of ``obs_size`` and ``num_actions`` actions.

    With ``shared_trunk`` the actor and the critic share their hidden layers (one trunk, a policy head
    and a value head): the actor network is still the plain MLP of a PPO policy file (trunk, then the
    policy head). ``network_dtype`` ``"bfloat16"`` runs the networks' passes (the rollout's forward
    passes, the update's forward and backward) under torch's autocast; weights, Adam, the rollout's
    buffers and the draws' probabilities stay float32. ``compile_mode`` other than ``"off"`` runs the
    rollout's policy step and the update's gradient step through ``torch.compile`` in that mode
    (TorchRL's losses and tensordicts are written to be compiled); the first calls compile."""

    def __init__(
        self,
        obs_size: int,
        num_actions: int,
        hidden: Sequence[int],
        learning_rate: float,
        clip_coef: float,
        ent_coef: float,
        device: str = "cpu",
        shared_trunk: bool = False,
        network_dtype: str = "float32",
        compile_mode: str = "off",
    ):
        if network_dtype not in NETWORK_DTYPES:
            raise ValueError(f"network dtype {network_dtype!r} is not one of {', '.join(NETWORK_DTYPES)}")
        if compile_mode not in COMPILE_MODES:
            raise ValueError(f"compile mode {compile_mode!r} is not one of {', '.join(COMPILE_MODES)}")
        self.shared_trunk, self.network_dtype = shared_trunk, network_dtype
        self.device_type = torch.device(device).type
        self.actor_net = mlp([obs_size, *hidden, num_actions], 0.01).to(device)
        self.trunk = self.actor_net[:-1]  # the same modules as the actor's hidden layers
        if shared_trunk:  # the actor's hidden layers, then a value head started as SB3's (gain 1)
            self.critic_net = nn.Sequential(*self.trunk, mlp([hidden[-1], 1], 1.0)[0].to(device))
        else:
            self.critic_net = mlp([obs_size, *hidden, 1], 1.0).to(device)
        logits = TensorDictModule(self.actor_net, in_keys=["observation"], out_keys=["logits"])
        self.actor = ProbabilisticActor(
            logits,
            in_keys={"logits": "logits", "mask": "action_mask"},
            distribution_class=MaskedCategorical,
            return_log_prob=True,
        )
        self.critic = ValueOperator(self.critic_net, in_keys=["observation"])
        self.loss = LegalActionsPPOLoss(
            self.actor, self.critic, clip_epsilon=clip_coef, entropy_coeff=ent_coef, normalize_advantage=True
        )
        self.log_prob_key = self.loss.tensor_keys.sample_log_prob
        # each tensor once, a shared trunk's too (the loss lists it with the actor's and the critic's)
        self.parameters = list({id(p): p for p in self.loss.parameters()}.values())
        # eps as SB3's: torch's 1e-8 lets Adam take full-size steps on gradients near zero
        self.optimizer = torch.optim.Adam(self.parameters, lr=learning_rate, eps=1e-5)
        self.compile_mode = compile_mode
        self._minibatch_step, self._policy_step = self._step, self._act
        if compile_mode != "off":
            self._minibatch_step = torch.compile(self._step, mode=compile_mode)
            self._policy_step = torch.compile(self._act, mode=compile_mode)

    def _autocast(self):
        """The networks' passes in ``network_dtype`` (a no-op for float32)."""
        return torch.autocast(
            self.device_type,
            dtype=NETWORK_DTYPES[self.network_dtype],
            enabled=self.network_dtype != "float32",
        )

    @torch.inference_mode()
    def act(self, observations: torch.Tensor, masks: torch.Tensor):
        """``(actions, log-probabilities, values)`` of the current policy for one step of every game."""
        return self._policy_step(observations, masks)

    def _act(self, observations: torch.Tensor, masks: torch.Tensor):
        with self._autocast():
            if self.shared_trunk:
                features = self.trunk(observations)
                logits, values = self.actor_net[-1](features), self.critic_net[-1](features)
            else:
                logits, values = self.actor_net(observations), self.critic_net(observations)
        actions, log_probs = sample_masked(logits.float(), masks)
        return actions, log_probs, values.squeeze(-1).float()

    @torch.inference_mode()
    def value(self, observations: torch.Tensor) -> torch.Tensor:
        """The critic's value of each observation."""
        with self._autocast():
            return self.critic_net(observations).squeeze(-1).float()

    def update(
        self,
        rollout: dict,
        gamma: float,
        gae_lambda: float,
        epochs: int,
        minibatch: int,
        generator: torch.Generator,
    ) -> dict:
        """PPO on one rollout (tensors ``[steps, games, ...]``, plus ``next_value`` ``[games]``):
        GAE, then ``epochs`` passes in shuffled minibatches of ``minibatch``; the mean of each of
        :data:`LOSSES` over the minibatches, as one tensor on the learner's device.

        Nothing is read back to the host here: the losses add up on the device, so that the GPU never
        waits for the host between minibatches (the caller reads them once per update)."""
        values = rollout["values"].T.unsqueeze(-1)  # [games, steps, 1], the layout GAE reads
        next_values = torch.cat([values[:, 1:], rollout["next_value"].view(-1, 1, 1)], dim=1)
        done = rollout["dones"].T.unsqueeze(-1)
        advantage, target = generalized_advantage_estimate(
            gamma, gae_lambda, values, next_values, rollout["rewards"].T.unsqueeze(-1), done, done
        )
        steps, games = rollout["actions"].shape
        data = TensorDict(
            {
                "observation": rollout["observations"].transpose(0, 1).reshape(steps * games, -1),
                "action_mask": rollout["masks"].transpose(0, 1).reshape(steps * games, -1),
                "action": rollout["actions"].T.reshape(-1),
                self.log_prob_key: rollout["log_probs"].T.reshape(-1),
                "advantage": advantage.reshape(-1, 1),
                "value_target": target.reshape(-1, 1),
            },
            batch_size=[steps * games],
        )
        sums = torch.zeros(len(LOSSES), device=data.device)
        minibatches = 0
        for _ in range(epochs):
            # drawn on the CPU, so that a seed shuffles alike on every device
            order = torch.randperm(steps * games, generator=generator, device="cpu").to(data.device)
            for start in range(0, steps * games, minibatch):
                sums += self._minibatch_step(data[order[start : start + minibatch]])
                minibatches += 1
        return sums / minibatches

    def _step(self, batch: TensorDict) -> torch.Tensor:
        """One gradient step on ``batch``; :data:`LOSSES` as one detached tensor."""
        with self._autocast():
            parts = self.loss(batch)
        total = parts["loss_objective"] + parts["loss_critic"] + parts["loss_entropy"]
        self.optimizer.zero_grad(set_to_none=True)
        total.backward()
        nn.utils.clip_grad_norm_(self.parameters, 0.5)
        self.optimizer.step()
        return torch.stack([parts[name].detach().float() for name in LOSSES])

    def frozen_actor(self) -> nn.Sequential:
        """A copy of the actor network that later updates leave as it is (a self-play snapshot's
        logits, on the learner's device)."""
        frozen = copy.deepcopy(self.actor_net).eval()
        frozen.requires_grad_(False)
        return frozen

    def actor_layers(self) -> list:
        """The actor as numpy layers ``[(weight[in, out], bias, activation)]`` (a PPO policy file's)."""
        linears = [m for m in self.actor_net if isinstance(m, nn.Linear)]
        return [
            (
                np.ascontiguousarray(m.weight.detach().cpu().numpy().T, dtype=np.float64),
                m.bias.detach().cpu().numpy().astype(np.float64),
                "tanh" if k < len(linears) - 1 else None,
            )
            for k, m in enumerate(linears)
        ]

    def state_dict(self) -> dict:
        """Every tensor a resumed run needs: both networks, whether they share a trunk, and the optimizer."""
        return {
            "actor": self.actor_net.state_dict(),
            "critic": self.critic_net.state_dict(),
            "shared_trunk": self.shared_trunk,
            "optimizer": self.optimizer.state_dict(),
        }

    def load_state_dict(self, state: dict) -> None:
        """Restore :meth:`state_dict`'s tensors (RuntimeError/KeyError/ValueError if they do not fit;
        a checkpoint's networks fit only a learner whose actor and critic share a trunk as its did)."""
        # checkpoints written before the shared trunk existed had separate networks
        if bool(state.get("shared_trunk", False)) != self.shared_trunk:
            raise ValueError(
                f"its actor and critic {'share' if state.get('shared_trunk') else 'do not share'} "
                f"a trunk, this run's {'do' if self.shared_trunk else 'do not'} (--shared-trunk)"
            )
        self.actor_net.load_state_dict(state["actor"])
        self.critic_net.load_state_dict(state["critic"])
        self.optimizer.load_state_dict(state["optimizer"])
