"""Pictures of evaluation results: a tournament's win-rate matrix and training learning curves.

matplotlib is imported inside the functions, with the Agg backend so no display is
needed, which keeps this module importable where matplotlib is not installed.

Learning curves read the metrics file of each training run, ``<run_dir>/metrics.csv``
(long format, header ``step,wall_time,metric,value``). Runs named in the CleanRL manner,
``{game}__{exp}__{seed}__{time}``, that differ only in seed and time are one experiment:
they are drawn as their mean with its 95% interval over seeds (Student's t) shaded. A
single run's win rates are shaded with their 95% Wilson intervals, logged by the trainer
as ``<metric>_low95`` and ``<metric>_high95``.

Names on a picture (agents, runs, metrics) are the user's text: they pass through
:func:`monster_zoo.envs.core.escaping.plot_text`, so a ``$`` never starts math text that
matplotlib would fail to parse. Pictures are written atomically (links replaced, never followed).
"""

import csv
import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from monster_zoo.envs.core.escaping import plot_text, visible
from monster_zoo.envs.core.safe_writing import open_atomic

METRICS_FILE = "metrics.csv"
EVAL_PREFIX = "eval/winrate_"
LOW, HIGH = "_low95", "_high95"  # suffixes of a metric's 95% interval bounds
# Panel titles in words; eval/winrate_vs_<agent> reads "Win rate against <agent>".
METRIC_TITLES = {
    "charts/SPS": "Training speed (learner steps per second)",
    "rollout/ep_rew_mean": "Mean episode reward of the learner",
    "train/pool_size": "Snapshots in the self-play pool",
}
WIN_RATE_LIMITS = (-0.04, 1.04)  # a margin, so that lines at 0 and 1 stay visible
Z95 = 1.959964
T95_FEW_DEGREES = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776}  # where the expansion in t95 is coarse
LABEL_WIDTH = 18  # characters per line of an agent's name on a plot axis

Curve = tuple[np.ndarray, np.ndarray]  # steps, values


def _pyplot():
    """matplotlib's pyplot on the Agg backend (files only, no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(figure, path) -> Path:
    """Write ``figure`` to ``path`` (parents created, atomically; the format from its suffix, PNG
    without one) and free it, whether or not the writing succeeds."""
    path = Path(path)
    try:
        figure.tight_layout()
        with open_atomic(path) as stream:
            figure.savefig(stream, format=path.suffix[1:].lower() or "png", dpi=120)
    finally:
        _pyplot().close(figure)
    return path


def wrap_label(name: str, width: int = LABEL_WIDTH) -> str:
    """``name`` broken into lines of at most ``width`` characters, at ``/ _ - : = #`` or spaces
    where it can (a path or run name reads best split at its own separators), each line made
    plain text for matplotlib (control characters shown as escapes, ``$`` escaped)."""
    lines, line = [], ""
    for piece in re.findall(r"[^/_\-:=# ]*[/_\-:=# ]?", visible(name)):
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
    return "\n".join(plot_text(text) for text in filter(None, lines + [line])) or plot_text(name)


def win_rate_norm(num_players: int):
    """The colour scale of a win-rate matrix: 0 to 1 with its neutral middle colour at the even
    share ``1 / num_players``, so that a 4-player cell of 0.40 (above the 0.25 an equal agent wins)
    reads as a win, not a loss."""
    from matplotlib.colors import Normalize, TwoSlopeNorm

    if num_players == 2:
        return Normalize(vmin=0.0, vmax=1.0)
    return TwoSlopeNorm(vcenter=1.0 / num_players, vmin=0.0, vmax=1.0)


def plot_win_matrix(results: dict, path) -> Path:
    """Heatmap of the row agent's win rate against the column agent, from ``TournamentResult.to_json()``.

    Each cell is annotated with the rate and its 95% Wilson interval; the diagonal is blank. The
    colours turn from red to green at the even share (:func:`win_rate_norm`).
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
        axes.text(
            j,
            i,
            f"{p['win_rate']:.2f}\n[{p['win_rate_low']:.2f}, {p['win_rate_high']:.2f}]",
            ha="center",
            va="center",
            fontsize=9,
        )
    n = results["num_players"]
    image = axes.imshow(rates, cmap="RdYlGn", norm=win_rate_norm(n), aspect="auto")
    bar = figure.colorbar(image, ax=axes, label=f"win rate of row vs column (yellow: the even share 1/{n})")
    bar.set_ticks(sorted({0.0, 1.0 / n, 0.5, 1.0}))
    axes.set_xticks(range(k), labels, rotation=45, ha="right", rotation_mode="anchor", fontsize=9)
    axes.set_yticks(range(k), labels, fontsize=9)
    axes.set_xlabel("column agent (the other seat)" if n == 2 else f"column agent (all {n - 1} other seats)")
    axes.set_ylabel("row agent (one seat)")
    axes.set_title(
        plot_text(f"{results['game']}: {n} players, {results['games_per_pairing']} games per pairing")
    )
    return _save(figure, path)


