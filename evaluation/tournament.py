"""A round-robin tournament: every pair of a field of agents head to head, plus a rating.

    python -m monster_zoo.training evaluate --game marry_the_monster-v0 --agents greedy random --games 40 --out results/

For each ordered pair (A, B) of the field, A takes one seat and B every other
seat; for two players that is simply A against B, and one set of games serves
both (A, B) and (B, A). The games are those of ``monster_zoo.evaluation.match``: seats rotate so
A plays every seat equally often, and game ``g`` deals env seed ``seed + g // n``,
so every pairing plays the same deals and luck of the deal cancels out.

A game counts as a **win** for A when A's return is strictly the best at the
table: with more than two players A must beat all n-1 copies of B, so two equal
agents score 1/n, not 1/2. A **draw** is a shared best return (a truncated game
gives everyone 0), a **loss** is any B seat doing better. Each win rate comes
with its 95% Wilson interval.

Agents appear under short labels (:func:`monster_zoo.agents.registry.agent_labels`): a
name's own label (``demo=ppo:runs/x/final_model.npz``), a model's recorded name
(``demo-s1``), or the name as given; ``agents`` in the results maps each label to its name.

The rating is openskill's Plackett-Luce model over every game: each game ranks
its seats by return (ties share a rank) and updates the ratings of the agents in
them. Ratings are updated game by game, so the order matters: games are rated
interleaved across pairings (game 0 of every pairing, then game 1, ...), which
keeps any one pairing from having the last word. An agent holding several seats
of one game takes the mean of those seats' updated ratings.

Labels are the user's text: the markdown shows them escaped
(:mod:`monster_zoo.envs.core.escaping`), the files are written atomically, and a result read
back from JSON (:meth:`TournamentResult.from_json`, what ``leaderboard --resume`` reuses) is
checked field by field first (:func:`check_result_json`).
"""

import json
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, permutations
from pathlib import Path
from typing import Any

from openskill.models import PlackettLuce

from monster_zoo import envs
from monster_zoo.agents.registry import agent_labels, make_agent, split_label
from monster_zoo.envs.core.escaping import markdown_cell, markdown_code
from monster_zoo.envs.core.records import MAX_AGENT_NAME_CHARS, MAX_SEATS, check_agent_names
from monster_zoo.envs.core.safe_writing import write_atomic
from monster_zoo.envs.replay import build_record
from monster_zoo.evaluation.match import (
    DRAW,
    LOSS,
    WIN,
    iter_games,
    progress_bar,
    seat_balanced,
    seat_outcome,
    wilson_interval,
)

MAX_FIELD = 64  # agents in a tournament read back from JSON
MAX_SPEC_CHARS = 4096  # an agent name such as ppo:<path>: the longest path Linux accepts


@dataclass
class PairingStats:
    """The games of ``agent`` in one seat against ``opponent`` in every other seat."""

    agent: str
    opponent: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        """Games played."""
        return self.wins + self.draws + self.losses

    def add(self, outcome: str) -> None:
        """Count one game's outcome (``WIN``, ``DRAW`` or ``LOSS``) for ``agent``."""
        self.wins += outcome == WIN
        self.draws += outcome == DRAW
        self.losses += outcome == LOSS

    def summary(self) -> dict:
        """Plain numbers for the tables, the JSON file and the plots."""
        low, high = wilson_interval(self.wins, self.games)
        return {
            "agent": self.agent,
            "opponent": self.opponent,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": self.wins / self.games if self.games else 0.0,
            "win_rate_low": low,
            "win_rate_high": high,
        }


