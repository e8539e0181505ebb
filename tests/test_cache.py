"""numba caches that heal and never go stale (``monster_zoo.envs.core.cache``).

The in-process tests use a throw-away package folder, so the library's own caches are
never touched; the subprocess tests put a copy's caches in a temporary folder, so a
damaged cache that crashed the interpreter could not take the test run with it.
"""

import ast
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numba
import pytest

from monster_zoo.envs.core import cache
from monster_zoo.envs.core.cache import (
    CORE_DIR,
    cache_folder,
    clear_stale_cache,
    damaged_files,
    kernel_dependencies,
    kernel_sources,
)

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted(p for p in (ROOT / "envs").iterdir() if (p / "rules.py").is_file())


def _library_imports(path: Path):
    """Module names of the library that ``path`` imports, as written."""
    tree = ast.parse(path.read_text())
    return [
        (n.level, n.module, [a.name for a in n.names])
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom) and (n.level or (n.module or "").startswith("monster_zoo"))
    ]


@pytest.mark.parametrize(
    "package",
    [
        *GAMES,
        ROOT / "agents" / "search",
        ROOT / "agents" / "az",
        CORE_DIR,
        ROOT / "benchmarks",
        ROOT / "training" / "az",
    ],
    ids=lambda p: p.name,
)
def test_guard_fingerprints_every_module_the_kernels_import(package):
    """Every library module a kernel file imports, directly or not, is fingerprinted: the core's
    layout (the offsets every game's state is built from) included."""
    deps = set(kernel_dependencies(kernel_sources(package)))
    for f in list(deps):
        for level, module, names in _library_imports(f):
            if level:
                base = f.parent.parents[level - 2] if level > 1 else f.parent
                target = base.joinpath(*(module or "").split(".")) if module else base
            else:
                target = ROOT.joinpath(*module.split(".")[1:])
            files = [target.with_suffix(".py")] + [target / f"{n}.py" for n in names]
            assert any(t.resolve() in deps for t in files if t.is_file()) or not any(
                t.is_file() for t in files
            ), f"{f.name} imports {module} but the guard misses it"
    if package in GAMES:
        assert {
            CORE_DIR / "state_layout.py",
            CORE_DIR / "contract.py",
            CORE_DIR / "rng.py",
            package / "state_layout.py",
        } <= deps
    if package in GAMES:  # every file with kernels, whichever decorator of envs/core/kernels.py it uses
        assert {package / "rules.py", package / "observation.py", package / "greedy.py"} <= set(
            kernel_sources(package)
        )
    if package.parent.name == "agents":
        assert {CORE_DIR / "contract.py", CORE_DIR / "header.py"} <= deps
    if package.name in ("benchmarks", "az") and package.parent.name != "agents":
        assert {ROOT / "agents" / "network.py", ROOT / "agents" / "search" / "tree.py"} <= deps


def _in_the_package(folder) -> bool:
    """Whether ``folder`` is a sub-package of the library: it and every folder above it below the
    repository's root hold an ``__init__.py`` (so build/, .venv/ and other copies are not)."""
    while folder != ROOT:
        if not (folder / "__init__.py").is_file():
            return False
        folder = folder.parent
    return True


def test_every_folder_with_kernels_guards_its_cache():
    """Every folder of the library whose files define numba kernels calls ``guard_package`` in its
    ``__init__``: a timing loop of ``benchmarks/`` (or the expert of ``training/az``) cached before
    an edit to the search it inlines kept running the old search, since numba watches only the
    file a kernel is defined in."""
    folders = [
        p
        for p in ROOT.rglob("*")
        if p.is_dir() and "tests" not in p.relative_to(ROOT).parts and _in_the_package(p)
    ]
    unguarded = [
        str(folder.relative_to(ROOT))
        for folder in folders
        if kernel_sources(folder)
        and "guard_package("
        not in ((folder / "__init__.py").read_text() if (folder / "__init__.py").is_file() else "")
    ]
    assert unguarded == []


def _fake_package(where: Path) -> Path:
    package = where / "fakepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kernels.py").write_text("from numba import njit\n")
    return package


