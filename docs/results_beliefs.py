"""The agents page's tables of the searches with beliefs (for ``render_results.py``): their strength
against the same searches without, from the ``strength`` reports in
``training/results/belief_strength/``, and over their budgets from the curves' points in
``training/results/belief_budget/<curve>/x<multiple>.json``; and the belief's opponent model, what it knows and what it
costs, from ``docs/measurements/belief_model*.jsonl``, ``belief_knowledge*.jsonl`` and
``belief_cost*.jsonl`` (each file a header line, then a line per game).

Each report is the JSON that its command writes; every value reaches the page through
``results_format``'s formatters.
"""

import re

from results_format import (
    NOT_RECORDED,
    Sources,
    columns,
    commit,
    exact,
    fixed,
    host,
    is_number,
    load,
    percent,
    protocol,
    rate_with_interval,
    section,
    table,
    text,
    when,
)

from monster_zoo import envs
from monster_zoo.agents.search.settings import declared_search

BELIEF_STRENGTH = "training/results/belief_strength"
BELIEF_BUDGET = "training/results/belief_budget"
BUDGET_PICTURES = "docs/pictures/belief_budget"
TARGET = 0.55  # the believing search's win rate wanted against the same search without beliefs
AZ_TARGET = 0.60  # the learned search's with beliefs, against the tuned search without
MULTIPLE = re.compile(r"x(\d+(?:\.\d+)?)\.json")


def target(report: dict) -> float:
    """The win rate a series is held to: the tuned search's where an ``mcts`` version searched with
    beliefs; the learned search's at two or three players; the equal share at four, where one
    learned search plays three tuned ones."""
    if "mcts" in str(report.get("searcher", "")):
        return TARGET
    return AZ_TARGET if report.get("num_players") in (2, 3) else report.get("equal_share", 0.25)


def hides_information(game_id) -> bool:
    """Whether the game hides anything from a seat (a game the registry does not know is taken to
    hide something: its row keeps its target)."""
    try:
        return bool(envs.spec(str(game_id)).hides_information)
    except (KeyError, ValueError):
        return True


def target_met(report: dict) -> str:
    """The cell saying whether a series met its target: none for a control (the opponent's own
    search against it); for an ``mcts`` version at least the tuned search's rate (none where the
    game hides nothing, so that a belief has nothing to learn); for the learned search at two or
    three players at least its rate with the interval's lower bound above the equal share; at four,
    the lower bound above the equal share."""
    rate, goal = report.get("win_rate"), target(report)
    if not is_number(rate) or not is_number(goal):
        return text(rate)
    if report.get("searcher") is not None and report.get("searcher") == report.get("opponent"):
        return "none: a control, the opponent's own search"
    if "mcts" in str(report.get("searcher", "")):
        if not hides_information(report.get("game")):
            return "none: the game hides nothing"
        return f"≥ {goal:.2f}: {'yes' if rate >= goal else 'no'}"
    share = report.get("equal_share")
    bounds = report.get("interval95")
    low = bounds[0] if isinstance(bounds, list) and bounds and is_number(bounds[0]) else None
    above = low is not None and is_number(share) and low > share
    if goal == share:
        return f"lower bound above {fixed(share, 3)}: {'yes' if above else 'no'}"
    return f"≥ {goal:.2f}, lower bound above {fixed(share, 3)}: {'yes' if rate >= goal and above else 'no'}"


def _loads(report: dict) -> str:
    """The machine's 1-minute load at the series' start and end."""
    facts = report.get("host") if isinstance(report.get("host"), dict) else {}
    return f"load {load(facts.get('load_1min'))}-{load(facts.get('load_1min_end'))}"


def _mean_ms(report: dict, side: str):
    """A side's mean CPU milliseconds a move as spent in the series (None where not recorded)."""
    spent = report.get(side) if isinstance(report.get(side), dict) else {}
    return spent.get("mean_ms")


def _moves(report: dict, side: str) -> str:
    """A side's mean CPU milliseconds a move as spent in the series, as a cell."""
    return exact(_mean_ms(report, side))


def _draws(report: dict) -> str:
    """The series' drawn games (a shared best return), which the win rate counts as no win."""
    return f"{exact(report.get('draws'))} draws (no win)"


