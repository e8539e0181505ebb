"""An agent that plays a MaskablePPO policy (needs the ``train`` extra: torch, sb3-contrib).

Load a saved model by name through the registry (``make_agent("ppo:runs/x/final_model.zip",
game_id)``) or wrap a live policy, as the self-play trainer does for its frozen
snapshots. Observations are scored in batches (one forward pass for every slot of
the training vec env), and sampling uses the agent's own seeded generator, never
torch's global one, so a match stays reproducible from its seed.
"""
from typing import Optional

import numpy as np
import torch

from monster_zoo import envs
from monster_zoo.envs.core.rng import rng_next
from monster_zoo.envs.core.opponents import ACT_NONE, ACT_RELU, ACT_TANH, MLPWeights

from .base import Agent

UNIT = 1.0 / 9007199254740992.0  # 2**-53: turns 53 random bits into a float in [0, 1)
_ACTIVATIONS = {torch.nn.Tanh: (np.tanh, ACT_TANH), torch.nn.ReLU: (lambda x: np.maximum(x, 0.0), ACT_RELU)}


def numpy_actor(policy):
    """The actor of an SB3 MLP policy as numpy layers ``[(weight, bias, activation)]``, or None.

    Opponents score a handful of observations at a time, many times per learner
    step; a numpy forward pass costs a fraction of torch's per-call overhead.
    Policies of other shapes (custom extractors) return None and use torch.
    """
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from torch import nn

    if not isinstance(getattr(policy, "pi_features_extractor", policy.features_extractor), FlattenExtractor):
        return None
    layers = []
    for module in [*policy.mlp_extractor.policy_net, policy.action_net]:
        if isinstance(module, nn.Linear):
            layers.append([np.ascontiguousarray(module.weight.detach().numpy().T, dtype=np.float64),
                           module.bias.detach().numpy().astype(np.float64), None])
        elif type(module) in _ACTIVATIONS and layers and layers[-1][2] is None:
            layers[-1][2] = _ACTIVATIONS[type(module)]
        else:
            return None
    return [(w, b, act if act is not None else (None, ACT_NONE)) for w, b, act in layers]


class PPOAgent(Agent):
    """Plays ``policy`` (an sb3-contrib ``MaskableActorCriticPolicy``).

    ``deterministic=True`` plays the most probable legal action (evaluation);
    ``False`` samples from the policy (self-play snapshots, for variety).
    ``frozen=True`` promises the weights will not change (saved models,
    snapshots), which lets the agent score with a copy of them in numpy.
    """

    name = "ppo"

    def __init__(self, seed: int = 0, policy=None, deterministic: bool = True, name: str = "ppo",
                 frozen: bool = False):
        super().__init__(seed)
        if policy is None:
            raise ValueError("PPOAgent needs a policy: use PPOAgent.load(path, game_id) or pass policy=")
        self.policy = policy
        self.deterministic = deterministic
        self.name = name
        # A frozen policy's weights never change, so they can be copied out once.
        self.layers = numpy_actor(policy) if frozen else None
        # A sampling frozen policy can be played inside numba by the training vec env.
        self.policy_mlp = None
        if self.layers is not None and not deterministic:
            self.policy_mlp = MLPWeights([(w, b, code) for w, b, (_, code) in self.layers])

    @classmethod
    def load(cls, path: str, game_id: str, seed: int = 0, deterministic: bool = True) -> "PPOAgent":
        """Load a MaskablePPO ``.zip`` saved by the trainer; ValueError if it does not fit the game."""
        from sb3_contrib import MaskablePPO

        try:
            model = MaskablePPO.load(path, device="cpu")
        except FileNotFoundError:
            raise ValueError(f"no saved model at {path!r}") from None
        spec = envs.spec(game_id)
        obs_shape, n_actions = model.observation_space.shape, model.action_space.n
        if obs_shape != (spec.obs_size,) or n_actions != spec.num_actions:
            raise ValueError(f"model {path!r} has observations {obs_shape} and {n_actions} actions; "
                             f"{game_id} needs ({spec.obs_size},) and {spec.num_actions}")
        return cls(seed, model.policy, deterministic, name=f"ppo:{path}", frozen=True)

    @classmethod
    def snapshot(cls, policy, seed: int, name: str) -> "PPOAgent":
        """A frozen, sampling copy of a policy in training (later updates do not reach it)."""
        # Rebuilt from its constructor and weights: deepcopy fails on the
        # distribution tensors a policy keeps from its last update.
        frozen = type(policy)(**policy._get_constructor_parameters())
        frozen.load_state_dict(policy.state_dict())
        frozen.set_training_mode(False)
        return cls(seed, frozen, deterministic=False, name=name, frozen=True)

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's action probabilities, illegal actions at zero (rows as inputs)."""
        if self.layers is not None:
            x = np.asarray(observations, np.float64)
            for weight, bias, (activation, _) in self.layers:
                x = x @ weight + bias
                if activation is not None:
                    x = activation(x)
            x = np.where(np.asarray(masks) != 0, x, -np.inf)
            x = np.exp(x - x.max(axis=1, keepdims=True))
            return x / x.sum(axis=1, keepdims=True)
        with torch.no_grad():
            obs = torch.as_tensor(np.asarray(observations, np.float32))
            dist = self.policy.get_distribution(obs, action_masks=np.asarray(masks, bool))
            return dist.distribution.probs.numpy().astype(np.float64)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray,
                  states: Optional[np.ndarray] = None) -> np.ndarray:
        """One action per row: the argmax, or a draw from the agent's generator."""
        masks = np.asarray(masks)
        probs = self.probabilities(observations, masks) * (masks != 0)
        if self.deterministic:
            return probs.argmax(axis=1).astype(np.int64)
        cdf = np.cumsum(probs, axis=1)
        draws = np.array([(rng_next(self.rng) >> np.uint64(11)) * UNIT for _ in range(len(masks))])
        actions = (cdf < (draws * cdf[:, -1])[:, None]).sum(axis=1)
        # Rounding can put a draw past the last legal action; fall back to the likeliest.
        stray = masks[np.arange(len(masks)), np.minimum(actions, masks.shape[1] - 1)] == 0
        actions[stray] = probs[stray].argmax(axis=1)
        return actions.astype(np.int64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray,
            state: Optional[np.ndarray] = None) -> int:
        """The policy's action for one observation."""
        if not np.any(action_mask):
            raise ValueError("the action mask allows no action: this agent is not on move")
        return int(self.act_batch(observation[None], np.asarray(action_mask)[None])[0])
