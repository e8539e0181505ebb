"""The computed half of packaging: which folders install as which sub-packages of ``monster_zoo``.

``pyproject.toml`` holds everything else (metadata, dependencies, extras). The repository's
top-level folders (``envs/``, ``agents/``, ``evaluation/``, ``training/``, ``benchmarks/``,
``seeds/``, ``web/``, ``cli/``) install renamed as ``monster_zoo.<folder>``; the packages below
them and the data they carry are found here from the folders themselves, so adding a game
(``envs/<game>/`` and ``seeds/<game>/``), a kind of agent (``agents/<kind>/``) or a shipped model
needs no line in any list.
"""

from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
FOLDERS = ("envs", "agents", "evaluation", "training", "benchmarks", "seeds", "web", "cli", "llm")
# data that travels with the code, so that a regular (non-editable) install finds it too
RULES_DATA = ["*.json", "*.md"]  # each seeds/<game>/: rules text and component tables
MODELS_DATA = ["*.npz", "*.md", "*.json"]  # agents/champions/: shipped models and their manifest
WEB_DATA = ["*"]  # web/static/: the web app's page, its HTML, script and style


def package_layout(root: Path = ROOT) -> tuple[list[str], dict[str, str], dict[str, list[str]]]:
    """``(packages, package_dir, package_data)`` for setuptools, read from the folders under ``root``."""
    packages = {"monster_zoo"}
    package_dir = {"monster_zoo": "monster_zoo", **{f"monster_zoo.{folder}": folder for folder in FOLDERS}}
    package_data = {"monster_zoo": ["py.typed"]}
    for folder in FOLDERS:
        for init in (root / folder).rglob("__init__.py"):
            if "__pycache__" not in init.parts:
                packages.add(".".join(("monster_zoo", *init.parent.relative_to(root).parts)))
    for rules in (root / "seeds").glob("*/rules.md"):  # data-only folders, installed as packages
        packages.add(f"monster_zoo.seeds.{rules.parent.name}")
        package_data[f"monster_zoo.seeds.{rules.parent.name}"] = RULES_DATA
    # Data folders are listed as packages of their own, the way setuptools expects data that lies in
    # a sub-folder: given as a pattern of the folder above, it warns that the folder "would be ignored".
    if (root / "web" / "static").is_dir():
        packages.add("monster_zoo.web.static")
        package_data["monster_zoo.web.static"] = WEB_DATA
    if (root / "agents" / "champions").is_dir():
        packages.add("monster_zoo.agents.champions")
        package_data["monster_zoo.agents.champions"] = MODELS_DATA
    return sorted(packages), package_dir, package_data


if __name__ == "__main__":
    _packages, _package_dir, _package_data = package_layout()
    setup(packages=_packages, package_dir=_package_dir, package_data=_package_data)