def read_metrics(run_dir) -> dict[str, Curve]:
    """Every metric of a run as ``(steps, values)`` sorted by step, from its ``metrics.csv``.

    ``run_dir`` may also be the CSV file itself.
    """
    path = Path(run_dir)
    if path.is_dir():
        path = path / METRICS_FILE
    rows: dict[str, dict[float, float]] = {}
    with path.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            # a step logged twice (older runs evaluated their last step again) keeps its last value
            rows.setdefault(row["metric"], {})[float(row["step"])] = float(row["value"])
    curves = {}
    for metric, points in rows.items():
        steps = np.array(sorted(points))
        curves[metric] = (steps, np.array([points[s] for s in steps]))
    return curves


def metric_title(metric: str) -> str:
    """A panel title in words, e.g. ``eval/winrate_vs_greedy`` -> ``Win rate against greedy``."""
    if metric.startswith(EVAL_PREFIX + "vs_"):
        return f"Win rate against {metric[len(EVAL_PREFIX) + 3 :]}"
    if metric.startswith(
        EVAL_PREFIX + "net_vs_"
    ):  # the learned search's network alone (training/az/trainer.py)
        return f"Network alone: win rate against {metric[len(EVAL_PREFIX) + 7 :]}"
    return METRIC_TITLES.get(metric, metric)


def t95(degrees: int) -> float:
    """The two-sided 95% quantile of Student's t with ``degrees`` degrees of freedom
    (a Cornish-Fisher expansion around the normal quantile, within 0.01 from 5 on)."""
    if degrees in T95_FEW_DEGREES:
        return T95_FEW_DEGREES[degrees]
    z, d = Z95, float(degrees)
    return (
        z
        + (z**3 + z) / (4 * d)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * d**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * d**3)
    )


def experiment_of(run_name: str) -> str:
    """The run name without its seed and time (``{game}__{exp}``); other names stand alone."""
    parts = run_name.split("__")
    return "__".join(parts[:2]) if len(parts) == 4 else run_name


def seed_band(curves: Sequence[Curve]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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


def mean_interval95(std: np.ndarray, seeds: int) -> np.ndarray:
    """Half-width of the 95% interval of a mean over ``seeds`` runs whose population standard
    deviation (``seed_band``'s) is ``std``."""
    sample_std = std * math.sqrt(seeds / (seeds - 1))
    return t95(seeds - 1) * sample_std / math.sqrt(seeds)


def plot_learning_curves(run_dirs: Sequence, path, metrics: Sequence[str] | None = None) -> Path:
    """Write :func:`learning_curves_figure` of ``run_dirs`` to ``path``."""
    return _save(learning_curves_figure(run_dirs, metrics), path)


def learning_curves_figure(run_dirs: Sequence, metrics: Sequence[str] | None = None):
    """One panel per metric (default: every ``eval/winrate_*``) against environment steps.

    One line per run, or per experiment when several runs differ only in seed, with its
    95% interval shaded (see the module doc).
    """
    runs = [(Path(d).name, read_metrics(d)) for d in run_dirs]
    if metrics is None:
        metrics = sorted(
            {
                m
                for _, curves in runs
                for m in curves
                if m.startswith(EVAL_PREFIX) and not m.endswith((LOW, HIGH))
            }
        )
    if not metrics:
        raise ValueError(f"no {EVAL_PREFIX}* metrics in {', '.join(str(d) for d in run_dirs)}")
    experiments: dict[str, list[dict[str, Curve]]] = {}
    for name, curves in runs:
        experiments.setdefault(experiment_of(name), []).append(curves)
    plt = _pyplot()
    from matplotlib.ticker import EngFormatter

    figure, panels = plt.subplots(1, len(metrics), figsize=(5.5 * len(metrics), 4.0), squeeze=False)
    for axes, metric in zip(panels[0], metrics):
        for colour, (experiment, members) in enumerate(experiments.items()):
            with_metric = [m for m in members if metric in m]
            curves = [m[metric] for m in with_metric]
            if len(curves) == 1:
                steps, values = curves[0]
                axes.plot(steps, values, color=f"C{colour}", marker=".", label=plot_text(experiment))
                bounds = with_metric[0].get(metric + LOW), with_metric[0].get(metric + HIGH)
                if all(b is not None and np.array_equal(b[0], steps) for b in bounds):
                    axes.fill_between(
                        steps,
                        bounds[0][1],
                        bounds[1][1],
                        color=f"C{colour}",
                        alpha=0.2,
                        linewidth=0,
                        label="95% interval",
                    )
            elif curves:
                grid, mean, std = seed_band(curves)
                half = mean_interval95(std, len(curves))
                axes.plot(
                    grid,
                    mean,
                    color=f"C{colour}",
                    label=plot_text(f"{experiment} (mean of {len(curves)} seeds)"),
                )
                axes.fill_between(
                    grid,
                    mean - half,
                    mean + half,
                    color=f"C{colour}",
                    alpha=0.2,
                    linewidth=0,
                    label="95% interval of the mean",
                )
        axes.set_title(plot_text(metric_title(metric)))
        axes.set_xlabel("environment steps")
        axes.xaxis.set_major_formatter(EngFormatter(sep=""))  # 250k, 1M rather than an offset
        if metric.startswith(EVAL_PREFIX):
            axes.set_ylim(*WIN_RATE_LIMITS)
            axes.set_ylabel("win rate")
        axes.grid(alpha=0.3)
        axes.legend(fontsize="small")
    return figure
