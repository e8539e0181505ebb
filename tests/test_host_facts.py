"""The host named beside every measurement (``monster_zoo.evaluation.host``)."""

import subprocess
from pathlib import Path

from monster_zoo.evaluation import host


def test_the_cpu_is_named_from_lscpu_with_avx512_noted(monkeypatch):
    listing = "Architecture: x86_64\nModel name:   Example CPU 9000\nFlags: fpu sse2 avx512f avx2\n"
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, listing, ""))
    assert host.cpu_name() == "Example CPU 9000 (AVX-512)"
    monkeypatch.setattr(
        subprocess,
        "run",
        lambda *a, **k: subprocess.CompletedProcess(a, 0, listing.replace("avx512f ", ""), ""),
    )
    assert host.cpu_name() == "Example CPU 9000 (no AVX-512)"


def test_without_lscpu_the_platform_names_the_cpu(monkeypatch):
    def missing(*args, **kwargs):
        raise FileNotFoundError("lscpu")

    monkeypatch.setattr(subprocess, "run", missing)
    monkeypatch.setattr(host.platform, "processor", lambda: "")
    monkeypatch.setattr(host.platform, "machine", lambda: "aarch64")
    assert host.cpu_name() == "aarch64 (no AVX-512)"


def test_host_facts_give_the_cores_this_process_may_use_and_the_load():
    facts = host.host_facts()
    assert set(facts) == {"cpu", "cores", "load_1min"}
    assert facts["cores"] >= 1 and facts["load_1min"] >= 0 and facts["cpu"].endswith("AVX-512)")


def test_the_git_commit_is_named_in_a_repository_and_none_outside(tmp_path):
    inside = host.git_commit(Path(__file__).resolve().parent)
    assert inside["git"] is None or (len(inside["git"]) == 40 and isinstance(inside["git_dirty"], bool))
    assert host.git_commit(tmp_path) == {"git": None, "git_dirty": None}


def test_measurement_facts_say_when_where_and_at_which_commit(tmp_path):
    facts = host.measurement_facts(tmp_path)
    assert set(facts) == {"time", "cpu", "cores", "load_1min", "git", "git_dirty"}
    assert facts["time"].startswith("20") and facts["time"][10] == "T"
