"""The harness's results file: JSON lines, the run's settings first, then one line per finished game,
each appended whole as the game ends, so that a run stopped anywhere (an endpoint down for good, a
power cut, Ctrl-C) keeps every game it finished and ``--resume`` continues from them
(:mod:`monster_zoo.evaluation.results_file` says how a line is kept whole and a resume checked).
"""

from pathlib import Path

from monster_zoo.evaluation.results_file import GamesFile, ResultsError, first_difference

__all__ = ["ResultsError", "ResultsFile", "first_difference", "read_results"]


class ResultsFile(GamesFile):
    """The harness's results file: one line per game of a model against a baseline."""

    FORMAT = "monster-zoo llm results"
    VERSION = 1
    WRITER = "this harness"
    GAME_FIELDS = {"baseline": str, "game": int}


def read_results(path: Path) -> tuple[dict, list[dict], int]:
    """``(settings, games, whole_bytes)`` of the harness's results file (:meth:`GamesFile.read`)."""
    return ResultsFile.read(path)
