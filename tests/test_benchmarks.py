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


def jax_started() -> bool:
    """Whether JAX's backend (and with it XLA's thread pool) is running in this process."""
    bridge = sys.modules.get("jax._src.xla_bridge")
    return bool(bridge is not None and getattr(bridge, "_backends", None))


@pytest.fixture(autouse=True)
def jax_stays_out_of_the_test_process():
    """Pgx runs in subprocesses only: JAX started here would make every later ``fork()`` of the test
    run (``test_threads.py``, the leaderboard's process pool) warn of a deadlock, and risk one."""
    started_before = jax_started()
    yield
    assert started_before or not jax_started(), "this test started JAX in the pytest process"


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
    records = run_bench(tmp_path, "--games", "none", "--runs", "2", timeout=180)

    header = records[0]
    assert header["record"] == "header" and header["settings"]["runs"] == 2
    versions = ("python", "numpy", "numba", "pettingzoo", "open_spiel", "pgx", "jax", "jaxlib")
    for key in (*versions, "cpu_model", "cores", "git_revision", "timestamp"):
        assert key in header
    assert {record["run_id"] for record in records} == {header["run_id"]}

    # every anchor is measured again in each run, and its records say which run
    runs = [record["run"] for record in records if record["record"] == "measurement"]
    assert sorted(set(runs)) == [0, 1] and runs.count(0) == runs.count(1)
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
    ratios = {
        record["name"]: record
        for record in records
        if record["record"] == "ratio" and record["game"] == game_id
    }
    # --quick measures one thread; the ratios name the thread count their best engine ran at
    ours = "best batched engine (1 thread)"
    pgx_ratio = f"{ours} / best pgx connect_four"
    assert set(ratios) == {
        "aec env() / pettingzoo connect_four_v3 env()",
        f"{ours} / openspiel connect_four",
        pgx_ratio,
    }
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
    done = subprocess.run(
        [sys.executable, "-m", "monster_zoo.benchmarks.training_throughput", "--quick", "--json", str(out)],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["quick"] and set(record["ratios"]) == {"pure self-play", "default mix"}
    assert all(r > 0 for r in record["ratios"].values()) and len(record["tutorial_timesteps_per_s"]) == 1
    assert "connect-four tutorial" in done.stdout


@pytest.mark.slow
def test_training_throughput_versus_device_ppo_alternates_both_trainers(tmp_path):
    pytest.importorskip("monster_zoo.training.device_ppo.torchrl_parts")
    out = tmp_path / "training.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "monster_zoo.benchmarks.training_throughput",
            "--versus-device-ppo",
            "0.05",
            "--repeats",
            "1",
            "--versus-opponents",
            "random:1",
            "--json",
            str(out),
        ],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["trainer"] for r in record["runs"]] == ["sb3 MaskablePPO", "array-side PPO"]
    assert all(r["timesteps_per_s"] > 0 and 0 <= r["winrate_vs_greedy"] <= 1 for r in record["runs"])
    assert record["opponents"] == "random:1" and "| array-side PPO |" in done.stdout


def test_training_throughput_refuses_negative_versus_minutes():
    from monster_zoo.benchmarks import training_throughput

    with pytest.raises(SystemExit, match="minutes must be >= 0"):
        training_throughput.main(["--versus-device-ppo", "-1"])


def test_side_by_side_times_a_command_alone_and_in_pairs():
    from monster_zoo.benchmarks import side_by_side

    result = side_by_side.side_by_side(
        [sys.executable, "-c", "import time; time.sleep(0.3)"], copies=2, repeats=1
    )
    assert result["copies"] == 2 and result["alone_steps_per_s"] > 0
    # sleeping processes do not compete for cores: each keeps most of its speed
    assert 0.5 < result["ratio_per_process"] < 2


