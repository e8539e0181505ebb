"""The prepared GPU device check (benchmarks/gpu_device_check.py) runs end to end without a GPU, under
numba-cuda's simulator in --quick mode: its parity, benchmark and trainer parts each write JSON lines
with the device facts and versions (the trainer part: the learner-seat games' parity and a tiny
``device-train --device cuda`` run), and a bad part or game is refused with the valid ones. The figures
themselves come from a GPU machine (the script's docstring says how)."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_gpu_engine import needs_numba_cuda

ROOT = Path(__file__).resolve().parents[1]
GAME = "mighty_monsters-v0"  # the shortest games: the simulator runs the rules as Python


def run_check(*args, timeout=600):
    return subprocess.run(
        [sys.executable, "-m", "monster_zoo.benchmarks.gpu_device_check", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={
            **os.environ,
            "NUMBA_ENABLE_CUDASIM": "1",
            "PYTHONWARNINGS": "ignore::RuntimeWarning",
            "MONSTER_ZOO_GIT_SHA": "0123abc-copied",
        },
    )


@needs_numba_cuda
def test_quick_device_check_writes_every_part_as_json_lines(tmp_path):
    out = tmp_path / "gpu.jsonl"
    done = run_check("--quick", "--games", GAME, "--parts", "parity,bench,trainer", "--json", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [json.loads(line) for line in done.stdout.splitlines()] == rows
    parity = [r for r in rows if r["part"] == "parity"]
    assert sorted(r["num_players"] for r in parity) == [3, 6]
    assert all(r["mismatch"] is None and r["games_ended"] >= 2 for r in parity)
    bench = [r for r in rows if r["part"] == "bench"]
    assert {(r["mode"], r["num_envs"]) for r in bench} == {
        (m, n) for m in ("python", "launch") for n in (4, 8)
    }
    assert all(r["steps_per_second"] > 0 and r["device"] == "numba-cuda simulator" for r in bench)
    assert rows[-1]["part"] == "done" and rows[-1]["failed_parts"] == []
    learner_parity = [r for r in rows if r["part"] == "trainer_parity"]
    assert sorted((r["pool"], r["illegal_played"] > 0) for r in learner_parity) == [
        ("greedy", False),
        ("random", False),
        ("random", True),
        ("snapshots", False),
    ]  # the last: penalize
    assert all(r["mismatch"] is None and r["num_players"] == 3 for r in learner_parity), learner_parity
    (trained,) = [r for r in rows if r["part"] == "trainer"]
    assert trained["timesteps"] == 64 and trained["timesteps_per_second"] > 0 and trained["game"] == GAME
    assert trained["rollout_seconds"] > 0 and trained["update_seconds"] > 0 and "winrate_vs_greedy" in trained
    assert trained["network_dtype"] in ("float32", "bfloat16")  # what --network-dtype auto chose there
    # every line traceable: the commit (this checkout's, or the one a copy without .git was given),
    # package versions and host
    assert all(r["versions"]["numba-cuda"] and r["versions"]["monster-zoo"] for r in rows)
    assert all(r["git"] == "0123abc-copied" and r["host"]["name"] and r["host"]["cpu"] for r in rows)
    assert all(set(r["cuda_libraries"]) >= {"nvvm", "nvJitLink", "nvrtc"} for r in rows)


@needs_numba_cuda
def test_quick_variants_train_at_the_trainers_default_size_in_each_precision(tmp_path):
    """The variants part under the simulator: one ``trainer_variant`` line per variant, with the size
    the trainer chose (``envs`` 0 is its default; --quick plays 4 games), the precision asked, the
    snapshot opponents' rounds, and the audit's count where torch has a GPU (None here)."""
    out = tmp_path / "gpu.jsonl"
    done = run_check(
        "--quick",
        "--parts",
        "variants",
        "--trainer-games",
        GAME,
        "--json",
        str(out),
        "--variants",
        "envs=0,audit=1;envs=0,dtype=bfloat16,compile=reduce-overhead",
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    variants = [r for r in rows if r["part"] == "trainer_variant"]
    assert [r["variant"] for r in variants] == [
        {"envs": 0, "audit": 1},
        {"envs": 0, "dtype": "bfloat16", "compile": "reduce-overhead"},
    ]
    assert [r["network_dtype"] for r in variants][1] == "bfloat16"
    assert all(r["num_envs"] == 4 and r["timesteps"] == 64 and r["opponent_rounds"] >= 1 for r in variants)
    assert variants[0]["torch_syncs"] is None and rows[-1]["failed_parts"] == []
    summary = subprocess.run(
        [sys.executable, "-m", "monster_zoo.benchmarks.gpu_device_check", "--summary", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert summary.stdout.count("variant {") == 2, summary.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--parts", "link,fly"], "unknown part(s) fly; valid: link, parity"),
        (["--games", "chess-v0"], "unknown game(s) chess-v0; available:"),
        (["--trainer-games", "chess-v0"], "unknown game(s) chess-v0; available:"),
        (["--concurrent-trainers", "0"], "--concurrent-trainers 0: give 1 (alone) or more"),
        (["--summary", "/nonexistent/check.jsonl"], "no such file"),
        (["--variants", "envs=16384,speed=2"], "'speed=2' is not KEY=VALUE with KEY one of envs, dtype"),
        (["--variants", "envs=many"], "'envs=many': envs takes an integer"),
        (["--variant-seconds", "0"], "--variant-seconds must be more than 0"),
    ],
)
def test_bad_parts_and_games_are_refused_with_the_valid_ones(args, message):
    done = run_check(*args, timeout=120)
    assert done.returncode == 2 and message in done.stderr


def test_the_wheels_carried_to_a_gpu_machine_satisfy_the_projects_requirements():
    """gpu_device_wheels.sh pins what a GPU image without network gets; every pin of a package the
    project requires (core or the `gpu` extra) must be a version those requirements accept, or the
    device runs another stack than the one tested (numpy 2.5 on an H200 image broke numba-cuda 0.30.4)."""
    import re

    import tomllib
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = {}
    for line in project["dependencies"] + project["optional-dependencies"]["gpu"]:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        specs[name] = specs.get(name, requirement.specifier) & requirement.specifier
    script = (ROOT / "benchmarks" / "gpu_device_wheels.sh").read_text()
    pins = {
        canonicalize_name(n): v for n, v in re.findall(r"([A-Za-z0-9_.-]+)==([0-9][A-Za-z0-9.]*)", script)
    }
    checked = {name: version for name, version in pins.items() if name in specs}
    assert {"numpy", "numba-cuda", "gymnasium", "pettingzoo"} <= set(checked), checked
    bad = {
        name: (version, str(specs[name])) for name, version in checked.items() if version not in specs[name]
    }
    assert not bad, f"pinned for the GPU machine outside the project's requirements: {bad}"


def test_the_summary_says_what_failed_and_gives_exact_ratios_to_pgx():
    from monster_zoo.benchmarks.gpu_device_check import summarize

    link = {"part": "link", "game": "monster_arena-v0", "drivers": "learner", "kernel": "play", "cc": "9.0"}
    rows = [
        {**link, "ok": True, "constant_bytes": 9000, "git": "abc"},
        {**link, "cc": "8.0", "ok": False, "constant_bytes": 70000, "git": "abc"},
        {"part": "parity", "game": "g-v0", "num_players": 2, "mismatch": None, "git": "abc"},
        {"part": "parity", "game": "g-v0", "num_players": 4, "mismatch": "step 3: obs", "git": "abc"},
        {"part": "bench", "game": "g-v0", "mode": "launch", "num_envs": 1024, "steps_per_second": 1.0e7},
        {"part": "bench", "game": "g-v0", "mode": "launch", "num_envs": 4096, "steps_per_second": 2.45e7},
        {"part": "bench", "game": "g-v0", "mode": "python", "num_envs": 4096, "steps_per_second": 9e9},
        {"part": "pgx", "game": "connect_four", "mode": "launch", "num_envs": 4096, "steps_per_second": 1e8},
        {"part": "error", "failed_part": "trainer g-v0", "error": "RuntimeError: out of memory\nmore"},
    ]
    text = "\n".join(summarize(rows))
    assert "link: 1 of 2 kernels link" in text and "FAILED: monster_arena-v0 learner play cc 8.0" in text
    assert "parity: 1 of 2 cases equal the CPU" in text and "MISMATCH g-v0 4p: step 3: obs" in text
    assert "launch: g-v0 2.45e+07 steps/s at 4096 games, 24.50% of Pgx connect_four" in text
    assert "ERROR in trainer g-v0: RuntimeError: out of memory" in text and "more" not in text
    assert text.startswith("git None, abc;")  # the lines without a commit are named too


def test_the_commit_comes_from_the_copy_record_else_from_git(monkeypatch):
    import re

    from monster_zoo.evaluation import host

    monkeypatch.setenv(host.GIT_SHA_VARIABLE, "feedbeef")
    assert host.git_revision() == "feedbeef"
    monkeypatch.delenv(host.GIT_SHA_VARIABLE)
    assert re.fullmatch(r"[0-9a-f]{40}(-dirty)?", host.git_revision() or ""), host.git_revision()
    facts = host.provenance(["numpy", "no-such-distribution"])
    assert facts["versions"]["numpy"] and facts["versions"]["no-such-distribution"] is None
    assert facts["versions"]["python"] and facts["host"]["cores"] >= 1


def test_the_device_script_fits_eight_minutes_on_its_longest_path():
    """The parts' time limits of ``gpu_device_check.sh``: the link processes run beside everything,
    parity beside the other games' trainers, then the bench, Marry the Monster's trainer and its
    variants one after another; that path, with a margin for installing the wheels, stays within the
    eight minutes a lent GPU gives the script."""
    script = (Path(__file__).resolve().parents[1] / "benchmarks" / "gpu_device_check.sh").read_text()
    limits = {
        name: int(limit)
        for name, limit in re.findall(r'^\s*(?:\S+=\S+ )?part "?([\w$-]+)"? (\d+)', script, re.M)
    }
    assert {"link-$game", "trainer-$game", "parity", "bench", "trainer-marry_the_monster-v0"} <= set(limits)
    longest = (
        max(limits["parity"], limits["trainer-$game"])
        + limits["bench"]
        + limits["trainer-marry_the_monster-v0"]
        + limits["variants-marry_the_monster-v0"]
    )
    assert longest <= 470 and limits["link-$game"] <= longest, limits
