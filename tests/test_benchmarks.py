"""Smoke tests for ``python -m monster_zoo.benchmarks.bench``: it runs end to end and writes the records it promises.

The script is run in a subprocess, as a user runs it, with ``--quick`` settings: the
numbers are meaningless, only their presence and sign are checked.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
ANCHORS = {
    "pettingzoo connect_four_v3 env()",
    "pettingzoo connect_four_v3 raw_env()",
    "openspiel connect_four",
}


def run_bench(tmp_path: Path, *args: str, timeout: float) -> list[dict]:
    """Run the benchmark with ``--quick`` into a fresh JSON-lines file and return its records."""
    results = tmp_path / "results.jsonl"
    completed = subprocess.run(
        [sys.executable, "-m", "monster_zoo.benchmarks.bench", "--quick", "--json", str(results), *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert completed.returncode == 0, completed.stderr
    assert "| measurement |" in completed.stdout
    return [json.loads(line) for line in results.read_text().splitlines()]


def test_anchors_only_run_writes_header_and_anchor_records(tmp_path):
    pytest.importorskip("pyspiel", reason="the OpenSpiel anchor needs the bench extra (open_spiel)")
    # Generous: Pgx's first XLA compile takes several seconds on a busy machine.
    records = run_bench(tmp_path, "--games", "none", timeout=180)

    header = records[0]
    assert header["record"] == "header"
    versions = ("python", "numpy", "numba", "pettingzoo", "open_spiel", "pgx", "jax", "jaxlib")
    for key in (*versions, "cpu_model", "cores", "git_revision", "timestamp"):
        assert key in header
    assert {record["run_id"] for record in records} == {header["run_id"]}

    measurements = {record["name"]: record for record in records if record["record"] == "measurement"}
    pgx = importlib.util.find_spec("pgx") is not None
    assert set(measurements) == ANCHORS | ({"pgx connect_four"} if pgx else set())
    if pgx:
        # --quick: Pgx's default game only, at the first batch size, with the XLA thread count recorded
        assert measurements["pgx connect_four"]["batch_size"] == header["settings"]["batch_sizes"][0]
        assert measurements["pgx connect_four"]["threads"] == header["pgx_threads"] >= 1
    for record in measurements.values():
        assert record["steps_per_s"] > 0
        assert len(record["repeats"]) == header["settings"]["repeats"]
        assert all(rate > 0 for rate in record["repeats"])


def test_run_with_our_game_writes_every_measurement(tmp_path):
    from monster_zoo import envs

    game_id = envs.available()[0]
    # Generous: on a fresh clone this includes numba's first compile of the game.
    records = run_bench(tmp_path, "--games", game_id, timeout=900)
    header = records[0]

    ours = [record for record in records if record["record"] == "measurement" and record["game"] == game_id]
    names = {record["name"] for record in ours}
    assert names == {
        "single-state engine loop",
        "batched engine",
        "batched engine (python loop)",
        "aec env()",
        "aec raw_env()",
    }
    batched = [record for record in ours if record["name"] == "batched engine"]
    settings = header["settings"]
    assert len(batched) == len(settings["batch_sizes"]) * len(settings["threads"])
    assert all(record["steps_per_s"] > 0 for record in ours)

    timings = {r["name"]: r for r in records if r["record"] == "timing" and r["game"] == game_id}
    assert "warm start (import+reset+step)" in timings
    assert all(record["seconds"] > 0 for record in timings.values())
    ratios = {record["name"]: record for record in records if record["record"] == "ratio" and record["game"] == game_id}
    # --quick measures one thread; the ratios name the thread count their best engine ran at
    ours = "best batched engine (1 thread)"
    pgx_ratio = f"{ours} / best pgx connect_four"
    assert set(ratios) == {"aec env() / pettingzoo connect_four_v3 env()", f"{ours} / openspiel connect_four",
                           pgx_ratio}
    best = max(batched, key=lambda record: record["steps_per_s"])
    assert ratios[pgx_ratio]["detail"] == f"batch {best['batch_size']}, 1 thread"
    if importlib.util.find_spec("pgx") is not None:
        pgx_best = max(r["steps_per_s"] for r in records if r.get("name") == "pgx connect_four")
        assert ratios[pgx_ratio]["value"] == pytest.approx(best["steps_per_s"] / pgx_best)
    else:
        assert ratios[pgx_ratio]["value"] is None


def test_training_throughput_quick_run_writes_a_record(tmp_path):
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "training.jsonl"
    done = subprocess.run([sys.executable, "-m", "monster_zoo.benchmarks.training_throughput", "--quick", "--json", str(out)],
                          cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["quick"] and set(record["ratios"]) == {"pure self-play", "default mix"}
    assert all(r > 0 for r in record["ratios"].values()) and len(record["tutorial_timesteps_per_s"]) == 1
    assert "connect-four tutorial" in done.stdout


def test_side_by_side_times_a_command_alone_and_in_pairs():
    from monster_zoo.benchmarks import side_by_side

    result = side_by_side.side_by_side([sys.executable, "-c", "import time; time.sleep(0.3)"], copies=2, repeats=1)
    assert result["copies"] == 2 and result["alone_steps_per_s"] > 0
    # sleeping processes do not compete for cores: each keeps most of its speed
    assert 0.5 < result["ratio_per_process"] < 2


def test_side_by_side_runs_a_workload_that_reports_its_speed_and_cores():
    from monster_zoo.benchmarks import side_by_side

    command = side_by_side.workload_command("batch", "marry_the_monster-v0", seconds=0.05)
    (run,) = side_by_side.run_together(command, 1, timeout=300)
    assert run.speed > 1000 and 0 < run.busy_cores < 4
    done = subprocess.run([sys.executable, "-m", "monster_zoo.benchmarks.bench", "--side-by-side", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert "--side-by-side" in done.stdout


PGX_PROBE = """
from monster_zoo.benchmarks.anchors import PgxBatch, start_jax

