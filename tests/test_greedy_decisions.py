"""Every game's greedy kernel chooses what it chose when the record was made.

``tests/golden/greedy_decisions.json`` (written by ``tests/record_greedy_decisions.py``) holds, per
game at its smallest and largest player count and with its rule options, greedy's action at 4,000
positions of seeded mixed greedy/random play and a digest of its generator after each call (ties are
drawn from it). A greedy agent's id promises its play, so making the kernels faster must change none
of them: an action differs, or a tie is drawn differently, and this test names the first position.
"""

import json

import numpy as np
import pytest
from record_greedy_decisions import CASES, GOLDEN, case_name, decisions, decode_actions, rng_digest

RERECORD = (
    "A greedy agent's id promises its play: a change of play bumps its Baseline.version and enters "
    "CHANGELOG.md, and only then is the record remade (`python tests/record_greedy_decisions.py`)."
)


@pytest.fixture(scope="module")
def golden() -> dict:
    return {
        case_name(c["game"], c["options"]): c for c in json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"]
    }


def test_the_record_covers_every_game_at_both_ends_of_its_player_counts(golden):
    from monster_zoo import envs

    assert sorted(golden) == sorted(case_name(g, o) for g, o in CASES)
    for game_id in envs.available():
        declaration = envs.spec(game_id)
        counts = {c["options"]["num_players"] for c in golden.values() if c["game"] == game_id}
        assert {declaration.min_players, declaration.max_players} <= counts, game_id


@pytest.mark.parametrize("game_id, options", CASES, ids=[case_name(g, o) for g, o in CASES])
def test_greedy_decides_as_recorded(golden, game_id, options):
    expected = golden[case_name(game_id, options)]
    actions, rng_states = decisions(game_id, options, expected["positions"], expected["seed"])
    recorded = decode_actions(expected["actions"])
    differ = np.flatnonzero(actions != recorded)
    assert differ.size == 0, (
        f"{case_name(game_id, options)}: position {differ[0]} chose {actions[differ[0]]}, "
        f"recorded {recorded[differ[0]]} ({differ.size} positions differ). {RERECORD}"
    )
    assert rng_digest(rng_states) == expected["rng_sha256"], (
        f"{case_name(game_id, options)}: the same actions, but ties were drawn differently. {RERECORD}"
    )
