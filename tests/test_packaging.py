"""Packaging: everything installs under the one top-level name ``monster_zoo``.

The repository's folders (``envs/``, ``agents/``, ...) are renamed into sub-packages on
install, so a user's own ``envs`` package or folder can never shadow the library, nor can
the library overwrite theirs. The slowest check builds the wheel and installs it into a
fresh virtual environment beside a package that owns a top-level ``envs`` module, and checks
that the core dependencies alone run every core feature. The license (MIT, ``LICENSE``) travels
in the metadata of both the sdist and the wheel.
"""

import importlib.metadata
import importlib.util
import re
import subprocess
import sys
import tarfile
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest
import tomllib

import monster_zoo

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("envs", "agents", "evaluation", "training", "benchmarks", "seeds", "web", "cli", "llm")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def _expected_packages():
    """``monster_zoo`` plus every repository folder that is a package or holds rules data, the web
    app's page or shipped champions."""
    names = {"monster_zoo"}
    for folder in FOLDERS:
        for init in (ROOT / folder).rglob("__init__.py"):
            if "__pycache__" not in init.parts:
                names.add(".".join(("monster_zoo", *init.parent.relative_to(ROOT).parts)))
    names |= {f"monster_zoo.seeds.{d.name}" for d in (ROOT / "seeds").iterdir() if (d / "rules.md").exists()}
    if (ROOT / "web" / "static" / "index.html").exists():
        names.add("monster_zoo.web.static")
    if any((ROOT / "agents" / "champions").glob("*.npz")):
        names.add("monster_zoo.agents.champions")
    return names


def _package_layout():
    """``package_layout`` of the repository's setup.py, loaded as a module (it runs setup() only
    as a script)."""
    spec = importlib.util.spec_from_file_location("monster_zoo_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.package_layout


def test_the_packages_are_found_from_the_folders():
    packages, package_dir, package_data = _package_layout()()
    assert set(packages) == _expected_packages()
    assert package_dir == {"monster_zoo": "monster_zoo", **{f"monster_zoo.{f}": f for f in FOLDERS}}
    assert package_data["monster_zoo.seeds.marry_the_monster"] == ["*.json", "*.md"]
    assert "*.npz" in package_data["monster_zoo.agents.champions"]
    assert package_data["monster_zoo.web.static"] == ["*"]
    assert not {"packages", "package-dir", "package-data"} & set(SETUPTOOLS), "one source: setup.py"


def test_a_new_game_folder_is_packaged_without_a_line_anywhere(tmp_path):
    """A copy of the layout with one more game in envs/ and seeds/ packages it too."""
    for folder in FOLDERS:
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "envs" / "noughts").mkdir()
    (tmp_path / "envs" / "noughts" / "__init__.py").write_text("")
    (tmp_path / "seeds" / "noughts").mkdir()
    (tmp_path / "seeds" / "noughts" / "rules.md").write_text("# rules\n")
    packages, _, package_data = _package_layout()(tmp_path)
    assert {"monster_zoo.envs.noughts", "monster_zoo.seeds.noughts"} <= set(packages)
    assert package_data["monster_zoo.seeds.noughts"] == ["*.json", "*.md"]


def test_version_has_one_source():
    assert "version" in PYPROJECT["project"]["dynamic"] and "version" not in PYPROJECT["project"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "monster_zoo.__version__"}
    assert monster_zoo.__version__ == importlib.metadata.version("monster-zoo")


def test_front_door_and_sub_packages():
    from monster_zoo.agents import make_agent
    from monster_zoo.envs import marry_the_monster_v0

    assert "marry_the_monster-v0" in monster_zoo.available()
    env = monster_zoo.make("marry_the_monster-v0", num_players=2)
    env.reset(seed=0)
    assert env.agents == marry_the_monster_v0.raw_env(num_players=2).possible_agents
    assert make_agent("random", "marry_the_monster-v0", seed=0) is not None
    assert (Path(monster_zoo.__file__).parent / "py.typed").is_file()


def test_old_top_level_names_are_not_imported():
    leaked = sorted(m for m in sys.modules if m.split(".")[0] in FOLDERS)
    assert not leaked, f"modules imported under old top-level names: {leaked}"


# What PEP 639 core metadata says of the license; no "License ::" classifier beside it.
LICENSE_FIELDS = ["License-Expression: MIT", "License-File: LICENSE"]


def _license_fields(metadata: str):
    """The lines of a PKG-INFO or METADATA file that speak of the license."""
    return [line for line in metadata.splitlines() if line.startswith(("License", "Classifier: License"))]


def test_pyproject_declares_the_license_file():
    project = PYPROJECT["project"]
    assert (project["license"], project["license-files"]) == ("MIT", ["LICENSE"])
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n") and "Copyright (c) 2026 The monster-zoo contributors" in text


