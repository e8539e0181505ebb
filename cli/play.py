"""``monster-zoo play``: a person in one seat, agents in the others, in the terminal."""

import argparse
import sys
import time
from pathlib import Path

from monster_zoo.cli.common import PROG, game_arguments, model_files, overwrite_argument

SLOW_START_S = 3.0  # a first build slower than this compiled kernels: say so once


def add_parser(commands) -> argparse.ArgumentParser:
    """The ``play`` command and its arguments."""
    play = commands.add_parser(
        "play",
        help="play a game in the terminal against agents",
        description="Play a game in the terminal: you take one seat, agents the others. Type a move's "
        "number or its name; 'help' explains the commands, 'legend' the board's symbols, 'help CARD' a "
        "card (Monster Arena), 'board' shows the board again, 'quit' (or Ctrl-C) stops.",
    )
    game_arguments(play)
    play.add_argument(
        "--agents",
        nargs="+",
        metavar="NAME",
        help="agents of the other seats, in seat order; their number plus you sets num_players "
        "(default: random in every other seat of the game's default player count)",
    )
    play.add_argument("--seat", type=int, default=0, help="your seat, from 0 (default %(default)s)")
    play.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="write the game's match record (JSON, replayable with 'replay') here",
    )
    overwrite_argument(play)
    return play


def champion_seats(game_id: str, others: list[str], options: dict) -> tuple[list[str], str | None]:
    """The agents of ``play``'s other seats when they include a champion and the user set no
    ``num_players``: at the smallest player count for which that champion ships (the extra seats
    taken by the champion too), with a line saying so; unchanged (and no line) otherwise.

    ValueError when the game has no champion at all, naming the games that have one."""
    from monster_zoo import envs
    from monster_zoo.agents.ppo.champions import (
        champion_games,
        champion_player_counts,
        champion_version,
        champion_versions,
    )
    from monster_zoo.agents.registry import split_label
    from monster_zoo.envs.core.escaping import visible

    champions = [
        name
        for name in others
        if split_label(name)[1] == "champion" or champion_version(game_id, split_label(name)[1]) is not None
    ]
    if "num_players" in options or not champions:
        return others, None
    game = envs.spec(game_id).name
    counts = champion_player_counts(game)
    if not counts:
        shipped = "; ".join(
            f"{name} ({', '.join(map(str, n))} players)" for name, n in champion_games().items()
        )
        raise ValueError(
            f"{game_id} has no shipped champion yet; champions ship for {shipped or 'no game yet'}"
        )
    version = champion_version(game_id, split_label(champions[0])[1])
    if version is not None:
        counts = [n for n in counts if version in champion_versions(game, n)]
    players = len(others) + 1
    larger = [n for n in counts if n > players]
    if players in counts or not larger:  # a count it ships for, or none that fits: make_agent says which
        return others, None
    filled = others + [champions[0]] * (larger[0] - players)
    return filled, (
        f"{game_id}: {visible(champions[0])} ships for {', '.join(map(str, counts))} players, not "
        f"{players}; playing {larger[0]} players with {visible(champions[0])} in the extra seat(s) "
        f"(--option num_players=N chooses)"
    )


