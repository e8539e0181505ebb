"""The harness's table: a model in one seat against each baseline in every other seat, seats
rotated and deals paired as ``monster-zoo evaluate`` plays them, with 95% Wilson intervals,
openskill ratings on the tournaments' scale, and what the model's moves cost.

Every result names its illegal-move policy (:mod:`monster_zoo.agents.llm.agent`). Under
``forfeit`` (the default) a game where the model names no legal move within its tries is its
loss, so the win rate counts the model's own moves only; under ``fallback`` a random legal move
was played for it, and the table says so. Per baseline the table gives the games forfeited, the
legal-move rate (moves the model named legally itself), the retry rate (answers asked again), the
endpoint failures (requests sent again after a wait: the server's, never the model's), tokens and
latency per move.

The ratings are openskill's Plackett-Luce (:func:`monster_zoo.evaluation.tournament.rate_games`),
as in every tournament and the leaderboard (mu 25, sigma 25/3 to start, ordinal mu - 3 sigma), over
the model's games and a round robin of the baselines among themselves on the same deals, so the
model takes a place among the agents. A forfeited game ranks the model last.

A run may keep its games in a results file (:mod:`monster_zoo.llm.results`) as each ends; a run
resumed from one plays only the games it lacks (every game is seeded by its index, so the games
played are those a full run would play) and scores them all.
"""

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path

from monster_zoo import envs
from monster_zoo.agents.llm.agent import FALLBACK, PREFIX, Forfeit, Usage, make
from monster_zoo.envs.core.escaping import markdown_cell
from monster_zoo.envs.core.safe_writing import write_atomic
from monster_zoo.envs.replay import build_record
from monster_zoo.evaluation.match import (
    LOSS,
    iter_games,
    make_field,
    progress_bar,
    seat_balanced,
    seat_outcome,
    seated_options,
)
from monster_zoo.evaluation.tournament import PairingStats, rate_games, run_tournament

SCORES_NAME = "llm_scores"  # the files --out gets: llm_scores.md and llm_scores.json
COUNTS = (
    "moves",
    "requests",
    "retries",
    "illegal_answers",
    "own_moves",
    "fallbacks",
    "forfeits",
    "endpoint_failures",
    "prompt_tokens",
    "completion_tokens",
)


