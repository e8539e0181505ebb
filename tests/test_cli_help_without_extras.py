"""Every command's ``--help`` works with nothing but the core install: each command parses its
arguments before it imports an extra, so a newcomer can read what a command does before installing
what it needs.

The check runs in a fresh interpreter in which every package that an extra of ``pyproject.toml``
brings (torch, Ray, the MCP SDK, starlette, openskill, ...) fails to import, as it does where the
extra is not installed; the core dependencies stay importable.
"""

import json
import re
import subprocess
import sys
import textwrap
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from monster_zoo.cli.main import build_parser

REPO = Path(__file__).resolve().parent.parent

# Runs in the child: blocks the named top-level modules, then asks every command for its help.
CHILD = textwrap.dedent(
    """
    import contextlib, importlib.abc, io, json, sys

    BLOCKED = set(sys.argv[1].split(","))

    class NotInstalled(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NotInstalled())
    from monster_zoo.cli.main import main

    answers = {}
    for command in sys.argv[2].split(","):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main([command, "--help"])
            except SystemExit as exit:
                status = exit.code
        answers[command] = {"status": status, "out": out.getvalue(), "err": err.getvalue()[-500:]}
    print(json.dumps(answers))
    """
)


def _requirement_name(requirement: str) -> str:
    """The distribution a requirement names, normalised (``ray[rllib]==2.60.0`` -> ``ray``)."""
    return re.split(r"[\[<>=!~;\s]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def extra_only_modules() -> list[str]:
    """Top-level modules of the installed distributions that only extras bring."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = {_requirement_name(r) for r in project["dependencies"]}
    extra = {
        _requirement_name(r)
        for requirements in project["optional-dependencies"].values()
        for r in requirements
        if not r.startswith("monster-zoo")
    }
    wanted = extra - core
    return sorted(
        module
        for module, distributions in packages_distributions().items()
        if any(d.lower().replace("_", "-") in wanted for d in distributions) and module.isidentifier()
    )


def commands() -> list[str]:
    """Every subcommand of ``monster-zoo``."""
    (subcommands,) = [a for a in build_parser()._actions if a.dest == "command"]
    return sorted(subcommands.choices)


def test_the_blocked_modules_are_the_extras():
    """The block list is read from pyproject.toml: the extras' packages, never a core dependency."""
    blocked = extra_only_modules()
    assert {"torch", "starlette"} <= set(blocked), blocked
    assert not {"numpy", "numba", "gymnasium", "pettingzoo"} & set(blocked)


def test_every_command_shows_its_help_without_any_extra():
    names = commands()
    assert {"mcp", "league", "serve", "train", "evaluate", "leaderboard"} <= set(names)
    child = subprocess.run(
        [sys.executable, "-c", CHILD, ",".join(extra_only_modules()), ",".join(names)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert child.returncode == 0, child.stderr[-2000:]
    answers = json.loads(child.stdout.splitlines()[-1])
    failed = {
        name: answer
        for name, answer in answers.items()
        if answer["status"] != 0 or "usage:" not in answer["out"]
    }
    assert not failed, json.dumps(failed, indent=1)[:3000]


def test_leaderboard_help_names_every_kind_it_plays():
    """The leaderboard's field: the baselines, the tuned search, the champion and the learned search."""
    (leaderboard,) = [
        parser
        for action in build_parser()._actions
        if action.dest == "command"
        for name, parser in action.choices.items()
        if name == "leaderboard"
    ]
    text = " ".join(leaderboard.format_help().split())
    for kind in ("random", "greedy", "mcts", "champion", "az"):
        assert re.search(rf"\b{kind}\b", text), kind
