"""A move as a client or a model gives it (an id, or a name) read against the legal moves of a
seat's JSON view, with the rules' reason when it is not one of them."""

import re
from collections.abc import Iterable

QUOTES = "`'\"*"


def normalized(text: str) -> str:
    """``text`` without surrounding quotes, markup or a final full stop, spaces folded, lower case."""
    text = " ".join(text.strip().strip(QUOTES).strip().rstrip(".").split())
    return text.strip(QUOTES).lower()


def match_move(given: int | str, legal_moves: list[dict]) -> int | None:
    """The id of the legal move ``given`` names (its id as a number or digits, its name or its words,
    case and surrounding quotes ignored), or None where it names none of ``legal_moves``."""
    ids = {m["id"] for m in legal_moves}
    if isinstance(given, bool):
        return None
    if isinstance(given, int):
        return given if given in ids else None
    text = normalized(given)
    if re.fullmatch(r"[0-9]{1,6}", text):
        return int(text) if int(text) in ids else None
    for field in ("name", "words"):
        for move in legal_moves:
            if move.get(field) and normalized(move[field]) == text:
                return move["id"]
    return None


def answer_candidates(answer: str) -> Iterable[str]:
    """The parts of a model's free-text answer that may name its move, most likely first: a
    ``move: ...`` line, the whole answer, its last line, then the text after a last colon."""
    found = re.findall(r"(?im)^\s*(?:final\s+)?(?:move|answer)\s*[:=]\s*(.+?)\s*$", answer)
    yield from reversed(found)
    yield answer
    lines = [line for line in answer.strip().splitlines() if line.strip()]
    if lines:
        yield lines[-1]
        yield lines[-1].rpartition(":")[2]


def read_answer(answer: str, legal_moves: list[dict]) -> int | None:
    """The legal move a model's ``answer`` names (see :func:`answer_candidates`), or None."""
    for candidate in answer_candidates(answer):
        move = match_move(candidate, legal_moves)
        if move is not None:
            return move
    return None
