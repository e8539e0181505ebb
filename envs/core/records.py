"""Match records: one game as a small JSON file that replays exactly.

A record holds what it takes to play the game again through the AEC env: the game id,
its options and the seed of ``reset``, then every action in order (its number, its name
in the state it was taken in, its words, and the seat that took it), the seats' agents and the
result. Format (``format_version`` 2)::

    {
      "format": "monster-zoo-record",
      "format_version": 2,
      "library_version": "0.1.0",        # monster_zoo.__version__ that wrote it
      "game": "marry_the_monster-v0",    # registry id (its -vN is the rules' version)
      "options": {"num_players": 3, "max_steps": 5000, "reward": "win", "illegal_action": "raise"},
      "seed": 7,                          # env.reset(seed=7)
      "agents": ["greedy", "random", "random"],   # who sat in each seat (names only)
      "actions": [{"seat": 0, "action": 98, "name": "end", "words": "end"}, ...],
      "result": {"returns": [1.0, -0.5, -0.5], "terminated": true, "truncated": false, "length": 213}
    }

An action's ``name`` (``action_to_str``) is its stable key, the one typed moves and golden
playthroughs use; its ``words`` say the move for a person who does not know the game's codes:
the game's own ``explain_action`` where it has one, else the name itself
(:func:`~monster_zoo.envs.core.move_words.recorded_words`). The words are checked, never trusted:
replaying a record refuses one whose words differ from what the game says for that move, so the
words shown of a record always come from the game. Version 1 records (no ``words``) are still
read and replayed as they are; whoever shows them takes the words from the game.

**A record is a full-information artefact.** The seed and the actions determine every
hidden card of the game (hands, decks, face-down guards, species tokens), so a record
reveals to whoever replays it everything any seat kept secret; the names of the actions
say outright what a seat did in secret (e.g. the pair a Mighty Monsters player laid face
down). Share records of finished games only. What a *picture* of a replay shows is
filtered: the replay viewer draws each seat's view from what that seat could see, and
names each action as that seat (or the public) knew it.

A record is checked before it is replayed (:func:`validate_record`): the format, its
version and the library version must match (a record of another version may replay
differently, since the rules may have changed), every field must have its type, and
while replaying every action must be legal and carry the recorded seat, name and words, and
the result must match. Anything else is refused with :class:`RecordError` saying what is wrong.

A record is read within bounds (:mod:`monster_zoo.envs.core.bounded_reading`), refused at once
otherwise: a regular file (not a FIFO or a device) of at most :data:`MAX_RECORD_BYTES`, JSON
nested at most :data:`MAX_RECORD_DEPTH` levels, at most :data:`MAX_RECORD_ACTIONS` actions and
:data:`MAX_SEATS` seats, agent names of at most :data:`MAX_AGENT_NAME_CHARS` characters. The
longest real game is bounded by the largest default truncation limit of any game (5,000 actions,
Marry the Monster's ``max_steps``); an action takes under 300 bytes of JSON (names of at most 40
characters, words of at most 200), so such a record is under 1.5 MB, and the caps leave room for
twice as many actions, each with words up to :data:`MAX_WORDS_CHARS`. Records are written atomically (:mod:`monster_zoo.envs.core.safe_writing`).
"""

import json
import numbers
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .bounded_reading import read_json_file
from .contract import H_STEPS, H_TERMINAL
from .header import truncated as truncated_game
from .move_words import recorded_words
from .safe_writing import write_atomic

FORMAT = "monster-zoo-record"
FORMAT_VERSION = 2
READ_VERSIONS = (1, 2)  # version 1: actions without their words
RECORD_KEYS = (
    "format",
    "format_version",
    "library_version",
    "game",
    "options",
    "seed",
    "agents",
    "actions",
    "result",
)
# Bounds of a record (see the module doc).
MAX_RECORD_ACTIONS = 10_000
MAX_RECORD_BYTES = 4 << 20
MAX_RECORD_DEPTH = 16
MAX_SEATS = 16
MAX_AGENT_NAME_CHARS = 256
MAX_FIELD_CHARS = 256  # the game id, the library version and each action's name
MAX_WORDS_CHARS = 400  # each action's words (the longest any game says is under 200)


