"""The GPU engine on a real GPU: link check, GPU = CPU parity, GPU benchmark, Pgx anchors, trainer.

Run on a machine with an NVIDIA GPU; ``bash benchmarks/gpu_device_check.sh`` installs what it needs
and runs the parts as separate processes within about eight minutes. Every result is one JSON line
(stdout, and appended to ``--json``), each carrying the device, driver, the CUDA libraries loaded,
the git commit, package versions and host (:func:`monster_zoo.evaluation.host.provenance`); the parts:

1. ``link``: ``monster-zoo gpu check``'s compile and link of every kernel of ``--games`` (engine and
   learner seats, cc 8.0 and 9.0), one line per kernel with registers, stack, spills and constant
   bytes. It needs no GPU, so the shell script runs it beside the others.
2. ``parity``: :func:`monster_zoo.envs.gpu.parity.compare` on the GPU for every game at its smallest
   and largest player count (``--parity-envs`` games each, to their end, auto-reset included, then
   random steps inside one launch); and whether torch takes the engine's arrays without a copy.
3. ``bench``: every game's GPU engine at batch sizes 2^10 .. 2^20, stepping from Python
   (``step(random_actions())``, a legality check and a mask copy included) and inside one launch
   (``step_random``); steps per second, the median of ``--repeats`` timed repeats after a warm-up
   (compile time reported apart).
4. ``pgx``: Pgx ``connect_four`` and ``sparrow_mahjong`` on JAX's GPU backend at the same sizes
   (random legal actions, auto-reset, ``lax.fori_loop`` inside one jit), in a subprocess so JAX's
   memory stays apart; skipped with the reason when Pgx or a JAX GPU is missing.
5. ``trainer``: for each of ``--trainer-games``, the learner-seat games on the device against the
   CPU's (:func:`monster_zoo.envs.gpu.parity.compare_learner`: ``--parity-envs`` games with random
   opponents, a quarter of that with greedy, a pool with frozen networks, and random opponents with
   a learner that now and then plays an illegal move under ``illegal_action="penalize"``;
   ``trainer_parity`` lines), then ``device-train --device cuda`` for ``--trainer-minutes`` of
   training at ``--trainer-envs`` games (2 players for Marry the Monster, else the game's smallest
   count; opponents random 0.2 and snapshots 0.8), reporting timesteps/s, the seconds in rollouts
   and in updates, the GPU memory it took and the win rates after the run (``trainer`` line).
   ``--trainer-envs 0`` trains at device-train's own default size for the GPU.
6. ``variants``: the first of ``--trainer-games`` trained for ``--variant-seconds`` in each of
   ``--variants`` (games side by side, network precision, ``--torch-compile``; one ``trainer_variant``
   line each, with the torch opponents' rounds and the host's waits for them), so that device-train's
   defaults for the GPU are chosen from figures; a variant with ``audit=1`` counts the host
   synchronisations torch reports (``torch.cuda.set_sync_debug_mode``) per update.

Every part's failure is recorded as an ``error`` line and the others still run (exit status 1);
``--summary FILE`` prints what a JSON-lines file holds (the shell script ends with it).

``--quick`` shrinks everything for a smoke test (the numbers mean nothing); it also runs under
numba-cuda's simulator (``NUMBA_ENABLE_CUDASIM=1``) without a GPU, as ``tests/test_gpu_device_check.py``
does.
"""

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

PARTS = ("link", "parity", "bench", "pgx", "trainer", "variants")
PGX_GAMES = ("connect_four", "sparrow_mahjong")
FULL_SIZES = tuple(2**k for k in (10, 12, 14, 16, 18, 20))
QUICK_SIZES = (4, 8)
TRAINER_GAME = "marry_the_monster-v0"
TRAINER_OPPONENTS = "random:0.2,snapshots:0.8"
# the variants part: KEY=VALUE,... per run, runs separated by ';' (envs 0: device-train's GPU default)
VARIANT_KEYS = {"envs": int, "dtype": str, "compile": str, "audit": int}
DEFAULT_VARIANTS = (
    "envs=16384,audit=1;envs=0,dtype=float32;envs=0,dtype=bfloat16;envs=0,compile=reduce-overhead;envs=262144"
)


