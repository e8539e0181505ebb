"""The leaderboard: every game's baselines, search and champion against each other.

    monster-zoo leaderboard                      # every game, writes leaderboard-results/leaderboard.md
    monster-zoo leaderboard --games monstargh-v0 --scale 0.1 --out /tmp/lb.md
    monster-zoo leaderboard --jobs 2 --out docs/leaderboard.md --overwrite   # the shipped one

For every game at its smallest player count and at 4 players, a round-robin tournament
(:mod:`monster_zoo.evaluation.tournament`: seats rotated, deals paired, 95% Wilson
intervals, openskill ratings) of ``random``, ``greedy``, the game's tuned search
baseline at its budget and at a tenth of it, the game's shipped champion for that
player count when one ships, and the learned search ``az`` where the game's shipped network plays
that count. The markdown holds a summary of the ratings per game
and, per tournament, its win-rate matrix, ratings table and a picture of the matrix
(written beside the markdown, in ``<out stem>/``), plus the protocol: seeds, games per
pairing, budgets and wall time. The JSON of every tournament lies beside the pictures.

Games per pairing default to :data:`GAMES_SMALLEST` and :data:`GAMES_FOUR` (the search takes
up to 0.2 s a move); ``--scale`` multiplies them (the intervals show what fewer games cost).
``--jobs`` plays tournaments in parallel processes; the results do not depend on it. Before the
first game the command times every field's agents on the machine and prints the expected
duration, the compiling of the kernels counted apart (:func:`expected_duration`).

A file that exists is replaced only with ``--overwrite`` (the command checks every file a run would
write before it plays, :func:`files_to_write`; a tournament ``--resume`` reuses is not written).
Every file is written atomically (links replaced, never followed), each tournament's JSON before
its picture: a picture that fails is a warning and leaves the table without it. ``--resume``
reads an earlier JSON as untrusted input: a regular file of at most :data:`MAX_TABLE_BYTES`,
nested at most :data:`MAX_TABLE_DEPTH` levels, every field checked
(:func:`monster_zoo.evaluation.tournament.check_result_json`); anything else is played again. A
table is reused only when its field played as it would now: the JSON records the game's declared
search settings and the digests of the shipped model files the field loads
(:func:`field_settings`), since a shipped agent keeps its name when they change.
Names in the markdown are escaped (:mod:`monster_zoo.envs.core.escaping`).
"""

import argparse
import json
import os
import stat
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from monster_zoo import envs
from monster_zoo.agents.az.agent import shipped_player_counts
from monster_zoo.agents.az.shipped import shipped_network_path
from monster_zoo.agents.ppo.champions import champion_name, champion_path, champion_versions
from monster_zoo.agents.registry import versioned_name
from monster_zoo.agents.search.tuned import search_names
from monster_zoo.agents.shipped_files import read_manifest
from monster_zoo.envs.core.bounded_reading import read_json_file
from monster_zoo.envs.core.escaping import markdown_cell, visible
from monster_zoo.envs.core.safe_writing import write_atomic
from monster_zoo.envs.registry import declaration
from monster_zoo.evaluation.host import host_facts
from monster_zoo.evaluation.match import seat_balanced

FOUR_PLAYERS = 4
# Games per pairing at a game's smallest player count and at 4 players. A 4-player table has
# twice the pairings (A alone among B's differs from B alone among A's) and longer games.
GAMES_SMALLEST = 40
GAMES_FOUR = 20
# Bounds of a tournament's JSON read back by --resume: a leaderboard table's JSON (records left
# out) takes a few KB.
MAX_TABLE_BYTES = 1 << 20
MAX_TABLE_DEPTH = 8


@dataclass(frozen=True)
class Table:
    """One tournament of the leaderboard: a game at a player count with its field."""

    game_id: str
    num_players: int
    field: tuple
    games: int
    settings: str = "{}"  # field_settings as canonical JSON (a frozen table stays hashable)

    @property
    def key(self) -> str:
        """``<game>-<n>p``: the file names of this table's picture and JSON."""
        return f"{envs.spec(self.game_id).name}-{self.num_players}p"


def player_counts(game_id: str) -> list[int]:
    """The smallest player count of ``game_id`` and 4 (when the game seats 4)."""
    spec = envs.spec(game_id)
    counts = [spec.min_players]
    if spec.min_players < FOUR_PLAYERS <= spec.max_players:
        counts.append(FOUR_PLAYERS)
    return counts


