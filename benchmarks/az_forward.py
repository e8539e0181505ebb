"""How fast the learned search's forward pass runs on this CPU, beside two references.

    python -m monster_zoo.benchmarks.az_forward                 # every game's shipped network
    python -m monster_zoo.benchmarks.az_forward --quick         # a smoke test; numbers mean little
    python -m monster_zoo.benchmarks.az_forward --batch 1,8,32,64   # batched passes through BLAS

For each game's shipped ``az`` network (``<game>-az-v1.npz``) it times one forward pass of one
input row, over real inputs (the mover's observation of states reached by random play at the
network's smallest player count), three ways in one run:

- **az**: :func:`monster_zoo.agents.network.forward`, the kernel the search and the
  network-alone agent call;
- **plain 2-D numba**: a plain numba loop over the same network's 2-D weights (one ``[in, out]``
  array per layer, no zero-skipping), the reference ``az`` is held within 1.5x of;
- **numpy BLAS**: ``x @ W + b`` per layer in numpy, one row at a time.

It prints the CPU (``lscpu``'s model name and whether it has AVX-512), the 1-minute load, the
fastest of ``--repeats`` interleaved timings of each in microseconds per row, and ``az / plain``;
it exits 1 where ``az / plain`` is above 1.5. The ratio is
what to compare across machines; on a shared machine the load says what else ran.

With ``--batch B1,B2,...`` it times instead, per network and batch size ``B``, the batched pass
:func:`monster_zoo.agents.network.forward_batch` over the same inputs ``B`` rows at a time
(what lock-step self-play calls), both ways: every layer through BLAS (**blas**) and the first
layer row by row skipping zero inputs, the rest through BLAS (**sparse-first**), each beside
``az`` in the same interleaved repeats, in microseconds per row and as ``az / batched`` (above 1:
the batch pays). BLAS runs on one thread (threadpoolctl), as the search's one thread per game does.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np
from numba import njit

from monster_zoo import envs
from monster_zoo.agents.az.shipped import shipped_network_path
from monster_zoo.agents.network import (
    MAX_SEATS,
    AZNetwork,
    forward,
    forward_batch,
    network_input,
    read_network,
)
from monster_zoo.envs.core.batch import random_playout
from monster_zoo.envs.core.contract import H_CURRENT
from monster_zoo.evaluation.host import cpu_name

TARGET_RATIO = 1.5  # az within this factor of the plain 2-D loop (the bound the forward kernel is held to)


def chosen_games(parser, text: str) -> list[str]:
    """The game ids of a comma-separated ``--games`` value (``all``: every game); ``parser`` exits
    naming the unknown ones and the valid ones."""
    games = envs.available() if text == "all" else text.split(",")
    unknown = sorted(set(games) - set(envs.available()))
    if unknown:
        parser.error(f"unknown game {', '.join(unknown)}; valid: {', '.join(envs.available())}")
    return games


def inputs(network: AZNetwork, rows: int) -> np.ndarray:
    """Network inputs of ``rows`` states reached by random play at the network's smallest count."""
    game_id, players = network.game_id, network.player_counts[0]
    spec = envs.spec(game_id)
    config = envs.config(game_id, {**network.options, "num_players": players})
    obs = np.zeros(spec.obs_size, np.float32)
    out = np.zeros((rows, spec.obs_size + MAX_SEATS), np.float32)
    for r in range(rows):
        state = random_playout(spec, config, 3 * r + 1, seed=r)[0]
        spec.observe_into(state, int(state[H_CURRENT]), obs)
        network_input(obs, players, out[r])
    return out


@njit(cache=True, fastmath=True)
def _plain_dense(weight, bias, source, out):
    """``out = source @ weight + bias`` over a 2-D ``[in, out]`` weight."""
    for o in range(weight.shape[1]):
        out[o] = bias[o]
    for k in range(weight.shape[0]):
        v = source[k]
        for o in range(weight.shape[1]):
            out[o] += v * weight[k, o]