def parse_variants(text: str) -> list[dict]:
    """``--variants`` as a list of ``{key: value}`` (:data:`VARIANT_KEYS`); ValueError naming the
    bad piece and the keys there are."""
    variants = []
    for run in filter(None, text.split(";")):
        variant = {}
        for pair in filter(None, run.split(",")):
            key, _, value = pair.partition("=")
            if key not in VARIANT_KEYS or not value:
                raise ValueError(
                    f"--variants: {pair!r} is not KEY=VALUE with KEY one of {', '.join(VARIANT_KEYS)}"
                )
            try:
                variant[key] = VARIANT_KEYS[key](value)
            except ValueError:
                kind = "an integer" if VARIANT_KEYS[key] is int else "a word"
                raise ValueError(f"--variants: {pair!r}: {key} takes {kind}") from None
        variants.append(variant)
    return variants


# what the figures depend on, recorded with every line (None: not installed)
DISTRIBUTIONS = (
    "monster-zoo",
    "numpy",
    "numba",
    "numba-cuda",
    "llvmlite",
    "cuda-bindings",
    "nvidia-cuda-nvcc-cu12",
    "nvidia-nvjitlink-cu12",
    "nvidia-cuda-nvrtc-cu12",
    "torch",
    "torchrl",
    "tensordict",
    "jax",
    "jaxlib",
    "pgx",
    "cupy-cuda12x",
)


def device_facts() -> dict:
    """The GPU's name, capability, driver and CUDA libraries as numba-cuda sees them, the simulator, or
    none (None)."""
    from numba import cuda

    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return {
            "device": "numba-cuda simulator",
            "driver": None,
            "compute_capability": None,
            "cuda_libraries": cuda_libraries(),
        }
    if not cuda.is_available():  # the link part alone runs without a GPU
        return {
            "device": None,
            "driver": None,
            "compute_capability": None,
            "cuda_libraries": cuda_libraries(),
        }
    device = cuda.get_current_device()
    facts = {
        "device": device.name.decode() if isinstance(device.name, bytes) else str(device.name),
        "compute_capability": ".".join(map(str, device.compute_capability)),
        "cuda_libraries": cuda_libraries(),
    }
    try:
        facts["driver"] = ".".join(map(str, cuda.cudadrv.driver.driver.get_version()))
    except Exception:
        facts["driver"] = None
    try:
        smi = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        facts["nvidia_smi"] = smi.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        facts["nvidia_smi"] = None
    return facts


def cuda_libraries() -> dict[str, str | None]:
    """Where the CUDA libraries numba-cuda and the link check load come from (the gpu extra's pip
    wheels: a ``site-packages`` path; else the system's toolkit), or why one was not found."""
    found = {}
    try:
        from cuda import pathfinder
    except ImportError as error:
        return {"error": f"{type(error).__name__}: {error}"}
    for name in ("nvvm", "nvJitLink", "nvrtc"):
        try:
            library = pathfinder.load_nvidia_dynamic_lib(name)
            found[name] = f"{library.abs_path} ({getattr(library, 'found_via', '?')})"
        except Exception as error:
            found[name] = f"not found: {type(error).__name__}: {str(error)[:200]}"
    return found


class Recorder:
    """Prints each result as a JSON line with the shared facts and appends it to a file."""

    def __init__(self, path: Path | None, facts: dict):
        self.path, self.facts = path, facts

    def __call__(self, part: str, **fields) -> None:
        line = json.dumps({"part": part, **fields, **self.facts}, default=str)
        print(line, flush=True)
        if self.path is not None:
            with open(self.path, "a", encoding="utf-8") as out:
                out.write(line + "\n")


