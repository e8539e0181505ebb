"""The trainer's placement policy: :mod:`monster_zoo.agents.ppo.placement` in torch.

``train --policy placement`` builds :class:`PlacementPolicy`, a ``MaskableActorCriticPolicy``
whose actor scores each placement with one item network shared by every open cell (see the
agents module for why) and whose critic is the usual MLP. The actor's layers export to a
policy file of architecture ``placement`` that numpy plays without torch.
"""

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from monster_zoo.agents.ppo.placement import PlacementLayout, layer_sizes

ITEM_ARCH = (64,)  # the item network's hidden sizes


class PlacementExtractor(nn.Module):
    """Actor trunk and critic MLP; the actor's latent is the trunk's output followed by the
    observation itself, which the placement head reads per cell."""

    def __init__(self, obs_size: int, hidden: list[int]):
        super().__init__()

        def mlp(sizes):
            modules = []
            for n_in, n_out in zip([obs_size, *sizes], sizes):
                modules += [nn.Linear(n_in, n_out), nn.Tanh()]
            return nn.Sequential(*modules)

        self.policy_net, self.value_net = mlp(hidden), mlp(hidden)
        self.latent_dim_pi = hidden[-1] + obs_size
        self.latent_dim_vf = hidden[-1]

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(actor latent, critic latent)``."""
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        """The trunk's output, then the observation."""
        return torch.cat([self.policy_net(features), features], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        """The critic MLP's output."""
        return self.value_net(features)


class PlacementHead(nn.Module):
    """Logits of every action from the actor latent: a linear head for the actions before the
    placements, the shared item network for each placement."""

    def __init__(self, layout: PlacementLayout, hidden: int, item: tuple[int, ...] = ITEM_ARCH):
        super().__init__()
        self.layout, self.hidden = layout, hidden
        self.start = nn.Linear(hidden, layout.first_action)
        self.context = nn.Linear(hidden, item[0])
        self.item = nn.ModuleList(
            nn.Linear(n_in, n_out) for n_in, n_out in zip([layout.item_size, *item], [*item, 1])
        )
        self.register_buffer("turned", torch.as_tensor(layout.turned_edges), persistent=False)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        """Logits ``[batch, actions]``; the first item layer is applied to the per-cell and the
        per-turn inputs apart and summed (the same as on their concatenation, without building every
        placement's input row)."""
        lay = self.layout
        h, obs = latent[:, : self.hidden], latent[:, self.hidden :]
        b, c, rot = obs.shape[0], lay.cells, lay.rotations
        cells = obs[:, lay.cell_block : lay.cell_block + c * lay.cell_features].reshape(
            b, c, lay.cell_features
        )
        per_cell = torch.cat([cells] + [obs[:, o : o + c].unsqueeze(2) for o in lay.cell_extras], dim=2)
        edges = obs[:, lay.hand_edges : lay.hand_edges + rot * lay.edge_values]
        extras = obs[:, list(lay.hand_extras)].unsqueeze(1).expand(b, rot, len(lay.hand_extras))
        per_turn = torch.cat([edges[:, self.turned], extras], dim=2)
        first = self.item[0]
        split = per_cell.shape[2]
        z = (per_cell @ first.weight[:, :split].T).unsqueeze(2) + (
            per_turn @ first.weight[:, split:].T
        ).unsqueeze(1)
        z = z + (first.bias + self.context(h))[:, None, None, :]
        for layer in self.item[1:]:
            z = layer(torch.tanh(z))
        return torch.cat([self.start(h), z.reshape(b, -1)], dim=1)


class PlacementPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy with the placement actor; ``layout`` says where the observation holds
    the cells and the tile in hand."""

    def __init__(self, *args, layout: PlacementLayout, **kwargs):
        self.layout = layout
        super().__init__(*args, **kwargs)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "layout": self.layout}

    def _hidden(self) -> list[int]:
        arch = self.net_arch
        return list(arch["pi"] if isinstance(arch, dict) else arch)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = PlacementExtractor(self.features_dim, self._hidden())

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        # Replace the linear action head SB3 built on the actor latent, then rebuild the optimizer
        # so that it holds the new head's parameters (and not the discarded one's).
        self.action_net = PlacementHead(self.layout, self._hidden()[-1])
        if self.ortho_init:
            self.action_net.apply(lambda m: self.init_weights(m, gain=np.sqrt(2)))
            for layer in (self.action_net.start, self.action_net.item[-1]):
                self.init_weights(layer, gain=0.01)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def actor_layers(self) -> list:
        """The actor's ``(weight [in, out], bias)`` pairs in the policy file's order."""
        head = self.action_net
        linears = [m for m in self.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
        linears += [head.start, head.context, *head.item]
        pairs = [
            (
                np.ascontiguousarray(m.weight.detach().numpy().T, np.float64),
                m.bias.detach().numpy().astype(np.float64),
            )
            for m in linears
        ]
        expected = layer_sizes(
            self.layout, self.features_dim, self._hidden(), [m.out_features for m in head.item[:-1]]
        )
        assert [w.shape for w, _ in pairs] == expected, ([w.shape for w, _ in pairs], expected)
        return pairs
