"""The learned search's findings table: what each experiment with the search and its training
measured (for ``render_results.py``, on the agents page).

``az_findings_*.jsonl`` holds one measurement a line: the finding it belongs to (``topic``), the
game and player count, the setting measured, the opponent, what was measured (``metric``) and its
``value`` (a number, or a ``[low, high]`` range where a range was measured), with the 95%
interval, the games and a note where they were recorded.
"""

from results_format import (
    Sources,
    columns,
    commit,
    exact,
    fixed,
    host,
    interval,
    is_number,
    protocol,
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
