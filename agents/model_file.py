"""Policy files: trained MLP policies stored as data that cannot run code when loaded.

A policy file (``.npz``) is a zip archive holding

* ``metadata.json``: plain JSON (:data:`FORMAT`, ``format_version``, the ``game`` id and
  its rule ``options`` including ``num_players``, ``observation_size``, the game's
  ``observation_version``, ``num_actions``,
  the ``architecture`` - ``type`` ``mlp`` (hidden layer sizes and activation) or ``placement``
  (also the item network's sizes, see :mod:`monster_zoo.agents.ppo.placement`) - a short
  ``name`` for tables,
  and ``training`` facts such as the algorithm, seed and timesteps);
* one ``.npy`` array per layer of the actor, ``actor.<k>.weight`` ``[in, out]`` and
  ``actor.<k>.bias`` ``[out]`` (the value network is not needed to play and is not kept).

Reading parses the JSON with :mod:`json` and every array from its ``.npy`` bytes after
checking its header against the shape the metadata promises (object arrays, which need
unpickling, are refused), so nothing in a file is ever executed. Every read is bounded before
anything is allocated: the file must be a regular file of at most :data:`MAX_FILE_BYTES`;
``metadata.json`` is read in chunks up to :data:`MAX_METADATA_BYTES` whatever its zip header
claims, and nests at most :data:`MAX_METADATA_DEPTH` levels; the architecture has at most
:data:`MAX_HIDDEN_LAYERS` hidden layers (per network) of at most :data:`MAX_LAYER_UNITS` units
and :data:`MAX_PARAMETERS` parameters in all; an array entry is read up to its header and the
bytes its checked shape needs; the model's ``name`` has at most :data:`MAX_NAME_CHARS`
characters and no control characters. The shipped champions have two hidden layers of 256
units and under a million parameters, and the trainer's default is ``--net-arch 256,256``, so
the caps are more than ten times what a real model here needs. The network files of learned
search (:mod:`monster_zoo.agents.az.network`) are read by the same helpers
(:func:`open_archive`, :func:`read_metadata_json`, :func:`read_float_array`) within the same caps. Playing
a policy file needs numpy alone (no torch). Unpickling a Stable-Baselines3 zip, in
contrast, can run any code: :mod:`monster_zoo.agents.ppo.agent` does it only for
files the user says they trust (``ppo-trusted:<path>``).

A model knows its game: :func:`check_fits` refuses another game id, player count
or rule option (the observation of another game or seat count means something
else, even where the sizes agree), while options that change neither the rules
nor the observation (:data:`PLAY_TIME_OPTIONS`: the truncation limit, the reward
mode, illegal-action handling, rendering, the observation's form) are played as
asked; :func:`check_sizes` refuses a model whose game's observation has since changed size.
"""
import json
import math
import zipfile
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Mapping, Optional, Tuple

import numpy as np

from monster_zoo import envs
from monster_zoo.envs.core.bounded_reading import BoundedReader, check_json_depth, open_regular_file, read_at_most
from monster_zoo.envs.core.escaping import visible
from monster_zoo.envs.core.safe_writing import open_atomic

from monster_zoo.agents.ppo.placement import layer_sizes, placement_layout

FORMAT = "monster-zoo-policy"
FORMAT_VERSION = 1
METADATA = "metadata.json"
SUFFIX = ".npz"
ACTIVATIONS = ("tanh", "relu")  # of the hidden layers; the output layer gives logits
ARCHITECTURES = ("mlp", "placement")
# Options that change neither the rules nor what a seat observes: a model plays under any value.
PLAY_TIME_OPTIONS = frozenset({"max_steps", "reward", "illegal_action", "render_mode", "observation"})
# Bounds of what a policy file may hold (see the module doc).
MAX_FILE_BYTES = 256 << 20
MAX_METADATA_BYTES = 1 << 20
MAX_METADATA_DEPTH = 32
MAX_HIDDEN_LAYERS = 8
MAX_LAYER_UNITS = 4096
MAX_PARAMETERS = 16_000_000
MAX_NAME_CHARS = 128
_MAX_NPY_HEADER_BYTES = 1 << 14  # numpy itself refuses headers over 10,000 characters
# What a damaged or hostile zip entry raises while it is read: bad CRC or data, a cut-off stream,
# an unknown compression method, an encrypted entry.
_ZIP_READ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError)
_FLOAT_KINDS = (np.dtype(np.float32), np.dtype(np.float64))