def test_citation_and_changelog_name_this_version():
    """A release bumps ``monster_zoo.__version__``; CITATION.cff and CHANGELOG.md must follow."""
    version = re.escape(monster_zoo.__version__)
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(r"^cff-version: 1\.2\.0$", citation, re.M)
    assert re.search(rf'^version: "{version}"$', citation, re.M), "CITATION.cff: version is not __version__"
    assert re.search(r"^license: MIT$", citation, re.M)
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{version}\] - \d{{4}}-\d{{2}}-\d{{2}}$", changelog, re.M), (
        f"CHANGELOG.md has no section for {monster_zoo.__version__}"
    )


# A Python warning as the build prints it: "<file>.py:<line>: <Category>: <message>"; setuptools
# says so whenever it reads our configuration other than it expects (e.g. data it "would ignore").
# (pip indents what the build prints).
BUILD_WARNING = re.compile(r"^\s*\S+\.py:\d+: (\w*(?:Warning|Deprecation)\w*): (.*)$", re.M)


def _build(hook: str, source: Path, out: Path) -> Path:
    """Run setuptools' PEP 517 ``hook`` (build_sdist or build_wheel) on ``source`` into ``out``;
    a warning from the build about our packaging fails it."""
    out.mkdir(exist_ok=True)
    code = f"import sys; from setuptools import build_meta; print(build_meta.{hook}(sys.argv[1]))"
    done = _run([sys.executable, "-c", code, out], cwd=source)
    warned = BUILD_WARNING.findall(done.stdout + done.stderr)
    assert not warned, f"{hook} warned about our packaging: {warned}\n{done.stderr[-3000:]}"
    return out / done.stdout.splitlines()[-1]


def test_a_build_warning_is_recognised():
    """The pattern the builds are checked with matches the warning that data given as a pattern of
    the folder above raised (setuptools 84, directly and through pip 26), and not setuptools' own
    log lines."""
    printed = (
        "/venv/lib/python3.11/site-packages/setuptools/command/build_py.py:215: _Warning: Package "
        "'monster_zoo.web.static' is absent from the `packages` configuration.\n"
        "warning: build_py: byte-compiling is disabled, skipping.\n"
        "  /tmp/pip-build-env/overlay/setuptools/command/build_py.py:215: BuildBackendWarning: Package "
        "'monster_zoo.web.static' is absent from the `packages` configuration.\n"
    )
    absent = "Package 'monster_zoo.web.static' is absent from the `packages` configuration."
    assert BUILD_WARNING.findall(printed) == [("_Warning", absent), ("BuildBackendWarning", absent)]


def test_sdist_and_its_wheel_carry_the_license(tmp_path):
    """The sdist's PKG-INFO names the license and holds the file; the wheel built from the
    unpacked sdist (as ``python -m build`` does) carries both on."""
    sdist = _build("build_sdist", ROOT, tmp_path / "dist")
    top = sdist.name.removesuffix(".tar.gz")
    with tarfile.open(sdist) as archive:
        assert _license_fields(archive.extractfile(f"{top}/PKG-INFO").read().decode()) == LICENSE_FIELDS
        assert archive.extractfile(f"{top}/LICENSE").read() == (ROOT / "LICENSE").read_bytes()
        archive.extractall(tmp_path, filter="data")
    wheel = _build("build_wheel", tmp_path / top, tmp_path / "dist")
    info = wheel.name.split("-py3")[0] + ".dist-info"
    with zipfile.ZipFile(wheel) as archive:
        assert _license_fields(archive.read(f"{info}/METADATA").decode()) == LICENSE_FIELDS
        assert archive.read(f"{info}/licenses/LICENSE") == (ROOT / "LICENSE").read_bytes()


