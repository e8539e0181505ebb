"""Guard against stale numba caches.

numba keys a cached kernel on its own source file only. Our kernels read tables
from other modules and from ``seeds/`` data, and call kernels in other files, so
an edit there would leave a stale machine-code cache behind. Each game package
fingerprints everything its kernels depend on and clears its cache when the
fingerprint changes.
"""
import hashlib
from pathlib import Path
from typing import Iterable

_FINGERPRINT = "numba_sources.sha1"
CORE_DIR = Path(__file__).resolve().parent


def core_kernel_sources() -> list:
    """The core files that games' and agents' kernels inline: the generator, the contract, the
    shared header set-up and rewards."""
    return [CORE_DIR / "rng.py", CORE_DIR / "contract.py", CORE_DIR / "header.py", CORE_DIR / "rewards.py"]


def kernel_sources(folder: Path) -> list:
    """The Python files of ``folder`` that define numba kernels.

    Fingerprinting only these keeps an edit to plain Python code (an env
    adapter, a CLI) from throwing away compiled kernels.
    """
    return sorted(f for f in Path(folder).glob("*.py") if "njit" in f.read_text())


def fingerprint(paths: Iterable[Path]) -> str:
    """SHA-1 over the names and bytes of ``paths`` (directories expand to their files)."""
    digest = hashlib.sha1()
    files = []
    for p in paths:
        p = Path(p)
        files += sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in (".py", ".json", ".csv")) \
            if p.is_dir() else [p]
    for f in files:
        if "__pycache__" in f.parts:
            continue
        digest.update(f.name.encode())
        digest.update(f.read_bytes())
    return digest.hexdigest()


def clear_stale_cache(package_dir: Path, sources: Iterable[Path]) -> bool:
    """Delete ``package_dir``'s numba cache files if ``sources`` changed; return True if cleared."""
    cache = Path(package_dir) / "__pycache__"
    stamp = cache / _FINGERPRINT
    current = fingerprint(sources)
    try:
        if stamp.read_text() == current:
            return False
    except OSError:
        pass
    cleared = False
    if cache.is_dir():
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink(missing_ok=True)
            cleared = True
    try:
        cache.mkdir(exist_ok=True)
        stamp.write_text(current)
    except OSError:
        pass  # read-only install: numba falls back to its own cache location
    return cleared
