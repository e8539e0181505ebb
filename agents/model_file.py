"""Model files: trained networks stored as data that cannot run code when loaded, and the one
opener that reads every kind of them (:func:`read_model`).

A model file (``.npz``) is a zip archive holding

* ``metadata.json``: plain JSON (``FORMAT``, ``format_version``, the ``game`` id and its rule
  ``options``, ``observation_size``, the game's ``observation_version``, ``num_actions``, the
  ``architecture``, a short ``name`` for tables and ``training`` facts such as the algorithm,
  seed and timesteps: ``COMMON_FIELDS``), plus fields of its kind;
* one ``.npy`` array per weight and bias of the network, named by its kind.

The kinds that read model files say what their architecture holds: PPO's policy files
(:mod:`monster_zoo.agents.ppo.policy_file`: ``mlp`` and ``placement``) and learned search's
networks (:mod:`monster_zoo.agents.network`: ``az-mlp``). :func:`read_model` checks the path,
opens the archive, reads and checks the common metadata (:func:`check_common`), asks the kind's
``arrays`` for its architecture's member names and shapes, and reads them.

Reading parses the JSON with ``json`` and every array from its ``.npy`` bytes after checking
its header against the shape the metadata promises (object arrays, which need unpickling, are
refused), so nothing in a file is ever executed. Every read is bounded before anything is
allocated: the file must be a regular file of at most ``MAX_FILE_BYTES``; ``metadata.json``
is read in chunks up to ``MAX_METADATA_BYTES`` whatever its zip header claims, and nests at
most ``MAX_METADATA_DEPTH`` levels; an architecture has at most ``MAX_HIDDEN_LAYERS``
hidden layers (per network) of at most ``MAX_LAYER_UNITS`` units and ``MAX_PARAMETERS``
parameters in all; an array entry is read up to its header and the bytes its checked shape
needs; the model's ``name`` has at most ``MAX_NAME_CHARS`` characters and no control
characters. The shipped champions have two hidden layers of 256 units and under a million
parameters, so the caps are more than ten times what a real model here needs. Playing a model
file needs numpy alone (no torch). Unpickling a Stable-Baselines3 zip, in contrast, can run any
code: :mod:`monster_zoo.agents.ppo.agent` does it only for files the user says they trust
(``ppo-trusted:<path>``).

A model knows its game: ``rule_options`` are the options it is bound to (options in
``PLAY_TIME_OPTIONS`` change neither the rules nor the observation and are played as
asked), and ``sizes_problem`` says when its game's observation has changed since.
"""

import json
import math
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from monster_zoo import envs
from monster_zoo.envs.core.bounded_reading import (
    BoundedReader,
    open_regular_file,
    parse_json,
    read_at_most,
)
from monster_zoo.envs.core.escaping import visible

FORMAT = "monster-zoo-policy"
FORMAT_VERSION = 1
METADATA = "metadata.json"
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


class ModelFileError(ValueError):
    """A model file that cannot be used: unreadable, malformed, unsafe or for another game."""


def rule_options(game_id: str, options: Mapping | None = None) -> dict:
    """The options a model is bound to: ``options`` over the game's defaults, validated, without
    ``PLAY_TIME_OPTIONS``, as plain JSON values (tuples become lists)."""
    from monster_zoo.envs.core.options import resolve_options

    resolved = resolve_options(game_id, envs.spec(game_id).options, dict(options or {}))
    return json.loads(json.dumps({k: v for k, v in resolved.items() if k not in PLAY_TIME_OPTIONS}))


def describe(game_id: str, options: Mapping) -> str:
    """``marry_the_monster-v0 with num_players=2`` (every rule option, for error messages)."""
    listed = ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in sorted(options.items()))
    return f"{game_id} with {listed}" if listed else game_id


def fail(label: str, problem: str):
    """Raise the ModelFileError ``<label>: <problem>`` (``label``: ``"model 'x.npz'"``)."""
    raise ModelFileError(f"{label}: {problem}")


