"""Seeded searches of the learned search decide what they decided when recorded (making the
search or its forward pass faster changes no decision).

``tests/golden/az_search.json`` was written by ``tests/record_az_search.py`` with the search as it
was before those speed-ups. Actions and root visits must be equal; the improved policies equal up
to a millionth (on the recording machine they are equal to the bit: the faster code makes the same
sums in the same order, but another CPU's ``exp`` or ``tanh`` may round a last bit otherwise).
"""

import json

import numpy as np
import pytest
from record_az_search import GOLDEN, searches, shipped_games


@pytest.fixture(scope="module")
def golden():
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_every_shipped_network_is_recorded(golden):
    assert sorted(golden) == sorted(shipped_games())


@pytest.mark.parametrize("game_id", shipped_games())
def test_seeded_searches_choose_and_visit_as_recorded(golden, game_id):
    """Every recorded position, with and without rollouts: the same action, visits and policy."""
    now = searches(game_id)
    assert len(now) == len(golden[game_id])
    for got, want in zip(now, golden[game_id]):
        assert (got["seed"], got["rollout_weight"]) == (want["seed"], want["rollout_weight"])
        assert got["action"] == want["action"] and got["root_visits"] == want["root_visits"], got["seed"]
        assert sorted(got["policy"]) == sorted(want["policy"]), got["seed"]
        actions = sorted(want["policy"])
        assert np.allclose(
            [got["policy"][a] for a in actions], [want["policy"][a] for a in actions], rtol=0, atol=1e-6
        )
