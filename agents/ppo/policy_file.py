"""Policy files of PPO: trained MLP (or placement) policies stored as data that cannot run code.

A policy file (``.npz``) is a model file (:mod:`monster_zoo.agents.model_file`, the one opener
and its bounds) whose ``architecture`` is ``type`` ``mlp`` (hidden layer sizes and activation)
or ``placement`` (also the item network's sizes, :mod:`monster_zoo.agents.ppo.placement`), with
one ``.npy`` array per layer of the actor, ``actor.<k>.weight`` ``[in, out]`` and
``actor.<k>.bias`` ``[out]`` (the value network is not needed to play and is not kept).

A policy knows its game: :func:`check_fits` refuses another game id, player count or rule option
(the observation of another game or seat count means something else, even where the sizes
agree), while options that change neither the rules nor the observation
(:data:`~monster_zoo.agents.model_file.PLAY_TIME_OPTIONS`) are played as asked;
:func:`check_sizes` refuses a policy whose game's observation has since changed.
"""

import json
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from monster_zoo import envs
from monster_zoo.agents.model_file import (
    FORMAT,
    FORMAT_VERSION,
    METADATA,
    ModelFileError,
    check_common,
    describe,
    fail,
    layer_sizes_problem,
    parameters_problem,
    read_model,
    rule_options,
    sizes_problem,
)
from monster_zoo.agents.ppo.placement import layer_sizes, placement_layout
from monster_zoo.envs.core.safe_writing import open_atomic

ACTIVATIONS = ("tanh", "relu")  # of the hidden layers; the output layer gives logits
ARCHITECTURES = ("mlp", "placement")
# (weight [in, out], bias [out], activation name or None), input layer first
Layer = tuple[np.ndarray, np.ndarray, str | None]


@dataclass(frozen=True)
class PolicyFile:
    """A loaded policy file: its metadata and the actor's layers (float64)."""

    path: str
    metadata: dict
    layers: list[Layer]

    @property
    def name(self) -> str:
        """The model's short name for tables and plots."""
        return self.metadata["name"]


def check_fits(metadata: Mapping, source: str, game_id: str, options: Mapping | None = None) -> None:
    """Refuse (ModelFileError) a model trained for another game, player count or rule option.

    ``options`` are the options of the game it is about to play (defaults filled in);
    options in :data:`PLAY_TIME_OPTIONS` may differ. The message names both games.
    """
    wanted = rule_options(game_id, options)
    trained = metadata["options"]
    if metadata["game"] != game_id or trained != wanted:
        differ = sorted(k for k in set(trained) | set(wanted) if trained.get(k) != wanted.get(k))
        hint = (
            f" (differs in {', '.join(differ)}; play it with "
            + ", ".join(f"{k}={json.dumps(trained[k])}" for k in differ if k in trained)
            + ")"
            if metadata["game"] == game_id
            else ""
        )
        raise ModelFileError(
            f"model {source} was trained for {describe(metadata['game'], trained)}; "
            f"this game is {describe(game_id, wanted)}{hint}"
        )


def check_sizes(metadata: Mapping, source: str, game_id: str) -> None:
    """Refuse (ModelFileError) a policy whose observation or action size is not ``game_id``'s."""
    problem = sizes_problem(metadata, game_id)
    if problem is not None:
        remedy = (
            "its observation changed since the model was trained"
            if problem.startswith("takes")
            else "same size, other meaning: retrain the model"
        )
        raise ModelFileError(f"model {source} {problem} ({remedy})")


def make_metadata(
    game_id: str,
    options: Mapping | None,
    hidden_sizes: list[int],
    activation: str,
    name: str,
    training: Mapping | None = None,
    item_sizes: list[int] | None = None,
) -> dict:
    """The metadata of a policy for ``game_id`` with ``options`` (validated here): an MLP, or a
    placement policy when ``item_sizes`` (its item network's hidden sizes) are given."""
    import monster_zoo

    spec = envs.spec(game_id)
    architecture = {"type": "mlp", "hidden_sizes": [int(h) for h in hidden_sizes], "activation": activation}
    if item_sizes is not None:
        architecture.update(type="placement", item_sizes=[int(k) for k in item_sizes])
    metadata = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": game_id,
        "options": rule_options(game_id, options),
        "observation_size": spec.obs_size,
        "observation_version": spec.observation_version,
        "num_actions": spec.num_actions,
        "architecture": architecture,
        "name": name,
        "training": {"monster_zoo_version": monster_zoo.__version__, **(training or {})},
    }
    validate_metadata(metadata, "the new model")
    return metadata


