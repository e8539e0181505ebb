"""The policy-value network of learned search (``az``): its numba forward pass and its file.

One network plays one game at every player count it was trained for. Its input is the mover's
observation (``observe_into``: seat-relative, own seat first, the same size at every count)
followed by a one-hot of the player count over :data:`MAX_SEATS` entries (index ``n - 1``).
A trunk of ReLU layers feeds two heads:

* **policy**: one logit per action of the game; callers mask the illegal ones;
* **value**: :data:`MAX_SEATS` entries in ``[-1, 1]`` (tanh). Entry ``k`` is the expected final
  return, in the game's ``reward="win"`` scale (ruling C3: +1 for the winner, ``-1/(n-1)`` for
  the others, 0 for everyone in a truncated game), of the seat ``k`` places after the mover:
  entry 0 is the mover's own. Entries ``k >= n`` mean nothing and are not trained.

The forward pass runs in numba on float32 weights stored input-major (``[in, out]``, as policy
files store them): each layer adds ``x[k] * row k`` for the inputs that are not zero, which
skips most of an observation (one-hots, empty cells) and every unit a ReLU switched off. The
search and the network-alone agent call the same kernel, ``forward``; no torch is needed.

**Network files** follow the policy-file conventions of :mod:`monster_zoo.agents.model_file`
(an ``.npz`` zip of ``metadata.json`` and ``.npy`` arrays, nothing unpickled) with the
architecture type :data:`ARCHITECTURE`: ``actor.<k>.weight``/``.bias`` for the trunk and the
policy head (``[in, out]``), ``value.weight``/``.bias`` for the value head, and the metadata
field ``player_counts`` in place of a single ``num_players`` among the ``options``. They are
read by the policy files' own bounded readers, within the policy files' caps: a regular file
(not a FIFO or a device) of at most 256 MiB (``MAX_FILE_BYTES``); ``metadata.json`` read in
chunks up to 1 MiB whatever its zip header claims, nested at most 32 deep (checked before it
is parsed); at most 8 trunk layers (``MAX_HIDDEN_LAYERS``) of at most 4,096 units
(``MAX_LAYER_UNITS``) and 16 million parameters in all (``MAX_PARAMETERS``); a ``name`` of at
most 128 characters without control characters; every array read up to its header and the
bytes its checked shape needs. The networks trained here have two layers of 128 or 256 units
(under a million parameters). A file is written atomically (a new file beside it, then moved
into place), so a reader or an interrupted run never sees half a file.
"""

import json
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit, types

from monster_zoo import envs
from monster_zoo.agents.model_file import (
    FORMAT,
    FORMAT_VERSION,
    METADATA,
    ModelFileError,
    describe,
    fail,
    layer_sizes_problem,
    name_problem,
    parameters_problem,
    read_model,
    rule_options,
    sizes_problem,
)
from monster_zoo.agents.shipped_files import AZ_ARCHITECTURE
from monster_zoo.envs.core.contract import FLOATS, MASK
from monster_zoo.envs.core.kernels import copy_vector
from monster_zoo.envs.core.safe_writing import open_atomic

MAX_SEATS = 6  # value entries and player-count inputs: the most seats any game has
ARCHITECTURE = AZ_ARCHITECTURE  # named where files are read without compiling these kernels
ACTIVATION = "relu"  # of the trunk; the policy head gives logits, the value head tanh
KIND = "network file"  # what the file is, in messages

PARAMS = types.float32[::1]
SHAPES = types.int64[:, ::1]
FLOATS2 = types.float32[:, ::1]

FORWARD_SIG = types.void(PARAMS, SHAPES, FLOATS, FLOATS2, FLOATS, FLOATS)


@dataclass
class AZNetwork:
    """A policy-value network for one game: flat float32 ``params`` the kernels read, and what
    it was trained for.

    ``shapes[l] = (in, out)`` of layer ``l``: the trunk's layers, then the policy head, then
    the value head. ``params`` holds each layer's weight (input-major) then its bias, in order.
    ``options`` are the game's rule options without ``num_players``; ``player_counts`` the
    counts it plays.
    """

    game_id: str
    options: dict
    player_counts: list[int]
    params: np.ndarray
    shapes: np.ndarray
    name: str = "az"
    training: dict = field(default_factory=dict)

    @property
    def hidden_sizes(self) -> list[int]:
        """Widths of the trunk's layers."""
        return [int(out) for _, out in self.shapes[:-2]]

    @property
    def width(self) -> int:
        """The widest layer input or output: the size of the forward pass's scratch rows."""
        return int(self.shapes.max())

    def layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """``(weight [in, out], bias [out])`` of every layer, trunk first, then the policy and
        value heads (views of ``params``)."""
        out, offset = [], 0
        for n_in, n_out in self.shapes:
            weight = self.params[offset : offset + n_in * n_out].reshape(n_in, n_out)
            offset += n_in * n_out
            out.append((weight, self.params[offset : offset + n_out]))
            offset += n_out
        return out

    def scratch(self) -> np.ndarray:
        """Two rows of work space for ``forward``."""
        return np.zeros((2, self.width), np.float32)


