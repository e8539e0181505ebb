"""A game's documentation page: the page's own text with the parts every game shares filled in.

Each game's page module (``envs/<game>_v<version>.py``) is documented by its module docstring, a
PettingZoo-style page in markdown that ``help()`` shows and the Sphinx site renders
(``docs/_ext/game_pages.py``). The page writes only what is its own (title, introduction,
observation slices, its remarks on the action mask, action table, rewards, its version bullets)
and marks where the shared parts go; the module then ends with::

    __doc__ = game_page(GAME, __doc__)

**Markers.** A marker is a line holding only ``<!-- generated: <part> -->`` (spaces around it
are allowed); ``game_page`` replaces the whole line with the part, generated from the game's
declaration and spec, so the numbers on the page cannot fall behind the code:

* ``<!-- generated: header -->``: the header table (import, actions, parallel API, manual
  control, agents, player counts, action and observation shapes and values);
* ``<!-- generated: action-mask -->``: what ``action_mask`` holds and the ``observation="flat"``
  form; put it after the game's own sentences on its mask, if any;
* ``<!-- generated: options -->``: every option of ``spec.options`` (the game's own and the
  common ones) with its default, its valid values and what it does;
* ``<!-- generated: version-history -->``: the observation version and how a change of the
  game is versioned; put it after the game's own version bullets.

Every marker is optional and may appear once. A page with no marker at all is returned as it is
(a hand-written page, or ``None`` when Python runs with ``-OO`` and drops docstrings); a marker of
an unknown part, or one given twice, raises ValueError naming the known parts. Other HTML
comments are left alone.

This module is imported whenever a game is made: it reads only the declaration and imports no
kernels, no registry and nothing of the docs.
"""

import re
from collections.abc import Callable, Sequence

from .escaping import markdown_cell, markdown_code

MARKER = re.compile(r"^[ \t]*<!--[ \t]*generated:[ \t]*(?P<part>\S*)[ \t]*-->[ \t]*$", re.MULTILINE)

# The shared paragraphs of every page's "Action mask" section.
MASK_PARAGRAPH = (
    "`action_mask` is 1 for every legal action of the agent on move and all zeros for every other\n"
    "agent and once the game is over."
)
FLAT_PARAGRAPH = (
    'With `observation="flat"`, `observe()` returns the observation Box alone and the same mask is\n'
    'in `infos[agent]["action_mask"]` for every agent (zeros off-turn), as PettingZoo allows: the\n'
    "form for wrappers and libraries that expect a Box (SuperSuit's observation wrappers, frame\n"
    "stacking, normalisers)."
)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A markdown table whose columns, all but the last, are padded to their widest cell, so that
    it also reads well as plain text (``help()``)."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]

    def line(cells: Sequence[str]) -> str:
        padded = [cell.ljust(width) for cell, width in zip(cells, widths)] + [cells[-1]]
        return ("| " + " | ".join(padded) + " |").rstrip()

    rule = "|" + "|".join("-" * (width + 2) for width in widths) + "|" + "-" * (len(header[-1]) + 2) + "|"
    return "\n".join([line(header), rule] + [line(row) for row in rows])


def _option(spec, name: str):
    """The option ``name`` of the spec, or None when the game has no such option."""
    return next((option for option in spec.options if option.name == name), None)


