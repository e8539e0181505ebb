"""Sphinx configuration of the monster-zoo documentation site (``make docs``).

Sphinx with MyST markdown and the Furo theme, PettingZoo's stack: the pages are markdown, the
API reference comes from the docstrings by autodoc, and a page per game is generated at build
time (``_ext/game_pages.py``), and the command-line reference from every command's own
``--help`` (``_ext/cli_reference.py``). Text that lives elsewhere in the repository (CHANGELOG,
the folders' READMEs) is included, never copied (``_ext/repository_files.py``).
"""

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

import monster_zoo  # noqa: E402  (after the path above: the extensions import it too)

project = "monster-zoo"
author = "The monster-zoo contributors"
copyright = "the monster-zoo contributors, MIT license"
release = monster_zoo.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "api_references",
    "repository_files",
    "game_pages",
    "cli_reference",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
# Not pages: the build output and the extensions.
exclude_patterns = ["_build", "_ext"]

# A link to a page or file that does not exist is a warning, and `make docs` turns warnings into
# errors. Python cross-references in docstrings are checked too (nitpicky), within the modules
# the API reference documents (_ext/api_references.py); bare names of builtins, typing and the
# base classes of other projects are no references to check.
myst_all_links_external = False
myst_heading_anchors = 3
nitpicky = True
nitpick_ignore_regex = [
    (
        r"py:.*",
        r"(Any|Callable|Dict|Iterable|Iterator|List|Optional|Sequence|Tuple|Type|Union|BinaryIO|"
        r"Path|ndarray|Space|int|float|str|bool|dict|list|tuple|bytes|None|object|type|optional)",
    ),
]

# The optional extras' libraries stand in as mocks, so the site builds with the `docs` extra
# alone (Ray and torch would also add seconds to every build).
autodoc_mock_imports = [
    "ray",
    "torch",
    "torchrl",
    "tensordict",
    "stable_baselines3",
    "sb3_contrib",
    "pyspiel",
    "open_spiel",
]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"show-inheritance": True}

html_theme = "furo"
html_title = f"monster-zoo {release}"