def input_size(game_id: str) -> int:
    """The network's input size for ``game_id``: its observation plus the player-count one-hot."""
    return envs.spec(game_id).obs_size + MAX_SEATS


def layer_shapes(game_id: str, hidden_sizes: Sequence[int]) -> np.ndarray:
    """``(in, out)`` of every layer of a network with trunk ``hidden_sizes`` for ``game_id``."""
    spec = envs.spec(game_id)
    sizes = [input_size(game_id), *[int(h) for h in hidden_sizes]]
    shapes = list(zip(sizes, sizes[1:])) + [(sizes[-1], spec.num_actions), (sizes[-1], MAX_SEATS)]
    return np.array(shapes, np.int64)


def from_layers(
    game_id: str,
    options: Mapping | None,
    player_counts: Sequence[int],
    layers: Sequence[tuple[np.ndarray, np.ndarray]],
    name: str = "az",
    training: Mapping | None = None,
) -> AZNetwork:
    """An :class:`AZNetwork` from ``(weight [in, out], bias)`` pairs (trunk, policy head, value
    head), checked against the game; ``options`` are validated and ``num_players`` dropped."""
    counts = check_player_counts(game_id, player_counts)
    bound = network_options(game_id, options)
    hidden = [int(np.shape(w)[1]) for w, _ in layers[:-2]]
    expected = layer_shapes(game_id, hidden)
    found = [(np.shape(w), np.shape(b)) for w, b in layers]
    if found != [((i, o), (o,)) for i, o in expected]:
        raise ModelFileError(
            f"layers {found} do not make an {ARCHITECTURE} network for {game_id} "
            f"(expected {[((int(i), int(o)), (int(o),)) for i, o in expected]})"
        )
    params = np.concatenate([np.concatenate([np.ravel(w), np.ravel(b)]) for w, b in layers]).astype(
        np.float32
    )
    return AZNetwork(game_id, bound, counts, params, expected, name, dict(training or {}))


def random_network(
    game_id: str,
    hidden_sizes: Sequence[int] = (128, 128),
    seed: int = 0,
    player_counts: Sequence[int] | None = None,
    options: Mapping | None = None,
    name: str = "az-random",
) -> AZNetwork:
    """An untrained network (torch's default initialisation: uniform within ``1/sqrt(in)``):
    what training starts from, and what tests search with."""
    spec = envs.spec(game_id)
    counts = list(player_counts or range(spec.min_players, spec.max_players + 1))
    generator = np.random.default_rng(seed)
    layers = []
    for n_in, n_out in layer_shapes(game_id, hidden_sizes):
        bound = 1.0 / np.sqrt(n_in)
        layers.append(
            (generator.uniform(-bound, bound, (n_in, n_out)), generator.uniform(-bound, bound, n_out))
        )
    return from_layers(game_id, options, counts, layers, name)


def network_options(game_id: str, options: Mapping | None) -> dict:
    """The rule options a network is bound to: ``options`` validated over the game's defaults,
    without the play-time options and without ``num_players`` (a network plays several counts)."""
    bound = rule_options(game_id, options)
    bound.pop("num_players", None)
    return bound


def check_player_counts(game_id: str, counts: Sequence[int]) -> list[int]:
    """``counts`` sorted, each a player count ``game_id`` allows; ValueError listing the valid ones."""
    spec = envs.spec(game_id)
    valid = list(range(spec.min_players, spec.max_players + 1))
    counts = sorted({int(c) for c in counts})
    wrong = [c for c in counts if c not in valid]
    if not counts or wrong:
        raise ValueError(
            f"player counts {wrong or 'none'} for {game_id}; valid: {', '.join(map(str, valid))}"
        )
    if spec.max_players > MAX_SEATS:
        raise ValueError(
            f"{game_id} seats up to {spec.max_players} players; {ARCHITECTURE} networks hold {MAX_SEATS}"
        )
    return counts