@dataclass
class TournamentResult:
    """A finished tournament: pairwise counts, ratings and one record per game."""

    game_id: str
    field: list[str]
    num_players: int
    games_per_pairing: int
    seed: int
    options: dict
    pairings: dict[tuple[str, str], PairingStats]
    ratings: dict[str, dict]  # name -> {"mu", "sigma", "ordinal", "games"}
    records: list[dict] = field(default_factory=list)
    elapsed_s: float = 0.0
    agents: dict[str, str] = field(default_factory=dict)  # label -> the agent name it stands for
    match_records: list[dict] = field(
        default_factory=list
    )  # replayable games (monster_zoo.envs.core.records)
    rated_games: int | None = None  # games behind the ratings, when the records were left out

    @classmethod
    def from_json(cls, data: dict, where: str = "tournament JSON") -> "TournamentResult":
        """The result :meth:`to_json` wrote, read back (its per-game records may have been left out);
        ValueError naming ``where`` and the first bad field unless :func:`check_result_json` passes."""
        check_result_json(data, where)
        pairings = {
            (s["agent"], s["opponent"]): PairingStats(
                s["agent"], s["opponent"], s["wins"], s["draws"], s["losses"]
            )
            for s in data["pairings"]
        }
        ratings = {r["agent"]: {k: v for k, v in r.items() if k != "agent"} for r in data["ratings"]}
        records = list(data.get("records", []))
        rated = data.get("rated_games")
        if rated is None and not records:
            # every game belongs to one ordered pairing, except with two players, where one set of
            # games serves both (A, B) and (B, A)
            total = sum(s.games for s in pairings.values())
            rated = total // 2 if data["num_players"] == 2 else total
        return cls(
            data["game"],
            list(data["field"]),
            data["num_players"],
            data["games_per_pairing"],
            data["seed"],
            dict(data["options"]),
            pairings,
            ratings,
            records,
            data.get("elapsed_s", 0.0),
            dict(data.get("agents", {})),
            rated_games=rated,
        )

    def ranking(self) -> list[str]:
        """The field from the highest rating ordinal down."""
        return sorted(self.field, key=lambda name: -self.ratings[name]["ordinal"])

    def games_rated(self) -> int:
        """How many games the ratings come from."""
        return len(self.records) if self.records or self.rated_games is None else self.rated_games

    def markdown(self) -> str:
        """The pairwise matrix with intervals and the ratings table, as markdown."""
        n = self.num_players
        opponents = "the other seat" if n == 2 else f"all {n - 1} other seats"
        lines = [
            f"## {self.game_id}: {n} players, {self.games_per_pairing} games per pairing, seed {self.seed}",
            "",
            f"Win rate of the row agent in one seat against the column agent in {opponents} "
            f"[95% Wilson interval] (wins-draws-losses). A win is a return strictly above "
            f"every other seat's; equal agents would score {1 / n:.2f}.",
            "",
            "| row vs column | " + " | ".join(markdown_cell(name) for name in self.field) + " |",
            "|---|" + "---|" * len(self.field),
        ]
        for row in self.field:
            cells = []
            for col in self.field:
                if row == col:
                    cells.append("—")
                    continue
                s = self.pairings[row, col].summary()
                cells.append(
                    f"{s['win_rate']:.3f} [{s['win_rate_low']:.3f}, {s['win_rate_high']:.3f}] "
                    f"({s['wins']}-{s['draws']}-{s['losses']})"
                )
            lines.append(f"| {markdown_cell(row)} | " + " | ".join(cells) + " |")
        lines += [
            "",
            f"Ratings: openskill Plackett-Luce over all {self.games_rated()} games; ordinal = mu - 3 sigma.",
            "",
            "| rank | agent | mu | sigma | ordinal | games |",
            "|---:|---|---:|---:|---:|---:|",
        ]
        for rank, name in enumerate(self.ranking(), 1):
            r = self.ratings[name]
            lines.append(
                f"| {rank} | {markdown_cell(name)} | {r['mu']:.2f} | {r['sigma']:.2f} | {r['ordinal']:.2f} | "
                f"{r['games']} |"
            )
        renamed = [
            f"{markdown_code(label)} = {markdown_code(spec)}"
            for label, spec in self.agents.items()
            if label != spec
        ]
        if renamed:
            lines += ["", "Agents: " + "; ".join(renamed) + "."]
        return "\n".join(lines)

    def to_json(self) -> dict:
        """Everything about the tournament as JSON-ready data (what ``monster_zoo.evaluation.plots`` reads)."""
        return {
            "game": self.game_id,
            "field": self.field,
            "agents": self.agents,
            "num_players": self.num_players,
            "games_per_pairing": self.games_per_pairing,
            "seed": self.seed,
            "options": self.options,
            "elapsed_s": self.elapsed_s,
            "pairings": [self.pairings[a, b].summary() for a, b in permutations(self.field, 2)],
            "ratings": [{"agent": name, **self.ratings[name]} for name in self.ranking()],
            "rated_games": self.games_rated(),
            "records": self.records,
        }

    def write(self, out_dir: Path) -> dict[str, Path]:
        """Write ``tournament.md`` and ``tournament.json`` into ``out_dir`` atomically (links there are
        replaced, never followed); return their paths."""
        out_dir = Path(out_dir)
        paths = {"markdown": out_dir / "tournament.md", "json": out_dir / "tournament.json"}
        write_atomic(paths["markdown"], self.markdown() + "\n")
        write_atomic(paths["json"], json.dumps(self.to_json(), indent=1))
        return paths