def run_link(record: Recorder, games: Sequence[str]) -> None:
    """``monster-zoo gpu check``'s compile and link of every kernel of ``games`` (engine and learner
    seats, cc 8.0 and 9.0): one ``link`` line per kernel and capability with the linker's figures."""
    from monster_zoo.envs.gpu.ptx_check import PARTS, check_game

    failed = []
    for game_id in games:
        for part in PARTS:
            start = time.perf_counter()
            results = check_game(game_id, part)
            seconds = round(time.perf_counter() - start, 1)
            for (kernel, cc), figures in results.items():
                record(
                    "link",
                    game=game_id,
                    drivers=part,
                    kernel=kernel,
                    cc=".".join(map(str, cc)),
                    ok=figures.ok,
                    **asdict(figures),
                    part_seconds=seconds,
                )
                if not figures.ok:
                    failed.append(f"{game_id} {part} {kernel} cc {cc[0]}.{cc[1]}")
    if failed:
        raise RuntimeError(f"{len(failed)} kernel(s) do not link: {'; '.join(failed)}")


def run_parity(record: Recorder, games: Sequence[str], num_envs: int) -> None:
    import monster_zoo
    from monster_zoo.envs.gpu.parity import compare

    for game_id in games:
        spec = monster_zoo.spec(game_id)
        for n in sorted({spec.min_players, spec.max_players}):
            start = time.perf_counter()
            result = compare(game_id, n, num_envs, seed=2026, random_steps=50)
            record("parity", **result.as_dict(), seconds=round(time.perf_counter() - start, 1))
    record("parity_zero_copy", **zero_copy(games[0]))


def zero_copy(game_id: str) -> dict:
    """Whether torch and CuPy see the engine's observation buffer itself (same device pointer)."""
    import monster_zoo

    engine = monster_zoo.make_batch(game_id, num_envs=8, seed=0, device="cuda")
    obs, _ = engine.reset()
    found = {"game": game_id}
    if not hasattr(obs, "__cuda_array_interface__"):
        return {**found, "skipped": "numba-cuda's simulator hands out host arrays"}
    pointer = obs.__cuda_array_interface__["data"][0]
    try:
        import torch

        found["torch_same_memory"] = torch.as_tensor(obs, device="cuda").data_ptr() == pointer
    except Exception as error:
        found["torch_same_memory"] = f"skipped: {type(error).__name__}: {error}"[:200]
    try:
        import cupy

        found["cupy_same_memory"] = cupy.asarray(obs).data.ptr == pointer
    except Exception as error:
        found["cupy_same_memory"] = f"skipped: {type(error).__name__}: {error}"[:200]
    return found


def timed(work: Callable[[int], None], steps: int, repeats: int) -> list[float]:
    """Seconds of ``work(steps)`` per repeat (each ends with the device synchronised)."""
    from numba import cuda

    times = []
    for _ in range(repeats):
        cuda.synchronize()
        start = time.perf_counter()
        work(steps)
        cuda.synchronize()
        times.append(time.perf_counter() - start)
    return times


def steps_for(work: Callable[[int], None], target_seconds: float) -> int:
    """How many steps of ``work`` take about ``target_seconds`` (after its warm-up call)."""
    steps = 1
    while True:
        seconds = min(timed(work, steps, 1))
        if seconds >= target_seconds / 4 or steps >= 1 << 16:
            return max(1, int(steps * target_seconds / max(seconds, 1e-9)))
        steps *= 4


def run_bench(
    record: Recorder, games: Sequence[str], sizes: Sequence[int], repeats: int, seconds: float
) -> None:
    for game_id in games:
        for size in sizes:
            try:
                bench_size(record, game_id, size, repeats, seconds)
            except Exception as error:
                record("bench", game=game_id, num_envs=size, error=f"{type(error).__name__}: {error}"[:500])
                break


def bench_size(record: Recorder, game_id: str, size: int, repeats: int, seconds: float) -> None:
    """Both ways of stepping ``size`` games of ``game_id`` on the GPU, one JSON line each."""
    import monster_zoo

    start = time.perf_counter()
    engine = monster_zoo.make_batch(game_id, num_envs=size, seed=0, device="cuda")
    engine.reset()
    engine.step(engine.random_actions())
    engine.step_random(1)
    warm = time.perf_counter() - start  # compile (first size) and allocation

    def from_python(steps: int) -> None:
        for _ in range(steps):
            engine.step(engine.random_actions())

    for mode, work in (("python", from_python), ("launch", engine.step_random)):
        steps = steps_for(work, seconds)
        times = timed(work, steps, repeats)
        median = statistics.median(times)
        record(
            "bench",
            game=game_id,
            mode=mode,
            num_envs=size,
            steps_per_call=steps,
            repeats=repeats,
            steps_per_second=size * steps / median,
            seconds=[round(t, 4) for t in times],
            warmup_seconds=round(warm, 2),
        )


