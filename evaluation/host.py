"""What machine a measurement ran on: the CPU's name and the load beside it.

A figure measured in CPU time or wall time means little without the CPU it ran on (the same code
can be several times faster on one x86 host than another: AVX-512 or not, cache sizes), so the
benchmarks and the equal-time protocol print and record these with every result, and the results
pages (``docs/render_results.py``) show them beside it with the date and the git commit.
"""

import datetime
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


def git_commit(folder) -> dict:
    """The git commit ``folder`` is checked out at and whether its tracked files changed since:
    ``{"git": sha, "git_dirty": bool}``, both None outside a repository or without git."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    sha = git("rev-parse", "HEAD")
    changes = git("status", "--porcelain", "--untracked-files=no") if sha else None
    return {"git": sha, "git_dirty": None if changes is None else bool(changes)}


def measurement_facts(folder) -> dict:
    """When and where a measurement ran, for its record: the UTC time, :func:`host_facts` and the
    git commit of the code in ``folder`` (:func:`git_commit`)."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return {"time": now, **host_facts(), **git_commit(folder)}