def _run(cmd, **kwargs):
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=900, **kwargs)
    assert done.returncode == 0, (
        f"{' '.join(map(str, cmd))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done


def _tiny_envs_project(where: Path) -> Path:
    """A project whose distribution owns a top-level ``envs`` module, like the registry's ``envs``."""
    project = where / "tiny-envs"
    (project / "envs").mkdir(parents=True)
    (project / "envs" / "__init__.py").write_text("def get(name, default=None):\n    return f'tiny:{name}'\n")
    (project / "pyproject.toml").write_text(
        textwrap.dedent("""\
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"
        [project]
        name = "tiny-envs"
        version = "1.0"
        [tool.setuptools]
        packages = ["envs"]
        """)
    )
    return project


def _core_install_runs_every_core_feature(py, where):
    """With the core dependencies alone (no SciPy, no torch) the random agent, the learner env,
    a greedy match and the terminal game all run (no numba kernel may need SciPy's BLAS)."""
    installed = {line.split("==")[0].lower() for line in _run([py, "-m", "pip", "freeze"]).stdout.split()}
    assert not installed & {"scipy", "torch", "stable-baselines3"}, installed
    core = textwrap.dedent("""\
        import numpy as np, monster_zoo
        from monster_zoo.agents import make_agent
        env = monster_zoo.make("monster_factory-v0", num_players=2)
        env.reset(seed=1)
        agent = make_agent("random", "monster_factory-v0", seed=0)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else agent.act(obs["observation"], obs["action_mask"]))
        learner = monster_zoo.make_learner_env("monster_factory-v0", num_players=2)
        obs, info = learner.reset(seed=0)
        for _ in range(20):
            obs, reward, term, trunc, info = learner.step(int(np.flatnonzero(learner.action_masks())[0]))
            if term or trunc:
                learner.reset()
        print("core ok")
        """)
    assert "core ok" in _run([py, "-c", core], cwd=where).stdout
    _run(
        [
            py,
            "-m",
            "monster_zoo.evaluation.match",
            "--game",
            "monster_factory-v0",
            "--agents",
            "greedy",
            "random",
            "--games",
            "2",
            "--no-progress",
        ],
        cwd=where,
    )
    # a shipped champion plays from the installed package data with numpy alone
    _run(
        [
            py,
            "-m",
            "monster_zoo.evaluation.match",
            "--game",
            "marry_the_monster-v0",
            "--agents",
            "marry_the_monster-champion-v1",
            "random",
            "--games",
            "2",
            "--no-progress",
        ],
        cwd=where,
    )
    play = subprocess.run(
        [str(py.parent / "monster-zoo"), "play", "--game", "monster_factory-v0", "--seed", "1"],
        input="1\nboard\nquit\n",
        capture_output=True,
        text=True,
        timeout=900,
        cwd=where,
    )
    assert play.returncode == 0 and "game abandoned" in play.stdout, play.stdout[-2000:] + play.stderr[-2000:]


@pytest.mark.install
def test_wheel_installs_beside_a_top_level_envs_package(tmp_path):
    """Build the wheel, install it into a fresh venv, add a package owning ``envs``, and use
    both (the library, its console script and ``-m``)."""
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp_path / "dist", ROOT])
    assert not BUILD_WARNING.findall(built.stdout + built.stderr), built.stdout + built.stderr
    wheel = next((tmp_path / "dist").glob("monster_zoo-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"monster_zoo", wheel.name.split("-py3")[0] + ".dist-info"}, top
    assert "monster_zoo/py.typed" in names
    assert "monster_zoo/seeds/marry_the_monster/rules.md" in names
    assert "monster_zoo/agents/champions/marry_the_monster-2p.npz" in names
    assert "monster_zoo/agents/champions/manifest.json" in names  # champions load only against their digests
    assert "monster_zoo/web/static/index.html" in names  # the web app's page
    assert not any(n.startswith("monster_zoo/tests/") for n in names)
    info = wheel.name.split("-py3")[0] + ".dist-info"
    assert _license_fields(zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode()) == LICENSE_FIELDS

    venv.create(tmp_path / "venv", with_pip=True)
    py = tmp_path / "venv" / "bin" / "python"
    _run([py, "-m", "pip", "install", "-q", wheel])
    _core_install_runs_every_core_feature(py, tmp_path)
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            tmp_path / "other",
            _tiny_envs_project(tmp_path),
        ]
    )
    _run([py, "-m", "pip", "install", "-q", next((tmp_path / "other").glob("tiny_envs-*.whl"))])
    _run([py, "-m", "pip", "check"])
    use_both = textwrap.dedent("""\
        import envs, monster_zoo
        from monster_zoo.agents import make_agent
        assert envs.get("HOME") == "tiny:HOME"
        env = monster_zoo.make("marry_the_monster-v0", num_players=2)
        env.reset(seed=3)
        agent = make_agent("random", "marry_the_monster-v0", seed=0)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else agent.act(obs["observation"], obs["action_mask"]))
        print(monster_zoo.__version__, sorted(env.rewards.values()))
        """)
    # run away from the repository, so nothing resolves to its folders
    done = _run([py, "-c", use_both], cwd=tmp_path)
    assert done.stdout.startswith(monster_zoo.__version__)
    _run([tmp_path / "venv" / "bin" / "monster-zoo", "--help"], cwd=tmp_path)
    _run([py, "-m", "monster_zoo.training", "--help"], cwd=tmp_path)
    # uninstalling the other package leaves the library whole
    _run([py, "-m", "pip", "uninstall", "-q", "-y", "tiny-envs"])
    _run([py, "-c", "import monster_zoo; print(monster_zoo.available())"], cwd=tmp_path)
