"""The agents page's table of the searches with beliefs against the same searches without, from the
``strength`` reports in ``training/results/belief_strength/`` (for ``render_results.py``).

Each report is the JSON that ``python -m monster_zoo.training.az.strength --out`` writes; every value
reaches the page through ``results_format``'s formatters.
"""

from results_format import (
    Sources,
    columns,
    commit,
    exact,
    fixed,
    host,
    is_number,
    load,
    protocol,
    rate_with_interval,
    section,
    table,
    text,
    when,
)

BELIEF_STRENGTH = "training/results/belief_strength"
TARGET = 0.55  # the believing search's win rate wanted against the same search without beliefs


def _loads(report: dict) -> str:
    """The machine's 1-minute load at the series' start and end."""
    facts = report.get("host") if isinstance(report.get("host"), dict) else {}
    return f"load {load(facts.get('load_1min'))}-{load(facts.get('load_1min_end'))}"


def _moves(report: dict, side: str) -> str:
    """A side's mean CPU milliseconds a move as spent in the series."""
    spent = report.get(side) if isinstance(report.get(side), dict) else {}
    return exact(spent.get("mean_ms"))


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
        ("yes" if rate >= TARGET else "no") if is_number(rate) else text(rate),
        fixed(report.get("equal_share"), 3),
        exact(report.get("az_simulations")),
        f"{_moves(report, 'az')} / {_moves(report, 'opponent_moves')}",
        when(report, name),
        host(report),
        commit(report),
        protocol(
            f"seed {exact(report.get('seed'))}",
            "seats rotated, deals paired",
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
        f"game | players | search | opponent | win rate [95%] | ≥ {TARGET} | equal share | simulations | "
        "CPU ms a move (search / opponent) | date | host | git | protocol"
    )
    return section(
        "Search with beliefs",
        "The search dealing its simulations from its seat's belief over the hidden cards "
        "(`<game>-mcts-v3`) in one seat, the same search with uniform redeals (`<game>-mcts-v2`) in "
        "every other seat, at equal CPU time per move up to the protocol's cap of 100 ms (`python -m "
        "monster_zoo.training.az.strength --agent <game>-mcts-v3 --opponent <game>-mcts-v2`; the "
        "believing search's simulations sized to the other's time, or to 100 ms where the other's "
        f"moves cost more). The target is a win rate of at least {TARGET} at the smallest player "
        "count of every game with hidden cards.",
        table(header, rows, key=lambda row: (row[0], row[1].rjust(3), row[2])),
    )
