"""How a belief is kept: particles, the opponent model and its epsilon, when to resample, and how many
times a move that draws on chance is replayed per particle."""

from dataclasses import dataclass, fields
from typing import Any

MODELS = ("network", "greedy")  # the opponent models a belief may weigh moves by


@dataclass(frozen=True)
class BeliefSettings:
    """``particles`` possible deals; ``model`` the opponent model: ``"network"`` (the softmax at
    ``temperature`` of a learned search's policy network over the mover's legal moves, read from the
    mover's own view of each particle, mixed with the game's greedy choice at ``greedy_share``: the
    shipped network file ``network`` names (in the champions' folder), else the searching agent's
    own network, where it plays the table's player count; elsewhere the greedy model) or
    ``"greedy"`` (the game's greedy choice);
    ``epsilon`` the share of a uniformly random legal move mixed into the model (a player plays
    one of the model's moves with probability ``1 - epsilon``);
    ``resample_below`` the effective sample size, as a share of ``particles``, under which the
    particles are resampled; ``chance_tries`` the replays of a move that draws on chance, per
    particle, whose share of results that agree with the seat's view weighs the particle;
    ``refresh`` the weight given to particles dealt again from the view in place of those a move
    ruled out (0: they stay out)."""

    particles: int = 64
    # the network predicts the tuned search's moves where the greedy kernel mispredicts them; the
    # temperature and epsilon are fitted by the likelihood of recorded games of the tuned search
    # in every seat (benchmarks/belief_model.py, rendered on the agents' results page)
    model: str = "network"
    network: str | None = None
    temperature: float = 3.0
    greedy_share: float = 0.2
    epsilon: float = 0.2
    resample_below: float = 0.5
    chance_tries: int = 8
    refresh: float = 0.2

    def __post_init__(self):
        problems = []
        if not _integer(self.particles) or self.particles < 1:
            problems.append(f"particles must be an integer >= 1, not {self.particles!r}")
        if self.model not in MODELS:
            problems.append(f"model must be one of {', '.join(MODELS)}, not {self.model!r}")
        if self.network is not None and not (isinstance(self.network, str) and self.network):
            problems.append(
                f"network must be the name of a shipped network file or None, not {self.network!r}"
            )
        if not _number(self.temperature) or not self.temperature > 0.0:
            problems.append(f"temperature must be a number above 0, not {self.temperature!r}")
        if not _number(self.epsilon) or not 0.0 < self.epsilon <= 1.0:
            problems.append(f"epsilon must be a number in (0, 1], not {self.epsilon!r}")
        elif self.model == "network" and (
            not _number(self.greedy_share) or not 0.0 <= self.greedy_share <= 1.0 - self.epsilon
        ):
            problems.append(
                f"greedy_share must be a number from 0 to 1 - epsilon ({1.0 - self.epsilon:g}), not {self.greedy_share!r}"
            )
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