def write_policy(path, layers: list[Layer], metadata: Mapping) -> Path:
    """Write ``layers`` (float32 on disk) and ``metadata`` to the policy file ``path``, atomically
    (:mod:`monster_zoo.envs.core.safe_writing`: a link at ``path`` is replaced, never followed)."""
    path = Path(path)
    expected = layer_shapes(metadata)
    if [(w.shape, b.shape) for w, b, _ in layers] != expected:
        raise ModelFileError(
            f"layers {[(w.shape, b.shape) for w, b, _ in layers]} do not match the "
            f"architecture of the metadata, {expected}"
        )
    with (
        open_atomic(path) as stream,
        zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED) as archive,
    ):
        archive.writestr(METADATA, json.dumps(metadata, indent=1))
        for k, (weight, bias, _) in enumerate(layers):
            for part, array in (("weight", weight), ("bias", bias)):
                with archive.open(f"actor.{k}.{part}.npy", "w") as member:
                    np.lib.format.write_array(
                        member, np.ascontiguousarray(array, np.float32), allow_pickle=False
                    )
    return path


def validate_metadata(metadata, source: str) -> None:
    """ModelFileError unless ``metadata`` is a well-formed policy's for this version of the format:
    the fields every model file has (:func:`~monster_zoo.agents.model_file.check_common`), then
    the policy's architecture."""
    label = f"model {source}"
    check_common(metadata, label)
    policy_architecture(metadata, label)


def policy_architecture(metadata: Mapping, label: str) -> list[tuple[str, tuple]]:
    """ModelFileError unless the checked ``metadata``'s architecture is a policy's within the caps;
    ``(member, shape)`` of the actor's arrays, in order (the opener's ``arrays``)."""
    arch = metadata["architecture"]
    if arch.get("type") not in ARCHITECTURES:
        fail(label, f"architecture type {arch.get('type')!r} is not one of {', '.join(ARCHITECTURES)}")
    for key in ("hidden_sizes", "item_sizes") if arch["type"] == "placement" else ("hidden_sizes",):
        sizes = arch.get(key)
        problem = layer_sizes_problem(f"architecture.{key}", sizes)
        if problem:
            fail(label, problem)
        if arch["type"] == "placement" and not sizes:
            fail(label, f"architecture.{key} of a placement policy needs at least one layer")
    if arch["type"] == "placement" and placement_layout(metadata["game"]) is None:
        fail(label, f"is a placement policy, but {metadata['game']} has no placement actions")
    if arch.get("activation") not in ACTIVATIONS:
        fail(
            label,
            f"architecture.activation {arch.get('activation')!r} is not one of {', '.join(ACTIVATIONS)}",
        )
    shapes = layer_shapes(metadata)
    problem = parameters_problem(weight for weight, _ in shapes)
    if problem:
        fail(label, problem)
    return [
        (f"actor.{k}.{part}.npy", shape)
        for k, layer in enumerate(shapes)
        for part, shape in zip(("weight", "bias"), layer)
    ]


def layer_shapes(metadata: Mapping) -> list[tuple[tuple[int, int], tuple[int]]]:
    """``(weight shape, bias shape)`` of every layer the metadata's architecture has."""
    arch = metadata["architecture"]
    if arch["type"] == "placement":
        sizes = layer_sizes(
            placement_layout(metadata["game"]),
            metadata["observation_size"],
            arch["hidden_sizes"],
            arch["item_sizes"],
        )
        return [((n_in, n_out), (n_out,)) for n_in, n_out in sizes]
    sizes = [metadata["observation_size"], *arch["hidden_sizes"], metadata["num_actions"]]
    return [((n_in, n_out), (n_out,)) for n_in, n_out in zip(sizes, sizes[1:])]


def hidden_activation(metadata: Mapping, k: int, layers: int) -> str | None:
    """The activation after layer ``k`` of ``layers`` in the policy file's order (None: logits or
    a layer whose output another layer's adds to first, as a placement policy's)."""
    arch = metadata["architecture"]
    if arch["type"] == "placement":
        return arch["activation"] if k < len(arch["hidden_sizes"]) else None
    return arch["activation"] if k < layers - 1 else None


def read_policy(path) -> PolicyFile:
    """Load the policy file ``path`` through the one opener (:func:`monster_zoo.agents.model_file.read_model`);
    ModelFileError with the reason if it is not a valid one."""
    metadata, arrays = read_model(
        path, "model", "policy file", "model file", "final_model.npz", None, policy_architecture
    )
    layers = len(arrays) // 2
    return PolicyFile(
        str(path),
        metadata,
        [(arrays[2 * k], arrays[2 * k + 1], hidden_activation(metadata, k, layers)) for k in range(layers)],
    )