@dataclass
class ModelScore:
    """The results of :func:`score_model`: every game of the model (``played``, as the results file
    holds them) and the ratings."""

    game_id: str
    model: str
    num_players: int
    games: int
    seed: int
    baselines: list[str]
    settings: dict  # LlmSettings.described(): the policy, the retries, the prompt
    played: list[dict] = field(default_factory=list)
    ratings: dict[str, dict] = field(default_factory=dict)
    elapsed_s: float = 0.0
    resumed_games: int = 0  # games read back from a results file, not played by this run
    match_records: list[dict] = field(default_factory=list)

    @property
    def legal_moves_shown(self) -> bool:
        """Whether the prompt listed the legal moves."""
        return self.settings["legal_moves_listed"]

    def pairing(self, baseline: str) -> PairingStats:
        """The model's wins, draws and losses against ``baseline``."""
        stats = PairingStats(self.model, baseline)
        for game in self._games(baseline):
            stats.add(game["outcome"])
        return stats

    def usage(self, baseline: str) -> dict:
        """The model's rates and costs against ``baseline`` (:meth:`Usage.summary`), with the
        games forfeited."""
        games = self._games(baseline)
        total = Usage(**{name: sum(g["usage"][name] for g in games) for name in COUNTS})
        total.latencies_s = [s for g in games for s in g["usage"]["latencies_s"]]
        return {**total.summary(), "games_forfeited": sum(g["forfeited"] for g in games)}

    def _games(self, baseline: str) -> list[dict]:
        return [g for g in self.played if g["baseline"] == baseline]

    def policy_text(self) -> str:
        """The illegal-move policy in words, as every table states it."""
        tries = self.settings["retries"] + 1
        if self.settings["illegal_policy"] == FALLBACK:
            return (
                f"illegal-move policy: fallback after {tries} refused answers (a random legal move was "
                "played for the model; the win rate counts those moves as the model's)"
            )
        return (
            f"illegal-move policy: forfeit after {tries} refused answers (the game is the model's loss; "
            "the win rate counts the model's own moves only)"
        )

    def markdown(self) -> str:
        """The table and the ratings, as markdown."""
        n = self.num_players
        lines = [
            f"## {self.game_id}: {markdown_cell(self.model)}, {n} players, {self.games} games per baseline, "
            f"seed {self.seed}, legal moves {'listed' if self.legal_moves_shown else 'not listed'} in the "
            f"prompt, {self.policy_text()}",
            "",
            f"Win rate of the model in one seat against the baseline in every other seat [95% Wilson interval] "
            f"(wins-draws-losses); equal agents would score {1 / n:.2f}. Legal-move rate: moves the model "
            "named legally itself; retry rate: answers asked again per move; endpoint failures: requests "
            "the server failed and that were sent again (not the model's).",
            "",
            "| baseline | win rate | forfeited | moves | legal-move rate | retry rate | endpoint failures | "
            "tokens in / out per move | median latency |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for baseline in self.baselines:
            s, u = self.pairing(baseline).summary(), self.usage(baseline)
            lines.append(
                f"| {markdown_cell(baseline)} | {s['win_rate']:.3f} [{s['win_rate_low']:.3f}, "
                f"{s['win_rate_high']:.3f}] ({s['wins']}-{s['draws']}-{s['losses']}) | "
                f"{u['games_forfeited']} | {u['moves']} | {u['legal_move_rate']:.3f} | {u['retry_rate']:.3f} | "
                f"{u['endpoint_failures']} | {u['prompt_tokens_per_move']:.0f} / "
                f"{u['completion_tokens_per_move']:.0f} | {u['latency_s_median']:.3f} s |"
            )
        if self.ratings:
            rated = sorted(self.ratings.items(), key=lambda item: -item[1]["ordinal"])
            lines += [
                "",
                "Ratings: openskill Plackett-Luce over the model's games and the baselines' round robin on "
                "the same deals, as the tournaments and the leaderboard rate; ordinal = mu - 3 sigma.",
                "",
                "| rank | agent | mu | sigma | ordinal | games |",
                "|---:|---|---:|---:|---:|---:|",
            ]
            for rank, (name, r) in enumerate(rated, 1):
                lines.append(
                    f"| {rank} | {markdown_cell(name)} | {r['mu']:.2f} | {r['sigma']:.2f} | "
                    f"{r['ordinal']:.2f} | {r['games']} |"
                )
        if self.resumed_games:
            lines += [
                "",
                f"Games read back from the results file: {self.resumed_games} of {len(self.played)}.",
            ]
        return "\n".join(lines)

    def to_json(self) -> dict:
        """The table as JSON-ready data (what ``llm_scores.json`` holds per model)."""
        return {
            "game": self.game_id,
            "model": self.model,
            "num_players": self.num_players,
            "games_per_baseline": self.games,
            "seed": self.seed,
            **self.settings,
            "rows": [{"baseline": b, **self.pairing(b).summary(), **self.usage(b)} for b in self.baselines],
            "ratings": [{"agent": name, **r} for name, r in self.ratings.items()],
            "elapsed_s": self.elapsed_s,
            "resumed_games": self.resumed_games,
        }


def write_scores(scores: Sequence[ModelScore], folder: Path) -> list[Path]:
    """``llm_scores.md`` and ``llm_scores.json`` in ``folder``, written atomically; their paths."""
    folder = Path(folder)
    markdown, data = folder / f"{SCORES_NAME}.md", folder / f"{SCORES_NAME}.json"
    write_atomic(markdown, "\n\n".join(score.markdown() for score in scores) + "\n")
    write_atomic(data, json.dumps([score.to_json() for score in scores], indent=1) + "\n")
    return [markdown, data]


def run_settings(game_id, models, baselines, games, seed, options, llm_settings) -> dict:
    """What a run's games depend on: the first line of its results file, compared on ``--resume``."""
    options = dict(options or {})
    num_players = len(envs.make(game_id, **options).unwrapped.possible_agents)
    return {
        "game": game_id,
        "options": json.loads(json.dumps(seated_options(options, num_players))),
        "seed": seed,
        "games_per_baseline": seat_balanced(games, num_players),
        "models": list(models),
        "baselines": list(baselines),
        **llm_settings.described(),
    }


def score_model(
    game_id: str,
    agent,
    baselines: Sequence[str],
    games: int,
    seed: int = 0,
    options: dict | None = None,
    results=None,
    progress: bool = False,
    records_per_baseline: int = 0,
    rate: bool = True,
) -> ModelScore:
    """Play ``agent`` (an :class:`~monster_zoo.agents.llm.agent.LlmAgent`) in one seat against each of
    ``baselines`` (agent names) in the others, ``games`` games each (rounded up to a multiple of the
    player count), and score it.

    ``results`` (a :class:`~monster_zoo.llm.results.ResultsFile`) gets each finished game, and its
    games already there are not played again. ``progress`` shows a tqdm line with each move's time
    and tokens. The first ``records_per_baseline`` games played against each baseline are kept as
    match records (a forfeited game has none: it did not end). ``rate`` adds the ratings."""
    baselines = list(baselines)
    if len(set(baselines)) != len(baselines) or not baselines:
        raise ValueError(f"score a model against one or more distinct baselines, got {baselines}")
    options = dict(options or {})
    num_players = len(envs.make(game_id, **options).unwrapped.possible_agents)
    seated = seated_options(options, num_players)
    games = seat_balanced(games, num_players)
    score = ModelScore(game_id, agent.name, num_players, games, seed, baselines, agent.settings.described())
    done = {
        (g["baseline"], g["game"]): g
        for g in (results.games if results else ())
        if g.get("model") == agent.name
    }
    score.resumed_games = len(done)
    start = time.perf_counter()
    bar = progress_bar(games * len(baselines), f"{agent.name} on {game_id}", progress)
    bar.update(len(done))
    agent.on_move = _move_line(bar) if progress else None
    try:
        for baseline in baselines:
            entries = [agent] + [baseline] * (num_players - 1)
            field_agents = make_field(game_id, entries, seed, seated)
            for g in range(games):
                if (baseline, g) in done:
                    continue
                game, record = _play_one(
                    game_id, entries, field_agents, g, seed, seated, agent, g < records_per_baseline
                )
                game["baseline"] = baseline
                if results is not None:
                    results.append(game)
                done[baseline, g] = game
                if record is not None:
                    score.match_records.append(
                        build_record(
                            game_id,
                            seated,
                            record["seed"],
                            record["actions"],
                            _seat_names(agent.name, baseline, record["seats"]),
                        )
                    )
                bar.update(1)
    finally:
        bar.close()
        agent.on_move = None
    score.played = [done[b, g] for b in baselines for g in range(games)]
    if rate:
        score.ratings = rate_model(score, seated)
    score.elapsed_s = time.perf_counter() - start
    return score


def _play_one(game_id, entries, field_agents, g, seed, seated, agent, keep) -> tuple[dict, dict | None]:
    """Game ``g`` of the series (as :func:`iter_games` plays it); its results line and, when ``keep``,
    its record with the actions."""
    n = len(entries)
    before = _usage_copy(agent.usage)
    try:
        record = next(
            iter_games(
                game_id,
                entries,
                g + 1,
                seed,
                seated,
                agents=field_agents,
                keep_actions=g + 1 if keep else 0,
                first=g,
            )
        )
        rewards = record["rewards"]
        model_seat = record["seats"].index(0)
        outcome, forfeited = seat_outcome(rewards, model_seat), False
    except Forfeit:
        record = None
        rotation = g % n
        seats = [(s + rotation) % n for s in range(n)]
        model_seat = seats.index(0)
        rewards, outcome, forfeited = None, LOSS, True
    used = _since(agent.usage, before)
    line = {
        "model": agent.name,
        "game": g,
        "seed": seed + g // n,
        "model_seat": model_seat,
        "rewards": rewards,
        "outcome": outcome,
        "forfeited": forfeited,
        "length": record["length"] if record else None,
        "usage": {
            **{name: getattr(used, name) for name in COUNTS},
            "latencies_s": [round(s, 4) for s in used.latencies_s],
        },
    }
    return line, record if keep and record is not None else None


def _seat_names(model: str, baseline: str, seats: Sequence[int]) -> list[str]:
    return [model if index == 0 else baseline for index in seats]


def _move_line(bar):
    """The progress line's text after each of the model's moves: its time, tokens and failures."""

    def show(cost: dict) -> None:
        failures = f", {cost['endpoint_failures']} endpoint failures" if cost["endpoint_failures"] else ""
        settled = " (forfeit)" if cost["forfeit"] else " (fallback)" if cost["fallback"] else ""
        bar.set_postfix_str(
            f"move at step {cost['step']}: {cost['latency_s']:.2f} s, {cost['prompt_tokens']} / "
            f"{cost['completion_tokens']} tokens, {cost['tries']} tries{failures}{settled}"
        )

    return show


def rate_model(score: ModelScore, seated: dict) -> dict[str, dict]:
    """openskill ratings of the model and its baselines: the model's games interleaved with a round
    robin of the baselines on the same deals (see the module doc); a forfeited game ranks the model
    last."""
    n = score.num_players
    series = []
    for baseline in score.baselines:
        played = []
        for game in score._games(baseline):
            seats = [(s + game["game"] % n) % n for s in range(n)]
            rewards = game["rewards"] or [-1.0 if s == game["model_seat"] else 0.0 for s in range(n)]
            played.append({"seat_agents": _seat_names(score.model, baseline, seats), "rewards": rewards})
        series.append(played)
    if len(score.baselines) > 1:
        tournament = run_tournament(
            score.game_id, score.baselines, score.games, score.seed, seated, progress=False
        )
        spec = tournament.agents
        by_pairing: dict[tuple, list] = {}
        for record in tournament.records:
            by_pairing.setdefault(tuple(record["pairing"]), []).append(
                {"seat_agents": [spec.get(a, a) for a in record["seat_agents"]], "rewards": record["rewards"]}
            )
        series += list(by_pairing.values())
    records = [game for round_ in zip_longest(*series) for game in round_ if game is not None]
    return rate_games(records, [score.model, *score.baselines])


def _usage_copy(usage):
    return type(usage)(**{k: list(v) if isinstance(v, list) else v for k, v in usage.__dict__.items()})


def _since(usage, before):
    """What ``usage`` added since the copy ``before``: counts subtracted, lists cut."""
    return type(usage)(
        **{
            k: v[len(getattr(before, k)) :] if isinstance(v, list) else v - getattr(before, k)
            for k, v in usage.__dict__.items()
        }
    )


def score_named_models(
    game_id: str,
    names: Sequence[str],
    games: int,
    seed: int = 0,
    options: dict | None = None,
    settings=None,
    results=None,
    progress: bool = False,
    records_per_baseline: int = 0,
) -> dict[str, ModelScore]:
    """Each ``llm:<model>`` entry of an ``evaluate --agents`` field scored against the field's other
    entries (what ``monster-zoo evaluate`` plays when the field holds a model); ``settings`` (an
    :class:`~monster_zoo.agents.llm.agent.LlmSettings`) apply to every model, ``results`` and
    ``progress`` as for :func:`score_model`. ValueError where there is no other entry."""
    models, baselines = split_field(names)
    return {
        name: score_model(
            game_id,
            make(game_id, name[len(PREFIX) :], seed, options, settings),
            baselines,
            games,
            seed,
            options,
            results,
            progress,
            records_per_baseline,
        )
        for name in models
    }


def split_field(names: Sequence[str]) -> tuple[list[str], list[str]]:
    """``(models, baselines)`` of an ``evaluate`` field; ValueError where either is missing."""
    models = [name for name in names if name.startswith(PREFIX)]
    baselines = [name for name in names if not name.startswith(PREFIX)]
    if models and not baselines:
        raise ValueError(
            f"score {', '.join(models)} against at least one agent that is not a model, e.g. random or greedy"
        )
    return models, baselines