def _fake_cache_files(folder: Path):
    folder.mkdir(parents=True, exist_ok=True)
    import pickle

    (folder / "kernels.f-1.py311.nbi").write_bytes(pickle.dumps("v") + pickle.dumps(("stamp", {})))
    (folder / "kernels.f-1.py311.1.nbc").write_bytes(pickle.dumps(("data", b"x" * 100)))


@pytest.mark.parametrize("numba_cache_dir", [False, True], ids=["in_tree", "NUMBA_CACHE_DIR"])
def test_stale_guard_clears_the_folder_numba_really_uses(tmp_path, monkeypatch, numba_cache_dir):
    """An edited source clears the package's cache where numba keeps it: ``__pycache__`` beside
    the sources, or the folder mirroring the source path under ``NUMBA_CACHE_DIR``."""
    package = _fake_package(tmp_path)
    if numba_cache_dir:
        monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numba_cache"))
    folder = cache_folder(package)
    expected = (tmp_path / "numba_cache") if numba_cache_dir else package
    assert folder.parent == expected if numba_cache_dir else folder == package / "__pycache__"
    sources = [package / "kernels.py"]
    clear_stale_cache(package, sources)
    _fake_cache_files(folder)
    assert not clear_stale_cache(package, sources)  # same sources: the cache stays
    assert len(list(folder.glob("*.nb?"))) == 2
    (package / "kernels.py").write_text("from numba import njit\nX = 2\n")
    assert clear_stale_cache(package, sources)  # edited: cleared, in that folder
    assert not list(folder.glob("*.nb?"))


def test_damaged_cache_files_are_found_and_cleared(tmp_path):
    """A truncated or overwritten index or data file is found without unpickling it, and the
    guard clears the folder although the sources did not change."""
    package = _fake_package(tmp_path)
    folder = cache_folder(package)
    sources = [package / "kernels.py"]
    clear_stale_cache(package, sources)
    _fake_cache_files(folder)
    assert damaged_files(folder) == []
    for name, cut in [
        ("kernels.f-1.py311.nbi", 0.6),
        ("kernels.f-1.py311.1.nbc", 0.5),
        ("kernels.f-1.py311.nbi", 0.2),
        ("kernels.f-1.py311.1.nbc", 0.0),
    ]:
        _fake_cache_files(folder)
        data = (folder / name).read_bytes()
        (folder / name).write_bytes(data[: int(len(data) * cut)])
        assert damaged_files(folder) == [folder / name]
        assert clear_stale_cache(package, sources) and not list(folder.glob("*.nb?"))


def _python(code: str, env: dict, cwd: Path):
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=900, env=env, cwd=cwd
    )


PLAY = (
    "import monster_zoo, sys\n"
    "env = monster_zoo.make('monster_factory-v0', num_players=2)\n"
    "env.reset(seed=1)\n"
    "for agent in env.agent_iter(60):\n"
    "    obs, _, term, trunc, _ = env.last()\n"
    "    env.step(None if term or trunc else int(obs['action_mask'].argmax()))\n"
    "print('played', monster_zoo.__file__)\n"
)


@pytest.fixture(scope="module")
def played_cache(tmp_path_factory) -> Path:
    """A ``NUMBA_CACHE_DIR`` that one fresh process filled by playing :data:`PLAY` (a cold
    compile of the game): each test damages a copy, so the module compiles it cold once."""
    folder = tmp_path_factory.mktemp("played")
    first = _python(PLAY, {**os.environ, "NUMBA_CACHE_DIR": str(folder / "cache")}, folder)
    assert first.returncode == 0, first.stderr[-3000:]
    return folder / "cache"