def _need(ok: bool, where: str, problem: str) -> None:
    if not ok:
        raise ValueError(f"{where}: {problem}")


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_result_json(data: Any, where: str = "tournament JSON") -> None:
    """ValueError naming ``where`` and the first field of ``data`` that :meth:`TournamentResult.to_json`
    could not have written: every field typed, names of the field only (each at most
    :data:`~monster_zoo.envs.core.records.MAX_AGENT_NAME_CHARS` characters), one pairing per ordered
    pair and one rating per agent, counts and ratings finite."""
    _need(isinstance(data, dict), where, "not a JSON object")
    _need(
        isinstance(data.get("game"), str) and envs.registry.registered(data["game"]),
        where,
        "'game' is no known game id",
    )
    names = data.get("field")
    _need(
        isinstance(names, list)
        and 2 <= len(names) <= MAX_FIELD
        and all(isinstance(n, str) and 0 < len(n) <= MAX_AGENT_NAME_CHARS for n in names)
        and len(set(names)) == len(names),
        where,
        f"'field' must list 2 to {MAX_FIELD} distinct agent names of at most {MAX_AGENT_NAME_CHARS} characters",
    )
    _need(
        _is_count(data.get("num_players")) and 2 <= data["num_players"] <= MAX_SEATS,
        where,
        f"'num_players' must be an integer from 2 to {MAX_SEATS}",
    )
    _need(
        _is_count(data.get("games_per_pairing")) and data["games_per_pairing"] > 0,
        where,
        "'games_per_pairing' must be a positive integer",
    )
    _need(_is_count(data.get("seed")), where, "'seed' must be a non-negative integer")
    _need(isinstance(data.get("options"), dict), where, "'options' must be an object")
    _need(
        _is_number(data.get("elapsed_s", 0.0)) and data.get("elapsed_s", 0.0) >= 0,
        where,
        "'elapsed_s' must be a non-negative number",
    )
    agents = data.get("agents", {})
    _need(
        isinstance(agents, dict)
        and set(agents) <= set(names)
        and all(isinstance(v, str) and len(v) <= MAX_SPEC_CHARS for v in agents.values()),
        where,
        "'agents' must map labels of the field to agent names",
    )
    pairings = data.get("pairings")
    _need(
        isinstance(pairings, list) and all(isinstance(p, dict) for p in pairings),
        where,
        "'pairings' must be a list of objects",
    )
    pairs = [(p.get("agent"), p.get("opponent")) for p in pairings]
    _need(
        sorted(pairs, key=str) == sorted(permutations(names, 2), key=str),
        where,
        "'pairings' must hold every ordered pair of the field once",
    )
    _need(
        all(_is_count(p.get(k)) for p in pairings for k in ("wins", "draws", "losses")),
        where,
        "each pairing's wins, draws and losses must be non-negative integers",
    )
    ratings = data.get("ratings")
    _need(
        isinstance(ratings, list)
        and all(isinstance(r, dict) for r in ratings)
        and sorted(r.get("agent") for r in ratings if isinstance(r.get("agent"), str)) == sorted(names)
        and len(ratings) == len(names),
        where,
        "'ratings' must hold one rating per agent of the field",
    )
    _need(
        all(_is_number(r.get(k)) for r in ratings for k in ("mu", "sigma", "ordinal"))
        and all(_is_count(r.get("games")) for r in ratings),
        where,
        "each rating's mu, sigma and ordinal must be finite numbers and its games a count",
    )
    _need(_is_count(data.get("rated_games", 0)), where, "'rated_games' must be a non-negative integer")
    _need(isinstance(data.get("records", []), list), where, "'records' must be a list")


def seat_ranks(rewards: Sequence[float]) -> list[int]:
    """Rank of each seat by return, 1 for the best; equal returns share a rank."""
    return [1 + sum(other > r for other in rewards) for r in rewards]