PGX_SCRIPT = r"""
import json, statistics, sys, time
import jax, jax.numpy as jnp
import pgx
from pgx.experimental import auto_reset
game, sizes, repeats, seconds = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
backend = jax.default_backend()
env = pgx.make(game)
step = auto_reset(env.step, env.init)

def act(key, mask):
    return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf))

for size in sizes:
    keys = jax.random.split(jax.random.PRNGKey(0), size)
    state = jax.jit(jax.vmap(env.init))(keys)

    def one(carry):
        state, key = carry
        key, pick, chance = jax.random.split(key, 3)
        actions = jax.vmap(act)(jax.random.split(pick, size), state.legal_action_mask)
        return jax.vmap(step)(state, actions, jax.random.split(chance, size)), key

    one_jit = jax.jit(one)

    @jax.jit
    def many(carry, steps):
        return jax.lax.fori_loop(0, steps, lambda i, c: one(c), carry)

    carry = (state, jax.random.PRNGKey(1))
    start = time.perf_counter()
    carry = jax.block_until_ready(one_jit(carry))
    carry = jax.block_until_ready(many(carry, 2))
    warm = time.perf_counter() - start
    def run(carry, mode, steps):
        if mode == "python":
            for _ in range(steps):
                carry = one_jit(carry)
        else:
            carry = many(carry, steps)
        return jax.block_until_ready(carry)

    for mode in ("python", "launch"):
        steps = 1
        while True:  # as many steps as take about `seconds`
            start = time.perf_counter()
            carry = run(carry, mode, steps)
            took = time.perf_counter() - start
            if took >= seconds / 4 or steps >= 1 << 16:
                steps = max(1, int(steps * seconds / max(took, 1e-9)))
                break
            steps *= 4
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            carry = run(carry, mode, steps)
            times.append(time.perf_counter() - start)
        print(json.dumps({"game": game, "backend": backend, "jax_device": str(jax.devices()[0]), "mode": mode,
                          "num_envs": size, "steps_per_call": steps, "repeats": repeats,
                          "steps_per_second": size * steps / statistics.median(times),
                          "seconds": [round(t, 4) for t in times], "warmup_seconds": round(warm, 2)}), flush=True)
"""


