"""numba caches that heal, never go stale, and have somewhere to live.

numba keys a cached kernel on its own source file only. Our kernels inline
constants and kernels of other modules (layouts, the contract, other games' rules)
and read tables from ``seeds/`` data, so an edit there would leave a stale
machine-code cache behind. Each package that defines kernels calls
:func:`guard_package` before its kernels load; it

* finds the folder numba really caches that package in (``__pycache__``, a folder
  under ``NUMBA_CACHE_DIR`` mirroring the source path, or the user cache), and
  gives numba a per-user folder in the temporary directory when no location is
  writable (a read-only install without a writable home), so the library still
  imports. numba's index files are pickles, read before any checksum, so whoever can
  write into that folder can run code as us: it is used only when it is a real folder
  of ours that nobody else may write into (see :func:`fallback_problem`); otherwise
  numba gets a fresh private folder for this process (nothing cached is read) and
  one warning says why;
* fingerprints every module the package's kernels import, directly or not, plus
  the data, and clears the folder when the fingerprint changes;
* clears the folder when a cache file is damaged (truncated or overwritten), so
  numba recompiles instead of failing or crashing on load;
* and, for the damage only loading reveals, hooks numba's cache of the library's
  own folders (nobody else's): each data file gets a SHA-1 beside it when saved and
  is checked against it before loading (altered machine code could crash the
  process), and a cache entry that fails to load is deleted and recompiled.
"""

import ast
import atexit
import hashlib
import os
import pickletools
import re
import shutil
import stat
import tempfile
import warnings
from collections.abc import Iterable
from io import BytesIO
from pathlib import Path

_FINGERPRINT = "numba_sources.sha1"
CORE_DIR = Path(__file__).resolve().parent
# Holds envs/, agents/, seeds/ ... both in the repository and in an installed monster_zoo.
_LIBRARY_ROOT = CORE_DIR.parents[1]
_FALLBACK_NAME = "monster_zoo-numba-cache"
_CHECKSUM = ".sha1"  # beside each data file: the SHA-1 of its bytes when saved
_GUARDED_FOLDERS = set()  # cache folders of the library's packages (as str)


# A file defines kernels when it calls numba's njit or decorates with one of the decorators of
# envs/core/kernels.py (or the drivers' lazy and batch forms).
_KERNEL_MARK = re.compile(
    r"\bnjit\b|^@(?:kernel|helper|inlined|on_demand|lazy_njit|batch_kernel)\b", re.MULTILINE
)


def kernel_sources(folder: Path) -> list:
    """The Python files of ``folder`` that define numba kernels.

    Fingerprinting only these (and what they import) keeps an edit to plain Python
    code (an env adapter, a CLI) from throwing away compiled kernels.
    """
    return sorted(f for f in Path(folder).glob("*.py") if _KERNEL_MARK.search(f.read_text()))


def _imported_files(path: Path) -> list[Path]:
    """The library's own modules that ``path`` imports (relative or ``monster_zoo.*``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = path.parent
            for _ in range(node.level - 1):
                base = base.parent
            parts = node.module.split(".") if node.module else []
        elif node.module and node.module.split(".")[0] == "monster_zoo":
            base, parts = _LIBRARY_ROOT, node.module.split(".")[1:]
        else:
            continue
        target = base.joinpath(*parts)
        candidates = [target.with_suffix(".py"), target / "__init__.py"] if parts else []
        # "from . import rules" names modules, not attributes
        candidates += [target / f"{alias.name}.py" for alias in node.names]
        found += [c for c in candidates if c.is_file()]
    return found


def kernel_dependencies(files: Iterable[Path]) -> list:
    """``files`` and every library module they import, directly or through others: all the
    code numba may inline into their kernels."""
    todo = [Path(f).resolve() for f in files]
    seen = set()
    while todo:
        f = todo.pop()
        if f not in seen:
            seen.add(f)
            todo += [g.resolve() for g in _imported_files(f)]
    return sorted(seen)


def fingerprint(paths: Iterable[Path]) -> str:
    """SHA-1 over the names and bytes of ``paths`` (directories expand to their files)."""
    digest = hashlib.sha1()
    files = []
    for p in paths:
        p = Path(p)
        files += (
            sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in (".py", ".json", ".csv"))
            if p.is_dir()
            else [p]
        )
    for f in files:
        if "__pycache__" in f.parts:
            continue
        digest.update(f.name.encode())
        digest.update(f.read_bytes())
    return digest.hexdigest()


def _locator_classes():
    """numba's cache locators, in the order numba tries them."""
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    return impl._locator_classes


