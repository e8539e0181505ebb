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
