"""The large extras' entry points import with that extra alone, checked in the environment the tests
run in: no fresh install, so these run in the default suite where those extras' fresh installs
(tests/test_extras.py, marked slow) do not.

The environment the suite runs in holds every extra (``make test`` installs them all), so an entry
point that imports a package its extra does not declare would still import there. Each check
therefore runs in a virtual environment of its own whose site-packages holds links to the installed
distributions the extra reaches (the core dependencies, the extra's, and theirs, as their metadata
declares them) and to nothing else: the packages are the ones already installed, nothing is
downloaded, and a package outside the extra is as absent as in a fresh install. The entry points
are those of tests/test_extras.py, in their cheap form: a script or command answers ``--help``
(which runs its imports), a short program runs as written, and the modules the extra enables are
imported.
"""

import importlib.metadata
import importlib.util
import subprocess
import sysconfig
import venv
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from test_extras import CHECKS, HEAVY
from test_packaging import PYPROJECT

SITE = Path(sysconfig.get_paths()["purelib"])
OURS = canonicalize_name(PYPROJECT["project"]["name"])
# The library's modules each extra is there for, beyond its entry points: importing them with the
# extra alone is what a user of that extra does first.
MODULES = {
    "train": ["monster_zoo.training.ppo.trainer", "monster_zoo.training.az.trainer"],
    "distributed": ["monster_zoo.training.rllib.league", "monster_zoo.envs.rllib_env"],
    "torchrl": ["monster_zoo.envs.torchrl_env"],
    "device-train": ["monster_zoo.training.device_ppo.trainer"],
    "gpu": ["monster_zoo.envs.gpu.ptx_check", "numba_cuda"],
    "bench": ["monster_zoo.benchmarks.bench"],
}


def _requirements(extra: str) -> list[Requirement]:
    """The core dependencies and ``extra``'s, with the extras it names of this package unfolded."""
    optional = PYPROJECT["project"]["optional-dependencies"]
    found, todo, seen = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]], [extra], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for text in optional[name]:
            requirement = Requirement(text)
            if canonicalize_name(requirement.name) == OURS:
                todo += sorted(requirement.extras)
            else:
                found.append(requirement)
    return found


def _applies(requirement: Requirement, extras: set[str]) -> bool:
    """Whether ``requirement``'s marker holds here for a distribution installed with ``extras``."""
    if requirement.marker is None:
        return True
    return any(requirement.marker.evaluate({**default_environment(), "extra": e}) for e in extras or {""})


def reached(extra: str) -> tuple[set[str], list[str]]:
    """The installed distributions ``extra`` reaches (canonical names, this package's included), and
    the requirements of the extra itself that are not installed here."""
    names, missing, seen = {OURS}, [], set()
    todo = [(r, {""}, True) for r in _requirements(extra)]
    while todo:
        requirement, wanted, own = todo.pop()
        if not _applies(requirement, wanted):
            continue
        name = canonicalize_name(requirement.name)
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            if own:  # another package's requirement may be one it does without; the extra's may not
                missing.append(str(requirement))
            continue
        extras = frozenset({"", *requirement.extras})
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        names.add(name)
        todo += [(Requirement(r), extras, False) for r in dist.requires or ()]
    return names, missing


def _installed_paths() -> dict[str, set[Path]]:
    """Every installed distribution's files under site-packages, relative to it, by canonical name."""
    paths = {}
    for dist in importlib.metadata.distributions(path=[str(SITE)]):
        if not dist.metadata["Name"]:
            continue  # a distribution whose metadata is broken installs nothing importable
        name = canonicalize_name(dist.metadata["Name"])
        files = {Path(f) for f in dist.files or () if not str(f).startswith("..")}
        paths.setdefault(name, set()).update(f for f in files if "__pycache__" not in f.parts)
    return paths


