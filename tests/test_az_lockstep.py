"""Batched leaf evaluation (issue 44 point 2): the network's batched pass through BLAS, and the
lock-step self-play that feeds it, give what the one-row pass and the one-game search give."""
import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents.az.network import MAX_SEATS, evaluate, forward_batch, network_input, read_network
from monster_zoo.agents.az.shipped import shipped_network_path
from monster_zoo.envs.core.contract import H_CURRENT

from test_az import reachable

SHIPPED = [g for g in envs.available() if shipped_network_path(g).is_file()]


def real_inputs(network, rows):
    """Network inputs of live states at every count the network plays (observation and count)."""
    spec = envs.spec(network.game_id)
    obs = np.zeros((rows, spec.obs_size), np.float32)
    counts = np.zeros(rows, np.int64)
    for r in range(rows):
        n = network.player_counts[r % len(network.player_counts)]
        state = reachable(network.game_id, n, r, 3 * r)
        spec.observe_into(state, int(state[H_CURRENT]), obs[r])
        counts[r] = n
    xs = np.zeros((rows, spec.obs_size + MAX_SEATS), np.float32)
    for r in range(rows):
        network_input(obs[r], counts[r], xs[r])
    return obs, counts, xs


@pytest.mark.parametrize("game_id", SHIPPED)
@pytest.mark.parametrize("sparse_input", [False, True])
def test_batched_pass_gives_the_one_row_pass_outputs_up_to_rounding(game_id, sparse_input):
    """Every shipped network: ``forward_batch`` over the first rows of a larger buffer gives the
    one-row pass's logits and values up to float rounding, and leaves the rows past ``rows`` alone."""
    network = read_network(shipped_network_path(game_id))
    obs, counts, xs = real_inputs(network, 24)
    want_logits, want_values = evaluate(network, obs, counts)
    width = max(network.hidden_sizes)
    logits = np.full((32, want_logits.shape[1]), 7.0, np.float32)
    values = np.full((32, MAX_SEATS), 7.0, np.float32)
    trunk_a, trunk_b = np.zeros(32 * width, np.float32), np.zeros(32 * width, np.float32)
    forward_batch(network.params, network.shapes, xs, 24, sparse_input, trunk_a, trunk_b, logits, values)
    assert np.allclose(logits[:24], want_logits, rtol=1e-4, atol=1e-4)
    assert np.allclose(values[:24], want_values, rtol=1e-4, atol=1e-5)
    assert np.all(logits[24:] == 7.0) and np.all(values[24:] == 7.0)