def cache_folder(package_dir: Path) -> Path | None:
    """The folder numba caches the kernels of ``package_dir``'s modules in, found by numba's
    own locators (``NUMBA_CACHE_DIR``, then ``__pycache__``, then the user cache); None when
    none of them is writable."""
    probe = str(Path(package_dir) / "__init__.py")
    for locator_class in _locator_classes():
        locator = locator_class.from_function(cache_folder, probe)
        if locator is not None:
            return Path(locator.get_cache_path())
    return None


def _uid() -> int:
    return os.getuid() if hasattr(os, "getuid") else 0


def fallback_cache_dir() -> Path:
    """The shared per-user fallback folder's path: ``<tempdir>/monster_zoo-numba-cache-<uid>``."""
    return Path(tempfile.gettempdir()) / f"{_FALLBACK_NAME}-{_uid()}"


def fallback_problem(folder: Path) -> str | None:
    """Why ``folder`` must not hold our numba cache, or None when it is safe.

    Safe means: a real folder (not a link), owned by the current user, that neither the
    group nor others may write into, in a parent where others cannot swap it for another
    (not writable by others, or sticky like ``/tmp``). Ownership and modes are POSIX
    ideas; elsewhere (Windows) the temporary folder is the user's own.
    """
    try:
        info = os.lstat(folder)
    except OSError as error:
        return f"cannot be inspected ({error.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a folder"
    if os.name != "posix":
        return None
    if info.st_uid != _uid():
        return f"belongs to another user (uid {info.st_uid})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"can be written by other users (mode {stat.S_IMODE(info.st_mode):o})"
    parent = os.stat(folder.parent)
    if parent.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not parent.st_mode & stat.S_ISVTX:
        return f"lies in {folder.parent}, where other users may replace it"
    return None


def _private_cache_dir(reason: str) -> Path:
    """A fresh folder only this process knows, removed at exit: numba compiles as if uncached."""
    private = Path(tempfile.mkdtemp(prefix=f"{_FALLBACK_NAME}-private-"))  # mode 0700, a new name
    atexit.register(shutil.rmtree, private, ignore_errors=True)
    warnings.warn(
        f"monster_zoo: numba has no writable cache location and the fallback {fallback_cache_dir()} "
        f"{reason}, so it is not used (its cache files could run code as you); compiled kernels are "
        f"not kept between runs. Set NUMBA_CACHE_DIR to a folder of your own to keep them.",
        RuntimeWarning,
        stacklevel=2,
    )
    return private


def _safe_fallback() -> Path:
    """The shared fallback folder, made mode 0700 if missing, when :func:`fallback_problem` finds
    nothing wrong with it; else a private folder for this process, with one warning."""
    folder = fallback_cache_dir()
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError as error:
        return _private_cache_dir(f"cannot be made ({error.strerror})")
    problem = fallback_problem(folder)
    return folder if problem is None else _private_cache_dir(problem)


def ensure_cache_location(package_dir: Path = CORE_DIR) -> Path | None:
    """Make sure numba can cache ``package_dir``'s kernels; return the folder.

    With no writable location (a read-only install and no writable home) numba refuses
    every ``cache=True`` kernel; point it at the per-user fallback folder in the temporary
    directory instead, or at a private one when the fallback is not safe. Returns None
    only if that is not writable either.
    """
    folder = cache_folder(package_dir)
    if folder is not None:
        return folder
    import numba

    fallback = _safe_fallback()
    numba.config.CACHE_DIR = str(fallback)
    if fallback == fallback_cache_dir():
        # child processes agree on the checked folder; a private one stays this process's own,
        # so a child checks the fallback again (and warns) instead of using a folder removed at exit
        os.environ["NUMBA_CACHE_DIR"] = str(fallback)
    return cache_folder(package_dir)


