"""No development history outside CHANGELOG.md: no code, comment, docstring, test, data file or page
speaks of when or by whom something was done (an ordinal work session, an issue's number, who did
which part).

A reader cannot know what such words refer to; the text says the reason, the measurement or the link
instead. Every tracked text file is read whole, so a phrase broken over two lines of a comment or a
paragraph is still found, and each finding names its file and line.

The games' own words stay: a web or language-model *game session* is a product concept (only an
ordinal or a "this"/"that"/"next" before "session" is history), a round of play is a game's round
("used this round", "this round's fights"), and a seat may "tie for the lead".
"""

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# The one file whose subject is history.
EXEMPT = {"CHANGELOG.md"}

_ORDINALS = (
    "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|"
    "fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth"
)
# Between two words of a phrase: white space, and across a line break the markers that open a
# comment or a quoted line (``#``, ``//``, ``*``, ``>``) as a wrapped comment or docstring has them.
_GAP = r"(?:\s|#|//|\*|>)+"

HISTORY = {
    "a work session": re.compile(
        rf"\b(?:this|that|last|earlier|previous|next|(?:{_ORDINALS})(?:{_GAP}and{_GAP}(?:{_ORDINALS}))?)"
        rf"{_GAP}sessions?\b",
        re.IGNORECASE,
    ),
    "an issue number": re.compile(r"\bissues?\s*#?\s*\d+", re.IGNORECASE),
    "an issue": re.compile(r"\b(?:the|this|that)\s+issue(?:'s)?\b", re.IGNORECASE),
    "who did it": re.compile(r"\bthe lead(?:'s)?\b(?!er|ing)", re.IGNORECASE),
    "time ago": re.compile(rf"\ba{_GAP}turn{_GAP}ago\b", re.IGNORECASE),
    # A round of work; a round of play ("may still act this round") is the games' own word, so only
    # the forms that date a change are history.
    "a round of work": re.compile(
        rf"\b(?:(?:in|during|since|before|after|from){_GAP}this{_GAP}round\b(?!'s)"
        rf"|this{_GAP}round{_GAP}of{_GAP}(?:work|changes|fixes|review)"
        rf"|(?:added|fixed|changed|moved|measured|found|written|removed|renamed|done){_GAP}this{_GAP}round\b)",
        re.IGNORECASE,
    ),
}

# The games' own uses of a flagged phrase, matched on the text around a finding: a seat that holds,
# takes or ties for a game's lead.
PRODUCT_USES = re.compile(r"\b(?:for|in|take|takes|took|hold|holds|share|shares)\s+the\s+lead\b", re.I)


def tracked_text_files() -> list[Path]:
    """Every file git tracks in the repository that reads as UTF-8 text, but the exempt ones."""
    names = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, check=True, capture_output=True, text=True
    ).stdout.split("\0")
    files = []
    for name in names:
        path = REPO / name
        if not name or name in EXEMPT or not path.is_file():
            continue
        files.append(path)
    return files


def history_findings(text: str) -> list[tuple[int, str, str]]:
    """(line, kind, phrase) of every history phrase in ``text``, in order of the text."""
    found = []
    for kind, pattern in HISTORY.items():
        for match in pattern.finditer(text):
            around = text[max(0, match.start() - 12) : match.end()]
            if kind == "who did it" and PRODUCT_USES.search(around):
                continue
            line = text.count("\n", 0, match.start()) + 1
            found.append((line, kind, " ".join(match.group(0).split())))
    return sorted(found)


# The examples below spell a space as "~", so that this file does not hold the phrases it looks for.
@pytest.mark.parametrize(
    "text, kind",
    [
        ("the faster layer (training/AZ.md, tenth\n~~~~#~session) halves the time", "a work session"),
        ("measured in sixteenth~and~seventeenth~sessions", "a work session"),
        ("as this~session found", "a work session"),
        ("fixed in issue~44 point 2", "an issue number"),
        ("see issue~#43", "an issue number"),
        ("the behaviour the~issue asks for", "an issue"),
        ("the~lead's part of the work", "who did it"),
        ("six names found a~turn~ago", "time ago"),
        ("a change made in~this~round", "a round of work"),
    ],
)
def test_history_phrases_are_found(text, kind):
    """Each kind of history phrase is found, also when a comment wraps it over two lines."""
    assert [k for _, k, _ in history_findings(text.replace("~", " "))] == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "POST /api/sessions creates a game session; the session's seat 0 moves",
        '@pytest.fixture(scope="session")',
        "a card that attacked cannot attack again this round; this round's fights",
        "who leads or ties for the lead",
        "the leaderboard's tournaments and the leader's stars",
        "an issue of the journal",
    ],
)
def test_product_words_are_not_history(text):
    """The games' and the web app's own words (game sessions, rounds, a game's lead) pass."""
    assert history_findings(text) == []


def test_no_history_outside_the_changelog():
    """No tracked text file but CHANGELOG.md speaks of the project's history; each finding is listed
    as file:line with its phrase."""
    findings = []
    for path in tracked_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # a picture, a model file: no words to read
        for line, kind, phrase in history_findings(text):
            findings.append(f"{path.relative_to(REPO)}:{line}: {phrase!r} ({kind})")
    assert not findings, "history words outside CHANGELOG.md:\n" + "\n".join(findings)