@njit(cache=True, fastmath=True)
def plain_forward(weights, biases, xs, hidden_a, hidden_b, logits, values):
    """The reference: every row of ``xs`` through a two-layer trunk (ReLU), the policy and value heads."""
    for r in range(xs.shape[0]):
        _plain_dense(weights[0], biases[0], xs[r], hidden_a)
        for o in range(hidden_a.shape[0]):
            hidden_a[o] = max(hidden_a[o], np.float32(0.0))
        _plain_dense(weights[1], biases[1], hidden_a, hidden_b)
        for o in range(hidden_b.shape[0]):
            hidden_b[o] = max(hidden_b[o], np.float32(0.0))
        _plain_dense(weights[2], biases[2], hidden_b, logits)
        _plain_dense(weights[3], biases[3], hidden_b, values)
        for k in range(values.shape[0]):
            values[k] = np.tanh(values[k])


@njit(cache=True)
def az_rows(params, shapes, xs, scratch, logits, values):
    """:func:`forward` over every row of ``xs`` (inputs already built), as the search calls it."""
    for r in range(xs.shape[0]):
        forward(params, shapes, xs[r], scratch, logits, values)


def numpy_rows(layers, xs: np.ndarray) -> None:
    """Every row of ``xs`` through the network in numpy, one row at a time (BLAS per layer)."""
    for x in xs:
        h = x
        for weight, bias in layers[:-2]:
            h = np.maximum(h @ weight + bias, 0.0)
        _ = h @ layers[-2][0] + layers[-2][1]
        _ = np.tanh(h @ layers[-1][0] + layers[-1][1])


def fastest_per_row(runs: dict[str, Callable[[], None]], rows: int, repeats: int) -> dict[str, float]:
    """The fastest of ``repeats`` timings of each of ``runs``, in microseconds per row.

    The runs are interleaved within each repeat (a busy spell on a shared machine hits them
    alike) and the fastest timing kept: the one least disturbed by other work.
    """
    for run in runs.values():
        run()  # compiled and warm
    best = {name: float("inf") for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], (time.perf_counter() - start) / rows * 1e6)
    return best


def measure(network: AZNetwork, rows: int, repeats: int) -> dict[str, float]:
    """Microseconds per row of the three forward passes over the same inputs (ValueError if az and
    the plain loop disagree)."""
    xs = inputs(network, rows)
    layers = [(np.ascontiguousarray(w), np.ascontiguousarray(b)) for w, b in network.layers()]
    if len(layers) != 4:
        raise ValueError(
            f"{network.game_id}: the reference loop takes a two-layer trunk, not {len(layers) - 2}"
        )
    weights, biases = tuple(w for w, _ in layers), tuple(b for _, b in layers)
    n_actions, hidden = int(network.shapes[-2, 1]), network.hidden_sizes
    logits, values = np.zeros(n_actions, np.float32), np.zeros(MAX_SEATS, np.float32)
    ref_logits, ref_values = np.zeros(n_actions, np.float32), np.zeros(MAX_SEATS, np.float32)
    scratch = network.scratch()
    a, b = np.zeros(hidden[0], np.float32), np.zeros(hidden[1], np.float32)
    plain_forward(weights, biases, xs[-1:], a, b, ref_logits, ref_values)
    az_rows(network.params, network.shapes, xs[-1:], scratch, logits, values)
    if not (np.allclose(logits, ref_logits, atol=1e-3) and np.allclose(values, ref_values, atol=1e-4)):
        raise ValueError(f"{network.game_id}: az and the plain loop disagree")
    return fastest_per_row(
        {
            "az": lambda: az_rows(network.params, network.shapes, xs, scratch, logits, values),
            "plain": lambda: plain_forward(weights, biases, xs, a, b, logits, values),
            "numpy": lambda: numpy_rows(layers, xs),
        },
        rows,
        repeats,
    )


def batched_rows(network: AZNetwork, xs: np.ndarray, batch: int, sparse_input: bool) -> Callable[[], None]:
    """A run of :func:`forward_batch` over ``xs``, ``batch`` rows at a time."""
    width = max(network.hidden_sizes)
    trunk_a, trunk_b = np.zeros(batch * width, np.float32), np.zeros(batch * width, np.float32)
    logits = np.zeros((batch, int(network.shapes[-2, 1])), np.float32)
    values = np.zeros((batch, MAX_SEATS), np.float32)
    chunks = [np.ascontiguousarray(xs[start : start + batch]) for start in range(0, xs.shape[0], batch)]

    def run():
        for chunk in chunks:
            forward_batch(
                network.params,
                network.shapes,
                chunk,
                chunk.shape[0],
                sparse_input,
                trunk_a,
                trunk_b,
                logits,
                values,
            )

    return run