def leaderboard_field(game_id: str, num_players: int) -> list[str]:
    """random, greedy, the search baseline at both budgets, the newest champion (where one ships) and
    the learned search ``az`` (where its network plays ``num_players``), by their versioned names: a
    leaderboard entry always means the same behaviour."""
    name = envs.spec(game_id).name
    field = [versioned_name(game_id, "random"), versioned_name(game_id, "greedy"), *search_names(game_id)]
    versions = champion_versions(name, num_players)
    if versions:
        field.append(champion_name(game_id, versions[-1]))  # the newest: what "champion" plays
    if num_players in shipped_player_counts(game_id):
        field.append(versioned_name(game_id, "az"))
    return field


def field_settings(game_id: str, num_players: int, field: Sequence[str]) -> dict:
    """What decides how ``field`` plays beyond its names: the game's declared settings of its
    searches (``mcts``, ``az``: simulations, rollouts, weights) and the SHA-256 digest, from the
    shipped manifest, of each model file the field loads (the champion at ``num_players``, the
    ``az`` network). A shipped agent keeps its versioned name when these change (``az-v1`` after
    its rollout weight moved), so a table played before is reused only while they are equal."""
    game = declaration(game_id)
    name = envs.spec(game_id).name
    paths = [
        champion_path(name, num_players, version)
        for version in champion_versions(name, num_players)
        if champion_name(game_id, version) in field
    ]
    if versioned_name(game_id, "az") in field:
        paths.append(shipped_network_path(game_id))
    listed = read_manifest()["files"]
    # through JSON, so that it compares equal to what a table's JSON reads back (tuples as lists)
    return {
        "agents": json.loads(json.dumps(dict(game.agents) if game is not None else {}, sort_keys=True)),
        "files": {path.name: listed.get(path.name, {}).get("sha256") for path in paths},
    }


def plan(games: Sequence[str], scale: float = 1.0) -> list[Table]:
    """The tournaments of the leaderboard for ``games``, games per pairing scaled by ``scale``."""
    tables = []
    for game_id in games:
        for n in player_counts(game_id):
            games_per_pairing = GAMES_FOUR if n == FOUR_PLAYERS else GAMES_SMALLEST
            # as the tournament plays them (rounded up so every seat is played equally often), so
            # that --resume compares like with like
            count = seat_balanced(max(n, round(games_per_pairing * scale)), n)
            field = leaderboard_field(game_id, n)
            settings = json.dumps(field_settings(game_id, n, field), sort_keys=True)
            tables.append(Table(game_id, n, tuple(field), count, settings))
    return tables


def describe_table(table: Table) -> str:
    """One line for the log: the game, its player count, its field and games per pairing."""
    return (
        f"{table.game_id} at {table.num_players} players: {', '.join(visible(a) for a in table.field)}, "
        f"{table.games} games per pairing"
    )