def damaged_files(folder: Path) -> list:
    """Cache files in ``folder`` that are not whole pickles (truncated or overwritten).

    An index is two pickles in a row, a data file one; only the opcode stream is read,
    nothing is unpickled, so this is fast and runs no code from the files.
    """
    bad = []
    for f in sorted(folder.glob("*.nbi")) + sorted(folder.glob("*.nbc")):
        try:
            data = BytesIO(f.read_bytes())
            size = len(data.getbuffer())
            pickles = 0
            while data.tell() < size:
                for _ in pickletools.genops(data):
                    pass
                pickles += 1
            if pickles != (2 if f.suffix == ".nbi" else 1):
                bad.append(f)
        except (OSError, ValueError):
            bad.append(f)
    return bad


def clear_stale_cache(package_dir: Path, sources: Iterable[Path]) -> bool:
    """Delete the numba cache of ``package_dir`` if ``sources`` changed or a cache file is
    damaged; return True if files were deleted."""
    folder = cache_folder(package_dir)
    if folder is None:
        return False
    stamp = folder / _FINGERPRINT
    current = fingerprint(sources)
    try:
        fresh = stamp.read_text() == current
    except OSError:
        fresh = False
    if fresh and not damaged_files(folder):
        return False
    cleared = False
    for f in list(folder.glob("*.nbi")) + list(folder.glob("*.nbc")) + list(folder.glob(f"*.nbc{_CHECKSUM}")):
        f.unlink(missing_ok=True)
        cleared = True
    try:
        stamp.write_text(current)
    except OSError:
        pass  # the locator just proved the folder writable; a race with another process is harmless
    return cleared


def _checksum_path(data_path) -> Path:
    return Path(f"{data_path}{_CHECKSUM}")


def _guarded(cache_path) -> bool:
    """Whether numba's cache folder ``cache_path`` is one of the library's."""
    return os.path.realpath(cache_path) in _GUARDED_FOLDERS


def _install_heal_hooks() -> None:
    """Wrap numba's cache so that, for the library's folders only, data files carry a checksum
    that is verified before loading, and an entry that fails to load is recompiled."""
    from numba.core import caching

    files, cache = caching.IndexDataCacheFile, caching.Cache
    if getattr(files, "_monster_zoo_heals", False):
        return
    save_data, load_data, load_overload = files._save_data, files._load_data, cache.load_overload

    def _save_data(self, name, data):
        save_data(self, name, data)
        if _guarded(self._cache_path):
            path = self._data_path(name)
            with open(path, "rb") as f:
                digest = hashlib.sha1(f.read()).hexdigest()
            _checksum_path(path).write_text(digest)

    def _load_data(self, name):
        if _guarded(self._cache_path):
            path = self._data_path(name)
            try:
                expected = _checksum_path(path).read_text()
            except OSError:
                expected = None  # written before the hook existed: the load guard below still holds
            with open(path, "rb") as f:
                if expected is not None and hashlib.sha1(f.read()).hexdigest() != expected:
                    # numba treats an OSError as a missing entry: it recompiles and overwrites it
                    raise OSError(f"numba cache file {path} does not match its checksum")
        return load_data(self, name)

    def guarded_load_overload(self, sig, target_context):
        if not _guarded(self._cache_path):
            return load_overload(self, sig, target_context)
        try:
            return load_overload(self, sig, target_context)
        except Exception as error:  # any unreadable entry: recompile rather than fail the import
            warnings.warn(
                f"monster_zoo: numba cache entry of {self._name} could not be loaded "
                f"({type(error).__name__}: {error}); recompiling it",
                RuntimeWarning,
                stacklevel=2,
            )
            Path(self._cache_file._index_path).unlink(missing_ok=True)
            return None

    files._save_data, files._load_data, cache.load_overload = _save_data, _load_data, guarded_load_overload
    files._monster_zoo_heals = True


def guard_package(package_dir: Path, *extra: Path) -> bool:
    """Before ``package_dir``'s kernels load: give numba a cache location, and clear the
    package's cache if any module its kernels import, or ``extra`` (data), changed or a cache
    file is damaged; loading from it is guarded from then on."""
    folder = ensure_cache_location(package_dir)
    if folder is not None:
        try:
            _install_heal_hooks()
            _GUARDED_FOLDERS.add(os.path.realpath(folder))
        except AttributeError:  # a numba without these internals: the checks above still run
            pass
    sources = kernel_dependencies(kernel_sources(package_dir))
    return clear_stale_cache(package_dir, [*sources, *extra])