def measure_batches(network: AZNetwork, rows: int, repeats: int, batches: list[int]) -> dict[str, float]:
    """Microseconds per row of ``az`` and of both batched passes at every batch size (keys
    ``blas B``, ``sparse-first B``), in the same interleaved repeats."""
    xs = inputs(network, rows)
    n_actions = int(network.shapes[-2, 1])
    logits, values = np.zeros(n_actions, np.float32), np.zeros(MAX_SEATS, np.float32)
    scratch = network.scratch()
    runs = {"az": lambda: az_rows(network.params, network.shapes, xs, scratch, logits, values)}
    for batch in batches:
        runs[f"blas {batch}"] = batched_rows(network, xs, batch, False)
        runs[f"sparse-first {batch}"] = batched_rows(network, xs, batch, True)
    return fastest_per_row(runs, rows, repeats)


def print_batches(rows: int, repeats: int, batches: list[int]) -> None:
    """Print, per shipped network and batch size, the batched passes beside ``az``."""
    import scipy.linalg.cython_blas  # noqa: F401  (numba's BLAS: loaded here so the limit reaches it)
    from threadpoolctl import threadpool_limits

    print(
        f"{'network':<32} {'batch':>5} {'az us':>7} {'blas us':>8} {'sparse-first us':>16} "
        f"{'az/blas':>8} {'az/sparse-first':>16}"
    )
    with threadpool_limits(1, user_api="blas"):
        for game_id in envs.available():
            path = shipped_network_path(game_id)
            if not path.is_file():
                print(f"{path.name:<32} (none shipped)")
                continue
            t = measure_batches(read_network(path), rows, repeats, batches)
            for batch in batches:
                blas, sparse = t[f"blas {batch}"], t[f"sparse-first {batch}"]
                print(
                    f"{path.name:<32} {batch:>5} {t['az']:7.2f} {blas:8.2f} {sparse:16.2f} "
                    f"{t['az'] / blas:8.2f} {t['az'] / sparse:16.2f}",
                    flush=True,
                )


def main(argv: list[str] = None) -> int:
    """Print the forward passes' timings per game's shipped network; 1 if ``az`` misses the target."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=256, help="inputs per timing (default 256)")
    parser.add_argument(
        "--repeats", type=int, default=30, help="timings of each, the fastest kept (default 30)"
    )
    parser.add_argument("--quick", action="store_true", help="16 rows, 2 repeats: a smoke test")
    parser.add_argument(
        "--batch",
        default="",
        help="comma-separated batch sizes: time the batched BLAS passes at each beside az (e.g. 1,8,32,64)",
    )
    args = parser.parse_args(argv)
    if args.rows < 1 or args.repeats < 1:
        parser.error("--rows and --repeats must be at least 1")
    try:
        batches = [int(b) for b in args.batch.split(",")] if args.batch else []
    except ValueError:
        parser.error(f"--batch {args.batch!r} is not a comma-separated list of integers")
    if any(b < 1 for b in batches):
        parser.error("--batch sizes must be at least 1")
    rows, repeats = (16, 2) if args.quick else (args.rows, args.repeats)
    print(
        f"CPU: {cpu_name()}; 1-minute load {os.getloadavg()[0]:.2f}; {rows} rows, fastest of {repeats} interleaved"
    )
    if batches:
        print_batches(rows, repeats, batches)
        return 0
    print(f"{'network':<32} {'widths':<16} {'az us':>8} {'plain us':>9} {'numpy us':>9} {'az/plain':>9}")
    missed = False
    for game_id in envs.available():
        path = shipped_network_path(game_id)
        if not path.is_file():
            print(f"{path.name:<32} (none shipped)")
            continue
        network = read_network(path)
        t = measure(network, rows, repeats)
        ratio = t["az"] / t["plain"]
        missed |= ratio > TARGET_RATIO
        widths = "x".join(str(int(n)) for n in [network.shapes[0, 0], *network.hidden_sizes])
        print(f"{path.name:<32} {widths:<16} {t['az']:8.2f} {t['plain']:9.2f} {t['numpy']:9.2f} {ratio:9.2f}")
    print(f"target: az/plain at most {TARGET_RATIO}" + (" (missed)" if missed else " (met)"))
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