assert start_jax(1) == 1
batch = PgxBatch("connect_four", batch_size=4, seed=0)
# No Connect Four game ends within 6 moves: every slot has applied exactly the steps asked for,
# one disc each.
assert batch.step_random(3) == 0 and batch.step_random(2) == 0
assert batch.state._step_count.tolist() == [5] * 4
assert (batch.state._x.board != -1).sum(axis=1).tolist() == [5] * 4
# A game lasts at most 42 moves, so 100 more steps finish every slot at least twice, and the
# finished games restart in place (auto-reset): each board holds as many discs as its game's moves.
assert batch.step_random(100) >= 2 * 4
assert ((batch.state._x.board != -1).sum(axis=1) == batch.state._step_count).all()
assert (batch.state.legal_action_mask.sum(axis=1) > 0).all()
print("ok")
"""


def test_pgx_batch_plays_the_steps_it_counts_and_auto_resets():
    # In a fresh interpreter: JAX's threads in this process would make the fork tests risky.
    pytest.importorskip("pgx", reason="the Pgx anchor needs the bench extra (pgx, jax)")
    done = subprocess.run([sys.executable, "-c", PGX_PROBE], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]



def test_ratios_take_the_best_batch_size_at_the_largest_thread_count_and_each_pgx_game():
    from monster_zoo.benchmarks import bench

    def measured(name, game, rate, batch_size=None, threads=None):
        m = bench.Measurement(name, "ours", game, run=None, batch_size=batch_size, threads=threads)
        m.rates = [rate]
        return m

    game = "marry_the_monster-v0"
    measurements = [
        measured(bench.OPENSPIEL, "connect_four", 100.0),
        measured("pgx connect_four", "connect_four", 300.0, 64, 2),
        measured("pgx connect_four", "connect_four", 500.0, 4096, 2),
        measured("pgx sparrow_mahjong", "sparrow_mahjong", 50.0, 64, 2),
        measured(bench.BATCHED, game, 9000.0, 64, 1),  # faster, but not at the largest thread count
        measured(bench.BATCHED, game, 2000.0, 64, 2),
        measured(bench.BATCHED, game, 4000.0, 1024, 2),
    ]
    ratios = {r.name: r for r in bench.compute_ratios(measurements, [game])}
    ours = "best batched engine (2 threads)"
    assert ratios[f"{ours} / openspiel connect_four"].value == pytest.approx(40.0)
    assert ratios[f"{ours} / openspiel connect_four"].passed is True
    assert ratios[f"{ours} / best pgx connect_four"].value == pytest.approx(8.0)
    assert ratios[f"{ours} / best pgx sparrow_mahjong"].value == pytest.approx(80.0)
    assert ratios[f"{ours} / best pgx sparrow_mahjong"].passed is None  # no target against Pgx
    assert {r.detail for r in ratios.values() if r.name.startswith(ours)} == {"batch 1024, 2 threads"}
    # our AEC env was not measured: that ratio reads n/a
    assert ratios["aec env() / pettingzoo connect_four_v3 env()"].value is None
    report = bench.markdown_report({"run_id": "x", "cpu_model": "cpu", "cores": 2, "load_average_1min": 0.5,
                                    "python": "3", "numpy": "2", "numba": "0", "pettingzoo": "1", "open_spiel": "2",
                                    "pgx": "2.6.0", "jax": "0.10.2", "jaxlib": "0.10.2", "pgx_threads": 2,
                                    "git_revision": None, "git_dirty": None,
                                    "settings": {"repeats": 5, "seconds": 1.0, "quick": False}},
                                   measurements, [], list(ratios.values()))
    assert "| best batched engine (2 threads) / best pgx connect_four | marry_the_monster-v0 | 8.0x | batch 1024" in report
    assert "(load 0.5)" in report and "2 XLA threads" in report
