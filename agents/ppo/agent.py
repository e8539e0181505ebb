"""An agent that plays a trained MaskablePPO policy.

Saved models load by name through the registry: ``make_agent("ppo:runs/x/final_model.npz",
game_id, options=...)`` reads a policy file (:mod:`monster_zoo.agents.model_file`: JSON
and arrays, nothing that can run code) and plays it with numpy alone, no torch.
A Stable-Baselines3 ``.zip`` is unpickled only when the name says the file is
trusted (``ppo-trusted:<path>``, needs the ``train`` extra), since unpickling can run
any code; :func:`export_policy` turns such a zip into a policy file once.

The trainer wraps its live policy (evaluation) and frozen snapshots of it (the
self-play pool) in the same class. Observations are scored in batches (one forward
pass for every slot of the training vec env), and sampling uses the agent's own
seeded generator, never torch's global one, so a match stays reproducible from its seed.
"""

import argparse
import re
import warnings
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from monster_zoo import envs
from monster_zoo.agents.base import Agent
from monster_zoo.agents.game_rules import GameRules
from monster_zoo.agents.model_file import ModelFileError, rule_options
from monster_zoo.agents.ppo.placement import PlacementLayout, placement_layout, placement_logits
from monster_zoo.agents.ppo.policy_file import (
    ACTIVATIONS,
    Layer,
    check_fits,
    check_sizes,
    make_metadata,
    read_policy,
    write_policy,
)
from monster_zoo.envs.core.bounded_reading import read_json_file
from monster_zoo.envs.core.options import parse_option
from monster_zoo.envs.core.rng import rng_next

UNIT = 1.0 / 9007199254740992.0  # 2**-53: turns 53 random bits into a float in [0, 1)
_NUMPY_ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0), None: None}
_BLAS = None  # threadpoolctl's controller of the BLAS libraries numpy loaded, made on first use


def one_blas_thread():
    """A context in which numpy's BLAS runs on one thread (restored after).

    A policy's matrices are small: a second BLAS thread gains nothing, and its threads wait on
    each other whenever another process holds a core. Beside one niced process on a 2-core
    machine, a champion's forward pass took 17.5 ms with OpenBLAS's 2 threads and 0.36 ms with
    one (8 rows of Monster Arena's 1,741 inputs into 256 units).
    """
    global _BLAS
    if _BLAS is None:
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController()
    return _BLAS.limit(limits=1, user_api="blas")


RUN_ARGS = "args.json"  # the trainer's arguments, beside its models
MAX_RUN_ARGS_BYTES = 1 << 20  # a run's args.json is a few kilobytes
MAX_RUN_ARGS_DEPTH = 8


def numpy_actor(policy) -> list[Layer] | None:
    """The actor of an SB3 MLP or placement policy as numpy layers ``[(weight, bias, activation)]``
    (a placement policy's in the policy file's order), or None.

    Opponents score a handful of observations at a time, many times per learner
    step; a numpy forward pass costs a fraction of torch's per-call overhead.
    Policies of other shapes (custom extractors) return None and use torch.
    """
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from torch import nn

    if hasattr(policy, "actor_layers"):  # the trainer's placement policy
        trunk = len(placement_trunk(policy))
        return [(w, b, "tanh" if k < trunk else None) for k, (w, b) in enumerate(policy.actor_layers())]
    names = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    if not isinstance(getattr(policy, "pi_features_extractor", policy.features_extractor), FlattenExtractor):
        return None
    layers = []
    for module in [*policy.mlp_extractor.policy_net, policy.action_net]:
        if isinstance(module, nn.Linear):
            layers.append(
                [
                    np.ascontiguousarray(module.weight.detach().numpy().T, dtype=np.float64),
                    module.bias.detach().numpy().astype(np.float64),
                    None,
                ]
            )
        elif type(module) in names and layers and layers[-1][2] is None:
            layers[-1][2] = names[type(module)]
        else:
            return None
    return [tuple(layer) for layer in layers]


def placement_trunk(policy) -> list:
    """The trunk's linear layers of the trainer's placement policy."""
    from torch import nn

    return [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]