# --- the forward pass (numba) ------------------------------------------------------------------
@njit(cache=True)
def count_input(n_obs, num_players, x):
    """Write the player-count one-hot of a table of ``num_players`` into ``x`` after its first
    ``n_obs`` entries (the observation's)."""
    for k in range(MAX_SEATS):
        x[n_obs + k] = 0.0
    x[n_obs + num_players - 1] = 1.0


@njit(types.void(FLOATS, types.int64, FLOATS), cache=True)
def network_input(observation, num_players, x):
    """Write the network input for an observation at a table of ``num_players`` into ``x``."""
    copy_vector(x, observation)
    count_input(observation.shape[0], num_players, x)


@njit(cache=True)
def nonzero_indices(values, out):
    """The indices of ``values``' non-zero entries, in ascending order, into ``out`` (at least as
    long); return their count. The search lists a mask's legal actions with it, the forward pass
    an input's non-zero entries.

    Blocks of :data:`NONZERO_BLOCK` entries are tested at once (one vector compare) and skipped
    when all are zero: most entries are zero in both uses (Monster Arena: about 6 of 437 actions
    legal, 3% of its 1,747 inputs non-zero), and a test of every entry, taken at random, cost
    more than the lists' users (``benchmarks/az_forward.py`` measures the pass).
    """
    n = values.shape[0]
    full = n - n % NONZERO_BLOCK
    count = 0
    for start in range(0, full, NONZERO_BLOCK):
        hit = False
        for k in range(start, start + NONZERO_BLOCK):
            hit |= values[k] != 0
        if hit:
            for k in range(start, start + NONZERO_BLOCK):
                if values[k] != 0:
                    out[count] = k
                    count += 1
    for k in range(full, n):
        if values[k] != 0:
            out[count] = k
            count += 1
    return count


NONZERO_BLOCK = 16  # entries tested at once by nonzero_indices: one AVX-512 vector of float32


@njit(cache=True, fastmath=True)
def _dense(weight, bias, source, out, nonzero):
    """``out = source @ weight + bias`` for a 2-D ``[in, out]`` ``weight``; skips zero inputs.

    Input-major rows make the update of all outputs by one input a contiguous vector operation,
    and a zero input costs only its test. The weight is a 2-D array (a view of the flat
    parameters, see :func:`_layer`), not the flat parameters indexed by a running offset: with
    the offset form LLVM could not vectorize the update on every CPU (on an AVX-512 Xeon it ran
    16x slower than this loop; ``benchmarks/az_forward.py`` measures both).

    The non-zero inputs are listed first (into ``nonzero``, at least as long as the input), then
    their rows added (:func:`_dense_listed`): a test inside the loop over rows, taken or not at
    random (a ReLU's outputs), cost 1.3-1.6x the whole pass (``benchmarks/az_forward.py``). The
    sums are the same, in the same order, to the bit.
    """
    _dense_listed(weight, bias, source, nonzero, nonzero_indices(source, nonzero), out)


# The row sums below may contract a product and its sum into one fused multiply-add, as the forward
# pass always has (fastmath), but never reorder the sums (no "reassoc"): every output is the same
# sum in the same order, equal to the bit, however many rows one pass over the outputs adds.
ROW_SUMS = {"contract"}


@njit(cache=True, inline="always")
def _four_rows(weight, source, nonzero, i):
    """The inputs listed at ``nonzero[i:i + 4]`` and their rows of ``weight``: ``(v0, .., v3, r0, .., r3)``."""
    k0, k1, k2, k3 = nonzero[i], nonzero[i + 1], nonzero[i + 2], nonzero[i + 3]
    return source[k0], source[k1], source[k2], source[k3], weight[k0], weight[k1], weight[k2], weight[k3]