def belief_row(name: str, report: dict) -> list[str]:
    """One series' row: the table, both searches, the result against the target, the budgets
    as spent, and when, where and how it was measured."""
    rate = report.get("win_rate")
    pilot = report.get("pilot") if isinstance(report.get("pilot"), dict) else {}
    return [
        text(report.get("game")),
        exact(report.get("num_players")),
        text(report.get("searcher")),
        text(report.get("opponent")),
        rate_with_interval(rate, report.get("interval95"), report.get("games")),
        target_met(report),
        fixed(report.get("equal_share"), 3),
        exact(report.get("az_simulations")),
        f"{_moves(report, 'az')} / {_moves(report, 'opponent_moves')}",
        when(report, name),
        host(report),
        commit(report),
        protocol(
            f"seed {exact(report.get('seed'))}",
            "seats rotated, deals paired",
            _draws(report),
            f"{exact(report.get('planned_ms_per_move'))} CPU ms a move planned",
            f"{exact(pilot.get('games'))} pilot games" if pilot else "",
            _loads(report),
            f"{exact(report.get('resumed_games'))} games read back on resuming"
            if report.get("resumed_games")
            else "",
            f"report {text(name)}",
        ),
    ]


def belief_section(src: Sources) -> str:
    """The "Search with beliefs" section of the agents page."""
    rows = [
        belief_row(name, report)
        for name, report in src.json_files(BELIEF_STRENGTH, "*.json")
        if isinstance(report, dict)
    ]
    header = columns(
        "game | players | search | opponent | win rate [95%] | target met | equal share | simulations | "
        "CPU ms a move (search / opponent) | date | host | git | protocol"
    )
    return section(
        "Search with beliefs",
        "A search dealing its simulations from its seat's belief over the hidden cards in one seat "
        "(`<game>-mcts-v3`, or the learned search's belief version `<game>-az-vK`), the tuned search "
        "with uniform redeals (`<game>-mcts-v2`) in every other seat, at equal CPU time per move up "
        "to the protocol's cap of 100 ms (`python -m monster_zoo.training.az.strength --agent "
        "<game>-mcts-v3 --opponent <game>-mcts-v2`; the believing search's simulations sized to the "
        "other's time, or to 100 ms where the other's moves cost more). The targets, at the smallest "
        f"player count of every game with hidden cards: a win rate of at least {TARGET:.2f} for "
        f"`mcts-v3`, {AZ_TARGET:.2f} for the learned search with the interval's lower bound above "
        "the equal share; at four players one learned search against three tuned ones with the "
        "interval's lower bound above the equal share.",
        table(header, rows, key=lambda row: (row[0], row[1].rjust(3), row[2])),
    )


def budget_row(name: str, report: dict) -> list[str]:
    """One point of a budget curve: the series' searches, the multiple of its equal-time
    simulations, the CPU time both sides spent, the result against the series' target."""
    found = MULTIPLE.fullmatch(name.rsplit("/", 1)[-1])
    az_ms, opponent_ms = _mean_ms(report, "az"), _mean_ms(report, "opponent_moves")
    ratio = az_ms / opponent_ms if is_number(az_ms) and is_number(opponent_ms) and opponent_ms else None
    return [
        text(report.get("game")),
        exact(report.get("num_players")),
        text(report.get("searcher")),
        text(report.get("opponent")),
        f"x{found.group(1)}" if found else NOT_RECORDED,
        exact(report.get("az_simulations")),
        f"{_moves(report, 'az')} / {_moves(report, 'opponent_moves')}",
        fixed(ratio, 2),
        rate_with_interval(report.get("win_rate"), report.get("interval95"), report.get("games")),
        target_met(report),
        when(report, name),
        host(report),
        commit(report),
        protocol(
            f"seed {exact(report.get('seed'))}",
            "seats rotated, deals paired",
            _draws(report),
            _loads(report),
            f"report {text(name)}",
        ),
    ]