def test_side_by_side_runs_a_workload_that_reports_its_speed_and_cores():
    from monster_zoo.benchmarks import side_by_side

    command = side_by_side.workload_command("batch", "marry_the_monster-v0", seconds=0.05)
    (run,) = side_by_side.run_together(command, 1, timeout=300)
    assert run.speed > 1000 and 0 < run.busy_cores < 4
    done = subprocess.run(
        [sys.executable, "-m", "monster_zoo.benchmarks.bench", "--side-by-side", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
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
    # In a fresh interpreter: JAX's threads in this process would make the fork tests risky. Not even
    # importorskip: importing pgx starts JAX's backend.
    from monster_zoo.benchmarks.anchors import pgx_available

    if not pgx_available():
        pytest.skip("the Pgx anchor needs the bench extra (pgx, jax)")
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
    report = bench.markdown_report(
        {
            "run_id": "x",
            "cpu_model": "cpu",
            "cores": 2,
            "load_average_1min": 0.5,
            "python": "3",
            "numpy": "2",
            "numba": "0",
            "pettingzoo": "1",
            "open_spiel": "2",
            "pgx": "2.6.0",
            "jax": "0.10.2",
            "jaxlib": "0.10.2",
            "pgx_threads": 2,
            "git_revision": None,
            "git_dirty": None,
            "settings": {"repeats": 5, "seconds": 1.0, "quick": False},
        },
        measurements,
        [],
        list(ratios.values()),
    )
    assert (
        "| best batched engine (2 threads) / best pgx connect_four | marry_the_monster-v0 | 8.0x | batch 1024"
        in report
    )
    assert "(load 0.5)" in report and "2 XLA threads" in report


def fake_ratio(bench, name, value, target=10.0, game="marry_the_monster-v0", detail=None):
    return bench.Ratio(name, game, value, target, detail)


def test_ratios_across_runs_are_judged_by_their_median():
    """Fake per-run ratios: the median of runs and its range per ratio and game; the target counts
    as met only where the median meets it, whatever the best or worst run says."""
    from monster_zoo.benchmarks import bench

    engine, aec = "best batched engine (2 threads) / openspiel connect_four", "aec env() / pettingzoo"
    runs = [
        [
            fake_ratio(bench, engine, 15.6, detail="batch 4096"),
            fake_ratio(bench, aec, 3.7, 3.0),
            fake_ratio(bench, engine, 9.8, game="monster_factory-v0"),
        ],
        [
            fake_ratio(bench, engine, 12.9, detail="batch 1024"),
            fake_ratio(bench, aec, 2.5, 3.0),
            fake_ratio(bench, engine, 10.0, game="monster_factory-v0"),
        ],
        [
            fake_ratio(bench, engine, 14.3, detail="batch 4096"),
            fake_ratio(bench, aec, 2.9, 3.0),
            fake_ratio(bench, engine, 10.6, game="monster_factory-v0"),
        ],
    ]
    across = {(r.name, r.game): r for r in bench.ratios_across_runs(runs)}
    assert list(across) == [
        (engine, "marry_the_monster-v0"),
        (aec, "marry_the_monster-v0"),
        (engine, "monster_factory-v0"),
    ]
    mtm = across[engine, "marry_the_monster-v0"]
    assert (mtm.median, mtm.low, mtm.high) == (14.3, 12.9, 15.6) and mtm.passed is True
    assert mtm.details == ["batch 4096", "batch 1024", "batch 4096"]
    # the best run (3.7x) meets 3x, the median (2.9x) does not: not met
    assert across[aec, "marry_the_monster-v0"].passed is False
    assert across[aec, "marry_the_monster-v0"].median == 2.9
    # a median exactly at the target meets it, though one run fell below
    assert across[engine, "monster_factory-v0"].median == 10.0 and across[engine, "monster_factory-v0"].passed
    record = across[aec, "marry_the_monster-v0"].record()
    assert record["record"] == "ratio_across_runs" and record["values"] == [3.7, 2.5, 2.9]
    assert (record["median"], record["min"], record["max"], record["passed"]) == (2.9, 2.5, 3.7, False)


def test_ratios_across_runs_with_an_even_count_missing_values_and_no_target():
    """Two runs take the mean of the middle pair; a run without the anchor (None) is left out of
    the median and shown as n/a; a ratio without a target has no verdict."""
    from monster_zoo.benchmarks import bench

    pgx = "best batched engine (2 threads) / best pgx connect_four"
    runs = [
        [fake_ratio(bench, "r", 9.0), fake_ratio(bench, "gone", None), fake_ratio(bench, pgx, 3.0, None)],
        [fake_ratio(bench, "r", 11.2), fake_ratio(bench, "gone", None), fake_ratio(bench, pgx, 4.0, None)],
        [fake_ratio(bench, "r", None)],
    ]
    across = {r.name: r for r in bench.ratios_across_runs(runs)}
    assert across["r"].median == pytest.approx(10.1) and across["r"].passed is True
    assert across["r"].values == [9.0, 11.2, None]
    assert across["gone"].median is None and across["gone"].passed is None
    assert across[pgx].median == 3.5 and across[pgx].passed is None


def test_runs_report_marks_a_target_met_only_by_the_median_of_runs():
    """The markdown of several runs: median of runs, range and every run's value per ratio, ✔ only
    where the median meets the target, ✘ with the median otherwise; each measurement's median of
    its runs' medians with the range."""
    from monster_zoo.benchmarks import bench

    game = "marry_the_monster-v0"
    engine = bench.Measurement(bench.BATCHED, "ours", game, run=None, batch_size=4096, threads=2)
    engine.run_medians = [9.0e6, 12.0e6, 11.0e6]
    runs = [
        [
            fake_ratio(bench, "engine / openspiel", v, game=game),
            fake_ratio(bench, "aec / pettingzoo", a, 3.0, game=game),
        ]
        for v, a in ((15.6, 3.7), (9.4, 2.5), (12.1, 2.9))
    ]
    header = {
        "run_id": "x",
        "cpu_model": "cpu",
        "cores": 2,
        "load_average_1min": 0.5,
        "python": "3",
        "numpy": "2",
        "numba": "0",
        "pettingzoo": "1",
        "open_spiel": "2",
        "pgx": None,
        "jax": None,
        "jaxlib": None,
        "git_revision": None,
        "git_dirty": None,
        "settings": {"repeats": 5, "runs": 3, "seconds": 1.0, "quick": False},
    }
    report = bench.runs_report(header, [engine], [], bench.ratios_across_runs(runs))
    assert "3 runs, each the median of 5 repeats of 1 s" in report
    assert f"| batched engine | {game} | 4096 | 2 | 11,000,000 | 9,000,000 | 12,000,000 |" in report
    assert f"| engine / openspiel | {game} | 12.1x | 9.4-15.6x | 15.6, 9.4, 12.1 | >= 10x | ✔ |" in report
    assert (
        f"| aec / pettingzoo | {game} | 2.9x | 2.5-3.7x | 3.7, 2.5, 2.9 | >= 3x | ✘ (median 2.9x) |" in report
    )


def test_runs_must_be_at_least_one(capsys):
    from monster_zoo.benchmarks import bench

    with pytest.raises(SystemExit):
        bench.parse_args(["--runs", "0"])
    assert "--runs must be at least 1, got 0" in capsys.readouterr().err
    assert bench.parse_args(["--quick", "--runs", "3"]).runs == 3


def test_each_run_times_every_measurement_afresh_and_keeps_its_median():
    """A fake runner (no clock): each run replaces the repeats and adds that run's median."""
    from monster_zoo.benchmarks import bench

    speeds = iter([100, 300, 200, 50, 70, 60])  # steps per 1 s call: run 1, then run 2
    m = bench.Measurement("fake", "ours", "g", run=lambda seconds: (next(speeds), 1.0))
    bench.time_all([m], repeats=3, seconds=1.0)
    assert m.rates == [100.0, 300.0, 200.0] and m.run_medians == [200.0]
    bench.time_all([m], repeats=3, seconds=1.0)
    assert m.rates == [50.0, 70.0, 60.0] and m.run_medians == [200.0, 60.0]
    assert m.median == 60.0 and m.median_of_runs == 130.0
    assert m.record(1.0, run=1)["run"] == 1 and m.record(1.0, run=1)["repeats"] == [50.0, 70.0, 60.0]


def test_torch_threads_table_and_arguments(capsys):
    """The torch thread benchmark's table from fake times (no clock): medians with the range per
    condition and thread count, the load beside each; bad arguments refused."""
    from monster_zoo.benchmarks import torch_threads

    assert torch_threads.thread_counts(2) == [1, 2] and torch_threads.thread_counts(16) == [1, 2, 16]
    times = {1: {"update": [0.5, 0.7, 0.6], "forward": [0.002, 0.004, 0.003], "cycle": [1.0, 2.0, 0.5]}}
    table = torch_threads.table(
        [{"label": "1 busy process", "load": (2.5, 3.25), "times": times}], rollout=4096
    )
    assert (
        "| 1 busy process | 2.50-3.25 | 1 | 0.600 (0.500-0.700) | 3.00 (2.00-4.00) | 4,096 (2,048-8,192) |"
        in table
    )
    for argv, message in (
        (["--repeats", "0"], "--repeats must be at least 1"),
        (["--busy", "0"], "--busy must be"),
    ):
        with pytest.raises(SystemExit):
            torch_threads.parse_args(argv)
        assert message in capsys.readouterr().err


def test_torch_threads_records_are_the_medians_the_trainers_page_renders():
    """``--out``'s records from fake times: a record per thread count with the medians alone and
    beside the busy processes and the run's facts, rendered by the trainers' page as a row whose
    speed against one thread is the ratio of the medians."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
    from results_trainers import thread_rows

    from monster_zoo.benchmarks import torch_threads

    args = torch_threads.parse_args(["--repeats", "3", "--other-load", "none but this run"])
    alone = {
        1: {"update": [0.5, 0.7, 0.6], "forward": [0.002, 0.004, 0.003], "cycle": [1.0, 2.0, 0.5]},
        2: {"update": [0.3, 0.4, 0.35], "forward": [0.001, 0.002, 0.003], "cycle": [0.5, 0.25, 1.0]},
    }
    beside = {1: {**alone[1], "cycle": [2.0, 4.0, 1.0]}, 2: {**alone[2], "cycle": [4.0, 8.0, 2.0]}}
    results = [
        {"label": "none", "load": (1.0, 1.2), "times": alone},
        {"label": "1", "load": (2.0, 2.5), "times": beside},
    ]
    one, two = torch_threads.records(results, 4096, args)
    assert (one["torch_threads"], one["ppo_update_s"], one["forward_ms"]) == (1, 0.6, 3.0)
    assert (one["trainer_steps_per_s"], one["trainer_steps_per_s_beside_busy"]) == (4096, 2048)
    assert (two["trainer_steps_per_s"], two["trainer_steps_per_s_beside_busy"]) == (8192, 1024)
    assert one["load_range"] == [1.0, 2.5] and one["other_load"] == "none but this run"
    assert {"time", "git", "git_dirty", "host"} <= set(one) and one["repeats"] == 3
    rows = thread_rows([("torch_threads_cpu.jsonl", one), ("torch_threads_cpu.jsonl", two)])
    assert rows[1][2:8] == ["2", "0.35 s", "8,192", "2.00×", "1,024", "0.50×"]


def test_device_ppo_parts_quick_run_times_every_piece_and_refuses_bad_arguments(tmp_path, capsys):
    """The array-side trainer's torch pieces at tiny sizes in-process: every piece timed (positive µs a
    decision) and printed, the JSON record appended; bad arguments refused with the valid range."""
    pytest.importorskip("monster_zoo.training.device_ppo.torchrl_parts")
    from monster_zoo.benchmarks import device_ppo_parts

    out = tmp_path / "parts.jsonl"
    assert device_ppo_parts.main(["--quick", "--json", str(out)]) == 0
    record = json.loads(out.read_text())
    pieces = record["us_per_decision"]
    assert {
        "draw: sample_masked",
        "policy step, bfloat16",
        "critic, whole rollout at once",
        "update, float32, shared trunk",
    } <= set(pieces)
    assert all(len(v) == 1 and v[0] > 0 for v in pieces.values())
    printed = capsys.readouterr().out
    assert all(f"| {name} |" in printed for name in pieces)
    with pytest.raises(SystemExit):
        device_ppo_parts.parse_args(["--num-envs", "0"])
    assert "--num-envs must be at least 1, got 0" in capsys.readouterr().err
    assert device_ppo_parts.main(["--compare-ref", "no-such-ref-anywhere", "--json", str(out)]) == 2
    assert "--compare-ref 'no-such-ref-anywhere' is not a commit" in capsys.readouterr().err
    assert len(out.read_text().splitlines()) == 1  # nothing appended for a refused ref


@pytest.mark.slow
def test_device_ppo_parts_compares_device_train_here_and_at_a_git_ref(tmp_path, capsys):
    """``--compare-ref``: the trainer of an exported git tree and the one here, alternated, each run's
    rate recorded with both commits and the ratio of the medians."""
    pytest.importorskip("monster_zoo.training.device_ppo.torchrl_parts")
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    from monster_zoo.benchmarks import device_ppo_parts

    out = tmp_path / "compare.jsonl"
    assert device_ppo_parts.main(["--compare-ref", "HEAD", "--quick", "--json", str(out)]) == 0
    (record,) = map(json.loads, out.read_text().splitlines())
    head = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    assert record["ref_commit"] == head.stdout.strip() and record["here_commit"].startswith(
        record["ref_commit"]
    )
    assert {side: len(v) for side, v in record["timesteps_per_second"].items()} == {"ref": 1, "here": 1}
    assert all(v[0] > 0 for v in record["timesteps_per_second"].values())
    median = record["median"]
    assert record["ratio_here_to_ref"] == round(median["here"] / median["ref"], 4)
    assert record["git"] and record["versions"]["torch"] and record["host"]["name"]
    assert "timesteps/s here" in capsys.readouterr().out


@pytest.mark.slow
def test_torch_threads_quick_run_prints_every_row():
    pytest.importorskip("sb3_contrib")
    done = subprocess.run(
        [sys.executable, "-m", "monster_zoo.benchmarks.torch_threads", "--quick"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [
        line for line in done.stdout.splitlines() if line.startswith("| none") or line.startswith("| 1 busy")
    ]
    assert len(rows) == 2 * len({1, 2, int(done.stdout.split("torch's default ")[1].split()[0])})


def test_cli_start_prints_a_row_per_command_and_what_it_imported(capsys):
    """The command line's start-up benchmark: one row per command line, with the heavy
    packages it imported (none for --version); a timing is printed, never judged here."""
    from monster_zoo.benchmarks import cli_start

    assert cli_start.main(["--runs", "1", "--", "--version", "play --help"]) == 0
    out = capsys.readouterr().out
    assert "| monster-zoo --version | " in out and out.count("| none |") == 2
    assert "| monster-zoo play --help | " in out and out.startswith("python ")
