"""Every rule is cited where the code applies it: each top-level rule id of a game's
``seeds/<game>/rules.md`` (``<prefix>-<n>``, the prefix from the game's declaration) is named in
that game's package ``envs/<game>/``. The worked examples of a rules file are exempt (they are
tests, named by ``tests/``, see ``test_rule_coverage.py``); sub-ids (``MM-20.3``) may be cited
through their parent."""

import re
from pathlib import Path

import pytest

from monster_zoo import envs
from monster_zoo.envs.registry import declaration
from monster_zoo.seeds import game_dir

ENVS_DIR = Path(envs.__file__).resolve().parent
WORKED_EXAMPLES = re.compile(r"^#+ Worked examples", re.MULTILINE | re.IGNORECASE)


def defined_ids(rules_md: str, prefix: str):
    """The top-level ids the rules text defines (``- **<prefix>-<n> Title.**``), worked examples
    left out."""
    rules = WORKED_EXAMPLES.split(rules_md)[0]
    return sorted(
        set(re.findall(rf"^- \*\*({re.escape(prefix)}-\d+)\b(?!\.\d)", rules, re.MULTILINE)),
        key=lambda r: int(r.split("-")[1]),
    )


def cited_ids(package: Path, prefix: str):
    """The top-level ids named anywhere in the package's Python files."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in package.rglob("*.py"))
    return set(re.findall(rf"\b{re.escape(prefix)}-\d+\b", text))


@pytest.mark.parametrize("game_id", envs.available())
def test_every_rule_is_cited_where_it_is_applied(game_id):
    game = declaration(game_id)
    defined = defined_ids((game_dir(game.name) / "rules.md").read_text(encoding="utf-8"), game.rule_prefix)
    assert len(defined) >= 10, f"{game_id}: too few rule ids found in its rules.md ({defined})"
    missing = [r for r in defined if r not in cited_ids(ENVS_DIR / game.name, game.rule_prefix)]
    assert not missing, f"{game_id}: rules that no code in envs/{game.name}/ cites: {', '.join(missing)}"


def test_the_check_finds_an_uncited_rule(tmp_path):
    rules = (
        "- **XY-1 One.** a\n- **XY-2 Two.** b\n- **XY-2.1 Part.** c\n## Worked examples\n- **XY-3 E.** d\n"
    )
    assert defined_ids(rules, "XY") == ["XY-1", "XY-2"]
    (tmp_path / "rules.py").write_text("# applies XY-1\n")
    assert cited_ids(tmp_path, "XY") == {"XY-1"}