# (weight [in, out], bias [out], activation name or None), input layer first
Layer = Tuple[np.ndarray, np.ndarray, Optional[str]]


class ModelFileError(ValueError):
    """A model file that cannot be used: unreadable, malformed, unsafe or for another game."""


@dataclass(frozen=True)
class PolicyFile:
    """A loaded policy file: its metadata and the actor's layers (float64)."""

    path: str
    metadata: dict
    layers: List[Layer]

    @property
    def name(self) -> str:
        """The model's short name for tables and plots."""
        return self.metadata["name"]


def rule_options(game_id: str, options: Optional[Mapping] = None) -> Dict:
    """The options a model is bound to: ``options`` over the game's defaults, validated, without
    :data:`PLAY_TIME_OPTIONS`, as plain JSON values (tuples become lists)."""
    from monster_zoo.envs.core.options import resolve_options

    resolved = resolve_options(game_id, envs.spec(game_id).options, dict(options or {}))
    return json.loads(json.dumps({k: v for k, v in resolved.items() if k not in PLAY_TIME_OPTIONS}))


def describe(game_id: str, options: Mapping) -> str:
    """``marry_the_monster-v0 with num_players=2`` (every rule option, for error messages)."""
    listed = ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in sorted(options.items()))
    return f"{game_id} with {listed}" if listed else game_id


def check_fits(metadata: Mapping, source: str, game_id: str, options: Optional[Mapping] = None) -> None:
    """Refuse (ModelFileError) a model trained for another game, player count or rule option.

    ``options`` are the options of the game it is about to play (defaults filled in);
    options in :data:`PLAY_TIME_OPTIONS` may differ. The message names both games.
    """
    wanted = rule_options(game_id, options)
    trained = metadata["options"]
    if metadata["game"] != game_id or trained != wanted:
        differ = sorted(k for k in set(trained) | set(wanted) if trained.get(k) != wanted.get(k))
        hint = (f" (differs in {', '.join(differ)}; play it with "
                + ", ".join(f"{k}={json.dumps(trained[k])}" for k in differ if k in trained) + ")"
                if metadata["game"] == game_id else "")
        raise ModelFileError(f"model {source} was trained for {describe(metadata['game'], trained)}; "
                             f"this game is {describe(game_id, wanted)}{hint}")


def check_sizes(metadata: Mapping, source: str, game_id: str) -> None:
    """Refuse (ModelFileError) a policy whose observation or action size is not ``game_id``'s."""
    spec = envs.spec(game_id)
    if (metadata["observation_size"], metadata["num_actions"]) != (spec.obs_size, spec.num_actions):
        raise ModelFileError(
            f"model {source} takes {metadata['observation_size']} observations and gives "
            f"{metadata['num_actions']} actions; {game_id} has {spec.obs_size} and {spec.num_actions} "
            "(its observation changed since the model was trained)")
    if metadata["observation_version"] != spec.observation_version:
        raise ModelFileError(
            f"model {source} was trained on version {metadata['observation_version']} of {game_id}'s "
            f"observation; this monster-zoo has version {spec.observation_version} (same size, other "
            "meaning: retrain the model)")


def make_metadata(game_id: str, options: Optional[Mapping], hidden_sizes: List[int], activation: str,
                  name: str, training: Optional[Mapping] = None, item_sizes: Optional[List[int]] = None) -> dict:
    """The metadata of a policy for ``game_id`` with ``options`` (validated here): an MLP, or a
    placement policy when ``item_sizes`` (its item network's hidden sizes) are given."""
    import monster_zoo

    spec = envs.spec(game_id)
    architecture = {"type": "mlp", "hidden_sizes": [int(h) for h in hidden_sizes], "activation": activation}
    if item_sizes is not None:
        architecture.update(type="placement", item_sizes=[int(k) for k in item_sizes])
    metadata = {"format": FORMAT, "format_version": FORMAT_VERSION, "game": game_id,
                "options": rule_options(game_id, options), "observation_size": spec.obs_size,
                "observation_version": spec.observation_version, "num_actions": spec.num_actions,
                "architecture": architecture,
                "name": name, "training": {"monster_zoo_version": monster_zoo.__version__, **(training or {})}}
    validate_metadata(metadata, "the new model")
    return metadata


