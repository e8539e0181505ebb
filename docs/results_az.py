"""The learned search's findings table: what each experiment with the search and its training
measured (for ``render_results.py``, on the agents page).

``az_findings_*.jsonl`` holds one measurement a line: the finding it belongs to (``topic``), the
game and player count, the setting measured, the opponent, what was measured (``metric``) and its
``value`` (a number, or a ``[low, high]`` range where a range was measured), with the 95%
interval, the games and a note where they were recorded.
"""

from results_format import (
    NOT_RECORDED,
    Sources,
    columns,
    commit,
    exact,
    fixed,
    host,
    interval,
    is_number,
    protocol,
    rate_with_interval,
    section,
    table,
    text,
    when,
)


def value_cell(value, pair) -> str:
    """A measured value (three decimals below 1, as recorded above), or a range, with its interval."""

    def one(v) -> str:
        return fixed(v, 3) if is_number(v) and abs(v) < 1 else exact(v)

    if isinstance(value, list) and len(value) == 2:
        shown = f"{one(value[0])} to {one(value[1])}"
    else:
        shown = one(value)
    return f"{shown} {interval(pair)}" if pair is not None else shown


def finding_rows(src: Sources) -> list[list[str]]:
    """One row per recorded measurement of the learned search's findings."""
    rows = []
    for name, r in src.jsonl("az_findings_*.jsonl"):
        rows.append(
            [
                text(r.get("topic")),
                text(r.get("game")),
                exact(r.get("num_players")),
                text(r.get("setting")),
                text(r.get("opponent")),
                text(r.get("metric")),
                value_cell(r.get("value"), r.get("interval95")),
                exact(r.get("games")),
                when(r, name),
                host(r),
                commit(r),
                protocol(
                    f"seed {exact(r.get('seed'))}" if "seed" in r else "",
                    text(r.get("note")) if r.get("note") else "",
                    text(r.get("source")) if r.get("source") else "",
                ),
            ]
        )
    return rows


def findings_section(src: Sources) -> str:
    """The findings table, grouped by finding in the order ``training/AZ.md`` discusses them."""
    order = {topic: k for k, topic in enumerate(TOPICS)}
    return section(
        "Findings of the learned search",
        "Each finding of [the learned search](../explanation/learned_search.md#what-limits-it-and-what-was-tried), "
        "its measurements: seats rotated, deals paired, `az` at most its opponent's CPU time a move "
        "where the setting says equal time.",
        table(
            columns(
                "finding | game | players | setting | opponent | measured | value [95%] | games | date | host | git | protocol"
            ),
            finding_rows(src),
            key=lambda row: (str(order.get(row[0], len(order))).rjust(3), row[1], row[2].rjust(3)),
        ),
    )


# The findings in the order training/AZ.md discusses them; others follow.
TOPICS = (
    "root values: fixed scale against min-max",
    "warm starts",
    "rollouts at the leaves",
    "expert iteration",
    "self-play at 256 simulations with search values",
    "the search's constants",
    "targets missed",
    "what a move costs",
)


SELECTION = "training/results/selection"  # a folder per screened table: screen.json and a report per rule
AZ_TARGET = 0.60  # the learned search's win rate wanted against mcts at the smallest player count


def _constants(search) -> str:
    """A rule's search constants as ``key=value`` pairs (the shipped defaults where it sets none)."""
    if not isinstance(search, dict) or not search:
        return "shipped defaults"
    return ", ".join(
        f"{text(key)}={exact(value) if is_number(value) else text(value)}" for key, value in search.items()
    )


def _against_first(paired, first) -> str:
    """A rule's paired difference with the screen's first rule, with its interval."""
    if not isinstance(paired, dict) or not is_number(paired.get("mean")):
        return NOT_RECORDED
    bounds = paired.get("interval95")
    shown = f"{paired['mean']:+.3f}"
    if isinstance(bounds, list) and len(bounds) == 2 and all(is_number(b) for b in bounds):
        shown += f" [{bounds[0]:+.3f}, {bounds[1]:+.3f}]"
    return f"{shown} vs {text(first)}"


def selection_rows(src: Sources) -> list[tuple[str, int, list[str]]]:
    """One row per rule of every screen in :data:`SELECTION`, as ``(screen, position, cells)``: the
    rule's series as its report recorded it, its paired difference with the screen's first rule as
    the screen computed it."""
    rows = []
    for name, summary in src.json_files(SELECTION, "*/screen.json"):
        if not isinstance(summary, dict) or not isinstance(summary.get("rules"), list):
            continue
        folder = name.rsplit("/", 1)[0]
        reports = dict(src.json_files(folder, "*.json"))
        for position, rule in enumerate(summary["rules"]):
            rule = rule if isinstance(rule, dict) else {}
            report_name = f"{folder}/{rule.get('report')}"
            report = reports.get(report_name)
            report = report if isinstance(report, dict) and report_name != name else {}
            rate = report.get("win_rate")
            cells = [
                text(report.get("game")),
                exact(summary.get("num_players")),
                text(rule.get("rule")),
                _constants(rule.get("search")),
                text(summary.get("opponent")),
                rate_with_interval(rate, report.get("interval95"), report.get("games"))
                if is_number(rate)
                else NOT_RECORDED,
                ("yes" if rate >= AZ_TARGET else "no") if is_number(rate) else NOT_RECORDED,
                _against_first(rule.get("against_first"), summary.get("first")),
                exact(report.get("az_simulations")),
                f"{exact(rule.get('az_ms'))} / {exact(rule.get('opponent_ms'))}",
                when(report, report_name) if report.get("time") else NOT_RECORDED,
                host(report),
                commit(report),
                protocol(
                    f"seed {exact(summary.get('seed'))}",
                    "seats rotated, deals paired",
                    f"network {text(summary.get('network'))}",
                    f"rollout weight {exact(summary.get('az_rollout_weight'))}",
                    f"report {text(report_name)}",
                ),
            ]
            rows.append((folder, position, cells))
    return rows


def selection_section(src: Sources) -> str:
    """The "Selection rules of the learned search" section of the agents page, each screen's rules
    in the order it screened them (the shipped rule first)."""
    rows = selection_rows(src)
    order = {id(cells): (folder, position) for folder, position, cells in rows}
    return section(
        "Selection rules of the learned search",
        "Which rule picks a simulation's actions, screened at equal CPU time against the tuned search "
        "(`python -m monster_zoo.training.az.selection_screen`): every rule plays its own `strength` "
        "series from the same seed, so every rule meets the same deals, its simulations sized to its "
        "opponent's CPU time a move; the paired difference with the first rule (the shipped one) is "
        f"the measure of choice where the intervals overlap. The target is a win rate of at least {AZ_TARGET:.2f}.",
        table(
            columns(
                f"game | players | rule | search constants | opponent | win rate [95%] | ≥ {AZ_TARGET:.2f} | "
                "paired difference [95%] | simulations | CPU ms a move (az / opponent) | date | host | git | protocol"
            ),
            [cells for _, _, cells in rows],
            key=lambda row: order[id(row)],
        ),
    )
