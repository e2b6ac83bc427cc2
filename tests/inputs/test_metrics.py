"""The load watcher's answer (``--metrics``): what is read, and how bad files are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from kschedctl.errors import InputError
from kschedctl.inputs.metrics import Metric, load_metrics

GOOD = """{
  "timestamp": 1764000000,
  "window": {"duration": "15m", "start": 1763999100, "end": 1764000000},
  "source": "Prometheus",
  "data": {"NodeMetricsMap": {
    "node-a": {"metrics": [{"name": "cpu", "type": "CPU", "operator": "AVG", "rollup": "AVERAGE", "value": 43.5}]},
    "node-b": {}
  }}
}
"""


def test_reads_the_watcher_answer(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text(GOOD)
    m = load_metrics(str(path))
    assert (m.timestamp, m.window_start, m.window_end, m.source) == (1764000000, 1763999100, 1764000000, "Prometheus")
    assert m.node_metrics("node-a") == [Metric("CPU", "AVG", 43.5, "cpu", "AVERAGE")]
    assert m.node_metrics("node-b") == [] and m.node_metrics("node-c") is None


def test_keys_match_case_insensitively_as_in_go(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text("Window: {END: 5}\nDATA:\n  nodeMetricsMap:\n    n1:\n      Metrics: [{Type: CPU, Value: 1}]\n")
    m = load_metrics(str(path))
    assert m.window_end == 5 and m.node_metrics("n1") == [Metric("CPU", "", 1.0)]


def test_an_answer_without_data_has_no_node_map(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text('{"timestamp": 0, "data": {"NodeMetricsMap": null}}')
    assert load_metrics(str(path)).nodes is None


@pytest.mark.parametrize(("text", "message"), [
    ('{"data": {"NodeMetricsMap": {"a": {"metrics": [{"value": "x"}]}}}}',
     "data.NodeMetricsMap[a].metrics[0].value: must be a number (percent), not 'x'"),
    ('{"window": {"end": "soon"}}', "window.end: must be an integer (seconds since the epoch), not 'soon'"),
    ('{"data": {"NodeMetricsMap": {"a": {"metrics": {}}}}}', "data.NodeMetricsMap[a].metrics: must be a list"),
    ('"text"', "the document: must be an object, not a string"),
    ('{}', "none of the load watcher's fields"),
    ('{"apiVersion": "v1", "kind": "Node"}', "a Kubernetes object (kind 'Node'), not the load watcher's answer"),
    ('{"data": {"NodeMetricsMap": {"a": {"metrics": [{"value": 1e999}]}}}}', "must be a finite number"),
    ('{"data": 1}\n{"data": 2}', "expected one load-watcher answer (a JSON object), found 2 documents"),
])
def test_bad_answers_name_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "m.json"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        load_metrics(str(path))
    assert str(err.value).startswith(str(path)) and message in str(err.value)


def test_yaml_bombs_are_refused(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}, *a{i-1}]" for i in range(1, 12)]
    path = tmp_path / "m.yaml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError):
        load_metrics(str(path))


def test_missing_file() -> None:
    with pytest.raises(InputError) as err:
        load_metrics("/nonexistent/m.json")
    assert "/nonexistent/m.json" in str(err.value)