class RecordError(ValueError):
    """A record that cannot be replayed: bad JSON, another version, a wrong field, an illegal action."""


def library_version() -> str:
    """The installed ``monster_zoo.__version__`` (records name the library that wrote them)."""
    from monster_zoo import __version__

    return __version__


def check_agent_names(names: Sequence[str]) -> None:
    """ValueError naming the first agent name too long for a record (:data:`MAX_AGENT_NAME_CHARS`);
    checked before a game is played, so no game is lost to a record that could not be kept."""
    for seat, name in enumerate(names):
        if len(str(name)) > MAX_AGENT_NAME_CHARS:
            raise ValueError(
                f"the agent name of seat {seat} ({str(name)[:40]!r}...) is {len(str(name)):,} "
                f"characters; a match record keeps names of at most {MAX_AGENT_NAME_CHARS}"
            )


def recorded_options(options: dict[str, Any]) -> dict[str, Any]:
    """The game options worth recording: all but ``render_mode``, which changes no game."""
    return {k: v for k, v in options.items() if k != "render_mode"}


class RecordWriter:
    """Records a game played through a (raw or wrapped) AEC env of monster-zoo.

    Call :meth:`note` with each action just before ``env.step(action)`` (it is named in the
    state it applies to), then :meth:`finish` once the game is over::

        writer = RecordWriter(env, seed=7, agents=["me", "random", "random"])
        env.reset(seed=7)
        ... writer.note(action); env.step(action) ...
        record = writer.finish()
    """

    def __init__(self, env, seed: int, agents: Sequence[str] | None = None):
        self.raw = env.unwrapped
        n = len(self.raw.possible_agents)
        agents = list(agents) if agents is not None else ["unknown"] * n
        if len(agents) != n:
            raise ValueError(f"agents names {len(agents)} seats but the game seats {n}")
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise ValueError(f"a record needs the integer seed of env.reset(seed=...), got {seed!r}")
        check_agent_names(agents)
        self.record = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "library_version": library_version(),
            "game": self.raw.spec.env_id,
            "options": recorded_options(self.raw.options),
            "seed": int(seed),
            "agents": [str(a) for a in agents],
            "actions": [],
        }

    def note(self, action: int) -> None:
        """Record ``action`` of the agent on move; call it just before ``env.step(action)``."""
        raw, action = self.raw, int(action)
        seat = raw.possible_agents.index(raw.agent_selection)
        name = raw.action_to_str(action)
        # A game explains its legal moves only; an illegal one (refused or penalized by the step
        # that follows) keeps its name, and a record holding it does not replay anyway.
        words = recorded_words(raw.spec, raw.engine_state, action) if action in raw.legal_actions() else name
        self.record["actions"].append({"seat": seat, "action": action, "name": name, "words": words})

    def finish(self) -> dict:
        """The finished record, with the result read from the env."""
        self.record["result"] = game_result(self.raw)
        return self.record


def game_result(raw) -> dict:
    """Returns per seat, how the game ended and its length, from a raw env."""
    state = raw.engine_state
    returns = np.zeros(len(raw.possible_agents), np.float32)
    terminated = bool(state[H_TERMINAL])
    if terminated:
        raw.spec.returns(state, returns)
    # Read from the state, not from env.truncations: the agents (and their flags) leave the
    # env as their final dead steps are taken.
    truncated = bool(truncated_game.py_func(state))
    return {
        "returns": [float(r) for r in returns],
        "terminated": terminated,
        "truncated": truncated,
        "length": int(state[H_STEPS]),
    }