def budget_section(src: Sources) -> str:
    """The searches with beliefs over their budgets, with each curve's picture."""
    rows = [
        budget_row(name, report)
        for name, report in src.json_files(BELIEF_BUDGET, "*/x*.json")
        if isinstance(report, dict)
    ]
    header = columns(
        "game | players | search | opponent | simulations, multiple | simulations | CPU ms a move "
        "(search / opponent) | time ratio | win rate [95%] | target met | date | host | git | protocol"
    )
    pictures = sorted((src.root / BUDGET_PICTURES).glob("*.png"))
    shown = "\n\n".join(
        f"![{text(path.stem)}: win rate over the search's budget](../pictures/belief_budget/{path.name})"
        for path in pictures
    )
    return section(
        "Search with beliefs over its budget",
        "Where a search with beliefs missed its target, the same series again at a multiple of its "
        "equal-time simulations, on the same deals against the same opponents, whose budget stays "
        "as it was (`python -m monster_zoo.training.az.strength_curve budget --agent <game>-mcts-v3` "
        "or `--network <file> --belief`; the multiple 1 is the series of the table above). The "
        "time ratio is the CPU time a move the two sides spent, the believing search's over its "
        "opponent's. Monster Factory hides nothing, so its curve plays `az` without beliefs (its "
        "beliefs would change nothing). A curve whose search is its opponent's own (`--agent <game>-mcts-v2` against "
        "`<game>-mcts-v2`) is a control: what the extra time alone buys, without any belief.",
        table(header, rows, key=lambda row: (row[0], row[1].rjust(3), row[2], row[4].rjust(6)))
        + ("\n\n" + shown if shown else ""),
    )


COST_LIMIT = 0.10  # the belief's largest share of a move's CPU time


def _measured(src: Sources, pattern: str):
    """``(file, header, line)`` for every line of the measurement files matching ``pattern`` after
    its file's header (an empty header where the file has none)."""
    headers: dict = {}
    for name, record in src.jsonl(pattern):
        if record.get("kind") == "header":
            headers[name] = record
        else:
            yield name, headers.get(name, {}), record


def _run(header: dict, name: str) -> list[str]:
    """The date, host and git commit cells of a line, from its file's header."""
    return [when(header, name), host(header), commit(header)]


def _declared(line: dict) -> str:
    """ "yes" where the line's model is the one its game declares for its belief."""
    try:
        config = declared_search(str(line.get("game")))
    except (KeyError, ValueError):
        config = None
    if config is None:
        return NOT_RECORDED
    declared = config.belief
    keys = ("model", "network", "temperature", "greedy_share", "epsilon")
    if line.get("model") == "greedy":
        keys = ("model", "epsilon")
    return "yes" if all(line.get(k) == getattr(declared, k) for k in keys) else ""


def _number_key(cell: str) -> float:
    """A table cell's number for sorting (the best likelihood first); missing ones last."""
    try:
        return -float(cell.replace(",", ""))
    except ValueError:
        return float("inf")


def model_section(src: Sources) -> str:
    """The opponent model's fit: each model's likelihood of recorded games, the declared one marked."""
    rows = []
    for name, header, line in _measured(src, "belief_model*.jsonl"):
        network = line.get("model") == "network"
        rows.append(
            [
                text(line.get("game")),
                exact(line.get("num_players")),
                text(line.get("opponent")),
                text(line.get("model")),
                text(line.get("network")) if network else "-",
                exact(line.get("temperature")) if network else "-",
                exact(line.get("greedy_share")) if network else "-",
                exact(line.get("epsilon")),
                fixed(line.get("mean_log_evidence"), 4),
                exact(line.get("moves")),
                exact(line.get("dealt_again")),
                _declared(line),
                *_run(header, name),
                protocol(f"{exact(line.get('games'))} games, seeds from 0", f"file {text(name)}"),
            ]
        )
    header = columns(
        "game | players | players' agent | model | network | temperature | greedy share | epsilon | "
        "mean log evidence a move | moves | dealt again | declared | date | host | git | protocol"
    )
    return section(
        "The opponent model",
        "How likely each opponent model makes the moves of recorded games of the players' agent in "
        "every seat (`python -m monster_zoo.benchmarks.belief_model`): every seat's belief follows "
        "the games, and each move's evidence (the probability the belief gave what the seat saw "
        "after it) is averaged in logs; the higher, the likelier. The model each game declares for "
        "its belief (the `belief` mapping of its `mcts` settings) is marked.",
        table(header, rows, key=lambda row: (row[0], row[2], _number_key(row[8]))),
    )


