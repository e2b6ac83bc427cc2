"""Sweep files: the matrix they stand for, parameter paths, and every problem with its line."""

from __future__ import annotations

import textwrap

import pytest

from kschedctl.sweep.model import apply_settings, parse_path, parse_sweep

HEAD = "apiVersion: kschedctl/v1\nkind: Sweep\n"


def parse(body: str) -> tuple:
    return parse_sweep(HEAD + textwrap.dedent(body), "/work/sweeps/s.yaml")


def test_the_matrix_is_configs_by_clusters_by_workloads_by_repetitions() -> None:
    sweep, findings = parse("""
        configs:
          - {name: default}
          - name: packing
            file: ../profiles/bin-packing.yaml
            vary:
              percentageOfNodesToScore: [10, 50]
              profiles[default-scheduler].pluginConfig[NodeResourcesFit].args.scoringStrategy.type: [MostAllocated, RequestedToCapacityRatio]
        clusters: [a.yaml, {name: big, files: [b.yaml, c.yaml], metrics: m.json}]
        workloads: [w.yaml]
        repetitions: 3
        seed: 7
        """)
    assert findings == []
    assert [c.name for c in sweep.configs] == [
        "default", "packing[percentageOfNodesToScore=10,type=MostAllocated]",
        "packing[percentageOfNodesToScore=10,type=RequestedToCapacityRatio]",
        "packing[percentageOfNodesToScore=50,type=MostAllocated]",
        "packing[percentageOfNodesToScore=50,type=RequestedToCapacityRatio]"]
    assert sweep.configs[1].file == "/work/profiles/bin-packing.yaml" and sweep.configs[0].file is None
    assert [(c.name, c.files, c.metrics) for c in sweep.clusters] == [
        ("a", ("/work/sweeps/a.yaml",), None), ("big", ("/work/sweeps/b.yaml", "/work/sweeps/c.yaml"), "/work/sweeps/m.json")]
    cells = sweep.cells()
    assert len(cells) == 5 * 2 * 1 * 3
    assert [c.index for c in cells] == list(range(30))
    assert [(c.config.name, c.cluster.name, c.repetition, c.seed) for c in cells[:4]] == [
        ("default", "a", 0, 7), ("default", "a", 1, 8), ("default", "a", 2, 9), ("default", "big", 0, 7)]


@pytest.mark.parametrize(("body", "errors"), [
    ("configs: []\nclusters: [a.yaml]\nworkloads: [w.yaml]\n", ["3: configs: must not be empty"]),
    ("configs: [{}]\nclusters: [a.yaml]\nworkloads: [w.yaml]\nrepetition: 2\n",
     ['6: repetition: unknown field (did you mean "repetitions"?) (allowed: apiVersion, kind, name, description, '
      'configs, clusters, workloads, repetitions, seed, includeClusterPending, whatIfs, removable)']),
    ("configs: [{}]\nclusters: [a.yaml]\nworkloads: [w.yaml]\nwhatIfs: [{drain: [node-a1]}, {name: x, cordon: ['a in (b']}]\n",
     ["6: whatIfs[1].cordon: a in (b: not a node name or label selector: unable to parse requirement: "
      "found '', expected: ',' or ')'"]),
    ("configs: [{}]\nclusters: [a.yaml]\nworkloads: [w.yaml]\nwhatIfs: [{addNodes: {count: 2}}]\n",
     ["6: whatIfs[0].addNodes.like: required field is missing"]),
    ("configs: [{fle: x.yaml}]\nclusters: [a.yaml]\nworkloads: [w.yaml]\n",
     ['3: configs[0].fle: unknown field (did you mean "file"?) (allowed: name, file, profile, vary)']),
    ("configs: [{}]\nclusters: [{name: x}]\nworkloads: [w.yaml]\n", ["4: clusters[0].files: required field is missing"]),
    ("configs: [{}]\nclusters: [a.yaml]\nworkloads: [w.yaml]\nrepetitions: 0\n",
     ["6: repetitions: must be at least 1, not 0"]),
    ("configs: [{vary: {'a..b': [1]}}]\nclusters: [a.yaml]\nworkloads: [w.yaml]\n",
     ["3: configs[0].vary: 'a..b' is not a field path (dotted keys, [N] or [NAME] after a key)"]),
    ("configs: [x.yaml, {name: x}]\nclusters: [a.yaml]\nworkloads: [w.yaml]\n",
     ["3: configs[1]: the name 'x' is taken by configs[0]; give one a name:"]),
    ("kind: Scenario\n", ["1: not a sweep (kind Scenario): expected apiVersion: kschedctl/v1, kind: Sweep"]),
])
def test_problems_are_reported_with_their_lines(body: str, errors: list[str]) -> None:
    text = body if body.startswith("kind:") else HEAD + body
    sweep, findings = parse_sweep(text, "s.yaml")
    assert sweep is None
    assert [f"{f.line}: {f.message}" for f in findings] == errors