def write_policy(path, layers: List[Layer], metadata: Mapping) -> Path:
    """Write ``layers`` (float32 on disk) and ``metadata`` to the policy file ``path``, atomically
    (:mod:`monster_zoo.envs.core.safe_writing`: a link at ``path`` is replaced, never followed)."""
    path = Path(path)
    expected = layer_shapes(metadata)
    if [(w.shape, b.shape) for w, b, _ in layers] != expected:
        raise ModelFileError(f"layers {[(w.shape, b.shape) for w, b, _ in layers]} do not match the "
                             f"architecture of the metadata, {expected}")
    with open_atomic(path) as stream, zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(METADATA, json.dumps(metadata, indent=1))
        for k, (weight, bias, _) in enumerate(layers):
            for part, array in (("weight", weight), ("bias", bias)):
                with archive.open(f"actor.{k}.{part}.npy", "w") as member:
                    np.lib.format.write_array(member, np.ascontiguousarray(array, np.float32),
                                              allow_pickle=False)
    return path


def _fail(source: str, problem: str):
    raise ModelFileError(f"model {source}: {problem}")


def _check_type(source: str, where: str, value, kind, what: str):
    """``value`` must be a ``kind`` (bools are not ints); else a ModelFileError naming ``where``."""
    is_int = kind is int
    if not isinstance(value, kind) or (is_int and isinstance(value, bool)):
        _fail(source, f"metadata field {where} must be {what}, not {json.dumps(value)[:60]}")


def validate_metadata(metadata, source: str) -> None:
    """ModelFileError unless ``metadata`` is well-formed for this version of the format."""
    _check_type(source, "(the whole)", metadata, dict, "a JSON object")
    if metadata.get("format") != FORMAT:
        _fail(source, f"is not a {FORMAT} file (format {metadata.get('format')!r})")
    version = metadata.get("format_version")
    _check_type(source, "format_version", version, int, "an integer")
    if version != FORMAT_VERSION:
        _fail(source, f"has format version {version}; this monster-zoo reads version {FORMAT_VERSION} "
              "(re-export the model with the monster-zoo that trained it)")
    required = {"game": (str, "a game id"), "options": (dict, "an object of options"),
                "observation_size": (int, "an integer"), "observation_version": (int, "an integer"),
                "num_actions": (int, "an integer"),
                "architecture": (dict, "an object"), "name": (str, "a string"),
                "training": (dict, "an object")}
    missing = sorted(set(required) - set(metadata))
    if missing:
        _fail(source, f"metadata lacks {', '.join(missing)}")
    for key, (kind, what) in required.items():
        _check_type(source, key, metadata[key], kind, what)
    if not envs.registry.registered(metadata["game"]):
        _fail(source, f"is for game {metadata['game']!r}, which this monster-zoo does not have "
              f"(available: {', '.join(envs.available())})")
    for key in ("observation_size", "num_actions"):
        if metadata[key] < 1:
            _fail(source, f"metadata field {key} must be at least 1")
    problem = name_problem(metadata["name"])
    if problem:
        _fail(source, problem)
    arch = metadata["architecture"]
    if arch.get("type") not in ARCHITECTURES:
        _fail(source, f"architecture type {arch.get('type')!r} is not one of {', '.join(ARCHITECTURES)}")
    for key in ("hidden_sizes", "item_sizes") if arch["type"] == "placement" else ("hidden_sizes",):
        sizes = arch.get(key)
        problem = layer_sizes_problem(f"architecture.{key}", sizes)
        if problem:
            _fail(source, problem)
        if arch["type"] == "placement" and not sizes:
            _fail(source, f"architecture.{key} of a placement policy needs at least one layer")
    if arch["type"] == "placement" and placement_layout(metadata["game"]) is None:
        _fail(source, f"is a placement policy, but {metadata['game']} has no placement actions")
    if arch.get("activation") not in ACTIVATIONS:
        _fail(source, f"architecture.activation {arch.get('activation')!r} is not one of {', '.join(ACTIVATIONS)}")
    if not metadata["name"]:
        _fail(source, "metadata field name is empty")
    problem = parameters_problem(weight for weight, _ in layer_shapes(metadata))
    if problem:
        _fail(source, problem)