def run_pgx(record: Recorder, sizes: Sequence[int], repeats: int, seconds: float, need_gpu: bool) -> None:
    environment = {**os.environ, "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    environment.pop("NUMBA_ENABLE_CUDASIM", None)
    for game in PGX_GAMES:
        try:
            done = subprocess.run(
                [sys.executable, "-c", PGX_SCRIPT, game, json.dumps(list(sizes)), str(repeats), str(seconds)],
                capture_output=True,
                text=True,
                timeout=300,
                env=environment,
            )
        except subprocess.TimeoutExpired:
            record("pgx", game=game, skipped="timed out after 300 s")
            continue
        rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode != 0 and not rows:
            record("pgx", game=game, skipped=(done.stderr.strip().splitlines() or ["no output"])[-1][:300])
            continue
        for row in rows:
            if need_gpu and row["backend"] != "gpu":
                record("pgx", game=game, skipped=f"JAX runs on {row['backend']}, not a GPU")
                break
            record("pgx", **row)


def run_trainers(
    record: Recorder,
    games: Sequence[str],
    parity_envs: int,
    minutes: float,
    num_envs: int,
    quick: bool,
    concurrent: int = 1,
) -> None:
    """:func:`run_trainer` for each of ``games``; one game's failure is recorded as an ``error`` line
    and the next game still runs (raises at the end when any failed)."""
    failed = []
    for game_id in games:
        try:
            run_trainer(record, game_id, parity_envs, minutes, num_envs, quick, concurrent)
        except Exception as error:
            failed.append(game_id)
            record(
                "error",
                failed_part=f"trainer {game_id}",
                error=f"{type(error).__name__}: {error}"[:2000],
                traceback=traceback.format_exc()[-3000:],
            )
    if failed:
        raise RuntimeError(f"the trainer failed for {', '.join(failed)}")


def run_trainer(
    record: Recorder,
    game_id: str,
    parity_envs: int,
    minutes: float,
    num_envs: int,
    quick: bool,
    concurrent: int = 1,
) -> None:
    """The learner-seat games' parity on the device, then a timed ``device-train --device cuda`` run.
    Each piece's failure is recorded as an ``error`` line and the next piece still runs."""
    import monster_zoo
    from monster_zoo.envs.gpu.parity import POOLS, compare_learner

    players = 2 if game_id == TRAINER_GAME else monster_zoo.spec(game_id).min_players
    # the last case: random opponents, the learner now and then playing an illegal move under
    # illegal_action="penalize" (the kernel's penalty path, so far run only under the simulator)
    for pool, illegal_every in [(pool, 0) for pool in POOLS] + [("random", 40)]:
        start = time.perf_counter()
        try:  # greedy's search on the CPU side is the slow part: a quarter of the games
            envs = max(2, parity_envs // 4) if pool == "greedy" else parity_envs
            result = compare_learner(game_id, players, envs, pool, seed=2026, illegal_every=illegal_every)
        except Exception as error:
            record(
                "error",
                failed_part=f"trainer_parity {pool}",
                error=f"{type(error).__name__}: {error}"[:2000],
                traceback=traceback.format_exc()[-3000:],
            )
            continue
        record("trainer_parity", **result, seconds=round(time.perf_counter() - start, 1))
    train_once(record, "trainer", game_id, players, minutes, num_envs, quick, concurrent=concurrent)


def run_variants(
    record: Recorder, game_id: str, variants: Sequence[dict], seconds: float, quick: bool
) -> None:
    """:func:`train_once` for ``seconds`` in each of ``variants`` (:func:`parse_variants`), in this
    process one after the other (the kernels compiled once); a variant's failure is an ``error`` line
    and the next still runs (raises at the end when any failed)."""
    import monster_zoo

    players = 2 if game_id == TRAINER_GAME else monster_zoo.spec(game_id).min_players
    failed = []
    for variant in variants:
        try:
            train_once(
                record,
                "trainer_variant",
                game_id,
                players,
                seconds / 60,
                4 if quick else variant.get("envs", 0),
                quick,
                network_dtype=variant.get("dtype", "auto"),
                # --quick runs where torch is the CPU's (the simulator's), where compiling is refused
                torch_compile="off" if quick else variant.get("compile", "off"),
                audit=bool(variant.get("audit", 0)),
                variant=variant,
                eval_games=20,  # the win rates after seconds of training say little; the time goes to training
            )
        except Exception as error:
            failed.append(str(variant))
            record(
                "error",
                failed_part=f"trainer_variant {variant}",
                error=f"{type(error).__name__}: {error}"[:2000],
                traceback=traceback.format_exc()[-3000:],
            )
    if failed:
        raise RuntimeError(f"the variants {', '.join(failed)} failed")


def train_once(
    record: Recorder,
    part: str,
    game_id: str,
    players: int,
    minutes: float,
    num_envs: int,
    quick: bool,
    concurrent: int = 1,
    network_dtype: str = "auto",
    torch_compile: str = "off",
    audit: bool = False,
    variant: dict | None = None,
    eval_games: int = 100,
) -> None:
    """One timed ``device-train --device cuda`` run of ``minutes`` (``num_envs`` 0: the trainer's
    default size for the device), recorded as a ``part`` line; with ``audit`` the host
    synchronisations torch reports while it trains are counted (where torch has a GPU)."""
    import tempfile
    import warnings

    from monster_zoo.training.device_ppo import trainer

    out = Path(tempfile.mkdtemp(prefix="device_train_"))
    timesteps = 64 if quick else 10**12  # the time limit ends a full run
    argv = [
        "--game",
        game_id,
        "--option",
        f"num_players={players}",
        "--device",
        "cuda",
        "--opponents",
        TRAINER_OPPONENTS,
        "--num-envs",
        str(num_envs),
        "--num-steps",
        "8" if quick else "32",
        "--batch-size",
        "32" if quick else str(2 * num_envs),  # 0 with --num-envs 0: the trainer's default too
        "--network-dtype",
        network_dtype,
        "--torch-compile",
        torch_compile,
        "--total-timesteps",
        str(timesteps),
        "--time-limit",
        "0" if quick else str(minutes),
        "--eval-every",
        "0",
        "--eval-games",
        "2" if quick else str(eval_games),
        "--checkpoint-every",
        "0",
        "--no-progress",
        "--out-dir",
        str(out),
        "--seed",
        "1",
        # the epochs and learning rate of the first H200 figure (438,400 timesteps/s, 2026-11-28), so
        # that the rollout and update seconds and the strength after a minute stay comparable across
        # runs (device-train's CPU defaults are now 1 epoch and 2e-3)
        "--update-epochs",
        "2",
        "--learning-rate",
        "3e-4",
    ]
    start = time.perf_counter()
    syncs = None
    try:
        import torch

        audit = audit and torch.cuda.is_available()
    except ImportError:
        audit = False
    try:
        # with audit, torch warns of each synchronising CUDA call; the warnings are kept and counted
        with contextlib.redirect_stdout(sys.stderr), warnings.catch_warnings(record=audit) as caught:
            if audit:
                warnings.simplefilter("always")
                torch.cuda.set_sync_debug_mode("warn")
            try:
                code = trainer.main(argv)
            finally:
                if audit:
                    torch.cuda.set_sync_debug_mode("default")
        if audit:
            syncs = sum("synchroniz" in str(w.message) for w in caught)
    except SystemExit as exit_:  # a refused flag: argparse has printed why on stderr
        code = exit_.code
    if code != 0:
        raise RuntimeError(f"device-train exited with {code}: {' '.join(argv)}")
    (run_dir,) = out.iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    spent = summary["rollout_seconds"] + summary["update_seconds"]
    memory = None
    try:
        import torch

        if torch.cuda.is_available():
            memory = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    except ImportError:
        pass
    updates = summary["timesteps"] // (summary["num_envs"] * int(argv[argv.index("--num-steps") + 1]))
    record(
        part,
        game=game_id,
        num_players=players,
        opponents=TRAINER_OPPONENTS,
        num_envs=summary["num_envs"],
        batch_size=summary.get("batch_size"),
        torch_compile=summary.get("torch_compile"),
        variant=variant,
        updates=updates,
        opponent_rounds=summary.get("opponent_rounds"),
        opponent_round_waits=summary.get("opponent_round_waits"),
        # the whole run's, evaluation and checkpoints included: the loop's own share is about one a update
        torch_syncs=syncs,
        torch_syncs_per_update=round(syncs / updates, 2) if syncs is not None and updates else None,
        concurrent_trainers=concurrent,
        timesteps=summary["timesteps"],
        train_seconds=summary["train_seconds"],
        timesteps_per_second=summary["timesteps_per_second"],
        rollout_seconds=summary["rollout_seconds"],
        update_seconds=summary["update_seconds"],
        network_dtype=summary["network_dtype"],
        rollout_share=round(summary["rollout_seconds"] / spent, 3) if spent else None,
        wall_seconds=round(time.perf_counter() - start, 1),
        torch_max_memory_gib=memory,
        **{k: v for k, v in summary.items() if k.startswith("winrate_vs_")},
        argv=argv,
    )


def summarize(rows: Sequence[dict]) -> list[str]:
    """A few lines saying what a device check's JSON lines hold: per part what ran and what failed,
    the best in-launch rate per game beside Pgx ``connect_four``'s (an exact percentage), the
    trainer's timesteps per second per game, and each error's first line."""
    lines = []
    by_part: dict[str, list[dict]] = {}
    for row in rows:
        by_part.setdefault(row.get("part", "?"), []).append(row)
    revisions = sorted({str(row.get("git")) for row in rows})
    lines.append(f"git {', '.join(revisions)}; {len(rows)} lines")
    links = by_part.get("link", [])
    if links:
        bad = [f"{r['game']} {r['drivers']} {r['kernel']} cc {r['cc']}" for r in links if not r["ok"]]
        most = max(links, key=lambda r: r.get("constant_bytes") or 0)
        lines.append(
            f"link: {len(links) - len(bad)} of {len(links)} kernels link; most constant bytes "
            f"{most.get('constant_bytes')} ({most['game']} {most['kernel']})"
            + (f"; FAILED: {'; '.join(bad)}" if bad else "")
        )
    parity = by_part.get("parity", []) + by_part.get("trainer_parity", [])
    if parity:
        bad = [r for r in parity if r.get("mismatch") is not None]
        lines.append(f"parity: {len(parity) - len(bad)} of {len(parity)} cases equal the CPU")
        lines += [f"  MISMATCH {r.get('game')} {r.get('num_players')}p: {r['mismatch']}" for r in bad]
    best = {}
    for row in by_part.get("bench", []) + by_part.get("pgx", []):
        if row.get("mode") == "launch" and row.get("steps_per_second"):
            key = row["game"]
            if row["steps_per_second"] > best.get(key, (0, 0))[0]:
                best[key] = (row["steps_per_second"], row["num_envs"])
    anchor = best.get("connect_four", (None, None))[0]
    for game, (rate, envs) in sorted(best.items()):
        share = (
            f", {100 * rate / anchor:.2f}% of Pgx connect_four" if anchor and game != "connect_four" else ""
        )
        lines.append(f"launch: {game} {rate:.3g} steps/s at {envs} games{share}")
    for row in by_part.get("trainer", []):
        lines.append(
            f"trainer: {row['game']} {row['num_players']}p {row['timesteps_per_second']:.0f} timesteps/s "
            f"({row['timesteps']} timesteps, rollouts {row.get('rollout_share')} of the time, "
            + (
                "alone on the GPU)"
                if row.get("concurrent_trainers", 1) == 1
                else f"{row['concurrent_trainers']} trainers sharing the GPU)"
            )
        )
    for row in by_part.get("trainer_variant", []):
        audit = (
            f", {row['torch_syncs_per_update']} torch syncs an update"
            if row.get("torch_syncs") is not None
            else ""
        )
        lines.append(
            f"variant {row.get('variant')}: {row['timesteps_per_second']:.0f} timesteps/s at {row['num_envs']} "
            f"games, {row['network_dtype']}, compile {row.get('torch_compile')}, rollouts "
            f"{row.get('rollout_share')} of the time, {row.get('opponent_round_waits')} waits in "
            f"{row.get('opponent_rounds')} opponent rounds{audit}"
        )
    for row in by_part.get("pgx", []):
        if "skipped" in row:
            lines.append(f"pgx {row['game']} skipped: {row['skipped']}")
    for row in by_part.get("error", []):
        first = (row.get("error") or "").splitlines()[0:1] or [""]
        lines.append(f"ERROR in {row.get('failed_part')}: {first[0][:200]}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--parts", default=",".join(PARTS), help=f"comma-separated, of {', '.join(PARTS)} (default: all)"
    )
    parser.add_argument(
        "--games", default="", help="comma-separated game ids (default: every registered game)"
    )
    parser.add_argument("--parity-envs", type=int, default=512, help="games per parity case (default 512)")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats per figure (default 5)")
    parser.add_argument(
        "--seconds", type=float, default=0.25, help="wall time of one timed repeat (default 0.25)"
    )
    parser.add_argument("--json", type=Path, default=None, help="JSON-lines file to append to as well")
    parser.add_argument(
        "--trainer-minutes",
        type=float,
        default=1.0,
        help="minutes of training in the trainer part (default 1)",
    )
    parser.add_argument(
        "--trainer-games",
        default="",
        help="comma-separated games the trainer part trains, one after the other (default: the first of "
        f"--games, else {TRAINER_GAME} at 2 players)",
    )
    parser.add_argument(
        "--concurrent-trainers",
        type=int,
        default=1,
        help="how many trainers share the GPU with this one, recorded in its line (default 1: alone)",
    )
    parser.add_argument(
        "--trainer-envs",
        type=int,
        default=16384,
        help="games played side by side in the trainer part (default 16384; 0: device-train's default)",
    )
    parser.add_argument(
        "--variants",
        default=DEFAULT_VARIANTS,
        help="the variants part's runs, ';'-separated, each KEY=VALUE,... with KEY one of "
        f"{', '.join(VARIANT_KEYS)} (envs 0: device-train's default; audit=1 counts torch's host "
        f"synchronisations) (default {DEFAULT_VARIANTS})",
    )
    parser.add_argument(
        "--variant-seconds", type=float, default=15.0, help="training seconds of each variant (default 15)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes: a smoke test whose numbers mean nothing"
    )
    parser.add_argument(
        "--summary",
        type=Path,
        default=None,
        metavar="JSONL",
        help="print the summary of a device check's JSON-lines file and exit (runs nothing)",
    )
    args = parser.parse_args(argv)
    if args.summary is not None:
        if not args.summary.is_file():
            parser.error(f"--summary {args.summary}: no such file (the --json file of a device check)")
        rows = [json.loads(line) for line in args.summary.read_text().splitlines() if line.startswith("{")]
        print("\n".join(summarize(rows)))
        return 0
    if args.concurrent_trainers < 1:
        parser.error(f"--concurrent-trainers {args.concurrent_trainers}: give 1 (alone) or more")
    try:
        variants = parse_variants(args.variants)
    except ValueError as error:
        parser.error(str(error))
    if args.variant_seconds <= 0 or args.trainer_envs < 0:
        parser.error(
            "--variant-seconds must be more than 0 and --trainer-envs at least 0 (0: the trainer's default)"
        )
    parts = [p for p in args.parts.split(",") if p]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; valid: {', '.join(PARTS)}")
    import monster_zoo
    from monster_zoo.envs.gpu import require_gpu

    games = [g for g in args.games.split(",") if g] or monster_zoo.available()
    bad = [g for g in games if g not in monster_zoo.available()]
    if bad:
        parser.error(f"unknown game(s) {', '.join(bad)}; available: {', '.join(monster_zoo.available())}")
    trainer_games = [g for g in args.trainer_games.split(",") if g] or [
        games[0] if args.games else TRAINER_GAME
    ]
    bad = [g for g in trainer_games if g not in monster_zoo.available()]
    if bad:
        parser.error(f"unknown game(s) {', '.join(bad)}; available: {', '.join(monster_zoo.available())}")
    if set(parts) - {"link"}:  # the link check compiles and links without a GPU
        require_gpu()
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    repeats, seconds = (1, 0.01) if args.quick else (args.repeats, args.seconds)
    from monster_zoo.evaluation.host import provenance

    record = Recorder(args.json, {**device_facts(), **provenance(DISTRIBUTIONS), "quick": args.quick})
    start = time.perf_counter()
    runs = {
        "link": lambda: run_link(record, games),
        "parity": lambda: run_parity(record, games, 2 if args.quick else args.parity_envs),
        "bench": lambda: run_bench(record, games, sizes, repeats, seconds),
        "pgx": lambda: run_pgx(record, sizes, repeats, seconds, need_gpu=not args.quick),
        "trainer": lambda: run_trainers(
            record,
            trainer_games,
            2 if args.quick else args.parity_envs,
            args.trainer_minutes,
            4 if args.quick else args.trainer_envs,
            args.quick,
            args.concurrent_trainers,
        ),
        "variants": lambda: run_variants(
            record, trainer_games[0], variants, args.variant_seconds, args.quick
        ),
    }
    failed = []
    for part in PARTS:
        if part in parts:
            try:
                runs[part]()
            except Exception as error:
                failed.append(part)
                record(
                    "error",
                    failed_part=part,
                    error=f"{type(error).__name__}: {error}"[:2000],
                    traceback=traceback.format_exc()[-3000:],
                )
    record("done", seconds=round(time.perf_counter() - start, 1), failed_parts=failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