def _link(entries: set[Path], others: set[Path], source: Path, target: Path) -> None:
    """Link each top entry of ``entries`` from ``source`` into ``target``; a folder that a distribution
    left out also fills (a namespace such as ``nvidia/``) is made afresh and linked one level down."""
    for top in sorted({p.parts[0] for p in entries}):
        if (source / top).is_dir() and any(p.parts[0] == top for p in others):
            (target / top).mkdir(exist_ok=True)
            below = {Path(*p.parts[1:]) for p in entries if p.parts[0] == top and len(p.parts) > 1}
            rest = {Path(*p.parts[1:]) for p in others if p.parts[0] == top and len(p.parts) > 1}
            _link(below, rest, source / top, target / top)
        elif (source / top).exists() and not (target / top).exists():
            (target / top).symlink_to(source / top)


def environment_of(extra: str, where: Path) -> Path:
    """A virtual environment in ``where`` that sees only the distributions ``extra`` reaches, linked
    from this one; its python."""
    names, _ = reached(extra)
    paths = _installed_paths()
    entries = set().union(*(paths.get(n, set()) for n in names))
    others = set().union(*(files for n, files in paths.items() if n not in names)) - entries
    venv.create(where, with_pip=False, symlinks=True)
    python = where / "bin" / "python"
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    _link(entries, others, SITE, site)
    return python


def cheap(check, modules: list[str]) -> str:
    """One of tests/test_extras.py's checks in its cheap form, after importing ``modules``, as one
    python program (one interpreter: torch or Ray is imported once): a script or ``-m`` command
    answers ``--help`` (unless it asks for ``--help`` or ``--version`` already), a program runs."""
    lines = [f"import {module}" for module in modules]
    if isinstance(check, str) or check[0] == "-c":
        return "\n".join([*lines, check if isinstance(check, str) else check[1]])
    check = [str(c) for c in check]
    arguments = check if {"--help", "--version"} & set(check) else [*check, "--help"]
    if arguments[0] == "-m":
        run = f"runpy.run_module({arguments[1]!r}, run_name='__main__', alter_sys=True)"
        argv = arguments[1:]
    else:
        run = f"runpy.run_path({arguments[0]!r}, run_name='__main__')"
        argv = arguments
    return "\n".join(
        [
            *lines,
            "import runpy, sys",
            f"sys.argv = {argv!r}",
            "try:",
            f"    {run}",
            "except SystemExit as done:",
            "    sys.exit(done.code)",
        ]
    )


def test_the_links_leave_out_what_the_extra_does_not_reach(tmp_path):
    """The web extra's environment imports Starlette but not torch, which this one holds beside it."""
    names, _ = reached("web")
    if importlib.util.find_spec("torch") is None or importlib.util.find_spec("starlette") is None:
        pytest.skip("needs torch and starlette installed here (make test installs both)")
    assert {"starlette", "numpy"} <= names and "torch" not in names
    python = environment_of("web", tmp_path / "env")
    program = (
        "import starlette, monster_zoo\ntry:\n    import torch\nexcept ImportError:\n    print('no torch')"
    )
    done = subprocess.run([python, "-c", program], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "no torch", done.stdout + done.stderr
    # and a check that needs a package outside the extra fails there, naming it
    program = cheap(CHECKS["torchrl"][0], MODULES["torchrl"])
    done = subprocess.run([python, "-c", program], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode != 0 and "No module named 'torch" in done.stderr, done.stderr


@pytest.mark.parametrize("extra", sorted(HEAVY))
def test_an_extra_alone_imports_its_entry_points(extra, tmp_path):
    """The extra's check of tests/test_extras.py, in its cheap form, runs where only the extra is."""
    _, missing = reached(extra)
    if missing:
        pytest.skip(
            f"the {extra} extra is not installed here ({', '.join(missing)}): pip install -e '.[{extra}]'"
        )
    python = environment_of(extra, tmp_path / "env")
    work = tmp_path / "work"
    work.mkdir()
    for check in CHECKS[extra]:
        program = cheap(check, MODULES.get(extra, []))
        done = subprocess.run(
            [str(python), "-c", program], cwd=work, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, (
            f"with the {extra} extra alone, this program failed:\n{program}\n"
            f"{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        )