@njit(cache=True, fastmath=ROW_SUMS)
def _dense_listed(weight, bias, source, nonzero, count, out):
    """:func:`_dense` over the ``count`` inputs listed in ``nonzero`` (the others zero).

    Eight rows (then four, then one) are added in one pass over the outputs, each output's terms
    in the listed order: the pass loads and stores the outputs an eighth as often, which made the
    forward pass 1.3-1.8x faster on the shipped networks (``benchmarks/az_forward.py``).
    """
    n_out = weight.shape[1]
    for o in range(n_out):
        out[o] = bias[o]
    i = 0
    while i + 7 < count:
        v0, v1, v2, v3, r0, r1, r2, r3 = _four_rows(weight, source, nonzero, i)
        v4, v5, v6, v7, r4, r5, r6, r7 = _four_rows(weight, source, nonzero, i + 4)
        for o in range(n_out):
            first = (((out[o] + v0 * r0[o]) + v1 * r1[o]) + v2 * r2[o]) + v3 * r3[o]
            out[o] = (((first + v4 * r4[o]) + v5 * r5[o]) + v6 * r6[o]) + v7 * r7[o]
        i += 8
    while i + 3 < count:
        v0, v1, v2, v3, r0, r1, r2, r3 = _four_rows(weight, source, nonzero, i)
        for o in range(n_out):
            out[o] = (((out[o] + v0 * r0[o]) + v1 * r1[o]) + v2 * r2[o]) + v3 * r3[o]
        i += 4
    for j in range(i, count):
        k = nonzero[j]
        v = source[k]
        row = weight[k]
        for o in range(n_out):
            out[o] += v * row[o]


@njit(cache=True, fastmath=ROW_SUMS)
def _dense_columns(weight, bias, source, nonzero, count, columns, n_columns, out):
    """:func:`_dense_listed` for the ``n_columns`` outputs listed in ``columns`` only (the others
    left as they are): each of them the same sum, in the same order, as :func:`_dense` makes it,
    four rows at a time as there."""
    for j in range(n_columns):
        out[columns[j]] = bias[columns[j]]
    i = 0
    while i + 3 < count:
        v0, v1, v2, v3, r0, r1, r2, r3 = _four_rows(weight, source, nonzero, i)
        for j in range(n_columns):
            c = columns[j]
            out[c] = (((out[c] + v0 * r0[c]) + v1 * r1[c]) + v2 * r2[c]) + v3 * r3[c]
        i += 4
    for m in range(i, count):
        k = nonzero[m]
        v = source[k]
        row = weight[k]
        for j in range(n_columns):
            c = columns[j]
            out[c] += v * row[c]


@njit(cache=True)
def _positive_indices(units, nonzero):
    """The ReLU of a trunk layer's ``units``, as the next layer reads it: the indices of the
    positive ones, in ascending order, into ``nonzero``; their count. The others are not set to
    zero: no later layer reads an unlisted unit."""
    count = 0
    for o in range(units.shape[0]):
        if units[o] > 0.0:
            nonzero[count] = o
            count += 1
    return count


@njit(cache=True)
def _layer(params, offset, n_in, n_out):
    """``(weight [n_in, n_out], bias [n_out], next offset)`` of the layer at ``offset`` of the
    flat parameters: views, nothing copied."""
    end = offset + n_in * n_out
    return params[offset:end].reshape((n_in, n_out)), params[end : end + n_out], end + n_out


# A logit made alone (its weights gathered from each row) cost about as much as 16 made together
# (one AVX-512 vector): making only the legal ones paid 1.21x the pass in Monster Arena (6 of 437
# legal), 1.14x in MONSTArgh! (8 of 224), 1.08x in Monster Factory (6 of 200), nothing in Mighty
# Monsters (10 of 70) and lost 7% in Marry the Monster (19 of 99) (benchmarks/az_forward.py).
GATHERED_LOGIT_COST = 16


@njit(cache=True)
def _forward(params, shapes, x, scratch, legal, count, logits, values, nonzero):
    """:func:`forward` (``count`` -1: every logit) or :func:`forward_legal`; ``nonzero`` is scratch
    as long as the widest layer. The non-zero entries of each layer's input are listed once, as
    the ReLU makes them, and the two heads share the trunk's list."""
    trunk = shapes.shape[0] - 2
    offset = 0
    source = x
    listed = nonzero_indices(x, nonzero)
    for layer in range(trunk):
        out = scratch[layer % 2]
        weight, bias, offset = _layer(params, offset, shapes[layer, 0], shapes[layer, 1])
        _dense_listed(weight, bias, source, nonzero, listed, out)
        listed = _positive_indices(out, nonzero)
        source = out
    weight, bias, offset = _layer(params, offset, shapes[trunk, 0], shapes[trunk, 1])
    if count < 0 or count * GATHERED_LOGIT_COST > logits.shape[0]:
        _dense_listed(weight, bias, source, nonzero, listed, logits)
    else:
        _dense_columns(weight, bias, source, nonzero, listed, legal, count, logits)
    weight, bias, offset = _layer(params, offset, shapes[trunk + 1, 0], shapes[trunk + 1, 1])
    _dense_listed(weight, bias, source, nonzero, listed, values)
    for k in range(values.shape[0]):
        values[k] = np.tanh(values[k])


