"""The host named beside every measurement (``monster_zoo.evaluation.host``)."""

import subprocess

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