def test_truncated_cache_files_heal_in_a_fresh_process(tmp_path, played_cache):
    """Every cache file of a game and of the core truncated (index and data, the variant that
    crashed numba's loader included): the next process still imports and plays, and numba
    writes whole files again. Run in subprocesses: a crash could not take pytest with it."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    shutil.copytree(played_cache, tmp_path / "cache")
    files = sorted((tmp_path / "cache").rglob("*.nb[ic]"))
    assert files
    for k, f in enumerate(files):
        data = f.read_bytes()
        f.write_bytes(data[: len(data) // (2 + k % 3)])
    second = _python(PLAY, env, tmp_path)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "played" in second.stdout
    for folder in {f.parent for f in (tmp_path / "cache").rglob("*.nb[ic]")}:
        assert damaged_files(folder) == []


def _read_only_copy(where: Path) -> Path:
    """The library laid out as an installed ``monster_zoo`` package, without caches."""
    site = where / "site"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "monster_zoo", site / "monster_zoo", ignore=skip)
    for folder in ("envs", "agents", "seeds", "training"):
        shutil.copytree(ROOT / folder, site / "monster_zoo" / folder, ignore=skip)
    # A file where each __pycache__ would go: no cache folder can be made there, even by root,
    # whom file permissions do not stop.
    for init in list(site.rglob("__init__.py")):
        (init.parent / "__pycache__").write_text("")
    return site


def _plant_bombs(fallback: Path, marker: Path) -> int:
    """Turn every index file under ``fallback`` into one that runs code when numba loads it (its
    first pickle opens ``marker`` for writing), the way another local user would plant them;
    the second pickle keeps the file whole, so the damage check does not clear it."""
    import pickle

    class Bomb:
        def __reduce__(self):
            return open, (str(marker), "w")

    planted = 0
    for index in fallback.rglob("*.nbi"):
        index.write_bytes(pickle.dumps(Bomb()) + pickle.dumps(("stamp", {})))
        planted += 1
    return planted


def _hand_over(folder: Path) -> None:
    """Give ``folder`` and what it holds to another local user (as root: uid 65534, 'nobody')
    and open it to everyone, as an attacker who made the folder first would leave it."""
    for path in [folder, *folder.rglob("*")]:
        os.chmod(path, 0o777 if path.is_dir() else 0o666)
        if os.geteuid() == 0:
            os.chown(path, 65534, 65534)


def test_read_only_install_without_a_writable_home_imports_and_plays():
    """No writable ``__pycache__`` and no writable home (numba finds no cache location): the
    library falls back to a per-user folder in the temporary directory and works. When another
    user owns that folder, or anyone may write into it, and planted index files there that run
    code when unpickled, the library does not use it: it warns once, compiles into a private
    folder that is gone at exit, and none of the planted code runs."""
    base = Path(tempfile.mkdtemp())
    try:
        site = _read_only_copy(base)
        tmp = base / "tmp"
        tmp.mkdir()
        home = base / "home"
        home.write_text("")  # a file: no ~/.cache below it
        for path in [site, *site.rglob("*")]:
            os.chmod(path, 0o555 if path.is_dir() else 0o444)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_CACHE", "XDG_"))}
        env.update(HOME=str(home), TMPDIR=str(tmp), PYTHONPATH=str(site))
        done = _python(PLAY, env, tmp)
        assert done.returncode == 0, done.stderr[-3000:]
        assert f"played {site}" in done.stdout
        fallback = tmp / f"{cache._FALLBACK_NAME}-{os.getuid()}"
        assert list(fallback.glob("*/*.nbi"))  # the kernels cached there
        assert oct(fallback.stat().st_mode & 0o777) == oct(0o700)

        marker = base / "attacker-code-ran"
        assert _plant_bombs(fallback, marker)
        _hand_over(fallback)
        attacked = _python(PLAY, env, tmp)
        assert attacked.returncode == 0, attacked.stderr[-3000:]
        assert "played" in attacked.stdout
        assert not marker.exists(), "a planted cache file ran code"
        assert attacked.stderr.count("is not used (its cache files could run code as you)") == 1, (
            attacked.stderr
        )
        assert not list(tmp.glob(f"{cache._FALLBACK_NAME}-private-*"))  # removed at exit
    finally:
        for path in [base, *base.rglob("*")]:
            if path.is_dir():
                os.chmod(path, 0o755)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def fallback_in(tmp_path, monkeypatch):
    """The fallback folder's path, with the temporary directory moved to ``tmp_path``."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return cache.fallback_cache_dir()


def test_fallback_folder_is_made_private_and_used(fallback_in):
    assert cache._safe_fallback() == fallback_in
    assert fallback_in.stat().st_mode & 0o777 == 0o700
    assert cache.fallback_problem(fallback_in) is None