@njit(FORWARD_SIG, cache=True)
def forward(params, shapes, x, scratch, logits, values):
    """One forward pass of input ``x``: the policy head's logits into ``logits`` (every action)
    and the value head's :data:`MAX_SEATS` entries, after tanh, into ``values``.

    ``scratch`` is two rows at least as wide as the widest layer (:meth:`AZNetwork.scratch`).
    """
    nonzero = np.empty(shapes.max(), np.int32)
    _forward(params, shapes, x, scratch, nonzero[:0], -1, logits, values, nonzero)


@njit(cache=True)
def forward_legal(params, shapes, x, scratch, legal, count, logits, values):
    """:func:`forward` for a reader of the logits of the ``count`` actions listed in ``legal`` only
    (the search at a leaf), each equal to the bit to :func:`forward`'s; the other entries of
    ``logits`` mean nothing. Where the legal actions are few (at most one in
    :data:`GATHERED_LOGIT_COST` of all) only theirs are made: the head is the widest layer in the
    games of many actions (Monster Arena: 437 logits, about 6 legal).
    """
    nonzero = np.empty(shapes.max(), np.int32)
    _forward(params, shapes, x, scratch, legal, count, logits, values, nonzero)


@njit(cache=True)
def _sparse_rows(weight, bias, xs, rows, out):
    """``out[:rows] = xs[:rows] @ weight + bias`` row by row, skipping zero inputs (:func:`_dense`)."""
    nonzero = np.empty(weight.shape[0], np.int32)
    for r in range(rows):
        _dense(weight, bias, xs[r], out[r], nonzero)


@njit(cache=True)
def _blas_rows(weight, bias, source, out):
    """``out = source @ weight + bias`` for every row at once: one BLAS ``sgemm``."""
    np.dot(source, weight, out)
    for r in range(out.shape[0]):
        for o in range(bias.shape[0]):
            out[r, o] += bias[o]


@njit(
    cache=True, nogil=True
)  # compiled at its first call: numba's BLAS needs scipy, which only training installs
def forward_batch(params, shapes, xs, rows, sparse_input, trunk_a, trunk_b, logits, values):
    """:func:`forward` of the first ``rows`` inputs of ``xs`` at once, into the first ``rows`` rows
    of ``logits`` and ``values``: each layer one matrix product through BLAS (``sgemm``), which
    reads each weight once per batch instead of once per row.

    With ``sparse_input`` the first layer goes row by row and skips zero inputs as :func:`forward`
    does (cheaper where inputs are mostly zeros, as Monster Arena's are); the rest is batched.
    ``trunk_a`` and ``trunk_b`` hold ``rows`` times the widest trunk layer at least. The outputs
    equal :func:`forward`'s up to float rounding (another order of the same sums).
    """
    trunk = shapes.shape[0] - 2
    offset = 0
    source = xs[:rows]
    for layer in range(trunk):
        n_out = shapes[layer, 1]
        buffer = trunk_a if layer % 2 == 0 else trunk_b
        out = buffer[: rows * n_out].reshape((rows, n_out))
        weight, bias, offset = _layer(params, offset, shapes[layer, 0], n_out)
        if layer == 0 and sparse_input:
            _sparse_rows(weight, bias, source, rows, out)
        else:
            _blas_rows(weight, bias, source, out)
        for r in range(rows):
            for o in range(n_out):
                out[r, o] = max(out[r, o], np.float32(0.0))
        source = out
    weight, bias, offset = _layer(params, offset, shapes[trunk, 0], shapes[trunk, 1])
    _blas_rows(weight, bias, source, logits[:rows])
    weight, bias, offset = _layer(params, offset, shapes[trunk + 1, 0], shapes[trunk + 1, 1])
    _blas_rows(weight, bias, source, values[:rows])
    for r in range(rows):
        for k in range(values.shape[1]):
            values[r, k] = np.tanh(values[r, k])


