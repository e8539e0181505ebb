"""Each game id stays pinned to what it promised: rules, observation, action space and rewards.

``tests/game_versions.json`` holds a fingerprint per id (see ``tests/record_game_versions.py``).
A game whose fingerprint moves fails here until it is registered under a new id with a
CHANGELOG entry and the new id is pinned; the recorder never rewrites an existing pin.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from record_game_versions import (
    PINS_PATH,
    SEED,
    differences,
    fingerprint,
    load_pins,
    record,
    table_fingerprint,
)

from monster_zoo import envs

ROOT = Path(__file__).resolve().parents[1]
CHANGELOG = ROOT / "CHANGELOG.md"
PINS = load_pins()


def _how_to_bump(game_id: str) -> str:
    """What a developer does to give a changed game its next id."""
    spec = envs.spec(game_id)
    new_id = f"{spec.name}-v{spec.version + 1}"
    return (
        f"register the game as {new_id} (version={spec.version + 1} in envs/{spec.name}/game.py, its page "
        f"renamed to envs/{spec.name}_v{spec.version + 1}.py), add a CHANGELOG.md "
        f"entry saying what changed, and pin the new id with `python tests/record_game_versions.py {new_id}`"
    )


def test_game_id_matches_its_pin(game_id):
    if game_id not in PINS:
        pytest.fail(
            f"{game_id} has no pin in tests/{PINS_PATH.name}: add its CHANGELOG.md entry and pin it "
            f"with `python tests/record_game_versions.py {game_id}`",
            pytrace=False,
        )
    changed = differences(PINS[game_id], fingerprint(game_id))
    if changed:
        pytest.fail(
            f"{game_id} no longer matches its pin in tests/{PINS_PATH.name}; changed: "
            f"{', '.join(changed)}.\nA game id fixes the rules, observation, action space and "
            f"rewards: if the change is intended, bump the id: {_how_to_bump(game_id)}. "
            f'A pin is never rewritten (CONTRIBUTING.md, "Game versions").',
            pytrace=False,
        )


def test_every_pinned_and_registered_id_is_in_the_changelog():
    text = CHANGELOG.read_text(encoding="utf-8")
    ids = sorted(set(PINS) | set(envs.available()))
    missing = [g for g in ids if not re.search(rf"`{re.escape(g)}`", text)]
    assert not missing, f"CHANGELOG.md names no entry for {', '.join(missing)} (write each id in backticks)"


def test_recording_never_rewrites_a_pin(tmp_path):
    path = tmp_path / "pins.json"
    path.write_text(PINS_PATH.read_text(encoding="utf-8"), encoding="utf-8")
    before = path.read_bytes()
    with pytest.raises(ValueError, match=r"monstargh-v0 already pinned .* never rewritten"):
        record(["monstargh-v0"], path)
    with pytest.raises(ValueError, match=r"unknown game id\(s\) monstargh-v9; registered: "):
        record(["monstargh-v9"], path)
    assert path.read_bytes() == before


def test_recording_pins_an_id_without_a_pin(tmp_path):
    path = tmp_path / "pins.json"
    path.write_text(
        json.dumps({g: p for g, p in PINS.items() if g != "monster_factory-v0"}), encoding="utf-8"
    )
    record(["monster_factory-v0"], path)
    assert load_pins(path) == PINS


def test_any_change_of_a_field_is_reported_with_its_path():
    pinned = PINS["marry_the_monster-v0"]
    changed = json.loads(json.dumps(pinned))
    changed["tables"]["2 players"]["playthrough"] = "0" * 64
    changed["observation_version"] += 1
    del changed["tables"]["5 players"]
    assert differences(pinned, changed) == [
        "observation_version",
        "tables/2 players/playthrough",
        "tables/5 players",
    ]
    assert differences(pinned, pinned) == []


def test_another_game_gives_another_fingerprint():
    """The hashes see the game: another seed's deal changes both the reset and the playthrough."""
    other = table_fingerprint("marry_the_monster-v0", {"num_players": 3}, seed=SEED + 1)
    pinned = PINS["marry_the_monster-v0"]["tables"]["3 players"]
    assert other["observation_at_reset"] != pinned["observation_at_reset"]
    assert other["playthrough"] != pinned["playthrough"]


def test_fingerprint_is_the_same_in_another_process_with_other_threads():
    script = (
        "import json, sys; sys.path.insert(0, 'tests'); from record_game_versions import fingerprint; "
        "print(json.dumps(fingerprint('monster_arena-v0')))"
    )
    environment = {
        **os.environ,
        "PYTHONHASHSEED": "12345",
        "MONSTER_ZOO_NUM_THREADS": "2",
        "NUMBA_NUM_THREADS": "2",
    }
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == PINS["monster_arena-v0"]