@pytest.mark.parametrize(
    "setup, problem",
    [
        (
            lambda f: (
                f.symlink_to(f.parent / "elsewhere", target_is_directory=True)
                or (f.parent / "elsewhere").mkdir()
            ),
            "symbolic link",
        ),
        (lambda f: f.write_text(""), "not a folder"),
        (lambda f: f.mkdir(mode=0o700) or os.chmod(f, 0o777), "written by other users"),
        (lambda f: f.mkdir(mode=0o700) or os.chmod(f, 0o720), "written by other users"),
    ],
    ids=["symlink", "file", "world_writable", "group_writable"],
)
def test_unsafe_fallback_is_refused_for_a_private_folder(fallback_in, setup, problem):
    setup(fallback_in)
    assert problem in cache.fallback_problem(fallback_in)
    with pytest.warns(RuntimeWarning, match="is not used"):
        chosen = cache._safe_fallback()
    assert chosen != fallback_in and chosen.stat().st_mode & 0o777 == 0o700
    assert chosen.parent == fallback_in.parent and chosen.name.startswith(f"{cache._FALLBACK_NAME}-private-")


def test_fallback_owned_by_another_user_is_refused(fallback_in, monkeypatch):
    """Ownership faked: the folder is ours, but the process claims another uid."""
    fallback_in.mkdir(mode=0o700)
    monkeypatch.setattr(cache, "_uid", lambda: os.getuid() + 1)
    monkeypatch.setattr(cache, "fallback_cache_dir", lambda: fallback_in)
    assert "another user" in cache.fallback_problem(fallback_in)
    with pytest.warns(RuntimeWarning, match="another user"):
        assert cache._safe_fallback() != fallback_in


def test_fallback_in_a_shared_folder_without_the_sticky_bit_is_refused(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)  # anyone may rename our folder away and put theirs in its place
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    folder = cache.fallback_cache_dir()
    folder.mkdir(mode=0o700)
    assert "other users may replace it" in cache.fallback_problem(folder)
    os.chmod(shared, 0o1777)  # sticky, as /tmp: only the owner may rename or delete
    assert cache.fallback_problem(folder) is None


def _overwrite_machine_code(path: Path, seed: int):
    """Overwrite the first half of the largest byte string (the compiled code) of a data file with
    random bytes: the pickle stays whole, only loading can tell.

    The damage starts at the code's first byte, so LLVM's reader refuses it with an error (a bad
    signature). Damage further in could reach an assertion of an LLVM built with assertions, which
    aborts the process, and whether it does depends on the compiled code: a change to a game's
    kernels made the middle-of-the-code damage abort in one of Monster Factory's entries.
    """
    import io
    import pickletools
    import random

    data = bytearray(path.read_bytes())
    ops = [
        (pos, arg)
        for _, arg, pos in pickletools.genops(io.BytesIO(bytes(data)))
        if isinstance(arg, (bytes, bytearray))
    ]
    pos, blob = max(ops, key=lambda op: len(op[1]))
    start = bytes(data).index(bytes(blob), pos)  # after the opcode and its length field
    data[start : start + len(blob) // 2] = random.Random(seed).randbytes(len(blob) // 2)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("checksums", [True, False], ids=["checksum_caught", "load_failure_caught"])
def test_altered_machine_code_is_recompiled_not_run(tmp_path, checksums, played_cache):
    """Machine code altered inside a whole pickle (the damage only loading reveals, which can
    crash the process): a checksum mismatch, or without checksum files the failed load, makes
    numba recompile the entry, and the game plays. In subprocesses: a crash is a failed test."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    shutil.copytree(played_cache, tmp_path / "cache")
    game = [f for f in (tmp_path / "cache").rglob("*.nbc") if f.parent.name.startswith("monster_factory_")]
    assert game and all(Path(f"{f}.sha1").is_file() for f in game)
    for k, f in enumerate(game):
        _overwrite_machine_code(f, k)
        if not checksums:
            Path(f"{f}.sha1").unlink()
    second = _python(PLAY, env, tmp_path)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "played" in second.stdout
    if not checksums:
        assert "could not be loaded" in second.stderr
    third = _python(PLAY, env, tmp_path)  # rebuilt: loads cleanly
    assert third.returncode == 0 and "could not be loaded" not in third.stderr, third.stderr[-3000:]
