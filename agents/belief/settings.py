"""How a belief is kept: particles, the opponent model's epsilon, when to resample, and how many
times a move that draws on chance is replayed per particle."""

from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class BeliefSettings:
    """``particles`` possible deals; ``epsilon`` of the epsilon-greedy opponent model (a player plays
    the game's greedy choice with probability ``1 - epsilon`` and a uniformly random legal move
    otherwise); ``resample_below`` the effective sample size, as a share of ``particles``, under
    which the particles are resampled; ``chance_tries`` the replays of a move that draws on chance,
    per particle, whose share of results that agree with the seat's view weighs the particle;
    ``refresh`` the weight given to particles dealt again from the view in place of those a move
    ruled out (0: they stay out)."""

    particles: int = 64
    # fitted by the likelihood of recorded games of the tuned search's tenth budget (mcts-fast) in
    # every seat, 2 games per game at its smallest count (benchmarks/belief_epsilon.py): the likeliest
    # epsilon was 0.5 in Mighty Monsters and 0.8 or above elsewhere, within 0.05 nats a move of 0.5
    # (greedy players are likeliest at 0.05)
    epsilon: float = 0.5
    resample_below: float = 0.5
    chance_tries: int = 8
    refresh: float = 0.2

    def __post_init__(self):
        problems = []
        if not _integer(self.particles) or self.particles < 1:
            problems.append(f"particles must be an integer >= 1, not {self.particles!r}")
        if not _number(self.epsilon) or not 0.0 < self.epsilon <= 1.0:
            problems.append(f"epsilon must be a number in (0, 1], not {self.epsilon!r}")
        if not _number(self.resample_below) or not 0.0 <= self.resample_below <= 1.0:
            problems.append(f"resample_below must be a number in [0, 1], not {self.resample_below!r}")
        if not _integer(self.chance_tries) or self.chance_tries < 1:
            problems.append(f"chance_tries must be an integer >= 1, not {self.chance_tries!r}")
        if not _number(self.refresh) or not 0.0 <= self.refresh < 1.0:
            problems.append(f"refresh must be a number in [0, 1), not {self.refresh!r}")
        if problems:
            raise ValueError("; ".join(problems))


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def belief_settings(value: "BeliefSettings | dict | bool | None") -> BeliefSettings | None:
    """A search's ``belief`` option as settings: None or False (uniform redeals), True (the
    defaults), a mapping of fields, or settings as they are; ValueError naming the valid fields."""
    if value is None or value is False:
        return None
    if value is True:
        return BeliefSettings()
    if isinstance(value, BeliefSettings):
        return value
    if isinstance(value, dict):
        valid = [f.name for f in fields(BeliefSettings)]
        unknown = sorted(set(value) - set(valid))
        if unknown:
            raise ValueError(f"belief settings take {', '.join(valid)}; unknown: {', '.join(unknown)}")
        return BeliefSettings(**value)
    raise ValueError(
        f"belief must be True, False, None, a dict of {', '.join(f.name for f in fields(BeliefSettings))} "
        f"or BeliefSettings, not {value!r}"
    )