def keep_record(record: dict, path: Path) -> int:
    """Write the match record of a person's game to ``path``; if that fails, into a fresh private
    file (its path printed), and failing that print the record itself: a played game is never lost.
    The exit status: 0 when ``path`` was written, else 1."""
    from monster_zoo.envs.core.escaping import visible
    from monster_zoo.envs.core.records import record_text
    from monster_zoo.envs.core.safe_writing import write_atomic, write_private

    text = record_text(record)
    try:
        write_atomic(path, text)
    except OSError as err:
        print(f"{PROG} play: could not write {visible(str(path))}: {err.strerror or err}", file=sys.stderr)
        try:
            kept = write_private(text, "monster-zoo-record-", ".json")
        except OSError:
            print("the game's match record follows; save it as a .json file to replay it:", file=sys.stderr)
            print(text, end="")
            return 1
        print(
            f"the game's match record is kept in {kept} instead (replay it: {PROG} replay {kept} "
            "--html game.html)",
            file=sys.stderr,
        )
        return 1
    print(f"wrote {visible(str(path))} (replay it: {PROG} replay {visible(str(path))} --html game.html)")
    return 0


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``play``: a person in seat ``--seat``, agents in the others, moves announced as they happen."""
    from monster_zoo import envs
    from monster_zoo.agents.human.agent import HumanAgent, QuitGame
    from monster_zoo.agents.registry import agent_labels, make_agent
    from monster_zoo.envs.core.escaping import visible
    from monster_zoo.envs.core.move_words import named_with_words
    from monster_zoo.envs.core.records import RecordWriter, check_agent_names
    from monster_zoo.envs.core.safe_writing import output_problem
    from monster_zoo.envs.registry import kernels_cached
    from monster_zoo.evaluation.match import (
        DRAW,
        LOSS,
        WIN,
        agent_seed,
        play_game,
        seat_outcome,
        seated_options,
    )

    options = dict(args.option)
    if args.record is not None:
        problem = output_problem("--record", args.record, model_files(args.agents or ()), args.overwrite)
        if problem:
            parser.error(problem)
    start, cold = time.perf_counter(), False
    try:
        cold = not kernels_cached(args.game)
        if cold:
            print(f"compiling {args.game}'s kernels (first run only, 10-60 s)...", end="", flush=True)
        others = args.agents
        if others is None:
            players = len(envs.make(args.game, **options).unwrapped.possible_agents)
            others = ["random"] * (players - 1)
        others, note = champion_seats(args.game, list(others), options)
        options = seated_options(options, len(others) + 1)
        if not 0 <= args.seat <= len(others):
            parser.error(f"--seat must be between 0 and {len(others)} for {len(others) + 1} players")
        env = envs.make(args.game, **options)
        bots = [
            make_agent(name, args.game, agent_seed(args.seed, 0, i), options)
            for i, name in enumerate(others, 1)
        ]
        labels = agent_labels(others, bots)  # short names: a model's own, or LABEL= from its name
        who = labels[: args.seat] + ["you"] + labels[args.seat :]
        if args.record is not None:  # a name the record could not keep is refused before the game
            check_agent_names(who)
    except (ValueError, TypeError) as err:  # unknown games, agents or options
        if cold:
            print()  # end the "compiling" line before the error
        parser.error(str(err))
    took = time.perf_counter() - start
    if cold:
        print(f" done in {took:.0f} s", flush=True)
    elif took > SLOW_START_S:
        print(f"compiled {args.game}'s kernels in {took:.0f} s (cached for next time)", flush=True)
    if note:
        print(note)
    seats = bots[: args.seat] + [HumanAgent(args.game, args.seed)] + bots[args.seat :]
    shown = [visible(name) for name in who]  # names from model files or the command line, shown inert
    raw = env.unwrapped
    writer = RecordWriter(env, args.seed, who)

    def announce(seat: int, action: int) -> None:
        # Named as the person's seat knew the move, with the game's words for it where that seat
        # knows it: the same as the replay viewer shows from that seat (the full name of another
        # seat's secret move, e.g. the pair it lays face down, would give the secret away).
        move = named_with_words(raw.spec, raw.engine_state, action, args.seat)
        print(f"player_{seat} ({shown[seat]}): {visible(move)}", flush=True)
        writer.note(action)

    print(f"{args.game}: {len(seats)} players, you are player_{args.seat}, seed {args.seed}")
    try:
        outcome = play_game(env, seats, args.seed, on_action=announce)
    except QuitGame:
        print("\ngame abandoned")
        return 0
    print("\n=== game over ===")
    print(raw.spec.to_text(raw.engine_state))
    for seat, reward in enumerate(outcome["rewards"]):
        print(f"player_{seat} ({shown[seat]}): return {reward:+.3f}")
    verdict = {WIN: "you won", DRAW: "you shared the best return", LOSS: "you lost"}
    print(
        f"{verdict[seat_outcome(outcome['rewards'], args.seat)]} after {outcome['length']} actions"
        + (" (truncated)" if outcome["truncated"] else "")
    )
    if args.record is not None:
        return keep_record(writer.finish(), args.record)
    return 0
