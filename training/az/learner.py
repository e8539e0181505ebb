"""The learner of expert iteration: the policy-value network in torch, its replay buffer and its update.

:class:`PolicyValueNet` is the torch twin of :mod:`monster_zoo.agents.network` (the same
layers, so :func:`export` hands the search exactly the network torch trained, and
``tests/test_az.py`` checks that both forward passes agree). The loss is AlphaZero's without
its weight term (Adam's ``weight_decay`` plays that part): cross-entropy between the search's
improved policy and the masked policy head, plus the mean squared error between the value head
and the game's final returns, rotated to the mover (entry k: the seat k places after it) and
counted only for the seats at the table.

The buffer keeps the newest ``capacity`` decisions in plain arrays (observations and policies
in float16: observations are fractions in [0, 1] and policy targets probabilities, for which
three decimals are plenty). Its state, like the network's and the optimizer's, is written to a
checkpoint as plain arrays (``np.savez``, read back with ``allow_pickle=False``) and torch
tensors read back with ``torch.load(..., weights_only=True)``: nothing pickled is ever loaded.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from monster_zoo.agents.network import MAX_SEATS, AZNetwork, from_layers, input_size


class PolicyValueNet(nn.Module):
    """ReLU trunk over (observation, player-count one-hot); policy logits and tanh seat values."""

    def __init__(self, game_id: str, hidden_sizes: Sequence[int], num_actions: int):
        super().__init__()
        layers, width = [], input_size(game_id)
        for size in hidden_sizes:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(width, num_actions)
        self.value = nn.Linear(width, MAX_SEATS)

    def forward(self, x: torch.Tensor):
        """``(logits [batch, actions], values [batch, MAX_SEATS])`` for network inputs ``x``."""
        h = self.trunk(x)
        return self.policy(h), torch.tanh(self.value(h))


def network_inputs(observations: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    """Observation rows followed by the one-hot of their player count (index ``n - 1``), as the
    numba forward pass builds them."""
    one_hot = nn.functional.one_hot(counts.long() - 1, MAX_SEATS).to(observations.dtype)
    return torch.cat([observations, one_hot], dim=1)


def export(
    net: PolicyValueNet,
    game_id: str,
    options: Mapping | None,
    player_counts: Sequence[int],
    name: str,
    training: Mapping | None = None,
) -> AZNetwork:
    """The numba network of ``net``'s current weights (weights transposed to ``[in, out]``)."""
    linears = [m for m in net.trunk if isinstance(m, nn.Linear)] + [net.policy, net.value]
    layers = [(m.weight.detach().cpu().numpy().T, m.bias.detach().cpu().numpy()) for m in linears]
    return from_layers(game_id, options, player_counts, layers, name, training)


def load_weights(net: PolicyValueNet, network: AZNetwork) -> None:
    """Copy a network file's weights into ``net`` (the inverse of :func:`export`; the shapes must
    match, as ``--init-network``'s check makes sure)."""
    linears = [m for m in net.trunk if isinstance(m, nn.Linear)] + [net.policy, net.value]
    layers = network.layers()
    if [tuple(m.weight.shape[::-1]) for m in linears] != [w.shape for w, _ in layers]:
        raise ValueError(f"the network's layers {[w.shape for w, _ in layers]} do not fit this trainer's")
    with torch.no_grad():
        for module, (weight, bias) in zip(linears, layers):
            module.weight.copy_(torch.from_numpy(np.ascontiguousarray(weight.T)))
            module.bias.copy_(torch.from_numpy(np.array(bias)))


