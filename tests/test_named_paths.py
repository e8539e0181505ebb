"""Every repository path the README, the CHANGELOG and the documentation name exists, so a rename
updates them too.

A path is a word starting with one of the repository's folders (``envs/<game>/picture.py``); a
placeholder in angle brackets (``<game>``, ``<N>``) stands for any name, and the path must then
match at least one file. Outputs that a command writes (the documentation site) and the former
names the CHANGELOG gives in its entries on renames are the exceptions, listed below; a former name
must be gone.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ROOT_DOCUMENTS = ("README.md", "CHANGELOG.md", "CONTRIBUTING.md")
# the folders' pages, which the documentation site includes
FOLDER_DOCUMENTS = (
    "envs/README.md",
    "agents/README.md",
    "agents/champions/README.md",
    "training/README.md",
    "training/AZ.md",
    "benchmarks/README.md",
    "examples/README.md",
)
FOLDERS = (
    "envs",
    "agents",
    "evaluation",
    "training",
    "benchmarks",
    "seeds",
    "web",
    "llm",
    "cli",
    "docs",
    "examples",
    "tests",
    ".ci",
)
# a folder name at a word's start (after a backtick, bracket, quote or space), then the path's characters
PATH = re.compile(
    r"(?:(?<=[`(\"'\s])|^)((?:{})/[\w<>.*/-]*[\w>*/])".format("|".join(map(re.escape, FOLDERS))), re.M
)
# written by a command, not kept in the repository: the site (`make docs`), its results pages
# (rendered from docs/measurements by docs/render_results.py) and the benchmarks' JSON lines
OUTPUTS = ("docs/_build/", "docs/results/", "benchmarks/results/")
# measurement files and pictures a documented benchmark command writes, named before its first run
WRITTEN_BY_COMMANDS = (
    "docs/measurements/trainer_adapters_cpu.jsonl",
    "docs/measurements/commands_<cpu>.jsonl",
    "docs/pictures/belief",
    "training/results/belief_strength/<game>_<n>p.json",  # a strength series' report, at its end
)
# files a documented step creates (a game's next version), named before they exist
TO_BE_CREATED = {"CONTRIBUTING.md": ("envs/<game>_v1.py",)}
# the CHANGELOG's entries on renames name what a file was called before
FORMER = {
    "CHANGELOG.md": (
        "agents/<game>_greedy.py",
        "agents/seat_values.py",
        "seeds/monster_arena/cards.json",
        "agents/agent_names.py",
    )
}


def named_paths(text: str) -> list:
    """The repository paths ``text`` names, each once, in order."""
    return list(dict.fromkeys(PATH.findall(text)))


def matches(path: str) -> list:
    """The files and folders of the repository that ``path`` names (placeholders match any name)."""
    pattern = re.sub(r"<[^<>/]+>", "*", path.rstrip("/"))
    return list(ROOT.glob(pattern))


def test_paths_are_found_in_the_forms_the_documents_use():
    text = (
        "the kernel in `envs/<game>/greedy.py` (was `agents/<game>_greedy.py`); see "
        '[the board](docs/leaderboard.md), <img src="docs/pictures/monstargh.png"> and .ci/run.\n'
        "envs/README.md lists them; monster_zoo.envs and `monster_zoo/x-learner-v0` are not paths"
    )
    assert named_paths(text) == [
        "envs/<game>/greedy.py",
        "agents/<game>_greedy.py",
        "docs/leaderboard.md",
        "docs/pictures/monstargh.png",
        ".ci/run",
        "envs/README.md",
    ]
    assert matches("envs/<game>/greedy.py") and matches("envs/<name>_v<N>.py")
    assert not matches("envs/<game>/drawing.py")


def documents() -> list[str]:
    """The documents whose paths are checked: the root's, the folders' pages and the site's own
    pages (the generated ones left out)."""
    site = sorted(
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "docs").rglob("*.md")
        if not path.relative_to(ROOT).as_posix().startswith(OUTPUTS)
    )
    return [*ROOT_DOCUMENTS, *FOLDER_DOCUMENTS, *site]


@pytest.mark.parametrize("document", documents())
def test_every_path_a_document_names_exists(document):
    former = FORMER.get(document, ()) + TO_BE_CREATED.get(document, ())
    named = [
        p
        for p in named_paths((ROOT / document).read_text(encoding="utf-8"))
        if p not in former and p not in WRITTEN_BY_COMMANDS and not p.startswith(OUTPUTS)
    ]
    if document in ROOT_DOCUMENTS:
        assert named, f"{document} names no path: the pattern no longer finds them"
    missing = [path for path in named if not matches(path)]
    assert not missing, f"{document} names paths that do not exist (renamed or removed?): {missing}"


@pytest.mark.parametrize("document", sorted(FORMER))
def test_the_former_names_are_named_and_gone(document):
    named = named_paths((ROOT / document).read_text(encoding="utf-8"))
    for path in FORMER[document]:
        assert path in named, f"{document} no longer names {path}: drop it from FORMER"
        assert not matches(path), f"{path} exists again: it is no longer a former name"
