"""Text from users made safe for the medium it is shown in: one function per medium.

Agent labels, model names, run and file names come from whoever typed or wrote them, and each
output reads some characters as commands: a terminal runs escape sequences, a markdown table
splits cells at ``|`` and renders HTML, matplotlib parses text between ``$`` signs as math (and
raises on what it cannot parse), a web page runs HTML. Every such text passes through one of
these before it is written; each takes any string and shows it, never runs it.
"""

import html
import re

# C0 and C1 controls, DEL, line and paragraph separators, and the bidirectional controls that
# can make text display in another order than it reads ("Trojan source").
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Characters that make a markdown table cell split, format, link or turn into HTML.
_MARKDOWN_ACTIVE = re.compile(r"([\\|`\[\]*])")
_BACKTICKS = re.compile(r"`+")


def _escape_code(match: re.Match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def visible(text: str) -> str:
    """``text`` with every control character shown as its escape (``\\x1b``, ``\\n``): for the terminal."""
    return _INVISIBLE.sub(_escape_code, str(text))


def markdown_cell(text: str) -> str:
    """``text`` as literal markdown: controls made visible, ``\\ | ` [ ] *`` backslash-escaped and
    ``& < >`` as entities, so it stays in its table cell and never becomes markup or HTML."""
    escaped = _MARKDOWN_ACTIVE.sub(r"\\\1", visible(text))
    return html.escape(escaped, quote=False)


def markdown_code(text: str) -> str:
    """``text`` as a markdown code span, fenced by more backticks than it holds in a row (the only
    way a code span can show backticks), with controls made visible."""
    shown = visible(text)
    fence = "`" * (1 + max((len(run) for run in _BACKTICKS.findall(shown)), default=0))
    pad = " " if shown.startswith("`") or shown.endswith("`") else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def plot_text(text: str) -> str:
    """``text`` as matplotlib shows it literally: controls made visible and every ``$`` escaped,
    so no part of it is parsed as math text."""
    return visible(text).replace("$", r"\$")


def html_text(text: str) -> str:
    """``text`` safe inside an HTML element or a quoted attribute."""
    return html.escape(str(text), quote=True)
