"""Every rule id of every game's ``seeds/<game>/rules.md`` is named by at least one test."""

import re
from pathlib import Path

import pytest

from monster_zoo import envs
from monster_zoo.envs.registry import declaration
from monster_zoo.seeds import SEEDS_DIR

# a rule id is its game's prefix (from the game's declaration), a number and maybe a sub-number
PREFIXES = sorted({declaration(g).rule_prefix for g in envs.available()})
RULE_ID = re.compile(rf"\b(?:{'|'.join(PREFIXES)})-\d+(?:\.\d+)?\b")
TESTS_DIR = Path(__file__).resolve().parent
RULE_FILES = sorted(SEEDS_DIR.glob("*/rules.md"))


def test_every_game_has_a_rules_file():
    assert RULE_FILES, f"no seeds/<game>/rules.md under {SEEDS_DIR}"


@pytest.mark.parametrize("rules_md", RULE_FILES, ids=lambda p: p.parent.name)
def test_every_rule_id_is_named_by_a_test(rules_md):
    ids = sorted(set(RULE_ID.findall(rules_md.read_text(encoding="utf-8"))))
    assert ids, f"{rules_md} has no rule ids"
    tests = "\n".join(
        p.read_text(encoding="utf-8") for p in TESTS_DIR.glob("test_*.py") if p.name != Path(__file__).name
    )
    missing = [r for r in ids if not re.search(rf"\b{re.escape(r)}\b", tests)]
    assert not missing, f"{rules_md.parent.name}: rule ids no test names: {', '.join(missing)}"