class PPOAgent(Agent):
    """Plays ``policy`` (an sb3-contrib ``MaskableActorCriticPolicy``) or numpy ``layers``.

    ``deterministic=True`` plays the most probable legal action (evaluation);
    ``False`` samples from the policy (self-play snapshots, for variety).
    ``frozen=True`` promises the weights will not change (saved models,
    snapshots), which lets the agent score with a copy of them in numpy.
    An agent built from ``layers`` (a policy file) needs no torch at all.
    """

    name = "ppo"

    def __init__(
        self,
        seed: int = 0,
        policy=None,
        deterministic: bool = True,
        name: str = "ppo",
        frozen: bool = False,
        layers: list[Layer] | None = None,
        placement: PlacementLayout | None = None,
    ):
        super().__init__(seed)
        if policy is None and layers is None:
            raise ValueError(
                "PPOAgent needs a policy: use make_agent('ppo:<model.npz>', ...) or pass policy="
            )
        self.policy = policy
        self.deterministic = deterministic
        self.name = name
        # A frozen policy's weights never change, so they can be copied out once.
        self.layers = layers if layers is not None else numpy_actor(policy) if frozen else None
        # A placement policy's layers (``layers`` in the policy file's order) play through
        # placement_logits; the trunk is the layers with an activation.
        self.placement = placement if placement is not None else getattr(policy, "layout", None)
        # A sampling frozen MLP policy can be played inside numba by the training vec env.
        self.policy_mlp = None
        if self.layers is not None and not deterministic and self.placement is None:
            from monster_zoo.envs.core.opponents import ACT_NONE, ACT_RELU, ACT_TANH, MLPWeights

            codes = {None: ACT_NONE, "tanh": ACT_TANH, "relu": ACT_RELU}
            self.policy_mlp = MLPWeights([(w, b, codes[act]) for w, b, act in self.layers])

    @classmethod
    def load(
        cls,
        path: str,
        game_id: str,
        seed: int = 0,
        deterministic: bool = True,
        options: Mapping | None = None,
    ) -> "PPOAgent":
        """Play the policy file ``path`` in ``game_id`` with ``options`` (defaults: the game's).

        ModelFileError (a ValueError) if the file is not a valid policy file or was
        trained for another game, player count or rule option.
        """
        policy = read_policy(path)
        check_fits(policy.metadata, repr(str(path)), game_id, options)
        check_sizes(policy.metadata, repr(str(path)), game_id)
        placement = (
            placement_layout(game_id) if policy.metadata["architecture"]["type"] == "placement" else None
        )
        agent = cls(
            seed, deterministic=deterministic, name=policy.name, layers=policy.layers, placement=placement
        )
        agent.made_for = GameRules.from_options(game_id, policy.metadata["options"])
        return agent

    @classmethod
    def load_trusted_zip(
        cls,
        path: str,
        game_id: str,
        seed: int = 0,
        deterministic: bool = True,
        options: Mapping | None = None,
    ) -> "PPOAgent":
        """Unpickle the SB3 ``.zip`` ``path`` (which can run code: only for files you trust).

        The game is checked against the trainer's ``args.json`` beside the zip (or
        one folder up, for checkpoints) when there is one, else only the sizes are.
        """
        model = _load_sb3_zip(path)
        _check_zip_sizes(model, path, game_id)
        trained = training_game(path)
        if trained is None:
            warnings.warn(
                f"model {str(path)!r} has no {RUN_ARGS} beside it: only its sizes were checked "
                f"against {game_id}, not its player count or options",
                stacklevel=2,
            )
        else:
            check_fits(trained, repr(str(path)), game_id, options)
        agent = cls(
            seed, model.policy, deterministic, name=trained["name"] if trained else "ppo", frozen=True
        )
        # Without the run's arguments only the game is known, not its player count or options.
        agent.made_for = (
            GameRules.from_options(game_id, trained["options"]) if trained else GameRules.any_rules(game_id)
        )
        return agent

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
            with one_blas_thread():
                if self.placement is not None:
                    trunk = sum(act is not None for _, _, act in self.layers)
                    x = placement_logits(self.placement, self.layers, trunk, x, np.tanh)
                else:
                    for weight, bias, activation in self.layers:
                        x = x @ weight + bias
                        if activation is not None:
                            x = _NUMPY_ACTIVATIONS[activation](x)
            x = np.where(np.asarray(masks) != 0, x, -np.inf)
            x = np.exp(x - x.max(axis=1, keepdims=True))
            return x / x.sum(axis=1, keepdims=True)
        import torch

        with torch.no_grad():
            obs = torch.as_tensor(np.asarray(observations, np.float32))
            dist = self.policy.get_distribution(obs, action_masks=np.asarray(masks, bool))
            return dist.distribution.probs.numpy().astype(np.float64)

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, states: np.ndarray | None = None
    ) -> np.ndarray:
        """One action per row: the argmax, or a draw from the agent's generator."""
        self.check_view(observations, masks, states)
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

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: np.ndarray | None = None) -> int:
        """The policy's action for one observation (``state``, when given, is only checked: see
        :meth:`~monster_zoo.agents.base.Agent.check_view`)."""
        if not np.any(action_mask):
            raise ValueError("the action mask allows no action: this agent is not on move")
        states = None if state is None else np.asarray(state)[None]
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None], states)[0])