def rate_games(records: Sequence[dict], names: Sequence[str]) -> dict[str, dict]:
    """openskill Plackett-Luce ratings of ``names`` from game records, rated in the given order.

    Each record names the agent of every seat (``seat_agents``) and their ``rewards``.
    """
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in names}
    games = dict.fromkeys(names, 0)
    for record in records:
        seats = record["seat_agents"]
        updated = model.rate([[ratings[name]] for name in seats], ranks=seat_ranks(record["rewards"]))
        for name in set(seats):
            mine = [team[0] for team, seated in zip(updated, seats) if seated == name]
            ratings[name] = model.rating(
                mu=sum(r.mu for r in mine) / len(mine),
                sigma=sum(r.sigma for r in mine) / len(mine),
                name=name,
            )
            games[name] += 1
    return {
        name: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal(), "games": games[name]}
        for name, r in ratings.items()
    }


def pairings_to_play(names: Sequence[str], num_players: int) -> list[tuple[str, str]]:
    """(lone agent, agent of the other seats) for every game series to play.

    With two players (A, B) and (B, A) are the same games, so each unordered pair is
    played once; with more, A alone among B's differs from B alone among A's.
    """
    return list(combinations(names, 2)) if num_players == 2 else list(permutations(names, 2))


def run_tournament(
    game_id: str,
    names: Sequence[str],
    games: int,
    seed: int = 0,
    options: dict | None = None,
    progress: bool = True,
    records_per_pairing: int = 0,
    play_series: Callable[..., Iterable[dict]] = iter_games,
) -> TournamentResult:
    """Play every pairing of ``names`` for ``games`` games each (see the module doc) and rate them.

    ``games`` is rounded up to a multiple of the player count so every seat is
    played equally often; ``options`` are the game's options (``num_players``
    included, else the game's default). Results name agents by their labels. The first
    ``records_per_pairing`` games of each pairing are also kept as match records
    (``match_records``) for the replay viewer. ``play_series`` plays one pairing's games, called
    like :func:`monster_zoo.evaluation.match.iter_games` for every pairing before any record is read
    (so :class:`monster_zoo.evaluation.ray_tournament.RaySeries` can start them all at once).
    """
    specs = list(names)
    if len(specs) < 2 or len(set(specs)) != len(specs):
        raise ValueError(f"a tournament needs at least two distinct agent names, got {specs}")
    options = dict(options or {})
    num_players = len(envs.make(game_id, **options).unwrapped.possible_agents)  # validates the options
    seated = {**options, "num_players": num_players}
    # An unknown name or a model of another game fails now, not after hours of games.
    names = agent_labels(specs, [make_agent(spec, game_id, seed, seated) for spec in specs])
    if records_per_pairing:
        check_agent_names(names)  # a label too long for a match record, refused before any game
    spec_of = {name: split_label(spec)[1] for name, spec in zip(names, specs)}
    games = seat_balanced(games, num_players)
    plan = pairings_to_play(names, num_players)
    pairings = {(a, b): PairingStats(a, b) for a, b in permutations(names, 2)}
    series = []
    match_records = []
    bar = progress_bar(games * len(plan), f"{game_id} tournament", progress)
    start = time.perf_counter()
    seat_names = {(lone, other): [lone] + [other] * (num_players - 1) for lone, other in plan}
    try:
        streams = [
            play_series(
                game_id,
                [spec_of[name] for name in seat_names[pair]],
                games,
                seed,
                options,
                keep_actions=records_per_pairing,
            )
            for pair in plan
        ]
        for (lone, other), stream in zip(plan, streams):
            played = []
            for record in stream:
                seats = [seat_names[lone, other][i] for i in record["seats"]]
                if "actions" in record:
                    match_records.append(
                        build_record(game_id, seated, record["seed"], record["actions"], seats)
                    )
                lone_seat = record["seats"].index(0)
                pairings[lone, other].add(seat_outcome(record["rewards"], lone_seat))
                if num_players == 2:
                    pairings[other, lone].add(seat_outcome(record["rewards"], 1 - lone_seat))
                played.append(
                    {
                        "pairing": [lone, other],
                        "game": record["game"],
                        "seed": record["seed"],
                        "seat_agents": seats,
                        "rewards": record["rewards"],
                        "length": record["length"],
                        "truncated": record["truncated"],
                    }
                )
                bar.update(1)
            series.append(played)
    finally:
        bar.close()
    records = [game for round_ in zip(*series) for game in round_]  # interleaved: see the module doc
    return TournamentResult(
        game_id,
        names,
        num_players,
        games,
        seed,
        seated,
        pairings,
        rate_games(records, names),
        records,
        time.perf_counter() - start,
        agents=spec_of,
        match_records=match_records,
    )
