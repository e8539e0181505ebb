"""Every game's page (its page module's docstring) is the page's own text with the shared parts
filled in by ``envs/core/game_page.py``: the header table from the spec, the action-mask and
``observation="flat"`` paragraphs, the options table and the version-history tail."""

import ast
import dataclasses
import importlib
import re
from pathlib import Path

import pytest

from monster_zoo.envs import registry
from monster_zoo.envs.core.escaping import markdown_cell, markdown_code
from monster_zoo.envs.core.game_page import (
    FLAT_PARAGRAPH,
    MASK_PARAGRAPH,
    PARTS,
    game_page,
    markers,
    version_paragraph,
)


def words(text: str) -> str:
    """``text`` with every run of whitespace as one space."""
    return " ".join(text.split())


def page_of(game_id: str) -> str:
    return registry._module(game_id).__doc__


def written_docstring(game_id: str) -> str:
    """The page module's docstring as written in its file, before ``game_page`` fills it in."""
    source = Path(registry._module(game_id).__file__).read_text(encoding="utf-8")
    return ast.get_docstring(ast.parse(source), clean=False)


def header_rows(page: str) -> list:
    """The header table (the first table of the page) as ``(name, value)`` pairs, rule row skipped."""
    rows = []
    for line in page.split("\n\n", 2)[1].splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not set(cells[0]) <= {"-"}:
            rows.append((cells[0], cells[1]))
    return rows


def test_every_page_lists_each_option_of_its_spec_with_its_default(game_id):
    page = page_of(game_id)
    for option in registry.declaration(game_id).spec.options:
        row = re.search(rf"^\| `{option.name}` +\| (.+?) +\|", page, flags=re.MULTILINE)
        assert row, f"{game_id}: no row for option {option.name}"
        assert row.group(1) == markdown_code(repr(option.default)), f"{game_id}: {option.name}'s default"


def test_the_shared_paragraphs_are_on_every_page_once_and_written_only_in_the_core(game_id):
    game = registry.declaration(game_id)
    page, written = words(page_of(game_id)), words(written_docstring(game_id))
    for shared in (MASK_PARAGRAPH, FLAT_PARAGRAPH, version_paragraph(game)):
        assert page.count(words(shared)) == 1, f"{game_id}: {shared[:40]!r} is not on the page exactly once"
        assert words(shared) not in written, f"{game_id}: its page module writes {shared[:40]!r} out again"
    assert sorted(markers(written_docstring(game_id))) == sorted(PARTS), f"{game_id}: a part is not marked"
    assert "<!-- generated:" not in page
    # The shared paragraphs close their sections, after what the game says there itself.
    mask = page.split("## Action mask", 1)[1].split("## ", 1)[0]
    assert mask.strip().endswith(words(FLAT_PARAGRAPH))


def test_the_header_table_counts_are_the_specs(game_id):
    game = registry.declaration(game_id)
    spec = game.spec
    page = page_of(game_id)
    assert page.lstrip().startswith(f"# {spec.title}\n")
    rows = header_rows(page)
    values = dict(rows)
    assert values["Action values"] == f"Discrete({spec.num_actions})"
    assert values["Observation shape"] == f"({spec.obs_size},)"
    default = next(o.default for o in spec.options if o.name == "num_players")
    assert len(values) == len(rows), f"{game_id}: a row name appears twice: {[name for name, _ in rows]}"
    assert values["Agents"] == "`agents= [" + ", ".join(f"'player_{i}'" for i in range(default)) + "]`"
    assert (
        values["Number of agents"] == f"{default} ({spec.min_players}-{spec.max_players} with `num_players`)"
    )
    assert f"--game {spec.env_id}`" in values["Manual control"]
    imported = re.fullmatch(r"`from (\S+) import (\S+)`", rows[0][1])
    assert importlib.import_module(f"{imported[1]}.{imported[2]}") is registry._module(game_id)


def test_the_options_table_says_what_each_option_does(game_id):
    options = page_of(game_id).split("## Options", 1)[1].split("\n## ", 1)[0]
    for option in registry.declaration(game_id).spec.options:
        assert f"| {markdown_cell(option.doc)} |" in options, f"{game_id}: {option.name}'s doc is missing"


def test_a_page_without_markers_is_left_as_it_is():
    game = registry.declaration("marry_the_monster-v0")
    text = "\n# A page written by hand\n\n<!-- a comment of its own -->\n\nNothing generated here.\n"
    assert game_page(game, text) == text
    assert game_page(game, None) is None  # python -OO drops docstrings


def test_a_marker_is_replaced_in_place_and_only_a_whole_line_is_one():
    game = registry.declaration("marry_the_monster-v0")
    text = "# T\n\n  <!-- generated: action-mask -->  \n\nsee `<!-- generated: options -->` in the docs\n"
    page = game_page(game, text)
    assert page.startswith(f"# T\n\n{MASK_PARAGRAPH}\n\n{FLAT_PARAGRAPH}\n\n")
    assert page.endswith("see `<!-- generated: options -->` in the docs\n")


def test_an_unknown_or_repeated_marker_is_refused_naming_the_parts():
    game = registry.declaration("marry_the_monster-v0")
    with pytest.raises(
        ValueError, match="unknown part.*'option'.*header, action-mask, options, version-history"
    ):
        game_page(game, "# T\n\n<!-- generated: option -->\n")
    with pytest.raises(ValueError, match="more than once: header"):
        game_page(game, "<!-- generated: header -->\n\n<!-- generated: header -->\n")


def test_the_parts_follow_the_declaration():
    """A twin declared at another version and player range gets its own numbers, not the shipped ones."""
    shipped = registry.declaration("marry_the_monster-v0")
    twin = dataclasses.replace(shipped, version=5, page="some_package.twin_v5")
    page = game_page(twin, "<!-- generated: header -->\n\n<!-- generated: version-history -->\n")
    assert "`from some_package import twin_v5`" in page and "--game marry_the_monster-v5`" in page
    assert "(`marry_the_monster-v6`)" in words(page)