def _check_type(label: str, where: str, value, kind, what: str):
    """``value`` must be a ``kind`` (bools are not ints); else a ModelFileError naming ``where``."""
    is_int = kind is int
    if not isinstance(value, kind) or (is_int and isinstance(value, bool)):
        fail(label, f"metadata field {where} must be {what}, not {json.dumps(value)[:60]}")


# The fields every model file's metadata has, whatever its architecture.
COMMON_FIELDS = {
    "game": (str, "a game id"),
    "options": (dict, "an object of options"),
    "observation_size": (int, "an integer"),
    "observation_version": (int, "an integer"),
    "num_actions": (int, "an integer"),
    "architecture": (dict, "an object"),
    "name": (str, "a string"),
    "training": (dict, "an object"),
}


def check_common(metadata, label: str, fields: Mapping | None = None) -> None:
    """ModelFileError unless ``metadata`` is a well-formed model file's of this version of the
    format: its format, its version, the ``COMMON_FIELDS`` and ``fields`` (a kind's own, name ->
    (type, what it must be)) of the right types, a game this monster-zoo has, sizes of at least
    1 and a short printable name. The architecture's own fields are the kind's to check."""
    _check_type(label, "(the whole)", metadata, dict, "a JSON object")
    if metadata.get("format") != FORMAT:
        fail(label, f"is not a {FORMAT} file (format {metadata.get('format')!r})")
    version = metadata.get("format_version")
    _check_type(label, "format_version", version, int, "an integer")
    if version != FORMAT_VERSION:
        fail(
            label,
            f"has format version {version}; this monster-zoo reads version {FORMAT_VERSION} "
            "(re-export the model with the monster-zoo that trained it)",
        )
    required = {**COMMON_FIELDS, **(fields or {})}
    missing = sorted(set(required) - set(metadata))
    if missing:
        fail(label, f"metadata lacks {', '.join(missing)}")
    for key, (kind, what) in required.items():
        _check_type(label, key, metadata[key], kind, what)
    if not envs.registry.registered(metadata["game"]):
        fail(
            label,
            f"is for game {metadata['game']!r}, which this monster-zoo does not have "
            f"(available: {', '.join(envs.available())})",
        )
    for key in ("observation_size", "num_actions"):
        if metadata[key] < 1:
            fail(label, f"metadata field {key} must be at least 1")
    problem = name_problem(metadata["name"])
    if problem:
        fail(label, problem)
    if not metadata["name"]:
        fail(label, "metadata field name is empty")


def sizes_problem(metadata: Mapping, game_id: str) -> str | None:
    """Why a model's observation or action size, or the version of its game's observation, is not
    ``game_id``'s as it is now (the observation changed since the model was trained), or None."""
    spec = envs.spec(game_id)
    if (metadata["observation_size"], metadata["num_actions"]) != (spec.obs_size, spec.num_actions):
        return (
            f"takes {metadata['observation_size']} observations and gives {metadata['num_actions']} "
            f"actions; {game_id} has {spec.obs_size} and {spec.num_actions}"
        )
    if metadata["observation_version"] != spec.observation_version:
        return (
            f"was trained on version {metadata['observation_version']} of {game_id}'s observation; this "
            f"monster-zoo has version {spec.observation_version}"
        )
    return None


def layer_sizes_problem(where: str, sizes) -> str | None:
    """Why ``sizes``, the metadata field ``where``, is not a list of at most ``MAX_HIDDEN_LAYERS``
    layer sizes from 1 to ``MAX_LAYER_UNITS``, or None (an empty list passes)."""
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


def parameters_problem(weight_shapes: Iterable[tuple[int, int]]) -> str | None:
    """Why layers of these ``(in, out)`` weights, each with a bias of ``out``, hold more than
    ``MAX_PARAMETERS`` parameters, or None."""
    parameters = sum(int(n_in) * int(n_out) + int(n_out) for n_in, n_out in weight_shapes)
    if parameters > MAX_PARAMETERS:
        return f"its architecture has {parameters:,} parameters; the most accepted is {MAX_PARAMETERS:,}"
    return None


