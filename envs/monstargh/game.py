"""MONSTArgh!'s declaration: its options, its kernels' modules and what its agents need (see
``monster_zoo.envs.core.game``)."""

import numpy as np

from ..core.game import Baseline, Game
from ..core.options import COMMON_OPTIONS, Option, common_config, max_steps_option
from . import actions, observation, picture, rules, text_view
from .components import DEFAULT_PLAYERS, MAX_PLAYERS, MIN_PLAYERS, SPECIES, SPECIES_IN_PLAY
from .state_layout import STATE_SIZE

DEFAULT_MAX_STEPS = 3000
TIEBREAKS = ("share", "extra_scene")


def species_names(value):
    """The species named by the ``species`` option (a list or a comma-separated string), lower
    case, or None for ``"random"``; ValueError for unknown or repeated names."""
    if isinstance(value, str):
        if value.strip().lower() == "random":
            return None
        value = value.split(",")
    names = [str(v).strip().lower() for v in value]
    unknown = [v for v in names if v not in SPECIES]
    if unknown or len(set(names)) != len(names) or not names:
        raise ValueError(
            f"monstargh-v0: option species={value!r} is not valid; expected 'random' or "
            f"distinct names among {', '.join(SPECIES)}"
        )
    return names


def _species_ok(value) -> bool:
    """Whether ``value`` is 'random' or a list/string of distinct species names."""
    if not isinstance(value, (str, list, tuple)):
        return False
    try:
        species_names(value)
    except ValueError:
        return False
    return True


# The options apply the rules the library adds to every game: the player count (ruling MA1), the step
# limit of max_steps_option (MA-21), and illegal_action in COMMON_OPTIONS (ruling C5).
OPTIONS = (
    Option(
        "num_players",
        DEFAULT_PLAYERS,
        "Number of players, 2-6 (ruling MA1).",
        choices=tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
    ),
    Option(
        "species",
        "random",
        "'random' draws the species in play per game; or name them (a list or "
        "a comma-separated string), as many as the player count needs: 2-3 players 4, 4 players 5, "
        "5-6 players 6 (ruling MA1).",
        check=_species_ok,
        valid=f"'random' or distinct names among {', '.join(SPECIES)}",
    ),
    Option(
        "tiebreak",
        "share",
        "'share': players tied for the most stars share the win; 'extra_scene': "
        "play more scenes until the tie breaks (ruling MA8).",
        choices=TIEBREAKS,
    ),
    max_steps_option(DEFAULT_MAX_STEPS),
) + COMMON_OPTIONS


def make_config(options: dict) -> np.ndarray:
    """Kernel config vector (num_players, max_steps, reward mode, tiebreak, species bits)."""
    n = options["num_players"]
    names = species_names(options["species"])
    bits = 0
    if names is not None:
        need = int(SPECIES_IN_PLAY[n])
        if len(names) != need:
            raise ValueError(
                f"monstargh-v0: option species names {len(names)} species but {n} players "
                f"play with {need}; valid: 'random' or {need} distinct names among "
                f"{', '.join(SPECIES)}"
            )
        bits = sum(1 << SPECIES.index(s) for s in names)
    return common_config(options, TIEBREAKS.index(options["tiebreak"]), bits)


GAME = Game(
    name="monstargh",
    version=0,
    title="MONSTArgh!",
    rules=rules,
    observation=observation,
    actions=actions,
    text_view=text_view,
    picture=picture,
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    state_size=STATE_SIZE,
    default_max_steps=DEFAULT_MAX_STEPS,
    options=OPTIONS,
    make_config=make_config,
    observation_version=3,  # what each version changed: CHANGELOG.md, "Pre-release history"
    rule_prefix="MA",
    baselines={"greedy": Baseline("monster_zoo.envs.monstargh.greedy")},
    agents={
        "mcts": {
            "simulations": 4_000,
            "exploration": 1.0,
            "rollout": "random",
            # the belief of mcts-v3 and az's belief versions: its opponent model fitted to the
            # tuned search's moves (python -m monster_zoo.benchmarks.belief_model)
            "belief": {
                "network": "monstargh-az-v2.npz",
                "temperature": 2.0,
                "greedy_share": 0.0,
                "particles": 256,
            },
        },
        # az: rollout values alone (the network gives priors), at mcts's time (training/AZ.md)
        "az": {
            "simulations": 2355,
            "rollout_weight": 1.0,
            "budget_ms": 40.0,
            # version 2 (self-play at 256 simulations and rollout weight 0.5 from version 1,
            # training/AZ.md): the count strength sized to mcts's CPU time
            "versions": {2: {"simulations": 2293, "rollout_weight": 1.0, "budget_ms": 36.0}},
        },
    },
)
