"""Sphinx extension: the repository's own markdown files, included into the site's pages.

The README, the CHANGELOG and the folders' READMEs are written for a reader on the repository,
so their links are relative to where each file lies (``agents/README.md`` links
``champions/README.md``). A page includes them with MyST's ``{include}``; this extension
rewrites their links as they are read (Sphinx's ``include-read`` event), so each one points where
the site has it:

* a file that a page of the site includes whole (:data:`PAGES`) becomes a link to that page;
* any other file, a picture above all, is named from the site's root (``/...``), which Sphinx
  resolves wherever the including page lies: an image is copied into the site, a file that no
  page shows becomes a download.

It also lists the example scripts on the examples page (``examples/*.py``, each with its
docstring and its source), so an example added to the folder needs no edit here.
"""

import ast
import os
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
REPOSITORY = DOCS.parent
EXAMPLES = REPOSITORY / "examples"
EXAMPLES_PAGE = "examples"

# Repository files that a page includes whole -> that page. Links to these files anywhere in an
# included file lead to the page instead.
PAGES: dict[str, str] = {
    "README.md": "index",
    "CHANGELOG.md": "changelog",
    "CONTRIBUTING.md": "contributing",
    "agents/README.md": "guides/own_agent",
    "agents/champions/README.md": "guides/champions",
    "envs/README.md": "guides/adding_a_game",
    "training/README.md": "guides/training_sb3",
    "training/AZ.md": "explanation/learned_search",
    "benchmarks/README.md": "speed",
    "examples/README.md": EXAMPLES_PAGE,
}

# A markdown link or image: [text](target "title") / ![alt](target); and an HTML image's src.
_MARKDOWN_LINK = re.compile(r"(!?\[[^\]\n]*\]\()([^)\s]+)((?:\s+\"[^\"\n]*\")?\))")
_HTML_SOURCE = re.compile(r"(<img\b[^>]*?\bsrc=\")([^\"]+)(\")")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
EXAMPLES_MARKER = "<!-- examples: every script of examples/ -->"


def site_target(target: str, folder: Path) -> str:
    """Where ``target``, a link written in a file of ``folder``, points in the site: unchanged
    when it is a web address, an anchor or already site-rooted, else a site-rooted path."""
    if _SCHEME.match(target) or target.startswith(("#", "/")):
        return target
    path, hash_mark, anchor = target.partition("#")
    absolute = Path(os.path.normpath(folder / path))
    try:
        in_repository = absolute.relative_to(REPOSITORY).as_posix()
    except ValueError:
        return target  # outside the repository: left for Sphinx to report
    if in_repository in PAGES:
        return f"/{PAGES[in_repository]}.md{hash_mark}{anchor}"
    if in_repository.startswith("examples/") and in_repository.endswith(".py"):
        return f"/{EXAMPLES_PAGE}.md#{Path(in_repository).stem.replace('_', '-')}"
    return "/" + os.path.relpath(absolute, DOCS).replace(os.sep, "/") + hash_mark + anchor


def rewrite_links(text: str, folder: Path) -> str:
    """``text`` of a markdown file of ``folder`` with every relative link and image made
    site-rooted (:func:`site_target`)."""

    def fix(match: re.Match) -> str:
        return match.group(1) + site_target(match.group(2), folder) + match.group(3)

    return _HTML_SOURCE.sub(fix, _MARKDOWN_LINK.sub(fix, text))


def on_include_read(app, relative_path, parent_docname, content: list[str]) -> None:
    """``include-read``: rewrite the links of an included repository file (see the module doc)."""
    folder = (Path(app.srcdir) / relative_path).resolve().parent
    content[0] = rewrite_links(content[0], folder)


def example_summary(path: Path) -> str:
    """The first paragraph of an example script's docstring, read without running it."""
    return (ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").split("\n\n")[0]


def examples_section(docs: Path) -> str:
    """Every example script: a heading, its summary and its source."""
    parts = []
    for script in sorted(EXAMPLES.glob("*.py")):
        source = os.path.relpath(script, docs).replace(os.sep, "/")
        parts += [
            f"## {script.stem.replace('_', ' ')}",
            "",
            f"`examples/{script.name}`: {example_summary(script)}",
            "",
            f"```{{literalinclude}} {source}",
            ":language: python",
            "```",
            "",
        ]
    return "\n".join(parts)


def on_source_read(app, docname: str, source: list[str]) -> None:
    """``source-read``: fill the examples page's marker with the scripts of ``examples/``."""
    if EXAMPLES_MARKER not in source[0]:
        return
    for script in EXAMPLES.glob("*.py"):
        app.env.note_dependency(str(script))
    folder = Path(app.env.doc2path(docname)).parent
    source[0] = source[0].replace(EXAMPLES_MARKER, examples_section(folder))


def setup(app):
    """Register the event handlers."""
    app.connect("include-read", on_include_read)
    app.connect("source-read", on_source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
