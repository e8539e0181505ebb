"""The harness's table: a model in one seat against each baseline in every other seat, seats
rotated and deals paired as ``monster-zoo evaluate`` plays them, with 95% Wilson intervals, and what
the model's moves cost: how often it was asked again, how often its move was still illegal (a random
legal move was played), tokens and latency per move.
"""

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from monster_zoo import envs
from monster_zoo.agents.llm.agent import PREFIX, make
from monster_zoo.evaluation.match import iter_games, seat_balanced, seat_outcome, seated_options
from monster_zoo.evaluation.tournament import PairingStats


@dataclass
class ModelScore:
    """The results of :func:`score_model`: per baseline, the pairing and the model's usage in it."""

    game_id: str
    model: str
    num_players: int
    games: int
    seed: int
    legal_moves_shown: bool
    pairings: dict[str, PairingStats] = field(default_factory=dict)
    usage: dict[str, dict[str, float]] = field(default_factory=dict)
    elapsed_s: float = 0.0

    def markdown(self) -> str:
        """The table, as markdown."""
        n = self.num_players
        lines = [
            f"## {self.game_id}: {self.model}, {n} players, {self.games} games per baseline, seed {self.seed}, "
            f"legal moves {'listed' if self.legal_moves_shown else 'not listed'} in the prompt",
            "",
            f"Win rate of the model in one seat against the baseline in every other seat [95% Wilson interval] "
            f"(wins-draws-losses); equal agents would score {1 / n:.2f}. Retry rate: answers asked again per "
            "move; illegal rate: moves still illegal after the retries (a random legal move was played "
            "instead) per move.",
            "",
            "| baseline | win rate | moves | retry rate | illegal rate | tokens in / out per move | "
            "median latency |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
        for baseline, stats in self.pairings.items():
            s, u = stats.summary(), self.usage[baseline]
            lines.append(
                f"| {baseline} | {s['win_rate']:.3f} [{s['win_rate_low']:.3f}, {s['win_rate_high']:.3f}] "
                f"({s['wins']}-{s['draws']}-{s['losses']}) | {u['moves']} | {u['retry_rate']:.3f} | "
                f"{u['illegal_rate']:.3f} | {u['prompt_tokens_per_move']:.0f} / "
                f"{u['completion_tokens_per_move']:.0f} | {u['latency_s_median']:.3f} s |"
            )
        return "\n".join(lines)


def score_model(
    game_id: str, agent, baselines: Sequence[str], games: int, seed: int = 0, options: dict | None = None
) -> ModelScore:
    """Play ``agent`` (an :class:`~monster_zoo.agents.llm.agent.LlmAgent`) in one seat against each of
    ``baselines`` (agent names) in the others, ``games`` games each (rounded up to a multiple of the
    player count)."""
    options = dict(options or {})
    num_players = len(envs.make(game_id, **options).unwrapped.possible_agents)
    games = seat_balanced(games, num_players)
    score = ModelScore(game_id, agent.name, num_players, games, seed, agent.settings.legal_moves)
    start = time.perf_counter()
    for baseline in baselines:
        field_entries = [agent] + [baseline] * (num_players - 1)
        before = _usage_copy(agent.usage)
        stats = PairingStats(agent.name, baseline)
        for record in iter_games(game_id, field_entries, games, seed, seated_options(options, num_players)):
            stats.add(seat_outcome(record["rewards"], record["seats"].index(0)))
        score.pairings[baseline] = stats
        score.usage[baseline] = _since(agent.usage, before).summary()
    score.elapsed_s = time.perf_counter() - start
    return score


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
    game_id: str, names: Sequence[str], games: int, seed: int = 0, options: dict | None = None, settings=None
) -> dict[str, ModelScore]:
    """Each ``llm:<model>`` entry of an ``evaluate --agents`` field scored against the field's other
    entries (what ``monster-zoo evaluate`` adds below its tournament table when the field holds a model);
    ``settings`` (an :class:`~monster_zoo.agents.llm.agent.LlmSettings`, from ``--base-url``, ``--retries``
    and ``--no-legal-moves``) apply to every model. ValueError where there is no other entry."""
    models = [name for name in names if name.startswith(PREFIX)]
    baselines = [name for name in names if not name.startswith(PREFIX)]
    if models and not baselines:
        raise ValueError(
            f"score {', '.join(models)} against at least one agent that is not a model, e.g. random or greedy"
        )
    return {
        name: score_model(
            game_id,
            make(game_id, name[len(PREFIX) :], seed, options, settings),
            baselines,
            games,
            seed,
            options,
        )
        for name in models
    }
