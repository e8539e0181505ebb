"""Nothing lost in a refactor of the agents and the command line.

``tests/golden/nothing_lost.json`` (written by ``tests/record_nothing_lost.py``) holds every agent
name the registry offers per game, every command's and subcommand's ``--help`` text, the digest of
every shipped model file and a few seeded matches' results, recorded before the agents were
reorganised by kind. Moving code must change none of them.
"""

import difflib
import json

import pytest
from record_nothing_lost import GOLDEN, agent_names, help_texts, match_results, shipped_digests

RERECORD = (
    "If the change is intended, re-record with `python tests/record_nothing_lost.py` and review "
    "`git diff tests/golden/nothing_lost.json`."
)


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_every_agent_name_is_still_offered(golden):
    assert agent_names() == golden["agent_names"], RERECORD


def test_every_help_text_is_the_same(golden):
    texts = help_texts()
    assert sorted(texts) == sorted(golden["help"])
    for command, expected in golden["help"].items():
        diff = "\n".join(
            difflib.unified_diff(
                expected.splitlines(), texts[command].splitlines(), "recorded", "now", lineterm=""
            )
        )
        assert texts[command] == expected, f"{command} changed:\n{diff}\n{RERECORD}"


def test_every_shipped_file_keeps_its_digest(golden):
    assert shipped_digests() == golden["shipped_digests"], RERECORD


def test_seeded_matches_give_the_same_results(golden):
    assert match_results() == golden["matches"], RERECORD
