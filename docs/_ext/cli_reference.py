"""Sphinx extension: the command-line reference, written from each command's own ``--help``.

A page holding :data:`MARKER` gets one section per command: every subcommand of ``monster-zoo``
(found through its parser, so a new command needs no edit here), their own subcommands (the
``{a,b}`` choices a usage line names), the ``monster-zoo-match`` script and the ``python -m``
tools the guides name (:data:`TOOLS`). Each section is the text argparse prints, so the reference
cannot drift from the code. A command whose ``--help`` fails (an extra that is not installed where
the site is built) shows its error instead of failing the build.
"""

import contextlib
import importlib
import io
import os
import re
from collections.abc import Callable, Sequence

MARKER = "<!-- cli-reference: every command's --help -->"
HELP_COLUMNS = "100"  # argparse wraps at the terminal's width: one width for every build

# (how it is typed, module, its main's arguments before --help); the tools the guides send readers to.
TOOLS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("monster-zoo-match", "monster_zoo.evaluation.match", ()),
    ("python -m monster_zoo.training.report", "monster_zoo.training.report", ()),
    ("python -m monster_zoo.evaluation.search_report", "monster_zoo.evaluation.search_report", ()),
    ("python -m monster_zoo.training.az.strength", "monster_zoo.training.az.strength", ()),
    ("python -m monster_zoo.training.az.pooled", "monster_zoo.training.az.pooled", ()),
    ("python -m monster_zoo.training.az.strength_curve", "monster_zoo.training.az.strength_curve", ()),
    (
        "python -m monster_zoo.benchmarks.training_throughput",
        "monster_zoo.benchmarks.training_throughput",
        (),
    ),
)
# a subcommand group as argparse lists it under "positional arguments": the line "  {a,b,...}"
_CHOICES = re.compile(r"^  \{([\w-]+(?:,[\w-]+)*)\}", re.M)


def help_text(main: Callable[[Sequence[str]], object], argv: Sequence[str]) -> str:
    """What ``main([*argv, "--help"])`` prints, or the error it stops with."""
    out = io.StringIO()
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_COLUMNS
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                main([*argv, "--help"])
            except SystemExit:
                pass
            except Exception as error:  # an extra missing where the site is built
                print(f"(--help failed here: {type(error).__name__}: {error})")
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous
    return out.getvalue().rstrip()


def subcommands(text: str) -> list[str]:
    """The subcommands a help text lists among its positional arguments (``{budget,training}``)."""
    positional = text.partition("positional arguments:")[2]
    found = _CHOICES.search(positional)
    return found.group(1).split(",") if found else []


def command_names() -> list[str]:
    """Every ``monster-zoo`` subcommand, in the order its own ``--help`` lists them."""
    import argparse

    from monster_zoo.cli.main import build_parser

    parser = build_parser()
    for action in parser._actions:  # argparse keeps its subparsers there and nowhere public
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def sections(typed: str, main: Callable[[Sequence[str]], object], argv: Sequence[str]) -> list[str]:
    """Markdown sections of one command and of its subcommands."""
    text = help_text(main, argv)
    parts = [f"## `{typed}`", "", "```text", text, "```", ""]
    for name in subcommands(text):
        parts += [
            f"### `{typed} {name}`",
            "",
            "```text",
            help_text(main, [*argv, name]),
            "```",
            "",
        ]
    return parts


def reference() -> str:
    """The whole reference: ``monster-zoo`` and each subcommand, then the other tools."""
    from monster_zoo.cli.main import main

    parts = ["## `monster-zoo`", "", "```text", help_text(main, []), "```", ""]
    for name in command_names():
        parts += sections(f"monster-zoo {name}", main, [name])
    for typed, module, argv in TOOLS:
        parts += sections(typed, importlib.import_module(module).main, list(argv))
    return "\n".join(parts)


def on_source_read(app, docname: str, source: list[str]) -> None:
    """``source-read``: fill the marker with every command's help."""
    if MARKER in source[0]:
        source[0] = source[0].replace(MARKER, reference())


def setup(app):
    """Register the event handler."""
    app.connect("source-read", on_source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
