"""Text rendering helpers shared by the games' ``to_text``."""

from collections.abc import Sequence


def hex_rows(rows: Sequence[Sequence[str]], row_labels: Sequence[str], cell_width: int = 4) -> str:
    """Draw a hexagonal board as offset text rows.

    ``rows`` holds each row's cell labels west to east; shorter rows are indented
    by half a cell per missing cell so that neighbouring rows interleave like hexes.
    """
    widest = max(len(r) for r in rows)
    lines = []
    for label, row in zip(row_labels, rows):
        indent = " " * ((widest - len(row)) * cell_width // 2)
        cells = "".join(f"{c:^{cell_width}}" for c in row)
        lines.append(f"{label:>2} {indent}{cells}".rstrip())
    return "\n".join(lines)


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain fixed-width text table."""
    cols = [list(map(str, c)) for c in zip(headers, *rows)]
    widths = [max(len(x) for x in col) for col in cols]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [fmt.format(*headers), fmt.format(*("-" * w for w in widths))]
    out += [fmt.format(*map(str, r)) for r in rows]
    return "\n".join(line.rstrip() for line in out)