def layer_sizes_problem(where: str, sizes) -> Optional[str]:
    """Why ``sizes``, the metadata field ``where``, is not a list of at most :data:`MAX_HIDDEN_LAYERS`
    layer sizes from 1 to :data:`MAX_LAYER_UNITS`, or None (an empty list passes)."""
    if not isinstance(sizes, list):
        return f"metadata field {where} must be a list of layer sizes, not {json.dumps(sizes)[:60]}"
    if len(sizes) > MAX_HIDDEN_LAYERS:
        return f"{where} has {len(sizes)} layers; the most accepted is {MAX_HIDDEN_LAYERS}"
    for size in sizes:
        if not isinstance(size, int) or isinstance(size, bool):
            return f"metadata field {where} must be a list of integers, not {json.dumps(size)[:60]}"
        if size < 1:
            return f"{where} must be positive"
        if size > MAX_LAYER_UNITS:
            return f"{where} holds a layer of {size:,} units; the most accepted is {MAX_LAYER_UNITS:,}"
    return None


def parameters_problem(weight_shapes: Iterable[Tuple[int, int]]) -> Optional[str]:
    """Why layers of these ``(in, out)`` weights, each with a bias of ``out``, hold more than
    :data:`MAX_PARAMETERS` parameters, or None."""
    parameters = sum(int(n_in) * int(n_out) + int(n_out) for n_in, n_out in weight_shapes)
    if parameters > MAX_PARAMETERS:
        return f"its architecture has {parameters:,} parameters; the most accepted is {MAX_PARAMETERS:,}"
    return None


def name_problem(name: str) -> Optional[str]:
    """Why a model's ``name`` (shown in tables and terminals) is too long or holds control
    characters, or None."""
    if len(name) > MAX_NAME_CHARS or visible(name) != name:
        return (f"metadata field name must be at most {MAX_NAME_CHARS} characters without control "
                f"characters, not {visible(name[:60])!r}")
    return None


def layer_shapes(metadata: Mapping) -> List[Tuple[Tuple[int, int], Tuple[int]]]:
    """``(weight shape, bias shape)`` of every layer the metadata's architecture has."""
    arch = metadata["architecture"]
    if arch["type"] == "placement":
        sizes = layer_sizes(placement_layout(metadata["game"]), metadata["observation_size"],
                            arch["hidden_sizes"], arch["item_sizes"])
        return [((n_in, n_out), (n_out,)) for n_in, n_out in sizes]
    sizes = [metadata["observation_size"], *arch["hidden_sizes"], metadata["num_actions"]]
    return [((n_in, n_out), (n_out,)) for n_in, n_out in zip(sizes, sizes[1:])]


def hidden_activation(metadata: Mapping, k: int, layers: int) -> Optional[str]:
    """The activation after layer ``k`` of ``layers`` in the policy file's order (None: logits or
    a layer whose output another layer's adds to first, as a placement policy's)."""
    arch = metadata["architecture"]
    if arch["type"] == "placement":
        return arch["activation"] if k < len(arch["hidden_sizes"]) else None
    return arch["activation"] if k < layers - 1 else None


def is_policy_file(path) -> bool:
    """Whether ``path`` is a zip archive with a ``metadata.json`` (nothing is unpickled to tell, and
    a FIFO or device is not one)."""
    try:
        with open_regular_file(path, MAX_FILE_BYTES, "model") as stream, zipfile.ZipFile(stream) as archive:
            return METADATA in archive.namelist()
    except (ValueError, OSError, zipfile.BadZipFile):
        return False


@contextmanager
def open_archive(path, label: str, kind: str) -> Iterator[zipfile.ZipFile]:
    """The zip archive of the model file ``path`` for reading inside the ``with`` block: a regular
    file of at most :data:`MAX_FILE_BYTES` (a FIFO or a device is refused at once). ModelFileError
    starting with ``label`` (``"model 'x.npz'"``) if it is not a zip archive (not a ``kind``), or
    when an entry read inside the block is damaged (cut off, corrupted, encrypted)."""
    with open_regular_file(path, MAX_FILE_BYTES, label, ModelFileError) as stream:
        try:
            archive = zipfile.ZipFile(stream)
        except (OSError, zipfile.BadZipFile, ValueError) as err:
            raise ModelFileError(f"{label}: is not a {kind} (not a readable .npz archive: {err})") from None
        with archive:
            try:
                yield archive
            except _ZIP_READ_ERRORS as err:
                raise ModelFileError(f"{label}: is damaged ({err})") from None


