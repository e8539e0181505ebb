"""The documentation site builds with warnings as errors, its internal links resolve offline,
every game has its full page, every command its reference, and no page tells development history.

The site is built once per run into a temporary folder (``make docs`` builds into
``docs/_build/html`` the same way): Sphinx's ``-W`` fails the build on a MyST link to a missing
page, file or heading and on a broken Python cross-reference. The generated HTML is then read
back: every relative ``href`` and ``src`` must name a file of the site, and every ``#fragment`` an
id on its page. The build takes about 30 s on 2 cores (autodoc imports the package; the game
pages read the leaderboard); it runs by default, since CI must build the site.
"""

import json
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from monster_zoo import envs

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")
pytest.importorskip("furo")

REPOSITORY = Path(__file__).resolve().parents[1]
DOCS = REPOSITORY / "docs"
sys.path.insert(0, str(DOCS / "_ext"))

from cli_reference import command_names, subcommands  # noqa: E402
from game_pages import changelog_entries, leaderboard_tables  # noqa: E402
from repository_files import site_target  # noqa: E402

BUILD_TIMEOUT_S = 600
GIF_LIMIT_BYTES = 1 << 20


class Page(HTMLParser):
    """One HTML page read back: its links, its ids and what each section holds."""

    def __init__(self, path: Path):
        super().__init__()
        self.path = path
        self.links: list[tuple[str, str]] = []  # (attribute, value) of every href and src
        self.ids = set()
        self.open_sections: list[str] = []
        self.section_tags: dict[str, Counter] = {}
        self.section_text: dict[str, list[str]] = {}
        self.section_sources: dict[str, list[str]] = {}
        self.feed(path.read_text(encoding="utf-8"))

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for name in ("href", "src"):
            if attributes.get(name) is not None:
                self.links.append((name, attributes[name]))
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        for section in self.open_sections:
            self.section_tags[section][tag] += 1
            if tag == "img":
                self.section_sources[section].append(attributes.get("src", ""))
        if tag == "section":
            name = attributes.get("id", "")
            self.open_sections.append(name)
            self.section_tags.setdefault(name, Counter())
            self.section_text.setdefault(name, [])
            self.section_sources.setdefault(name, [])

    def handle_endtag(self, tag):
        if tag == "section" and self.open_sections:
            self.open_sections.pop()

    def handle_data(self, data):
        for section in self.open_sections:
            self.section_text[section].append(data)

    def text(self, section: str) -> str:
        """The text of a section, its subsections included, with runs of whitespace as one space."""
        return " ".join("".join(self.section_text.get(section, [])).split())


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built from ``docs/`` with warnings as errors, as ``make docs`` builds it."""
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            "-d",
            str(out / "doctrees"),
            str(DOCS),
            str(out / "html"),
        ],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    assert done.returncode == 0, f"the site did not build:\n{done.stdout[-4000:]}\n{done.stderr[-8000:]}"
    return out / "html"


@pytest.fixture(scope="module")
def pages(site) -> dict[Path, Page]:
    """Every HTML page of the site, read back."""
    return {path: Page(path) for path in site.rglob("*.html")}


def is_internal(value: str) -> bool:
    """Whether a link stays inside the site (no scheme, no network location)."""
    parts = urlsplit(value)
    return not parts.scheme and not parts.netloc and value.strip() != ""


def test_internal_links_and_anchors_resolve(site, pages):
    """Every relative href and src names a file of the site, every fragment an id on its page."""
    broken = []
    for path, page in pages.items():
        for attribute, value in page.links:
            if not is_internal(value):
                continue
            parts = urlsplit(value)
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if not target.is_file() or site.resolve() not in target.parents:
                broken.append(f"{path.relative_to(site)}: {attribute}={value!r} names no file of the site")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else Page(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(
                        f"{path.relative_to(site)}: {attribute}={value!r}: no id {parts.fragment!r} there"
                    )
    assert not broken, "\n".join(broken[:40])


def test_the_site_has_its_pages(site):
    """Home, installation, quick start, guides, API reference, leaderboard and CHANGELOG are built."""
    expected = [
        "index",
        "installation",
        "quickstart",
        "tutorials/first_game",
        "tutorials/first_agent",
        "tutorials/first_training",
        "web",
        "examples",
        "games/index",
        "guides/index",
        "guides/records",
        "guides/gpu",
        "guides/training_sb3",
        "guides/rllib_league",
        "guides/evaluation",
        "guides/own_agent",
        "guides/adding_a_game",
        "guides/adding_an_agent",
        "api/envs",
        "api/agents",
        "api/records",
        "api/rllib",
        "api/openspiel",
        "reference/cli",
        "leaderboard",
        "changelog",
        "explanation/design",
        "explanation/learned_search",
    ]
    missing = [name for name in expected if not (site / f"{name}.html").is_file()]
    assert not missing, f"pages not built: {missing}"


def test_api_reference_documents_the_front_door(pages, site):
    """The API reference has an entry for every function of the front door and the adapters."""
    ids = set().union(
        *(pages[site / f"api/{name}.html"].ids for name in ("envs", "agents", "records", "rllib"))
    )
    for name in (
        "monster_zoo.envs.registry.make",
        "monster_zoo.envs.registry.make_batch",
        "monster_zoo.envs.registry.make_vec_env",
        "monster_zoo.envs.registry.make_learner_env",
        "monster_zoo.agents.registry.make_agent",
        "monster_zoo.agents.base.Agent",
        "monster_zoo.envs.core.records.record_game",
        "monster_zoo.envs.rllib_env.RLlibGameEnv",
    ):
        assert name in ids, f"the API reference has no entry {name}"


def pinned_ids(game_id: str) -> list[str]:
    """The ids of ``game_id``'s game pinned in tests/game_versions.json."""
    name = envs.spec(game_id).name
    pins = json.loads((REPOSITORY / "tests" / "game_versions.json").read_text(encoding="utf-8"))
    return [pinned for pinned in pins if pinned.rsplit("-", 1)[0] == name]


