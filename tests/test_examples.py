"""Every script of ``examples/`` runs with its tiny default budget, and answers ``--help``.

The scripts are found by globbing the folder, so a new example is tested without touching this
file. Each runs in a subprocess of its own (its libraries, torch or Ray, stay out of the test
process); one that imports a library of an extra that is not installed is skipped with the name of
the missing module. Together they take a minute or two on 2 cores (Ray's start and the imports of
torch, RLlib and Tianshou most of it): every example is meant to run in CI, so they are not
marked slow.
"""

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((REPOSITORY / "examples").glob("*.py"))
# Generous: the slowest example (Ray's start, one RLlib iteration) takes about 30 s on a busy 2-core machine.
TIMEOUT_S = 300
# A local Ray binds to the loopback address instead of the machine's address (as in tests/test_rllib.py).
ENV = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def imported_modules(script: Path) -> list[str]:
    """The top-level modules ``script`` imports, in order."""
    names = []
    for node in ast.parse(script.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            names += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.append(node.module.split(".")[0])
    return list(dict.fromkeys(names))


def missing_modules(script: Path) -> list[str]:
    """The modules ``script`` imports that are not installed here."""
    return [name for name in imported_modules(script) if importlib.util.find_spec(name) is None]


def run(arguments: list[str]) -> subprocess.CompletedProcess:
    """A script run by this interpreter in the repository's root, its output kept."""
    return subprocess.run(
        [sys.executable, *arguments],
        cwd=REPOSITORY,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )


def test_the_examples_are_found():
    """The glob finds the scripts the examples README lists (a renamed folder would test nothing)."""
    names = {script.name for script in EXAMPLES}
    assert {"random_play.py", "batched_throughput.py", "maskable_ppo.py"} <= names
    readme = (REPOSITORY / "examples" / "README.md").read_text(encoding="utf-8")
    unlisted = [name for name in sorted(names) if f"({name})" not in readme]
    assert not unlisted, f"examples/README.md does not list {unlisted}"


@pytest.mark.parametrize("script", EXAMPLES, ids=[script.stem for script in EXAMPLES])
def test_example_runs_with_its_tiny_budget(script):
    """The script, with no arguments, ends with status 0 and prints what it measured."""
    missing = missing_modules(script)
    if missing:
        pytest.skip(f"examples/{script.name} needs {', '.join(missing)}, not installed here")
    done = run([str(script)])
    assert done.returncode == 0, (
        f"examples/{script.name} failed:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    )
    assert done.stdout.strip(), f"examples/{script.name} printed nothing"


def test_every_example_answers_help():
    """``--help`` prints each script's usage, its docstring's first paragraph and ``--seed``, in one interpreter
    (the imports are shared, so this costs one start of each library, not one per script)."""
    runnable = [script for script in EXAMPLES if not missing_modules(script)]
    code = (
        "import runpy, sys\n"
        "for path in sys.argv[1:]:\n"
        "    sys.argv = [path, '--help']\n"
        "    print('=== ' + path, flush=True)\n"
        "    try:\n"
        "        runpy.run_path(path, run_name='__main__')\n"
        "    except SystemExit as stop:\n"
        "        assert stop.code in (0, None), f'{path} --help exited with {stop.code}'\n"
    )
    done = run(["-c", code, *map(str, runnable)])
    assert done.returncode == 0, done.stderr[-5000:]
    helps = done.stdout.split("=== ")[1:]
    assert len(helps) == len(runnable)
    for script, text in zip(runnable, helps):
        summary = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))).split("\n\n")[0]
        assert "usage:" in text, f"examples/{script.name} --help printed no usage"
        assert "--seed" in text, f"examples/{script.name} takes no --seed (examples/README.md promises one)"
        assert "".join(summary.split()) in "".join(text.split()), (
            f"examples/{script.name} --help lacks its summary"
        )


def test_random_play_is_seeded():
    """Game i of a run plays seed + i (the examples README promises seeded games): the second game
    from seed 5 has the length and returns of the first from seed 6, and the first from seed 5 others."""
    script = str(REPOSITORY / "examples" / "random_play.py")
    runs = [run([script, "--games", str(games), "--seed", str(seed)]) for games, seed in ((2, 5), (1, 6))]
    played = [
        [line.split(":", 1)[1] for line in done.stdout.splitlines() if line.startswith("game ")]
        for done in runs
    ]
    assert len(played[0]) == 2 and len(played[1]) == 1
    assert played[0][1] == played[1][0]
    assert played[0][0] != played[0][1]