def value_targets(returns: np.ndarray, movers: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each row's final returns per absolute seat (``returns [rows, MAX_SEATS]``) rotated to its
    mover: entry k is the return of seat ``(mover + k) mod n``; entries ``k >= n`` are 0."""
    rows = np.arange(len(movers))[:, None]
    k = np.arange(MAX_SEATS)[None, :]
    seats = (movers[:, None] + k) % counts[:, None]
    return np.where(k < counts[:, None], returns[rows, seats], 0.0).astype(np.float32)


@dataclass
class Batch:
    """Decisions of self-play: the mover's observation, the player count, the legal mask, the
    search's improved policy and the value target (see :func:`value_targets`)."""

    observations: np.ndarray
    counts: np.ndarray
    masks: np.ndarray
    policies: np.ndarray
    values: np.ndarray

    def __len__(self) -> int:
        return len(self.counts)


class ReplayBuffer:
    """The newest ``capacity`` decisions, overwritten oldest first."""

    FIELDS = {
        "observations": np.float16,
        "counts": np.int8,
        "masks": np.int8,
        "policies": np.float16,
        "values": np.float32,
    }

    def __init__(self, capacity: int, obs_size: int, num_actions: int):
        widths = {
            "observations": obs_size,
            "masks": num_actions,
            "policies": num_actions,
            "values": MAX_SEATS,
        }
        self.arrays = {
            key: np.zeros((capacity,) + ((widths[key],) if key in widths else ()), dtype)
            for key, dtype in self.FIELDS.items()
        }
        self.capacity, self.size, self.position = capacity, 0, 0

    def __len__(self) -> int:
        return self.size

    def add(self, batch: Batch) -> None:
        """Append ``batch``'s decisions (keeping only the newest ``capacity`` if it is larger)."""
        n = len(batch)
        start = max(0, n - self.capacity)
        where = (self.position + np.arange(n - start)) % self.capacity
        for key in self.FIELDS:
            self.arrays[key][where] = getattr(batch, key)[start:]
        self.position = int((self.position + n - start) % self.capacity)
        self.size = min(self.capacity, self.size + n - start)

    def sample(self, rows: np.ndarray) -> Batch:
        """The decisions at ``rows`` (indices below ``len(self)``)."""
        return Batch(**{key: self.arrays[key][rows] for key in self.FIELDS})

    def save(self, path: Path) -> None:
        """Write the filled part and the write position as plain arrays."""
        np.savez(
            path,
            size=self.size,
            position=self.position,
            **{key: array[: self.size] for key, array in self.arrays.items()},
        )

    def load(self, path: Path) -> None:
        """Read back what :meth:`save` wrote (no pickles: ``allow_pickle=False``)."""
        with np.load(path, allow_pickle=False) as saved:
            size, position = int(saved["size"]), int(saved["position"])
            if size > self.capacity:
                raise ValueError(
                    f"{path}: the saved buffer holds {size} decisions, more than its capacity {self.capacity}"
                )
            for key, array in self.arrays.items():
                if saved[key].shape[1:] != array.shape[1:]:
                    raise ValueError(
                        f"{path}: {key} rows of shape {saved[key].shape[1:]}, expected {array.shape[1:]}"
                    )
                array[:size] = saved[key]
        self.size, self.position = size, position


def losses(net: PolicyValueNet, batch: Batch, device: torch.device) -> dict[str, torch.Tensor]:
    """The policy cross-entropy, the value error over the seats at the table, and their sum."""
    obs = torch.as_tensor(batch.observations, dtype=torch.float32, device=device)
    counts = torch.as_tensor(batch.counts, device=device)
    legal = torch.as_tensor(batch.masks, device=device) != 0
    target = torch.as_tensor(batch.policies, dtype=torch.float32, device=device)
    logits, values = net(network_inputs(obs, counts))
    # Illegal actions get a large finite logit rather than -inf: 0 * -inf would be NaN.
    log_probs = torch.log_softmax(logits.masked_fill(~legal, -1e9), dim=1)
    policy_loss = -(target * log_probs).sum(dim=1).mean()
    seated = (torch.arange(MAX_SEATS, device=device)[None, :] < counts[:, None]).float()
    error = (values - torch.as_tensor(batch.values, device=device)) ** 2 * seated
    value_loss = error.sum() / seated.sum()
    return {"policy_loss": policy_loss, "value_loss": value_loss, "loss": policy_loss + value_loss}


def train(
    net: PolicyValueNet,
    optimizer: torch.optim.Optimizer,
    buffer: ReplayBuffer,
    steps: int,
    batch_size: int,
    generator: np.random.Generator,
    device: torch.device,
) -> dict[str, float]:
    """``steps`` Adam steps on minibatches drawn uniformly from ``buffer`` with ``generator``;
    the mean of each loss over them."""
    net.train()
    totals = {"policy_loss": 0.0, "value_loss": 0.0}
    for _ in range(steps):
        batch = buffer.sample(generator.integers(0, len(buffer), batch_size))
        parts = losses(net, batch, device)
        optimizer.zero_grad()
        parts["loss"].backward()
        optimizer.step()
        for key in totals:
            totals[key] += float(parts[key].detach())
    net.eval()
    return {key: total / max(steps, 1) for key, total in totals.items()}