def record_game(env, agents: Sequence, seed: int, names: Sequence[str] | None = None) -> dict:
    """Play one game of ``env`` with ``agents[s]`` in seat ``s`` and return its record.

    An agent is a callable ``(observation, action_mask) -> action`` or an object with
    ``act(observation, action_mask[, state])`` (monster-zoo's agents; those with
    ``needs_state`` get the engine state). ``names`` label the seats in the record.
    An agent with a ``check_game(game_id, config, options)`` method (every agent made for a game
    has one) is asked once, before the game, whether it may play this game; its refusal
    (``WrongGameError``, a ValueError naming both games) comes before any move is made.
    """
    if names is None:
        names = [getattr(a, "name", type(a).__name__) for a in agents]
    writer = RecordWriter(env, seed, names)
    raw = env.unwrapped
    config = raw.spec.make_config(raw.options)
    for agent in agents:
        check = getattr(agent, "check_game", None)
        if check is not None:
            check(raw.spec.env_id, config, raw.options)
    env.reset(seed=seed)
    for agent_name in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        agent = agents[raw.possible_agents.index(agent_name)]
        if hasattr(agent, "act"):
            state = raw.engine_state if getattr(agent, "needs_state", False) else None
            action = (
                agent.act(obs["observation"], obs["action_mask"], state)
                if state is not None
                else agent.act(obs["observation"], obs["action_mask"])
            )
        else:
            action = agent(obs["observation"], obs["action_mask"])
        writer.note(action)
        env.step(action)
    return writer.finish()


def record_text(record: dict) -> str:
    """``record`` (checked first) as the JSON text of a record file."""
    validate_record(record)
    return json.dumps(record, indent=1) + "\n"


def save_record(record: dict, path: str | Path) -> Path:
    """Write ``record`` (checked first) as JSON to ``path``, atomically (a link at ``path`` is
    replaced, never followed); returns the path."""
    return write_atomic(path, record_text(record))


def read_record(path: str | Path, allow_other_version: bool = False) -> dict:
    """A record read from a JSON file within the bounds of the module doc, and checked
    (:func:`validate_record`)."""
    path = Path(path)
    data = read_json_file(path, MAX_RECORD_BYTES, MAX_RECORD_DEPTH, f"record {path}", RecordError)
    return validate_record(data, str(path), allow_other_version)


def _need(ok: bool, where: str, message: str) -> None:
    """Raise a :class:`RecordError` naming the record unless ``ok``."""
    if not ok:
        raise RecordError(f"{where}: {message}")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_text(value, most: int) -> bool:
    return isinstance(value, str) and len(value) <= most


def _shown(value, most: int = 80) -> str:
    """``repr(value)``, cut to ``most`` characters: a hostile field must not fill the message."""
    text = repr(value)
    return text if len(text) <= most else text[:most] + "..."