@pytest.mark.parametrize(("path", "parts"), [
    ("percentageOfNodesToScore", ["percentageOfNodesToScore"]),
    ("profiles[0].plugins.score.enabled[NodeResourcesFit].weight",
     ["profiles", 0, "plugins", "score", "enabled", ("NodeResourcesFit",), "weight"]),
])
def test_parse_path(path: str, parts: list) -> None:
    assert parse_path(path) == parts


def test_settings_create_what_is_missing_and_find_profiles_by_scheduler_name() -> None:
    doc = {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "LeastAllocated"}}}]}]}
    out = apply_settings(doc, (
        ("profiles[default-scheduler].pluginConfig[NodeResourcesFit].args.scoringStrategy.type", "MostAllocated"),
        ("profiles[default-scheduler].plugins.score.enabled[ImageLocality].weight", 5),
        ("percentageOfNodesToScore", 30)))
    assert out == {"percentageOfNodesToScore": 30, "profiles": [{
        "pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}}],
        "plugins": {"score": {"enabled": [{"name": "ImageLocality", "weight": 5}]}}}]}
    assert doc["profiles"][0]["pluginConfig"][0]["args"]["scoringStrategy"]["type"] == "LeastAllocated"
    with pytest.raises(ValueError, match=r"there is no item \[3\]"):
        apply_settings(doc, (("profiles[3].x", 1),))
    with pytest.raises(ValueError, match="is a key, but what is there is not a mapping"):
        apply_settings({"a": [1]}, (("a.b", 1),))


def test_a_matrix_too_big_to_run_is_refused_before_it_is_built() -> None:
    values = ", ".join(str(i) for i in range(100))
    sweep, findings = parse(f"""
        configs:
          - vary: {{a: [{values}], b: [{values}], c: [{values}]}}
        clusters: [a.yaml]
        workloads: [w.yaml]
        """)
    assert sweep is None
    assert [(f.line, f.message) for f in findings] == [
        (4, "the matrix has 1,000,000 cells (1,000,000 configurations x 1 clusters x 1 workloads x 1 repetitions); "
            "at most 100,000 are run")]


def test_variations_ending_alike_are_named_by_their_whole_paths() -> None:
    sweep, findings = parse("""
        configs:
          - vary:
              profiles[a].plugins.score.enabled[ImageLocality].weight: [1]
              profiles[a].plugins.score.enabled[TaintToleration].weight: [2]
        clusters: [a.yaml]
        workloads: [w.yaml]
        """)
    assert findings == []
    assert [c.name for c in sweep.configs] == [
        "default[profiles[a].plugins.score.enabled[ImageLocality].weight=1,"
        "profiles[a].plugins.score.enabled[TaintToleration].weight=2]"]


def test_what_ifs_are_an_axis_over_the_clusters() -> None:
    sweep, findings = parse("""
        configs: [{name: default}]
        clusters: [a.yaml, b.yaml]
        workloads: [w.yaml]
        whatIfs:
          - name: as-is
          - drain: [node-a1]
          - {name: bigger, addNodes: {count: 2, like: node-a1, labels: {pool: spare}}}
          - notReady: [zone=a]
        """)
    assert findings == []
    assert [c.name for c in sweep.clusters] == ["a[as-is]", "a[drain node-a1]", "a[bigger]", "a[not-ready -l zone=a]",
                                                "b[as-is]", "b[drain node-a1]", "b[bigger]", "b[not-ready -l zone=a]"]
    assert sweep.clusters[0].what_if == "" and sweep.clusters[0].files == ("/work/sweeps/a.yaml",)
    assert '"drain": ["node-a1"]' in sweep.clusters[1].what_if
    assert len(sweep.cells()) == 8
