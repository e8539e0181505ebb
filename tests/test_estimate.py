"""``evaluate`` says before it starts how long the field will take."""

import time

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents import make_agent
from monster_zoo.cli import main as cli
from monster_zoo.evaluation import estimate
from monster_zoo.evaluation.tournament import pairings_to_play

GAME = "marry_the_monster-v0"
TWO = {"num_players": 2}


def test_a_pairing_costs_its_moves_at_each_seats_agent():
    plan = pairings_to_play(["slow", "fast"], 3)  # (slow, fast) and (fast, slow) at 3 players
    costs = {"slow": 0.3, "fast": 0.0}
    # 10 games of 30 moves: 10 per seat; slow alone: 10 x 10 x 0.3; slow in two seats: 10 x 20 x 0.3
    assert estimate.expected_seconds(plan, 3, 10, 30.0, costs) == pytest.approx(30.0 + 60.0)
    assert (
        estimate.expected_seconds(pairings_to_play(["a", "b"], 2), 2, 4, 10.0, {"a": 1.0, "b": 1.0}) == 40.0
    )


def test_costs_are_timed_per_agent_and_games_have_a_length():
    agents = {
        "random": make_agent("random", GAME, 0, TWO),
        "greedy": make_agent("greedy", GAME, 0, TWO),
        "search": make_agent("mcts-fast", GAME, 0, TWO),
    }
    costs = estimate.move_costs(GAME, agents, TWO)
    assert set(costs) == set(agents) and all(cost >= 0 for cost in costs.values())
    assert costs["search"] > costs["random"]  # hundreds of simulations against one draw
    assert estimate.game_length(GAME, TWO) > 10


class CompilingAgent:
    """An agent whose first move costs ``first`` CPU seconds (a kernel compiling), the rest nothing."""

    needs_state = False

    def __init__(self, first: float):
        self.first, self.moves = first, 0

    def act(self, observation, mask, state=None):
        if self.moves == 0:
            end = time.process_time() + self.first
            while time.process_time() < end:
                pass
        self.moves += 1
        return int(np.flatnonzero(mask)[0])


def test_compiling_is_timed_apart_and_never_counted_as_a_moves_cost():
    """The first move's compile goes to warm_up's seconds; the per-move cost is what later moves take."""
    agents = {"compiles": CompilingAgent(first=0.3)}
    assert estimate.warm_up(GAME, agents, TWO) >= 0.3
    assert estimate.move_costs(GAME, {"fresh": CompilingAgent(first=0.3)}, TWO)["fresh"] < 0.05


@pytest.mark.parametrize(
    "tasks, jobs, wall",
    [([3, 2, 2, 1], 2, 4), ([3, 2, 2, 1], 1, 8), ([3, 2, 2, 1], 10, 3), ([5, 1, 1], 2, 5), ([], 2, 0)],
)
def test_the_wall_time_of_parallel_tournaments_starts_the_longest_first(tasks, jobs, wall):
    assert estimate.wall_seconds(tasks, jobs) == wall


@pytest.mark.parametrize(
    "seconds, shown", [(0.2, "about 1 s"), (45, "about 45 s"), (600, "about 10 min"), (9000, "about 2.5 h")]
)
def test_durations_read_in_their_unit(seconds, shown):
    assert estimate.describe_duration(seconds) == shown


def test_evaluate_says_what_it_does_before_loading_the_game_then_the_expected_duration(capsys, monkeypatch):
    """The first line comes before anything slow (the game's kernels load in ``envs.config``); the
    estimate says it is play time and what compiling cost."""
    said_first = []
    config = envs.config

    def config_after_the_first_line(*args, **kwargs):
        if not said_first:  # what stderr held when the game first loaded
            said_first.append(capsys.readouterr().err)
        return config(*args, **kwargs)

    monkeypatch.setattr(envs, "config", config_after_the_first_line)
    assert (
        cli.main(
            [
                "evaluate",
                "--agents",
                "random",
                "greedy",
                "--games",
                "2",
                "--option",
                "num_players=2",
                "--no-progress",
            ]
        )
        == 0
    )
    assert said_first[0].startswith("monster-zoo evaluate: loading the game and timing each agent")
    assert "compiles the kernels" in said_first[0]
    err = capsys.readouterr().err
    assert err.startswith("expected duration: about ") and " of play (1 pairing x 2 games of about " in err
    assert "CPU s per move: " in err and "greedy" in err and "s of compiling the kernels" in err