def save_policy(
    policy, path, game_id: str, options: Mapping | None, name: str, training: Mapping | None = None
) -> Path:
    """Write the actor of the SB3 MLP or placement ``policy`` as a policy file (see :mod:`.policy_file`)."""
    layers = numpy_actor(policy)
    if hasattr(policy, "actor_layers"):
        trunk = placement_trunk(policy)
        metadata = make_metadata(
            game_id,
            options,
            [m.out_features for m in trunk],
            "tanh",
            name,
            training,
            item_sizes=[m.out_features for m in policy.action_net.item[:-1]],
        )
        return write_policy(path, layers, metadata)
    if layers is None or any(act not in ACTIVATIONS for _, _, act in layers[:-1]) or layers[-1][2]:
        raise ModelFileError(
            "only MLP policies with tanh or relu hidden layers can be written as policy files"
        )
    activations = {act for _, _, act in layers[:-1]}
    if len(activations) > 1:
        raise ModelFileError(f"the policy mixes activations {sorted(activations)}; a policy file has one")
    metadata = make_metadata(
        game_id,
        options,
        [w.shape[1] for w, _, _ in layers[:-1]],
        activations.pop() if activations else "tanh",
        name,
        training,
    )
    return write_policy(path, layers, metadata)


def training_game(zip_path) -> dict | None:
    """``{"game", "options", "name"}`` from the trainer's ``args.json`` beside an SB3 zip (or
    one folder up, for ``checkpoints/``), or None when there is none."""
    zip_path = Path(zip_path)
    for folder in (zip_path.parent, zip_path.parent.parent):
        args_file = folder / RUN_ARGS
        if args_file.is_file():
            args = read_json_file(
                args_file, MAX_RUN_ARGS_BYTES, MAX_RUN_ARGS_DEPTH, str(args_file), ModelFileError
            )
            step = re.fullmatch(r"step_(\d+)", zip_path.stem) if folder != zip_path.parent else None
            return _game_of_run(args, args_file, int(step.group(1)) if step else None)
    return None


def _game_of_run(args, args_file: Path, step: int | None) -> dict:
    """The game, rule options and model name (of the checkpoint at ``step``, if any) recorded by a
    training run's ``args.json``."""
    if (
        not isinstance(args, dict)
        or not isinstance(args.get("game"), str)
        or not isinstance(args.get("option", []), list)
    ):
        raise ModelFileError(f"{args_file} is not the args.json of a monster-zoo training run")
    try:
        options = dict(parse_option(str(pair)) for pair in args.get("option", []))
        trained = rule_options(args["game"], options)
    except (ValueError, TypeError, argparse.ArgumentTypeError) as err:
        raise ModelFileError(f"{args_file}: {err}") from None
    return {
        "game": args["game"],
        "options": trained,
        "name": run_model_name(str(args.get("exp_name", "ppo")), args.get("seed"), step),
    }


def run_model_name(exp_name: str, seed, step: int | None = None) -> str:
    """The short name of a training run's model in tables: ``demo-s1`` (``demo-s1@250000`` for a checkpoint)."""
    return f"{exp_name}-s{seed}" + (f"@{step}" if step is not None else "")


def _load_sb3_zip(path):
    """``MaskablePPO.load`` (unpickles: callers have the user's trust); ModelFileError if it fails."""
    from sb3_contrib import MaskablePPO

    if not Path(path).is_file():
        raise ModelFileError(
            f"model {str(path)!r}: " + ("is not a file" if Path(path).exists() else "no such file")
        )
    try:
        return MaskablePPO.load(path, device="cpu")
    except Exception as err:  # SB3 raises anything from KeyError to pickle errors for a bad zip
        raise ModelFileError(
            f"model {str(path)!r} is not a MaskablePPO zip ({type(err).__name__}: {err})"
        ) from None


def _check_zip_sizes(model, path, game_id: str) -> None:
    """ModelFileError unless the SB3 model's spaces fit ``game_id``."""
    spec = envs.spec(game_id)
    obs_shape = getattr(model.observation_space, "shape", None)
    n_actions = getattr(model.action_space, "n", None)
    if obs_shape != (spec.obs_size,) or n_actions != spec.num_actions:
        raise ModelFileError(
            f"model {str(path)!r} has observations {obs_shape} and {n_actions} actions; "
            f"{game_id} needs ({spec.obs_size},) and {spec.num_actions}"
        )


def export_policy(zip_path, out_path, game_id: str | None = None, options: Mapping | None = None) -> Path:
    """Convert a trusted SB3 zip into a policy file; the zip IS unpickled (it can run code).

    The game and options come from the run's ``args.json`` when there is one (and must
    agree with ``game_id``/``options`` if those are given too), else from the arguments.
    """
    trained = training_game(zip_path)
    if trained is None and game_id is None:
        raise ModelFileError(
            f"{str(zip_path)!r} has no {RUN_ARGS} beside it: say which game it plays "
            "(--game, and --option for each option it was trained with)"
        )
    if trained is not None and game_id is not None:
        check_fits(trained, repr(str(zip_path)), game_id, options)
    game = trained["game"] if trained else game_id
    bound = trained["options"] if trained else rule_options(game_id, options)
    model = _load_sb3_zip(zip_path)
    _check_zip_sizes(model, zip_path, game)
    name = trained["name"] if trained else Path(zip_path).stem
    return save_policy(
        model.policy,
        out_path,
        game,
        bound,
        name,
        {
            "algorithm": "MaskablePPO",
            "timesteps": int(model.num_timesteps),
            "converted_from": Path(zip_path).name,
        },
    )
