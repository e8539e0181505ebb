"""What machine a measurement ran on: the CPU's name and the load beside it.

A figure measured in CPU time or wall time means little without the CPU it ran on (the same code
can be several times faster on one x86 host than another: AVX-512 or not, cache sizes), so the
benchmarks and the equal-time protocol print and record these with every result.
"""

import os
import platform
import subprocess


def cpu_name() -> str:
    """``lscpu``'s model name (the platform's processor where lscpu is missing), with AVX-512 noted."""
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        text = ""
    names = [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Model name")]
    flags = " ".join(line for line in text.splitlines() if line.startswith("Flags"))
    name = names[0] if names else (platform.processor() or platform.machine())
    return f"{name} ({'AVX-512' if 'avx512f' in flags else 'no AVX-512'})"


def host_facts() -> dict:
    """The CPU's name, the cores this process may use and the 1-minute load average, for a report."""
    return {
        "cpu": cpu_name(),
        "cores": len(os.sched_getaffinity(0)),
        "load_1min": round(os.getloadavg()[0], 2),
    }


GIT_SHA_VARIABLE = "MONSTER_ZOO_GIT_SHA"  # the commit of a copy of the tree that has no .git


def git_revision() -> str | None:
    """The commit the measured code comes from: ``$MONSTER_ZOO_GIT_SHA`` where set (a copy of the tree
    without its ``.git``, such as a GPU machine's, where the script that made the copy recorded it),
    else ``git rev-parse HEAD`` in this package's repository with ``-dirty`` when tracked files
    differ from it, else None."""
    recorded = os.environ.get(GIT_SHA_VARIABLE, "").strip()
    if recorded:
        return recorded
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(
            ["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{head}-dirty" if changed else head or None


def package_versions(distributions) -> dict[str, str | None]:
    """``{distribution: installed version or None}``, from the installed metadata."""
    from importlib import metadata

    found = {"python": platform.python_version()}
    for name in distributions:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def provenance(distributions) -> dict:
    """What every benchmark line carries: ``git`` (:func:`git_revision`), ``versions`` of
    ``distributions`` (:func:`package_versions`, Python's included) and ``host`` (its name, platform
    and :func:`host_facts`)."""
    return {
        "git": git_revision(),
        "versions": package_versions(distributions),
        "host": {"name": platform.node(), "platform": platform.platform(), **host_facts()},
    }
