"""An RLlib PPO module (torch, new API stack) that never samples an illegal action.

Observations are those of :mod:`monster_zoo.envs.rllib_env`: ``{"observations": vector,
"action_mask": 0/1 vector}``. The module builds RLlib's default PPO networks (encoder, policy and
value heads, sized by ``model_config``) over the ``observations`` part alone and then replaces the
logit of every masked action by the lowest finite float, so its probability is exactly zero in
sampling, in the greedy choice and in the PPO loss. The lowest finite float rather than ``-inf``
keeps the entropy and the KL term finite (``-inf - -inf`` would be NaN), also on the all-zero mask
of a final observation. The input batch is never modified in place: the env runner and the learner
still read it after the forward pass.

    spec = masked_module_spec({"fcnet_hiddens": [256, 256]})  # an RLModuleSpec for any game

:func:`monster_zoo.training.rllib.ppo.ppo_config` builds a whole PPO config around it.
"""

import logging
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns

from monster_zoo.agents.base import Agent

OBSERVATIONS, ACTION_MASK = "observations", "action_mask"
# RLlib 2.60 builds the deprecated RLModuleConfig inside RLModule.__init__ itself, so building any
# module through the current keyword API (observation_space=, model_config=, ...) logs that
# "RLModule(config=...)" is deprecated (ray-project/ray#51630). Only that one line of RLlib's
# deprecation logger is dropped; every other deprecation it reports still shows.
RLLIB_OWN_NOTICE = "`RLModule(config=[RLModuleConfig object])` has been deprecated"


class _DropRLlibOwnNotice(logging.Filter):
    """Drops RLlib's own RLModuleConfig deprecation notice (see :data:`RLLIB_OWN_NOTICE`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return RLLIB_OWN_NOTICE not in record.getMessage()


logging.getLogger("ray._common.deprecation").addFilter(_DropRLlibOwnNotice())


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every entry whose ``mask`` is 0 set to the lowest finite value of its dtype."""
    return torch.where(mask > 0, logits, torch.finfo(logits.dtype).min)


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module over ``observations``, with ``action_mask`` applied to its logits."""

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs):
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space.spaces) != {
            OBSERVATIONS,
            ACTION_MASK,
        }:
            raise ValueError(
                f"MaskedPPOTorchRLModule needs a Dict observation space with the keys "
                f"{OBSERVATIONS!r} and {ACTION_MASK!r} (monster_zoo.envs.rllib_env); got "
                f"{observation_space}"
            )
        # The networks are built for the vector alone; the module still reports the Dict space, so a
        # copy made from it (RLModuleSpec.from_module, league snapshots) is built the same way.
        super().__init__(observation_space=observation_space[OBSERVATIONS], **kwargs)
        self.observation_space = observation_space

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        mask, batch = _split(batch)
        out = super()._forward(batch, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = mask_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        mask, batch = _split(batch)
        out = super()._forward_train(batch, **kwargs)
        out[Columns.ACTION_DIST_INPUTS] = mask_logits(out[Columns.ACTION_DIST_INPUTS], mask)
        return out

    def compute_values(self, batch: dict[str, Any], embeddings: Any | None = None):
        """State values from the observation vector (the mask plays no part in them)."""
        if embeddings is None:
            _, batch = _split(batch)
        return super().compute_values(batch, embeddings)


def _split(batch: dict[str, Any]):
    """(action mask, a shallow copy of ``batch`` whose observation is the vector alone)."""
    obs = batch[Columns.OBS]
    return obs[ACTION_MASK], {**batch, Columns.OBS: obs[OBSERVATIONS]}


def masked_module_spec(model_config: dict[str, Any] | None = None):
    """An ``RLModuleSpec`` of :class:`MaskedPPOTorchRLModule` (RLlib's ``model_config`` keys, e.g.
    ``fcnet_hiddens``; RLlib's defaults where left out); RLlib fills in the spaces from the env."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    return RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=dict(model_config or {}))


class ModuleAgent(Agent):
    """An agent backed by a masked RLlib module: the likeliest legal action (its inference pass),
    so the evaluators of :mod:`monster_zoo.training.learner_eval` and :mod:`monster_zoo.evaluation.match`
    can play it."""

    def __init__(self, module: MaskedPPOTorchRLModule, name: str = "rllib", seed: int = 0):
        self.module = module
        self.name = name
        super().__init__(seed)

    def act_batch(self, observations, masks, states=None):
        """The likeliest legal action of each row."""
        batch = {
            Columns.OBS: {
                OBSERVATIONS: torch.as_tensor(np.asarray(observations, np.float32)),
                ACTION_MASK: torch.as_tensor(np.asarray(masks, np.float32)),
            }
        }
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        return logits.argmax(dim=1).numpy().astype(np.int64)

    def act(self, observation, action_mask, state=None) -> int:
        """The likeliest legal action for one observation."""
        return int(self.act_batch(observation[None], action_mask[None])[0])