def knowledge_section(src: Sources) -> str:
    """What the belief knows of the hidden cards against the uniform redeal, with its pictures."""
    rows, pictures = [], set()
    for name, header, line in _measured(src, "belief_knowledge*.jsonl"):
        settings = line.get("settings") if isinstance(line.get("settings"), dict) else {}
        game = line.get("game")
        if isinstance(game, str):
            pictures.add(game.rsplit("-v", 1)[0])
        rows.append(
            [
                text(game),
                exact(line.get("num_players")),
                text(line.get("opponent")),
                fixed(line.get("belief_log_p"), 4),
                fixed(line.get("uniform_log_p"), 4),
                fixed(line.get("gain"), 4),
                exact(line.get("games")),
                exact(line.get("decisions")),
                *_run(header, name),
                protocol(
                    f"seeds {exact(line.get('seeds'))}",
                    f"{exact(settings.get('particles'))} particles",
                    f"model {text(settings.get('model'))} {text(settings.get('network'))}",
                    f"temperature {exact(settings.get('temperature'))}",
                    f"greedy share {exact(settings.get('greedy_share'))}",
                    f"epsilon {exact(settings.get('epsilon'))}",
                    f"file {text(name)}",
                ),
            ]
        )
    header = columns(
        "game | players | players' agent | belief log p | uniform log p | gain (nats an entry) | games | "
        "decisions | date | host | git | protocol"
    )
    shown = "\n\n".join(
        f"![How the belief sharpens over a game of {text(game)}](../pictures/belief/{game}.png)"
        for game in sorted(pictures)
        if (src.root / "docs" / "pictures" / "belief" / f"{game}.png").is_file()
    )
    return section(
        "What the belief knows",
        "Seeded games played by one agent in every seat, every seat keeping the belief the game "
        "declares (`python -m monster_zoo.benchmarks.belief_knowledge`). At each decision the "
        "belief of the seat on move and the uniform redeal of its view give the true value of each "
        "hidden entry of the other seats a probability; the table gives their mean logs and the "
        "gain (above 0: the belief knows more than a redeal), the pictures the gain over tenths of "
        "a game.",
        table(header, rows, key=lambda row: (row[0], row[2])) + ("\n\n" + shown if shown else ""),
    )


def cost_section(src: Sources) -> str:
    """What keeping the belief costs, as a share of a move's CPU time."""
    rows = []
    for name, header, line in _measured(src, "belief_cost*.jsonl"):
        share = line.get("share")
        rows.append(
            [
                text(line.get("game")),
                exact(line.get("num_players")),
                text(line.get("agent")),
                text(line.get("opponent")),
                exact(line.get("moves")),
                fixed(line.get("move_ms"), 1),
                fixed(line.get("belief_ms"), 2),
                fixed(line.get("belief_p95_ms"), 2),
                percent(share),
                ("yes" if share <= COST_LIMIT else "no") if is_number(share) else text(share),
                *_run(header, name),
                protocol(
                    f"{exact(line.get('games'))} games, seats rotated",
                    f"warm-up games (untimed): {exact(line.get('warm_up_games', 0))}",
                    f"{exact(line.get('particles'))} particles",
                    f"load {load((line.get('load_1min') or [None])[0])}-{load((line.get('load_1min') or [None])[-1])}",
                    f"file {text(name)}",
                ),
            ]
        )
    header = columns(
        f"game | players | agent | opponent | moves | CPU ms a move | belief ms a move | belief ms, 95th "
        f"percentile | belief's share | ≤ {percent(COST_LIMIT)} | date | host | git | protocol"
    )
    return section(
        "What the belief costs",
        "The believing searches at their shipped budgets against the opponent named, every move's "
        "CPU time and the part of it spent bringing the belief up to the move "
        "(`python -m monster_zoo.benchmarks.belief_cost`).",
        table(header, rows, key=lambda row: (row[0], row[2])),
    )