@pytest.mark.parametrize("game_id", envs.available())
def test_every_game_has_its_page(pages, site, game_id):
    """The game's page: picture and GIF, observation and action tables, every option of its spec,
    its pinned ids in the version history, and every leaderboard table of the game."""
    spec = envs.spec(game_id)
    path = site / "games" / f"{spec.name}.html"
    assert path in pages, f"no page for {game_id}"
    page = pages[path]
    sources = [value for attribute, value in page.links if attribute == "src"]
    for picture in (f"{spec.name}.png", f"{spec.name}.gif"):
        assert any(Path(urlsplit(src).path).name == picture for src in sources), f"{game_id}: no {picture}"
    for section in ("observation-space", "action-space", "options", "version-history"):
        assert page.section_tags.get(section, {}).get("table"), f"{game_id}: no table under {section}"
    options = page.text("options")
    assert all(option.name in options for option in spec.options), f"{game_id}: an option is missing"
    history = page.text("version-history")
    assert pinned_ids(game_id) and all(pinned in history for pinned in pinned_ids(game_id))
    assert "CHANGELOG" in history
    results = page.text("agents-and-leaderboard")
    tables = leaderboard_tables(game_id)
    assert tables, f"{game_id}: no leaderboard table in docs/leaderboard"
    for _, table in tables:
        field = json.loads(table.read_text(encoding="utf-8"))["field"]
        assert all(agent in results for agent in field), (
            f"{game_id}: {table.name}'s agents are not on the page"
        )
        shown = [Path(urlsplit(src).path).name for src in page.section_sources["agents-and-leaderboard"]]
        assert table.with_suffix(".png").name in shown, (
            f"{game_id}: {table.stem}'s win-rate picture is missing"
        )


@pytest.mark.parametrize("game_id", envs.available())
def test_game_gif_is_small_and_animated(game_id):
    """docs/pictures/<game>.gif (``make pictures``) has many frames and stays under 1 MB."""
    image = pytest.importorskip("PIL.Image")
    path = DOCS / "pictures" / f"{envs.spec(game_id).name}.gif"
    assert path.stat().st_size < GIF_LIMIT_BYTES
    with image.open(path) as gif:
        assert gif.format == "GIF" and gif.n_frames > 10


@pytest.mark.parametrize(
    "target, folder, expected",
    [
        ("champions/README.md", "agents", "/guides/champions.md"),
        ("AZ.md#measure-it", "training", "/explanation/learned_search.md#measure-it"),
        ("../docs/results/agents.md", "training", "/results/agents.md"),
        ("../docs/leaderboard.md", "training", "/leaderboard.md"),
        ("docs/leaderboard.md#ratings", "", "/leaderboard.md#ratings"),
        ("../../docs/champion_monstargh_4p.png", "agents/champions", "/champion_monstargh_4p.png"),
        ("random_play.py", "examples", "/examples.md#random-play"),
        ("https://pettingzoo.farama.org", "", "https://pettingzoo.farama.org"),
        ("#game-versions", "", "#game-versions"),
    ],
)
def test_included_files_links_point_into_the_site(target, folder, expected):
    """A link written relative to a repository file leads to the page or file of the site."""
    assert site_target(target, REPOSITORY / folder) == expected


def test_changelog_entries_keep_their_release_and_continuation_lines():
    """CHANGELOG items are read with their release and section, continuation lines joined and
    nested items apart from their parent."""
    text = (
        "## [Unreleased]\n\n## [0.2.0] - 2027-01-01\n\n### Changed\n\n- `a-v1`: the first line\n"
        "  and its continuation.\n- Two games:\n  - `b-v0`: nested.\n"
    )
    assert changelog_entries(text) == [
        ("0.2.0 - 2027-01-01, Changed", "`a-v1`: the first line and its continuation."),
        ("0.2.0 - 2027-01-01, Changed", "Two games:"),
        ("0.2.0 - 2027-01-01, Changed", "`b-v0`: nested."),
    ]


def test_the_cli_reference_has_every_command_with_its_help(pages, site):
    """The command-line page has a section per ``monster-zoo`` subcommand (and per subcommand of
    those) holding that command's own help: its usage line and its options."""
    page = pages[site / "reference" / "cli.html"]
    names = command_names()
    assert {"play", "evaluate", "train", "az", "serve"} <= set(names)
    for name in names:
        section = f"monster-zoo-{name}"
        assert section in page.ids, f"the CLI reference has no section for monster-zoo {name}"
        text = page.text(section)
        assert "usage: " in text and "-h, --help" in text, f"monster-zoo {name}: no help text"
    assert "usage: monster-zoo gpu check" in page.text("monster-zoo-gpu-check")


def test_subcommands_are_read_from_positional_arguments_only():
    """A subcommand group is the ``{a,b}`` line under "positional arguments"; an option's choices
    in the usage line are not subcommands."""
    text = (
        "usage: tool [-h] [--rollout {random,greedy}] {budget,training} ...\n\n"
        "positional arguments:\n  {budget,training}\n    budget    at multiples\n\n"
        "options:\n  --rollout {random,greedy}\n"
    )
    assert subcommands(text) == ["budget", "training"]
    assert subcommands("usage: tool [-h] [--rollout {random,greedy}]\n\noptions:\n  -h\n") == []
