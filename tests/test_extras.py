"""Every extra runs what it documents with that extra alone: the wheel is installed into a fresh
virtual environment with one extra, and its entry points and example run there, away from the
repository (so nothing resolves to its folders or to another extra's packages).

The core dependencies and the package are installed once into a base environment that each extra's
environment borrows through a ``.pth`` file (as ``.ci/newcomer_check`` borrows the repository's), so
a check installs only its extra's own packages (pip's cache serves a repeat run) and numba compiles
the kernels once for all the checks. The checks are marked ``install`` and run by default; those of
the extras whose packages are large (torch, Ray, JAX, CUDA, Sphinx) are marked slow as well and run
with ``pytest -m 'install and slow' tests/test_extras.py``; ``-m 'not install'`` deselects them all.
In the default run, tests/test_extras_here.py checks those large extras without a download.
"""

import subprocess
import sys
import textwrap
import venv
from pathlib import Path

import pytest
from test_packaging import BUILD_WARNING, PYPROJECT, ROOT, _run

pytestmark = pytest.mark.install

EXAMPLES = ROOT / "examples"

# What each extra's entry points do with that extra alone: a list of argument lists for the
# environment's python (run in an empty folder), or a python program's text.
CHECKS = {
    "llm": [
        # the harness: scored against a baseline through the scripted stand-in, and one MCP game
        [
            EXAMPLES / "language_model_harness.py",
            "--games",
            "2",
            "--baselines",
            "random",
            "--transcript",
            "transcript.txt",
        ],
        # `monster-zoo evaluate` with a model in its field, against the stand-in
        textwrap.dedent("""\
            from monster_zoo.cli.main import main
            from monster_zoo.llm.scripted_server import ScriptedServer
            with ScriptedServer() as server:
                argv = ["evaluate", "--game", "monster_factory-v0", "--agents", "llm:stand-in", "random",
                        "--games", "2", "--base-url", server.base_url, "--no-progress"]
                raise SystemExit(main(argv))
            """),
    ],
    "web": [
        textwrap.dedent("""\
            from starlette.testclient import TestClient
            from monster_zoo.web.app import Settings, create_app
            with TestClient(create_app(Settings(allowed_hosts=["testserver"]))) as client:
                assert client.get("/api/games").status_code == 200
            print("web ok")
            """),
    ],
    "eval": [
        [
            "-m",
            "monster_zoo.cli",
            "evaluate",
            "--game",
            "monster_factory-v0",
            "--agents",
            "greedy",
            "random",
            "--games",
            "2",
            "--no-progress",
            "--out",
            "tournament",
        ],
    ],
    "render": [
        textwrap.dedent("""\
            import monster_zoo
            env = monster_zoo.make("monster_factory-v0", num_players=2, render_mode="rgb_array")
            env.reset(seed=0)
            picture = env.render()
            assert picture.ndim == 3 and picture.shape[2] == 3, picture.shape
            print("render ok")
            """),
    ],
    "openspiel": [[EXAMPLES / "openspiel_ismcts.py"]],
    "openenv": [[EXAMPLES / "openenv_grpo_rollout.py", "--prompts", "1", "--group", "2"]],
    "train": [[EXAMPLES / "maskable_ppo.py"]],
    "distributed": [[EXAMPLES / "rllib_masked_ppo.py"]],
    "examples": [[EXAMPLES / "tianshou_dqn.py"]],
    "bench": [["-m", "monster_zoo.benchmarks.bench", "--help"]],
    "device-train": [["-m", "monster_zoo.cli", "device-train", "--help"]],
    "torchrl": [[EXAMPLES / "torchrl_ppo.py", "--total-frames", "512"]],
    "gpu": [["-m", "monster_zoo.cli", "gpu", "check"]],
    "docs": [["-c", "import sphinx, myst_parser, furo, matplotlib, openskill; print('docs ok')"]],
    "dev": [["-m", "pytest", "--version"]],
}
HEAVY = {"train", "distributed", "examples", "bench", "device-train", "torchrl", "gpu", "docs", "dev"}


def test_every_extra_has_a_check():
    """A new extra must say here what it runs (an extra no check runs can lack a package unnoticed)."""
    assert set(CHECKS) == set(PYPROJECT["project"]["optional-dependencies"])


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The wheel, and an environment holding the core dependencies: ``(wheel, site-packages)``."""
    where = tmp_path_factory.mktemp("extras")
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", where / "dist", ROOT])
    assert not BUILD_WARNING.findall(built.stdout + built.stderr), built.stdout + built.stderr
    wheel = next((where / "dist").glob("monster_zoo-*.whl"))
    venv.create(where / "core")
    _pip_install(where / "core" / "bin" / "python", str(wheel))
    return wheel, _site_packages(where / "core" / "bin" / "python")


def _pip_install(python: Path, requirement: str) -> None:
    """Install ``requirement`` into the environment of ``python`` with this interpreter's pip
    (``pip --python``: no pip is installed into each new environment)."""
    _run([sys.executable, "-m", "pip", "--python", python, "install", "-q", requirement])


def _site_packages(python: Path) -> str:
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    return _run([python, "-c", code]).stdout.strip()


def _with_extra(base, extra: str, where: Path) -> Path:
    """A fresh environment borrowing the core one, with the wheel and ``extra`` installed; its python."""
    wheel, core_site = base
    venv.create(where / "venv")
    python = where / "venv" / "bin" / "python"
    Path(_site_packages(python), "borrowed_core.pth").write_text(core_site + "\n")
    _pip_install(python, f"{wheel}[{extra}]")
    # the package itself is the core environment's copy, so that numba compiles its kernels once
    # for every check (its cache lies beside the sources, keyed by their path)
    _run([sys.executable, "-m", "pip", "--python", python, "uninstall", "-q", "-y", "monster-zoo"])
    where_from = _run([python, "-c", "import monster_zoo; print(monster_zoo.__file__)"], cwd=where).stdout
    assert where_from.startswith(core_site), where_from
    return python


@pytest.mark.timeout(1800)  # an install and a first compile of the kernels, on a loaded machine
@pytest.mark.parametrize(
    "extra", [pytest.param(e, marks=[pytest.mark.slow] if e in HEAVY else []) for e in CHECKS]
)
def test_an_extra_alone_runs_its_entry_points(base, extra, tmp_path):
    python = _with_extra(base, extra, tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    for check in CHECKS[extra]:
        command = [python, "-c", check] if isinstance(check, str) else [python, *check]
        done = subprocess.run(
            [str(c) for c in command], cwd=work, capture_output=True, text=True, timeout=900
        )
        assert done.returncode == 0, (
            f"with the {extra} extra alone, {' '.join(map(str, command))[-300:]} failed:\n"
            f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