def read_metadata_json(archive: zipfile.ZipFile, label: str, kind: str):
    """The parsed ``metadata.json`` of an open model archive (a ``kind``), not yet checked: read in
    chunks up to :data:`MAX_METADATA_BYTES` (the size in the zip's header is not trusted), its
    nesting checked against :data:`MAX_METADATA_DEPTH` before it is parsed; ModelFileError
    starting with ``label`` otherwise."""
    if METADATA not in archive.namelist():
        raise ModelFileError(f"{label}: has no {METADATA}: not a monster-zoo {kind}")
    with archive.open(METADATA) as entry:
        raw = read_at_most(entry, MAX_METADATA_BYTES, f"{label}: {METADATA}", ModelFileError)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ModelFileError(f"{label}: {METADATA} is not UTF-8 text ({err})") from None
    check_json_depth(text, MAX_METADATA_DEPTH, f"{label}: {METADATA}", ModelFileError)
    try:
        return json.loads(text)
    except ValueError as err:
        raise ModelFileError(f"{label}: {METADATA} is not valid JSON ({err})") from None


def read_float_array(archive: zipfile.ZipFile, member: str, shape: tuple, label: str) -> np.ndarray:
    """The float array ``member`` of an open model archive as float64, its ``.npy`` header checked
    against ``shape`` before any data is read and no more bytes read than that shape needs; never
    unpickled. ModelFileError starting with ``label`` otherwise."""
    def fail(problem: str):
        raise ModelFileError(f"{label}: {problem}")

    if member not in archive.namelist():
        fail(f"lacks the array {member}")
    with archive.open(member) as entry:
        # float64 is the widest dtype accepted: no valid entry is longer than this
        f = BoundedReader(entry, _MAX_NPY_HEADER_BYTES + 8 * math.prod(shape), f"{label}: array {member}",
                          ModelFileError)
        try:
            version = np.lib.format.read_magic(f)
            if version not in ((1, 0), (2, 0)):
                raise ValueError(f".npy format version {version} is not read here")
            header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                      else np.lib.format.read_array_header_2_0)(f)
        except ModelFileError:
            raise
        except (ValueError, SyntaxError, TypeError) as err:
            fail(f"array {member} is not a .npy array ({err})")
        found_shape, fortran, dtype = header
        if dtype not in _FLOAT_KINDS:
            fail(f"array {member} has dtype {dtype}, not float32 or float64"
                 + (" (object arrays would need unpickling, which is refused)" if dtype.hasobject else ""))
        if found_shape != shape:
            fail(f"array {member} has shape {found_shape}; the architecture needs {shape}")
        size = math.prod(shape) * dtype.itemsize
        data = f.read(size)
    if len(data) != size:
        fail(f"array {member} is damaged (cut off after {len(data)} of {size} bytes)")
    array = np.frombuffer(data, dtype).reshape(shape, order="F" if fortran else "C")
    if not np.isfinite(array).all():
        fail(f"array {member} holds NaN or infinite values")
    return array.astype(np.float64)


def read_policy(path) -> PolicyFile:
    """Load the policy file ``path``; ModelFileError with the reason if it is not a valid one."""
    source = repr(str(path))
    label = f"model {source}"
    path = Path(path)
    if not path.exists():
        _fail(source, "no such file")
    if path.is_dir():
        hint = next((f" (did you mean {p}?)" for p in [path / "final_model.npz"] if p.exists()), "")
        _fail(source, f"is a folder; name the model file{hint}")
    with open_archive(path, label, "policy file") as archive:
        metadata = read_metadata_json(archive, label, "policy file")
        validate_metadata(metadata, source)
        shapes = layer_shapes(metadata)
        layers = []
        for k, (weight_shape, bias_shape) in enumerate(shapes):
            weight = read_float_array(archive, f"actor.{k}.weight.npy", weight_shape, label)
            bias = read_float_array(archive, f"actor.{k}.bias.npy", bias_shape, label)
            layers.append((weight, bias, hidden_activation(metadata, k, len(shapes))))
    return PolicyFile(str(path), metadata, layers)