def validate_record(data: Any, where: str = "record", allow_other_version: bool = False) -> dict:
    """``data`` if it is a well-formed record of this format and library version, else
    :class:`RecordError`. The game id and the actions are checked when replaying."""
    _need(isinstance(data, dict), where, f"a record is a JSON object, not {type(data).__name__}")
    _need(data.get("format") == FORMAT, where, f"not a monster-zoo match record (format must be {FORMAT!r})")
    version = data.get("format_version")
    _need(
        _is_int(version) and version in READ_VERSIONS,
        where,
        f"record format version {_shown(version)}; this "
        f"library reads versions {', '.join(map(str, READ_VERSIONS))}",
    )
    missing = [k for k in RECORD_KEYS if k not in data]
    _need(not missing, where, f"missing field(s) {', '.join(missing)} (truncated record?)")
    _need(
        _is_text(data["library_version"], MAX_FIELD_CHARS),
        where,
        f"'library_version' must be a version string of at most {MAX_FIELD_CHARS} characters",
    )
    mine = library_version()
    _need(
        allow_other_version or data["library_version"] == mine,
        where,
        f"recorded by monster-zoo {data['library_version']!r}, this is {mine}: the rules may differ, so the "
        "record may not replay; replay it with the version that wrote it (or allow_other_version=True / "
        "--any-version to try, every action is still checked)",
    )
    _need(
        _is_text(data["game"], MAX_FIELD_CHARS),
        where,
        f"'game' must be a game id string, got {_shown(data['game'])}",
    )
    _need(
        isinstance(data["options"], dict) and all(isinstance(k, str) for k in data["options"]),
        where,
        "'options' must be an object of option names to values",
    )
    _need(
        "render_mode" not in data["options"],
        where,
        "'options' never hold render_mode (it changes no game, and "
        "whoever replays a record chooses how to draw it)",
    )
    _need(
        _is_int(data["seed"]) and data["seed"] >= 0,
        where,
        f"'seed' must be an integer >= 0 (the seed of reset), got {_shown(data['seed'])}",
    )
    _need(
        isinstance(data["agents"], list) and all(isinstance(a, str) for a in data["agents"]),
        where,
        "'agents' must be a list of agent names, one per seat",
    )
    _need(
        1 <= len(data["agents"]) <= MAX_SEATS,
        where,
        f"'agents' names {len(data['agents'])} seats; a record has 1 to {MAX_SEATS}",
    )
    for seat, name in enumerate(data["agents"]):
        _need(
            len(name) <= MAX_AGENT_NAME_CHARS,
            where,
            f"the agent name of seat {seat} is {len(name):,} "
            f"characters; a record keeps names of at most {MAX_AGENT_NAME_CHARS}",
        )
    _need(isinstance(data["actions"], list), where, "'actions' must be a list")
    _need(
        len(data["actions"]) <= MAX_RECORD_ACTIONS,
        where,
        f"{len(data['actions']):,} actions; a record holds at most {MAX_RECORD_ACTIONS:,}",
    )
    for i, step in enumerate(data["actions"]):
        _need(
            isinstance(step, dict)
            and _is_int(step.get("seat"))
            and _is_int(step.get("action"))
            and _is_text(step.get("name"), MAX_FIELD_CHARS),
            where,
            f"action {i} must be {{'seat': int, 'action': int, 'name': str}}, got {_shown(step, 200)}",
        )
        _need(
            version == 1 or _is_text(step.get("words"), MAX_WORDS_CHARS),
            where,
            f"action {i} must have its 'words' (text of at most {MAX_WORDS_CHARS:,} characters) in a record of "
            f"format version {version}, got {_shown(step.get('words'))}",
        )
    result = data["result"]
    _need(
        isinstance(result, dict)
        and isinstance(result.get("returns"), list)
        and len(result["returns"]) <= MAX_SEATS
        and all(isinstance(r, (int, float)) and not isinstance(r, bool) for r in result["returns"])
        and isinstance(result.get("terminated"), bool)
        and isinstance(result.get("truncated"), bool)
        and _is_int(result.get("length")),
        where,
        "'result' must be {'returns': [numbers], 'terminated': bool, 'truncated': bool, 'length': int}",
    )
    _need(
        result["length"] == len(data["actions"]),
        where,
        f"result length {result['length']} but {len(data['actions'])} actions (truncated record?)",
    )
    return data


def check_step(where: str, i: int, step: dict, raw) -> None:
    """Refuse action ``i`` of a record unless it is the recorded seat's, legal, named as recorded and,
    where the record gives its words (format version 2), said in the words the game says it."""
    seat = raw.possible_agents.index(raw.agent_selection)
    _need(
        step["seat"] == seat,
        where,
        f"action {i} ({step['name']!r}) is recorded for player_{step['seat']} but player_{seat} is on move",
    )
    legal = raw.legal_actions()
    _need(
        step["action"] in legal,
        where,
        f"action {i}: {step['action']} ({step['name']!r}) is illegal for "
        f"player_{seat} here; the record does not belong to this game or version",
    )
    name = raw.action_to_str(step["action"])
    _need(
        name == step["name"],
        where,
        f"action {i}: {step['action']} is {name!r} here but the record names it "
        f"{step['name']!r}; the record does not belong to this game or version",
    )
    if "words" in step:
        said = recorded_words(raw.spec, raw.engine_state, step["action"])
        _need(
            said == step["words"],
            where,
            f"action {i} ({step['name']!r}): the record says it in the words "
            f"{_shown(step['words'])} but the game says {_shown(said)}; a record cannot put words in a move's "
            "mouth (its words are checked against the game, never shown as given)",
        )


def check_result(where: str, record: dict, result: dict) -> None:
    """Refuse a replay whose result differs from the recorded one."""
    recorded = record["result"]
    same = (
        recorded["terminated"] == result["terminated"]
        and recorded["truncated"] == result["truncated"]
        and len(recorded["returns"]) == len(result["returns"])
        and all(abs(a - b) < 1e-5 for a, b in zip(recorded["returns"], result["returns"]))
    )
    _need(same, where, f"the replay ended with {result} but the record says {recorded}")