def play_table(table: Table, seed: int, folder: Path, progress: bool, resume: bool = False) -> dict:
    """Play one tournament, write its JSON and picture into ``folder``; return its summary. Each
    finished pairing is kept in a hidden folder beside them until the table is written, and with
    ``resume`` the pairings a stopped run finished there are read back
    (:mod:`~monster_zoo.evaluation.pairing_cache`)."""
    from monster_zoo.evaluation import plots
    from monster_zoo.evaluation.pairing_cache import cached_series, remove_cache
    from monster_zoo.evaluation.tournament import run_tournament

    pairings = folder / f".{table.key}.pairings"
    result = run_tournament(
        table.game_id,
        list(table.field),
        table.games,
        seed,
        {"num_players": table.num_players},
        progress=progress,
        play_series=cached_series(pairings, table.settings, resume),
    )
    data = result.to_json()
    data.pop("records")  # the per-game records stay out of the docs; the seed replays them
    data["settings"] = json.loads(table.settings)
    # when and on which machine it was played, for the results pages (docs/render_results.py)
    data["measured"] = {"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()), **host_facts()}
    write_atomic(folder / f"{table.key}.json", json.dumps(data, indent=1))
    remove_cache(pairings)
    try:
        picture = plots.plot_win_matrix(data, folder / f"{table.key}.png").name
    except Exception as err:
        print(
            f"warning: the picture of {table.key} was not written ({type(err).__name__}: "
            f"{visible(str(err))[:300]})",
            file=sys.stderr,
        )
        picture = None
    return table_summary(table, data, result.markdown(), picture)


def table_summary(table: Table, data: dict, markdown: str, picture: str | None, reused: bool = False) -> dict:
    """What the leaderboard's markdown needs of one finished tournament."""
    return {
        "key": table.key,
        "markdown": markdown,
        "picture": picture,
        "ranking": [{"agent": r["agent"], "ordinal": r["ordinal"]} for r in data["ratings"]],
        "elapsed_s": data["elapsed_s"],
        "games": data["games_per_pairing"],
        "game_id": table.game_id,
        "num_players": table.num_players,
        "reused": reused,
    }


def _is_plain_file(path: Path) -> bool:
    """Whether ``path`` is a regular file itself (not a link to one, not a FIFO)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def finished_table(table: Table, seed: int, folder: Path) -> dict | None:
    """The summary of ``table`` from the JSON and picture an earlier run left in ``folder``, when
    that run played the same field with the same settings (:func:`field_settings`), player count,
    games per pairing and seed and the JSON passes every check of the module doc; else None (with
    a note when a file was there but refused or its field's settings changed)."""
    from monster_zoo.evaluation.tournament import TournamentResult

    path, picture = folder / f"{table.key}.json", folder / f"{table.key}.png"
    if not (_is_plain_file(path) and _is_plain_file(picture)):
        return None
    try:  # a damaged or foreign file is not an error: the table is simply played again
        data = read_json_file(path, MAX_TABLE_BYTES, MAX_TABLE_DEPTH, f"{path}")
        result = TournamentResult.from_json(data, str(path))
    except ValueError as err:  # every refusal of read_json_file and from_json is a ValueError
        print(f"note: playing {table.key} again: {visible(str(err))[:300]}", file=sys.stderr)
        return None
    same = (
        data["game"] == table.game_id
        and data["field"] == list(table.field)
        and data["num_players"] == table.num_players
        and data["games_per_pairing"] == table.games
        and data["seed"] == seed
    )
    if same and data.get("settings") != json.loads(table.settings):
        print(
            f"note: playing {table.key} again: its field's search settings or model files differ from "
            f"those it was played with (or were not recorded)",
            file=sys.stderr,
        )
        return None
    return table_summary(table, data, result.markdown(), picture.name, reused=True) if same else None


def files_to_write(games: Sequence[str], out: Path, seed: int, scale: float, resume: bool) -> list[Path]:
    """The files a run of :func:`run` with these arguments writes: the markdown, and the JSON and
    picture of every tournament it plays (with ``resume``, those an earlier run finished are read,
    not written)."""
    folder = out.parent / out.stem
    paths = [out]
    for table in plan(games, scale):
        if not (resume and finished_table(table, seed, folder) is not None):
            paths += [folder / f"{table.key}.json", folder / f"{table.key}.png"]
    return paths


def render(summaries: Sequence[dict], folder_name: str, seed: int, jobs: int, wall_s: float) -> str:
    """The leaderboard's markdown from the tournaments' summaries."""
    lines = [
        "# Leaderboard",
        "",
        "Written by `monster-zoo leaderboard` (see `monster_zoo/evaluation/leaderboard.py`): for every "
        "game at its smallest player count and at 4 players, a round-robin of random, greedy, the "
        "tuned search baseline at its budget and at a tenth of it, the shipped champion where "
        "one exists for that player count, and the learned search az where its network plays that "
        "count. Seats rotate and every pairing plays the same deals; "
        "win rates carry 95% Wilson intervals; ratings are openskill Plackett-Luce "
        "(ordinal = mu - 3 sigma).",
        "",
        f"Seed {seed}; {len(summaries)} tournaments in {wall_s / 60:.1f} minutes of wall time "
        f"with {jobs} parallel process(es){reused_note(summaries)}. Search budgets: see "
        "`agents/README.md`.",
        "",
        "| game | players | games per pairing | ranking by ordinal (best first) | minutes |",
        "|---|---:|---:|---|---:|",
    ]
    for s in summaries:
        ranking = " > ".join(f"{markdown_cell(r['agent'])} ({r['ordinal']:.1f})" for r in s["ranking"])
        lines.append(
            f"| {s['game_id']} | {s['num_players']} | {s['games']} | {ranking} | {s['elapsed_s'] / 60:.1f} |"
        )
    for s in summaries:
        lines += ["", s["markdown"]]
        if s["picture"] is not None:
            lines += ["", f"![win rates, {s['key']}]({quote(folder_name)}/{quote(s['picture'])})"]
    return "\n".join(lines) + "\n"


def reused_note(summaries: Sequence[dict]) -> str:
    """The clause saying how many tournaments an earlier run played (``--resume``), or nothing."""
    reused = sum(s.get("reused", False) for s in summaries)
    if not reused:
        return ""
    return (
        f", {reused} of them taken from an earlier run with the same field, settings, games and seed "
        "(`--resume`; the minutes column gives their own time)"
    )


def expected_duration(tables: Sequence[Table], seed: int, jobs: int) -> str:
    """Time every field of ``tables`` here and now (a line to stderr per table as it starts, since
    its agents' first moves compile their kernels) and return the line that says how long the
    tables should take (:mod:`monster_zoo.evaluation.estimate`)."""
    from monster_zoo.agents.registry import make_agent
    from monster_zoo.evaluation import estimate
    from monster_zoo.evaluation.tournament import pairings_to_play

    found = []
    for k, table in enumerate(tables):
        print(
            f"estimating [{k + 1}/{len(tables)}] {table.key}: timing its agents' moves "
            "(their first move compiles their kernels)...",
            file=sys.stderr,
            flush=True,
        )
        options = {"num_players": table.num_players}
        agents = {name: make_agent(name, table.game_id, seed, options) for name in table.field}
        plan = pairings_to_play(list(table.field), table.num_players)
        found.append(estimate.field_estimate(table.game_id, agents, options, plan, table.games))
        print(
            f"  {table.key}: {estimate.describe_duration(found[-1].seconds)} of play ({found[-1].details()})",
            file=sys.stderr,
            flush=True,
        )
    play = [f.seconds for f in found]
    compiling = sum(f.compiling for f in found)
    wall = estimate.wall_seconds(play, jobs)
    return (
        f"expected duration: {estimate.describe_duration(wall)} of play for {len(tables)} tournament(s) "
        f"with {jobs} parallel process(es) ({estimate.describe_duration(sum(play))} on one; measured here "
        f"and now, a guide within a factor of about two), after {compiling:.1f} s of compiling the kernels "
        "while estimating, which numba caches on disk for the next runs"
    )


def run(
    games: Sequence[str],
    out: Path,
    seed: int = 0,
    scale: float = 1.0,
    jobs: int = 1,
    progress: bool = True,
    resume: bool = False,
    estimate: bool = False,
) -> Path:
    """Play the leaderboard of ``games`` and write it to ``out``; return ``out``. With ``resume``,
    tournaments an earlier run finished beside ``out`` with the same field, settings, games and
    seed are read back instead of played again, and so are the finished pairings of a tournament
    it stopped in. With ``estimate``, the tournaments to play are timed first and the expected
    duration is printed before the first game (:func:`expected_duration`)."""
    tables = plan(games, scale)
    folder = out.parent / out.stem
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    summaries = [finished_table(t, seed, folder) if resume else None for t in tables]
    todo = [i for i, s in enumerate(summaries) if s is None]
    print(
        f"{len(todo)} of {len(tables)} tournaments to play"
        + (f" ({len(tables) - len(todo)} read back from {folder})" if len(todo) < len(tables) else ""),
        file=sys.stderr,
        flush=True,
    )
    if estimate and todo:
        print(expected_duration([tables[i] for i in todo], seed, jobs), file=sys.stderr, flush=True)
    if jobs == 1:
        for k, i in enumerate(todo):
            print(f"[{k + 1}/{len(todo)}] {describe_table(tables[i])}", file=sys.stderr, flush=True)
            summaries[i] = play_table(tables[i], seed, folder, progress, resume)
    else:
        # The longest tournaments start first, so the pool does not wait on one at the end.
        order = sorted(todo, key=lambda i: -tables[i].games * len(tables[i].field))
        for k, i in enumerate(order):
            print(f"[{k + 1}/{len(order)}] {describe_table(tables[i])}", file=sys.stderr, flush=True)
        with ProcessPoolExecutor(jobs) as pool:
            futures = {i: pool.submit(play_table, tables[i], seed, folder, progress, resume) for i in order}
            for i in todo:
                summaries[i] = futures[i].result()
    write_atomic(out, render(summaries, folder.name, seed, jobs, time.perf_counter() - start))
    return out


def argument_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the leaderboard's arguments, or None."""
    known = envs.available()
    unknown = [g for g in args.games or () if g not in known]
    if unknown:
        return f"unknown game(s) {', '.join(unknown)}; valid: {', '.join(known)}"
    if not 0 < args.scale <= 100:
        return f"--scale must be in (0, 100], got {args.scale}"
    if not 1 <= args.jobs <= 64:
        return f"--jobs must be from 1 to 64, got {args.jobs}"
    if args.out.suffix != ".md":
        return f"--out must name a markdown file (.md), got {args.out}"
    return None
