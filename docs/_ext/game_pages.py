"""Sphinx extension: a page per game, generated at build time from what the repository holds.

A game's page is a file ``games/<game>.md`` holding only the marker ``<!-- game-page: <id> -->``;
as Sphinx reads it, the marker becomes the page (``source-read``), in markdown:

* the game module's docstring (``envs/<game>_v0.py``, the PettingZoo-style page: the import table,
  the observation and action tables, rewards, version history), with
* its pictures after the introduction: ``pictures/<game>.png`` and the animated
  ``pictures/<game>.gif`` (both drawn by ``make pictures``);
* its options as the game's spec declares them (name, default, valid values, what each does): the
  docstring's own table is generated from the spec (``monster_zoo.envs.core.game_page``, which also
  writes the header table and the paragraphs every game shares); an Options section without
  that table is a warning, and a page without an Options section gets the table here, so the page
  cannot fall behind the code;
* its version history extended by the pinned ids (``tests/game_versions.json``) and every
  CHANGELOG entry that names one of the game's ids;
* its agents and their leaderboard results (``leaderboard/<game>-<n>p.json``, read as untrusted
  input within the leaderboard's own bounds, with the win-rate pictures).

The games index (``<!-- game-index -->``) becomes a table of every registered game. A registered
game without a page, or a page of no registered game, is a warning: ``make docs`` fails on it.
"""

import importlib
import re
from pathlib import Path

from sphinx.util import logging

from monster_zoo import envs
from monster_zoo.agents import available_agents
from monster_zoo.envs.core.bounded_reading import read_json_file
from monster_zoo.envs.core.game_page import options_table
from monster_zoo.evaluation.leaderboard import MAX_TABLE_BYTES, MAX_TABLE_DEPTH
from monster_zoo.evaluation.tournament import TournamentResult

logger = logging.getLogger(__name__)

DOCS = Path(__file__).resolve().parents[1]
REPOSITORY = DOCS.parent
GAMES_FOLDER = "games"
PICTURES = DOCS / "pictures"
LEADERBOARD = DOCS / "leaderboard"
CHANGELOG = REPOSITORY / "CHANGELOG.md"
VERSION_PINS = REPOSITORY / "tests" / "game_versions.json"
# tests/game_versions.json holds a few KB per game id.
MAX_PINS_BYTES = 1 << 20
MAX_PINS_DEPTH = 6

GAME_MARKER = re.compile(r"<!-- game-page: (\S+) -->")
INDEX_MARKER = "<!-- game-index -->"
OPTIONS_HEADING = "Options"
HISTORY_HEADING = "Version history"
_LIST_ITEM = re.compile(r"^(\s*)[-*] (.*)$")


def game_module(game_id: str):
    """The module whose docstring is ``game_id``'s page (``monster_zoo.envs.<game>_v<version>``)."""
    spec = envs.spec(game_id)
    return importlib.import_module(f"monster_zoo.envs.{spec.name}_v{spec.version}")


def split_sections(text: str) -> tuple[str, list[tuple[str, str]]]:
    """A markdown text as its head (before the first ``## `` heading) and its ``(heading, body)``
    sections of level 2, in order."""
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    head, rest = parts[0], parts[1:]
    return head.strip(), [(rest[i].strip(), rest[i + 1].strip()) for i in range(0, len(rest), 2)]


def pictures_block(game_id: str) -> str:
    """The game's picture and animated GIF as figures, or a warning where ``make pictures`` has
    not drawn them."""
    spec = envs.spec(game_id)
    blocks = []
    for suffix, alt, caption in (
        (
            "png",
            f"{spec.title} part-way through a game",
            "The public view part-way through a game between greedy agents.",
        ),
        (
            "gif",
            f"a whole game of {spec.title}",
            "A whole game between greedy agents at the smallest player count, one frame per action.",
        ),
    ):
        if not (PICTURES / f"{spec.name}.{suffix}").is_file():
            logger.warning(
                f"{game_id}: docs/pictures/{spec.name}.{suffix} is missing; `make pictures` draws it"
            )
            continue
        blocks.append(f"```{{figure}} /pictures/{spec.name}.{suffix}\n:alt: {alt}\n\n{caption}\n```")
    return "\n\n".join(blocks)


def read_version_pins() -> dict[str, dict]:
    """``tests/game_versions.json``: every pinned game id's fingerprint."""
    return read_json_file(VERSION_PINS, MAX_PINS_BYTES, MAX_PINS_DEPTH, str(VERSION_PINS))


def game_ids_pattern(game_id: str) -> re.Pattern:
    """Any id of the game of ``game_id``, whatever its version."""
    return re.compile(rf"\b{re.escape(envs.spec(game_id).name)}-v\d+\b")


