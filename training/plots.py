"""Pictures of evaluation results: a tournament's win-rate matrix and training learning curves.

matplotlib is imported inside the functions, with the Agg backend so no display is
needed, which keeps this module importable where matplotlib is not installed.

Learning curves read the metrics file of each training run, ``<run_dir>/metrics.csv``
(long format, header ``step,wall_time,metric,value``). Runs named in the CleanRL manner,
``{game}__{exp}__{seed}__{time}``, that differ only in seed and time are one experiment:
they are drawn as their mean with a band of ± one standard deviation over seeds.
"""
import csv
import re
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

METRICS_FILE = "metrics.csv"
EVAL_PREFIX = "eval/winrate_"
LABEL_WIDTH = 18  # characters per line of an agent's name on a plot axis

Curve = Tuple[np.ndarray, np.ndarray]  # steps, values


def _pyplot():
    """matplotlib's pyplot on the Agg backend (files only, no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(figure, path) -> Path:
    """Write ``figure`` to ``path`` (parents created) and free it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    _pyplot().close(figure)
    return path


def wrap_label(name: str, width: int = LABEL_WIDTH) -> str:
    """``name`` broken into lines of at most ``width`` characters, at ``/ _ - : = #`` or spaces
    where it can (a path or run name reads best split at its own separators)."""
    lines, line = [], ""
    for piece in re.findall(r"[^/_\-:=# ]*[/_\-:=# ]?", name):
        while len(piece) > width:  # one piece longer than a line: cut it
            if line:
                lines.append(line)
                line = ""
            lines.append(piece[:width])
            piece = piece[width:]
        if len(line) + len(piece) > width:
            lines.append(line)
            line = ""
        line += piece
    return "\n".join(filter(None, lines + [line])) or name


def plot_win_matrix(results: dict, path) -> Path:
    """Heatmap of the row agent's win rate against the column agent, from ``TournamentResult.to_json()``.

    Each cell is annotated with the rate and its 95% Wilson interval; the diagonal is blank.
    Long agent names are wrapped, and the figure grows with the field and with the
    longest wrapped name, so labels neither overlap nor run off the picture.
    """
    plt = _pyplot()
    names = results["field"]
    k = len(names)
    labels = [wrap_label(name) for name in names]
    # inches a label needs across (its longest line) and down (its lines), at the tick font size
    label_width = 0.09 * max(len(line) for label in labels for line in label.split("\n"))
    label_lines = max(label.count("\n") + 1 for label in labels)
    rates = np.full((k, k), np.nan)
    cell = max(1.3, 0.2 * label_lines + 0.9)
    figure, axes = plt.subplots(figsize=(2.5 + label_width + 1.4 * k, 1.5 + 0.8 * label_width + cell * k))
    for p in results["pairings"]:
        i, j = names.index(p["agent"]), names.index(p["opponent"])
        rates[i, j] = p["win_rate"]
        axes.text(j, i, f"{p['win_rate']:.2f}\n[{p['win_rate_low']:.2f}, {p['win_rate_high']:.2f}]",
                  ha="center", va="center", fontsize=9)
    image = axes.imshow(rates, cmap="RdYlGn", vmin=0.0, vmax=1.0, aspect="auto")
    figure.colorbar(image, ax=axes, label="win rate of row vs column")
    axes.set_xticks(range(k), labels, rotation=45, ha="right", rotation_mode="anchor", fontsize=9)
    axes.set_yticks(range(k), labels, fontsize=9)
    n = results["num_players"]
    axes.set_xlabel("column agent (the other seat)" if n == 2 else f"column agent (all {n - 1} other seats)")
    axes.set_ylabel("row agent (one seat)")
    axes.set_title(f"{results['game']}: {n} players, {results['games_per_pairing']} games per pairing")
    return _save(figure, path)


def read_metrics(run_dir) -> Dict[str, Curve]:
    """Every metric of a run as ``(steps, values)`` sorted by step, from its ``metrics.csv``.

    ``run_dir`` may also be the CSV file itself.
    """
    path = Path(run_dir)
    if path.is_dir():
        path = path / METRICS_FILE
    rows: Dict[str, List[Tuple[float, float]]] = {}
    with path.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            rows.setdefault(row["metric"], []).append((float(row["step"]), float(row["value"])))
    curves = {}
    for metric, points in rows.items():
        points.sort()
        steps, values = zip(*points)
        curves[metric] = (np.array(steps), np.array(values))
    return curves


def experiment_of(run_name: str) -> str:
    """The run name without its seed and time (``{game}__{exp}``); other names stand alone."""
    parts = run_name.split("__")
    return "__".join(parts[:2]) if len(parts) == 4 else run_name


def seed_band(curves: Sequence[Curve]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and standard deviation over ``curves`` on the steps where all of them have data.

    Seeds rarely evaluate at exactly the same steps (episodes end at different
    times), so each curve is interpolated onto the union of their steps, kept
    within the range every curve covers: nothing is extrapolated.
    """
    first = max(steps[0] for steps, _ in curves)
    last = min(steps[-1] for steps, _ in curves)
    grid = np.unique(np.concatenate([steps for steps, _ in curves]))
    grid = grid[(grid >= first) & (grid <= last)]
    values = np.array([np.interp(grid, steps, v) for steps, v in curves])
    return grid, values.mean(axis=0), values.std(axis=0)


def plot_learning_curves(run_dirs: Sequence, path, metrics: Optional[Sequence[str]] = None) -> Path:
    """One panel per metric (default: every ``eval/winrate_*``) against environment steps.

    One line per run, or per experiment with a mean ± std band when several runs
    differ only in seed (see the module doc).
    """
    runs = [(Path(d).name, read_metrics(d)) for d in run_dirs]
    if metrics is None:
        metrics = sorted({m for _, curves in runs for m in curves if m.startswith(EVAL_PREFIX)})
    if not metrics:
        raise ValueError(f"no {EVAL_PREFIX}* metrics in {', '.join(str(d) for d in run_dirs)}")
    experiments: Dict[str, List[Dict[str, Curve]]] = {}
    for name, curves in runs:
        experiments.setdefault(experiment_of(name), []).append(curves)
    plt = _pyplot()
    figure, panels = plt.subplots(1, len(metrics), figsize=(5.5 * len(metrics), 4.0), squeeze=False)
    for axes, metric in zip(panels[0], metrics):
        for colour, (experiment, members) in enumerate(experiments.items()):
            curves = [m[metric] for m in members if metric in m]
            if len(curves) == 1:
                axes.plot(*curves[0], color=f"C{colour}", label=experiment)
            elif curves:
                grid, mean, std = seed_band(curves)
                axes.plot(grid, mean, color=f"C{colour}", label=f"{experiment} (mean ± std, {len(curves)} seeds)")
                axes.fill_between(grid, mean - std, mean + std, color=f"C{colour}", alpha=0.25, linewidth=0)
        axes.set_title(metric)
        axes.set_xlabel("environment steps")
        if metric.startswith(EVAL_PREFIX):
            axes.set_ylim(0.0, 1.0)
            axes.set_ylabel("win rate")
        axes.grid(alpha=0.3)
        axes.legend(fontsize="small")
    return _save(figure, path)