# Fewer rows go through forward one by one: OpenBLAS's sgemm over 2 or 4 rows cost 1.1-4.3x
# forward's time per row on every shipped network, over 8 rows 0.7-1.5x, from 16 rows less but in
# Monster Arena (benchmarks/az_forward.py --batch).
BATCH_MIN_ROWS = 16


@njit(cache=True, nogil=True)
def forward_many(params, shapes, xs, rows, scratch, trunk_a, trunk_b, logits, values):
    """:func:`forward_batch` (first layer skipping zero inputs) of the first ``rows`` inputs of
    ``xs`` when they are at least :data:`BATCH_MIN_ROWS`, else :func:`forward` row by row."""
    if rows >= BATCH_MIN_ROWS:
        forward_batch(params, shapes, xs, rows, True, trunk_a, trunk_b, logits, values)
        return
    for r in range(rows):
        forward(params, shapes, xs[r], scratch, logits[r], values[r])


@njit(types.void(PARAMS, SHAPES, FLOATS2, types.int64[::1], FLOATS2, FLOATS2), cache=True)
def forward_rows(params, shapes, observations, num_players, logits, values):
    """:func:`forward` for every row of ``observations`` (row ``r`` at a table of
    ``num_players[r]``), into rows of ``logits`` and ``values``."""
    x = np.zeros(observations.shape[1] + MAX_SEATS, np.float32)
    scratch = np.zeros((2, max(shapes.max(), 1)), np.float32)
    for r in range(observations.shape[0]):
        network_input(observations[r], num_players[r], x)
        forward(params, shapes, x, scratch, logits[r], values[r])


@njit(types.int64(FLOATS, MASK), cache=True)
def masked_argmax(logits, mask):
    """The legal action of ``mask`` with the highest logit (the lowest index among equals)."""
    best = -1
    for a in range(mask.shape[0]):
        if mask[a] != 0 and (best < 0 or logits[a] > logits[best]):
            best = a
    return best


def evaluate(network: AZNetwork, observations: np.ndarray, num_players) -> tuple[np.ndarray, np.ndarray]:
    """``(logits [rows, actions], values [rows, MAX_SEATS])`` of the network for observation rows
    at tables of ``num_players`` (one count, or one per row)."""
    obs = np.ascontiguousarray(np.atleast_2d(observations), dtype=np.float32)
    counts = np.array(np.broadcast_to(np.asarray(num_players, np.int64), obs.shape[:1]))
    logits = np.zeros((obs.shape[0], int(network.shapes[-2, 1])), np.float32)
    values = np.zeros((obs.shape[0], MAX_SEATS), np.float32)
    forward_rows(network.params, network.shapes, obs, counts, logits, values)
    return logits, values


# --- network files -----------------------------------------------------------------------------
def array_names(layers: int) -> list[tuple[str, str]]:
    """``(weight, bias)`` member names of a network file with ``layers`` layers, in order."""
    actor = [(f"actor.{k}.weight.npy", f"actor.{k}.bias.npy") for k in range(layers - 1)]
    return actor + [("value.weight.npy", "value.bias.npy")]


def architecture_problem(game_id: str, hidden_sizes, where: str = "architecture.hidden_sizes") -> str | None:
    """Why a network with trunk ``hidden_sizes`` for ``game_id`` is not one a network file may hold
    (the caps of the module doc), or None; ``where`` names the sizes in the message."""
    problem = layer_sizes_problem(where, hidden_sizes)
    if problem:
        return problem
    if not hidden_sizes:
        return f"{where} needs at least one layer"
    return parameters_problem(layer_shapes(game_id, hidden_sizes))


def metadata_of(network: AZNetwork) -> dict:
    """The JSON metadata of ``network``'s file; ModelFileError if it is not one a file may hold."""
    import monster_zoo

    problem = architecture_problem(network.game_id, network.hidden_sizes) or name_problem(network.name)
    if problem:
        raise ModelFileError(f"network {network.name!r} cannot be written: {problem}")
    spec = envs.spec(network.game_id)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": network.game_id,
        "options": network.options,
        "player_counts": list(network.player_counts),
        "observation_size": spec.obs_size,
        "observation_version": spec.observation_version,
        "num_actions": spec.num_actions,
        "architecture": {
            "type": ARCHITECTURE,
            "hidden_sizes": network.hidden_sizes,
            "activation": ACTIVATION,
            "seat_values": MAX_SEATS,
            "count_inputs": MAX_SEATS,
        },
        "name": network.name,
        "training": {"monster_zoo_version": monster_zoo.__version__, **network.training},
    }