def name_problem(name: str) -> str | None:
    """Why a model's ``name`` (shown in tables and terminals) is too long or holds control
    characters, or None."""
    if len(name) > MAX_NAME_CHARS or visible(name) != name:
        return (
            f"metadata field name must be at most {MAX_NAME_CHARS} characters without control "
            f"characters, not {visible(name[:60])!r}"
        )
    return None


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
    file of at most ``MAX_FILE_BYTES`` (a FIFO or a device is refused at once). ModelFileError
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
    chunks up to ``MAX_METADATA_BYTES`` (the size in the zip's header is not trusted), its
    nesting checked against ``MAX_METADATA_DEPTH`` before it is parsed; ModelFileError
    starting with ``label`` otherwise."""
    if METADATA not in archive.namelist():
        raise ModelFileError(f"{label}: has no {METADATA}: not a monster-zoo {kind}")
    with archive.open(METADATA) as entry:
        raw = read_at_most(entry, MAX_METADATA_BYTES, f"{label}: {METADATA}", ModelFileError)
    return parse_json(raw, MAX_METADATA_DEPTH, f"{label}: {METADATA}", ModelFileError)


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
        f = BoundedReader(
            entry, _MAX_NPY_HEADER_BYTES + 8 * math.prod(shape), f"{label}: array {member}", ModelFileError
        )
        try:
            version = np.lib.format.read_magic(f)
            if version not in ((1, 0), (2, 0)):
                raise ValueError(f".npy format version {version} is not read here")
            header = (
                np.lib.format.read_array_header_1_0
                if version == (1, 0)
                else np.lib.format.read_array_header_2_0
            )(f)
        except ModelFileError:
            raise
        except (ValueError, SyntaxError, TypeError) as err:
            fail(f"array {member} is not a .npy array ({err})")
        found_shape, fortran, dtype = header
        if dtype not in _FLOAT_KINDS:
            fail(
                f"array {member} has dtype {dtype}, not float32 or float64"
                + (" (object arrays would need unpickling, which is refused)" if dtype.hasobject else "")
            )
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


def read_model(
    path,
    noun: str,
    kind: str,
    file_word: str,
    default_name: str,
    fields: Mapping | None,
    arrays: Callable[[dict, str], Sequence[tuple[str, tuple]]],
) -> tuple[dict, list[np.ndarray]]:
    """The one opener of every model file: ``(metadata, arrays)`` of the file ``path``, the metadata
    checked by :func:`check_common` (with the kind's own ``fields``) and by ``arrays(metadata,
    label)``, which checks the architecture and gives each array's member name and shape, in the
    order the arrays are returned. ``noun`` starts every message (``"model"``, ``"network"``),
    ``kind`` says what the file should have been (``"policy file"``); a folder is refused naming
    the ``file_word`` to give and ``default_name`` if the folder holds one. ModelFileError with the reason if the file is not a valid one."""
    label = f"{noun} {str(path)!r}"
    path = Path(path)
    if not path.exists():
        fail(label, "no such file")
    if path.is_dir():
        hint = next((f" (did you mean {p}?)" for p in [path / default_name] if p.is_file()), "")
        fail(label, f"is a folder; name the {file_word}{hint}")
    with open_archive(path, label, kind) as archive:
        metadata = read_metadata_json(archive, label, kind)
        check_common(metadata, label, fields)
        return metadata, [
            read_float_array(archive, member, shape, label) for member, shape in arrays(metadata, label)
        ]


def read_metadata(path) -> dict:
    """The metadata of the model file ``path`` (any kind), checked by :func:`check_common`, without
    reading its arrays; ModelFileError with the reason otherwise."""
    label = f"model {str(path)!r}"
    with open_archive(path, label, "model file") as archive:
        metadata = read_metadata_json(archive, label, "model file")
        check_common(metadata, label)
        return metadata
