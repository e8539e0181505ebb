"""The trainers' one metrics log: ``metrics.csv`` in long format, each row on disk once logged, the
same values handed to a second logger, and a resumed run's rows kept up to its checkpoint only."""

import csv

from monster_zoo.training.run_start import METRICS_HEADER, MetricsLog


def rows(path):
    """The CSV's rows, header first."""
    with path.open(newline="") as f:
        return list(csv.reader(f))


def test_each_value_is_on_disk_at_once_and_handed_to_the_second_logger(tmp_path):
    path = tmp_path / "metrics.csv"
    seen = []
    log = MetricsLog(path, lambda step, metric, value: seen.append((step, metric, value)))
    log.log(10, "train/loss", 0.5)
    assert rows(path)[0] == METRICS_HEADER
    assert [(r[0], r[2], r[3]) for r in rows(path)[1:]] == [("10", "train/loss", "0.5")]  # before close
    log.log(20, "eval/winrate", 0.25)
    log.close()
    assert seen == [(10, "train/loss", 0.5), (20, "eval/winrate", 0.25)]
    assert MetricsLog(path).close() is None and rows(path) == [METRICS_HEADER]  # a new run starts afresh


def test_a_resumed_run_drops_the_rows_after_its_checkpoint_and_goes_on_in_wall_time(tmp_path):
    path = tmp_path / "metrics.csv"
    first = MetricsLog(path)
    for step in (100, 200, 300):
        first.log(step, "charts/SPS", float(step))
    first.close()
    resumed = MetricsLog(path, resume_step=200, elapsed=1000.0)
    resumed.log(300, "charts/SPS", 301.0)
    resumed.close()
    logged = rows(path)[1:]
    assert [(r[0], r[3]) for r in logged] == [("100", "100"), ("200", "200"), ("300", "301")]
    assert float(logged[-1][1]) >= 1000.0  # wall time counts the interrupted run's seconds