def write_network(path, network: AZNetwork) -> Path:
    """Write ``network`` as a network file at ``path``, atomically
    (:mod:`monster_zoo.envs.core.safe_writing`: a link at ``path`` is replaced, never followed)."""
    path = Path(path)
    metadata = metadata_of(network)
    layers = network.layers()
    with (
        open_atomic(path) as stream,
        zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED) as archive,
    ):
        archive.writestr(METADATA, json.dumps(metadata, indent=1))
        for (weight, bias), names in zip(layers, array_names(len(layers))):
            for array, member in zip((weight, bias), names):
                with archive.open(member, "w") as f:
                    np.lib.format.write_array(f, np.ascontiguousarray(array, np.float32), allow_pickle=False)
    return path


def network_architecture(metadata: Mapping, label: str) -> list[tuple[str, tuple]]:
    """ModelFileError unless the checked ``metadata`` describes an :data:`ARCHITECTURE` network for
    player counts its game has, within the caps of the module doc, and fits its game's observation
    as it is now; ``(member, shape)`` of its arrays, in order (the opener's ``arrays``)."""
    arch = metadata["architecture"]
    if arch.get("type") != ARCHITECTURE:
        fail(
            label,
            f"is a {repr(arch.get('type'))[:60]} policy, not an {ARCHITECTURE} network (play it as ppo:<path>)",
        )
    game, hidden = metadata["game"], arch.get("hidden_sizes")
    problem = architecture_problem(game, hidden)
    if problem:
        fail(label, problem)
    if (arch.get("activation"), arch.get("seat_values"), arch.get("count_inputs")) != (
        ACTIVATION,
        MAX_SEATS,
        MAX_SEATS,
    ):
        fail(
            label,
            f"architecture {json.dumps(arch)[:200]} is not the one this monster-zoo plays (activation "
            f"{ACTIVATION}, {MAX_SEATS} seat values and count inputs)",
        )
    counts = metadata.get("player_counts")
    if not isinstance(counts, list):
        fail(label, "metadata field player_counts must be a list")
    if not all(isinstance(c, int) and not isinstance(c, bool) for c in counts):
        fail(label, f"metadata field player_counts must be a list of integers, not {json.dumps(counts)[:60]}")
    try:
        check_player_counts(game, counts)
    except ValueError as err:
        fail(label, str(err))
    problem = sizes_problem(metadata, game)
    if problem:
        fail(label, f"{problem} (retrain it)")
    shapes = layer_shapes(game, hidden)
    return [
        (member, shape)
        for (n_in, n_out), names in zip(shapes, array_names(len(shapes)))
        for member, shape in zip(names, ((int(n_in), int(n_out)), (int(n_out),)))
    ]


def read_network(path) -> AZNetwork:
    """Load the network file ``path`` through the one opener of model files
    (:func:`monster_zoo.agents.model_file.read_model`, within the bounds of the module doc);
    ModelFileError with the reason if it is not a valid one (nothing in it is executed: JSON and
    plain arrays only)."""
    metadata, arrays = read_model(
        path, "network", KIND, "network file", "network.npz", None, network_architecture
    )
    layers = list(zip(arrays[::2], arrays[1::2]))
    try:
        return from_layers(
            metadata["game"],
            metadata["options"],
            metadata["player_counts"],
            layers,
            metadata["name"],
            metadata["training"],
        )
    except (ValueError, TypeError) as err:
        fail(f"network {str(path)!r}", str(err))


def check_fits(network: AZNetwork, source: str, game_id: str, options: Mapping | None = None) -> int:
    """Refuse (ModelFileError) a network for another game, rule option or player count; return
    the player count of ``options`` (the game's default if they name none)."""
    wanted = rule_options(game_id, options)
    num_players = wanted.pop("num_players", envs.spec(game_id).min_players)
    if network.game_id != game_id or network.options != wanted:
        raise ModelFileError(
            f"network {source} was trained for {describe(network.game_id, network.options)}; "
            f"this game is {describe(game_id, wanted)}"
        )
    if num_players not in network.player_counts:
        counts = network.player_counts
        raise ModelFileError(
            f"network {source} plays {game_id} with {', '.join(map(str, counts))} players, not "
            f'{num_players}: ask for one of them (options={{"num_players": {counts[0]}}}; on the '
            f"command line --option num_players={counts[0]})"
        )
    return int(num_players)