def header_table(game) -> str:
    """The page's header table, PettingZoo style, each row named once: how to import the page module,
    the agents at the default player count and the counts ``num_players`` allows, the action and
    observation spaces."""
    spec = game.spec
    package, _, module = game.page_module.rpartition(".")
    players = _option(spec, "num_players")
    default = players.default if players is not None else spec.min_players
    counts = (
        f"{default}"
        if spec.min_players == spec.max_players
        else f"{default} ({spec.min_players}-{spec.max_players} with `num_players`)"
    )
    agents = ", ".join(f"'player_{seat}'" for seat in range(default))
    rows = [
        ("Import", f"`from {package} import {module}`"),
        ("Actions", "Discrete"),
        ("Parallel API", "No"),
        (
            "Manual control",
            f"Yes: `monster-zoo play --game {spec.env_id}` (or `python -m monster_zoo.training play`)",
        ),
        ("Agents", f"`agents= [{agents}]`"),
        ("Number of agents", counts),
        ("Action shape", "(1,)"),
        ("Action values", f"Discrete({spec.num_actions})"),
        ("Observation shape", f"({spec.obs_size},)"),
        ("Observation values", "[0, 1]"),
    ]
    # PettingZoo's pages open with a table whose header row is its first entry.
    return markdown_table(rows[0], rows[1:])


def action_mask_paragraphs(game) -> str:
    """What ``action_mask`` holds, and the ``observation="flat"`` form that moves it into ``infos``."""
    return f"{MASK_PARAGRAPH}\n\n{FLAT_PARAGRAPH}"


def option_values(option) -> str:
    """The values an option accepts, as markdown."""
    if option.choices is not None:
        return ", ".join(markdown_code(repr(choice)) for choice in option.choices)
    return markdown_cell(option.valid)


def options_table(spec) -> str:
    """Every option of the game's spec: name, default, valid values and what it does, after a
    sentence on how ``make`` takes them."""
    rows = [
        (
            f"`{option.name}`",
            markdown_code(repr(option.default)),
            option_values(option),
            markdown_cell(option.doc),
        )
        for option in spec.options
    ]
    lead = (
        f'Every option of `{spec.env_id}`, as `monster_zoo.make("{spec.env_id}", **options)` takes it\n'
        "(generated from the game's spec; a bad value is refused with the valid values listed)."
    )
    return lead + "\n\n" + markdown_table(("option", "default", "values", "what it does"), rows)


def options_section(game) -> str:
    """The options part of ``game``'s page: :func:`options_table` of its spec."""
    return options_table(game.spec)


def version_paragraph(game) -> str:
    """The observation's version and the rule that a changed game registers under the next id."""
    spec = game.spec
    return (
        f"The observation is at version {spec.observation_version} (`SPEC.observation_version`, recorded in "
        'policy files): what\nchanged under this id before release 0.1.0 is in `CHANGELOG.md`, "Pre-release '
        'history". From\n0.1.0 on, any change to the rules, observation, action space or rewards registers '
        f"the game\nunder the next id (`{spec.name}-v{spec.version + 1}`) with a CHANGELOG entry; "
        "`tests/test_game_versions.py` holds\neach id to its fingerprint."
    )


PARTS: dict[str, Callable] = {
    "header": header_table,
    "action-mask": action_mask_paragraphs,
    "options": options_section,
    "version-history": version_paragraph,
}


def markers(text: str) -> list[str]:
    """The parts marked in ``text``, in order (unknown names included)."""
    return [found.group("part") for found in MARKER.finditer(text)]


def game_page(game, text: str | None) -> str | None:
    """The full page of ``game`` (its :class:`~monster_zoo.envs.core.game.Game` declaration) from
    its page's own ``text``: each marker line replaced by its part (see the module doc). A text
    without markers, or None, is returned as it is; an unknown or repeated marker raises ValueError."""
    if not text:
        return text
    marked = markers(text)
    unknown = sorted({part for part in marked if part not in PARTS})
    repeated = sorted({part for part in marked if marked.count(part) > 1})
    if unknown or repeated:
        problems = ([f"unknown part(s) {', '.join(repr(p) for p in unknown)}"] if unknown else []) + (
            [f"part(s) marked more than once: {', '.join(repeated)}"] if repeated else []
        )
        raise ValueError(
            f"{game.id}'s page ({game.page_module}): {'; '.join(problems)}; a marker is a line "
            f"'<!-- generated: <part> -->' with <part> one of {', '.join(PARTS)}, each at most once"
        )
    return MARKER.sub(lambda found: PARTS[found.group("part")](game), text)