def pins_table(game_id: str) -> str:
    """The pinned ids of the game with what each fixes."""
    ids = game_ids_pattern(game_id)
    pins = {pinned: pin for pinned, pin in read_version_pins().items() if ids.fullmatch(pinned)}
    if not pins:
        logger.warning(f"{game_id}: no id of this game is pinned in tests/game_versions.json")
        return ""
    lines = [
        "Each id is held to its fingerprint by `tests/test_game_versions.py` (`tests/game_versions.json`):",
        "",
        "| id | observation version | observation size | actions | default `max_steps` | player counts |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for pinned, pin in sorted(pins.items()):
        counts = ", ".join(table.split()[0] for table in pin["tables"])
        lines.append(
            f"| `{pinned}` | {pin['observation_version']} | {pin['observation_size']} | "
            f"{pin['num_actions']} | {pin['default_max_steps']} | {counts} |"
        )
    return "\n".join(lines)


def changelog_entries(text: str) -> list[tuple[str, str]]:
    """The list items of a CHANGELOG as ``(where, text)``: ``where`` names the release and
    section (``0.1.0 - 2026-11-27, Added``), ``text`` is the item without its nested items."""
    entries: list[tuple[str, str, int]] = []  # (where, text, indent)
    release = section = ""
    for line in text.splitlines():
        if line.startswith("## "):
            release, section = line[3:].replace("[", "").replace("]", "").strip(), ""
            continue
        if line.startswith("### "):
            section = line[4:].strip()
            continue
        item = _LIST_ITEM.match(line)
        indent = len(line) - len(line.lstrip())
        if item:
            where = f"{release}, {section}" if section else release
            entries.append((where, item.group(2).strip(), len(item.group(1))))
        elif line.strip() and entries and indent > entries[-1][2]:
            where, body, depth = entries[-1]
            entries[-1] = (where, f"{body} {line.strip()}", depth)
    return [(where, body) for where, body, _ in entries]


def changelog_lines(game_id: str) -> str:
    """Every CHANGELOG entry naming an id of the game, with its release."""
    ids = game_ids_pattern(game_id)
    found = [
        (where, body)
        for where, body in changelog_entries(CHANGELOG.read_text(encoding="utf-8"))
        if ids.search(body)
    ]
    if not found:
        return ""
    # The CHANGELOG's own anchors lead to its page here.
    lines = [f"- *{where}*: " + body.replace("](#", "](/changelog.md#") for where, body in found]
    return "The [CHANGELOG](/changelog.md) on this game:\n\n" + "\n".join(lines)


def version_history(game_id: str, written: str) -> str:
    """The docstring's version history, then the pinned ids and the CHANGELOG's entries."""
    parts = [written, pins_table(game_id), changelog_lines(game_id)]
    return "\n\n".join(part for part in parts if part)


def leaderboard_tables(game_id: str) -> list[tuple[int, Path]]:
    """The game's leaderboard tables as ``(player count, JSON path)``, fewest players first."""
    found = []
    for path in LEADERBOARD.glob(f"{envs.spec(game_id).name}-*p.json"):
        count = re.fullmatch(rf"{re.escape(envs.spec(game_id).name)}-(\d+)p", path.stem)
        if count:
            found.append((int(count.group(1)), path))
    return sorted(found)


def leaderboard_table(path: Path) -> str:
    """One tournament of the leaderboard as markdown (win rates, ratings, win-rate picture)."""
    data = read_json_file(path, MAX_TABLE_BYTES, MAX_TABLE_DEPTH, str(path))
    markdown = TournamentResult.from_json(data, str(path)).markdown()
    markdown = re.sub(r"^## ", "### ", markdown, flags=re.MULTILINE)
    picture = path.with_suffix(".png")
    if picture.is_file():
        markdown += f"\n\n![win rates, {path.stem}](/leaderboard/{picture.name})"
    return markdown


def leaderboard_section(game_id: str) -> str:
    """The game's agents and their results on the leaderboard."""
    names = ", ".join(f"`{name}`" for name in available_agents(game_id))
    parts = [
        f"Agents by name (`monster_zoo.agents.make_agent(name, env)`): {names}, and trained policy "
        "files as `ppo:<file.npz>`. The tables below are this game's part of the "
        "[leaderboard](/leaderboard.md) (`monster-zoo leaderboard`)."
    ]
    tables = leaderboard_tables(game_id)
    if not tables:
        logger.warning(
            f"{game_id}: no leaderboard table in docs/leaderboard/; `monster-zoo leaderboard` plays them"
        )
    for _, path in tables:
        try:
            parts.append(leaderboard_table(path))
        except ValueError as err:  # a damaged file is named, not shown
            logger.warning(f"{path}: not shown: {err}")
    return "\n\n".join(parts)


def game_page(game_id: str) -> str:
    """The whole page of ``game_id`` as markdown (see the module doc)."""
    head, sections = split_sections(game_module(game_id).__doc__ or "")
    if not head.startswith("# "):
        logger.warning(f"{game_id}: its module docstring should start with '# <title>', the page's title")
    # The module's target for cross-references (``:mod:`monster_zoo.envs.<game>_v0```): this page.
    target = f"```{{py:module}} {game_module(game_id).__name__}\n```"
    body = [head, target, pictures_block(game_id)]
    written = dict(sections)
    for heading, text in sections:
        if heading == OPTIONS_HEADING and options_table(envs.spec(game_id)) not in text:
            logger.warning(
                f"{game_id}: its Options section lacks the table generated from its spec; "
                "put the line '<!-- generated: options -->' there (envs/core/game_page.py)"
            )
        elif heading == HISTORY_HEADING:
            text = version_history(game_id, text)
        body.append(f"## {heading}\n\n{text}")
    if OPTIONS_HEADING not in written:
        body.append(f"## {OPTIONS_HEADING}\n\n{options_table(envs.spec(game_id))}")
    if HISTORY_HEADING not in written:
        body.append(f"## {HISTORY_HEADING}\n\n{version_history(game_id, '')}")
    body.append(f"## Agents and leaderboard\n\n{leaderboard_section(game_id)}")
    return "\n\n".join(body) + "\n"


def summary(game_id: str) -> str:
    """The first sentence of the game's introduction (after its title and import table)."""
    head, _ = split_sections(game_module(game_id).__doc__ or "")
    paragraphs = [" ".join(p.split()) for p in head.split("\n\n")]
    prose = [p for p in paragraphs if p and not p.startswith(("#", "|"))]
    if not prose:
        return ""
    sentence = re.match(r"(.+?[.!?])(\s|$)", prose[0])
    return sentence.group(1) if sentence else prose[0]


def page_names() -> dict[str, str]:
    """Registered game id -> the docname of its page (``games/<game>``), from the markers."""
    pages = {}
    for path in sorted((DOCS / GAMES_FOLDER).glob("*.md")):
        for game_id in GAME_MARKER.findall(path.read_text(encoding="utf-8")):
            pages[game_id] = f"{GAMES_FOLDER}/{path.stem}"
    return pages


def games_index() -> str:
    """A table of every registered game with a link to its page."""
    pages = page_names()
    lines = ["| game | id | players | actions | observation | in short |", "|---|---|---|---:|---:|---|"]
    for game_id in envs.available():
        spec = envs.spec(game_id)
        link = f"[{spec.title}](/{pages[game_id]}.md)" if game_id in pages else spec.title
        lines.append(
            f"| {link} | `{game_id}` | {spec.min_players}-{spec.max_players} | {spec.num_actions} | "
            f"{spec.obs_size} | {summary(game_id)} |"
        )
    return "\n".join(lines)


def dependencies(game_id: str) -> list[Path]:
    """The files a game's page is generated from: a change to any of them rebuilds it."""
    tables = [path for _, path in leaderboard_tables(game_id)]
    return [Path(game_module(game_id).__file__), CHANGELOG, VERSION_PINS] + tables


def on_source_read(app, docname: str, source: list[str]) -> None:
    """``source-read``: a game page's or the index's marker becomes its generated markdown."""
    text = source[0]
    for game_id in GAME_MARKER.findall(text):
        if game_id not in envs.available():
            continue  # on_builder_inited has warned
        for path in dependencies(game_id):
            app.env.note_dependency(str(path))
        text = text.replace(f"<!-- game-page: {game_id} -->", game_page(game_id))
    if INDEX_MARKER in text:
        for game_id in envs.available():
            app.env.note_dependency(str(game_module(game_id).__file__))
        text = text.replace(INDEX_MARKER, games_index())
    source[0] = text


def on_builder_inited(app) -> None:
    """Warn about every registered game without a page and every page of no registered game."""
    pages = page_names()
    for game_id in envs.available():
        if game_id not in pages:
            name = envs.spec(game_id).name
            logger.warning(
                f"{game_id} has no page: add docs/{GAMES_FOLDER}/{name}.md holding only "
                f"'<!-- game-page: {game_id} -->'"
            )
    for game_id, docname in pages.items():
        if game_id not in envs.available():
            logger.warning(
                f"docs/{docname}.md is the page of {game_id!r}, which is not a registered game; "
                f"registered: {', '.join(envs.available())}"
            )


def setup(app):
    """Register the event handlers."""
    app.connect("builder-inited", on_builder_inited)
    app.connect("source-read", on_source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
