"""PodInfo, NodeInfo, HostPortInfo and affinity terms (upstream framework types_test.go facts)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kschedctl.framework.types import (
    AffinityTerm,
    HostPortInfo,
    ImageStateSummary,
    NodeInfo,
    PodInfo,
    WeightedAffinityTerm,
)
from kschedctl.k8s.resources import Resource

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "node_info.yaml").read_text())


def _params(section: str, prefix: str) -> list:
    return [pytest.param(c, id=f"{prefix}_{c['name']}") for c in CASES[section]]


@pytest.mark.parametrize("case", _params("host_ports_add_remove", "HostPortInfo_AddRemove"))
def test_host_port_add_remove(case: dict) -> None:
    hp = HostPortInfo()
    for protocol, ip, port in case["added"]:
        hp.add(ip, protocol, port)
    for protocol, ip, port in case["removed"]:
        hp.remove(ip, protocol, port)
    assert len(hp) == case["length"]


@pytest.mark.parametrize("case", _params("host_ports_check", "HostPortInfo_Check"))
def test_host_port_check(case: dict) -> None:
    hp = HostPortInfo()
    for protocol, ip, port in case["added"]:
        hp.add(ip, protocol, port)
    protocol, ip, port = case["check"]
    assert hp.check_conflict(ip, protocol, port) is case["expect"]


# --- builders (like upstream's MakePod) ----------------------------------------------------------


def make_pod(
    name: str,
    *,
    uid: str | None = None,
    ns: str = "default",
    cpu: str | None = None,
    mem: str | None = None,
    ports: list[tuple[str, str, int]] = (),  # (hostIP, protocol, hostPort)
    **spec: object,
) -> dict:
    requests = {k: v for k, v in (("cpu", cpu), ("memory", mem)) if v is not None}
    container: dict = {"name": "c", "resources": {"requests": requests}}
    if ports:
        container["ports"] = [
            {"hostIP": ip, "protocol": proto, "hostPort": port, "containerPort": port} for ip, proto, port in ports
        ]
    meta = {"name": name, "namespace": ns}
    if uid is not None:
        meta["uid"] = uid
    return {"metadata": meta, "spec": {"containers": [container], **spec}}


# --- PodInfo -------------------------------------------------------------------------------------


def test_pod_info_basic_attributes() -> None:
    pod = make_pod("p", uid="u", ns="ns", cpu="1", mem="1Gi", priority=7, nodeName="n1", tolerations=[{"key": "k"}])
    pod["metadata"]["labels"] = {"app": "x"}
    pod["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    pod["status"] = {"nominatedNodeName": "n2", "startTime": "2024-01-01T00:00:00Z"}
    pi = PodInfo(pod)
    assert (pi.name, pi.namespace, pi.key, pi.uid) == ("p", "ns", "ns/p", "u")
    assert pi.labels == {"app": "x"} and pi.priority == 7
    assert (pi.scheduler_name, pi.node_name, pi.nominated_node_name) == ("default-scheduler", "n1", "n2")
    assert pi.is_terminating and pi.start_time == "2024-01-01T00:00:00Z"
    assert pi.requests == Resource(milli_cpu=1000, memory=1 << 30)
    assert (pi.non_zero_milli_cpu, pi.non_zero_memory) == (1000, 1 << 30)
    assert pi.tolerations == [{"key": "k"}]
    assert pi.parse_error is None and not pi.has_affinity


def test_pod_info_defaults() -> None:
    pi = PodInfo({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}})
    assert (pi.namespace, pi.uid, pi.priority, pi.node_name, pi.nominated_node_name) == ("", "", 0, "", "")
    assert pi.labels == {} and pi.tolerations == [] and pi.host_ports == [] and pi.pvc_names == []
    assert not pi.is_terminating and pi.start_time is None
    assert (pi.non_zero_milli_cpu, pi.non_zero_memory) == (100, 200 * 1024 * 1024)


def test_host_ports_include_sidecars_first_and_skip_plain_init_containers() -> None:
    pod = make_pod("p", ports=[("", "TCP", 80), ("", "", 0)])
    pod["spec"]["initContainers"] = [
        {"name": "init", "ports": [{"hostPort": 81, "containerPort": 81}]},
        {"name": "sidecar", "restartPolicy": "Always", "ports": [{"hostPort": 82, "protocol": "UDP", "containerPort": 82}]},
    ]
    assert PodInfo(pod).host_ports == [("", "UDP", 82), ("", "TCP", 80)]


def test_pvc_names_and_keys() -> None:
    pod = make_pod("p", ns="ns", volumes=[{"name": "a", "persistentVolumeClaim": {"claimName": "c1"}}, {"name": "b", "emptyDir": {}}])
    pi = PodInfo(pod)
    assert pi.pvc_names == ["c1"] and pi.pvc_keys == ["ns/c1"]


def _affinity_pod(**affinity: object) -> dict:
    pod = make_pod("p", ns="ns1")
    pod["spec"]["affinity"] = affinity
    return pod


def test_affinity_terms_are_compiled() -> None:
    term = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}
    pod = _affinity_pod(
        podAffinity={
            "requiredDuringSchedulingIgnoredDuringExecution": [term],
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 5, "podAffinityTerm": {**term, "namespaces": ["a", "b"]}}
            ],
        },
        podAntiAffinity={
            "requiredDuringSchedulingIgnoredDuringExecution": [{**term, "namespaceSelector": {}}],
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 3, "podAffinityTerm": {**term, "namespaceSelector": {"matchLabels": {"team": "x"}}}}
            ],
        },
    )
    pi = PodInfo(pod)
    assert pi.has_affinity and pi.has_required_anti_affinity and pi.parse_error is None
    (req,) = pi.required_affinity_terms
    assert isinstance(req, AffinityTerm) and req.namespaces == {"ns1"} and req.topology_key == "zone"
    (pref,) = pi.preferred_affinity_terms
    assert isinstance(pref, WeightedAffinityTerm) and pref.weight == 5 and pref.namespaces == {"a", "b"}
    (anti,) = pi.required_anti_affinity_terms
    assert anti.namespaces == set()  # a namespace selector is given: no implicit own namespace
    (pref_anti,) = pi.preferred_anti_affinity_terms
    assert pref_anti.weight == 3

    db_same_ns = PodInfo({"metadata": {"name": "d", "namespace": "ns1", "labels": {"app": "db"}}, "spec": {}})
    db_other_ns = PodInfo({"metadata": {"name": "d", "namespace": "ns2", "labels": {"app": "db"}}, "spec": {}})
    web = PodInfo({"metadata": {"name": "w", "namespace": "ns1", "labels": {"app": "web"}}, "spec": {}})
    assert req.matches(db_same_ns, None) and not req.matches(db_other_ns, {}) and not req.matches(web, None)
    assert anti.matches(db_other_ns, {"any": "thing"})  # empty namespace selector: every namespace
    assert pref_anti.matches(db_other_ns, {"team": "x"}) and not pref_anti.matches(db_other_ns, {"team": "y"})
    assert pref.matches(PodInfo({"metadata": {"name": "d", "namespace": "b", "labels": {"app": "db"}}}), None)


def test_term_without_label_selector_matches_nothing() -> None:
    pod = _affinity_pod(podAffinity={"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone"}]})
    (term,) = PodInfo(pod).required_affinity_terms
    assert not term.matches(PodInfo(make_pod("x", ns="ns1")), None)


def test_invalid_selector_sets_parse_error_and_drops_terms() -> None:
    bad = {"labelSelector": {"matchExpressions": [{"key": "a", "operator": "Bogus", "values": ["x"]}]}, "topologyKey": "z"}
    good = {"labelSelector": {}, "topologyKey": "z"}
    pod = _affinity_pod(podAffinity={"requiredDuringSchedulingIgnoredDuringExecution": [good, bad]})
    pi = PodInfo(pod)
    assert pi.required_affinity_terms == []
    assert pi.parse_error is not None and pi.parse_error.startswith("requiredAffinityTerms: ")

    pod = _affinity_pod(
        podAffinity={"requiredDuringSchedulingIgnoredDuringExecution": [bad]},
        podAntiAffinity={"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": bad}]},
    )
    err = PodInfo(pod).parse_error
    assert err is not None and err.startswith("[requiredAffinityTerms: ") and ", preferredAntiAffinityTerms: " in err
    assert err.endswith("]")


@pytest.mark.parametrize("affinity, namespaces, parse_error", [
    pytest.param({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone"}]}},
        {"ns1": {"ns1"}, "ns2": {"ns2"}}, None, id="own namespace per pod"),
    pytest.param({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "zone", "namespaces": ["x"]}]}},
        {"ns1": {"x"}, "ns2": {"x"}}, None, id="named namespaces"),
    pytest.param({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchExpressions": [{"key": "a", "operator": "Bogus"}]}, "topologyKey": "z"}]}},
        {}, "requiredAntiAffinityTerms: ", id="parse error"),
])
def test_pods_of_one_template_get_the_same_terms_in_their_own_namespace(
        affinity: dict, namespaces: dict, parse_error: str | None) -> None:
    # Terms are compiled once per template: every pod still gets its namespace, error and lists.
    infos = []
    for round_ in range(2):
        for ns in ("ns1", "ns2"):
            pod = make_pod(f"p{round_}", ns=ns)
            pod["spec"]["affinity"] = affinity
            infos.append((ns, PodInfo(pod)))
    for ns, info in infos:
        assert [t.namespaces for t in info.required_anti_affinity_terms] == ([namespaces[ns]] if namespaces else [])
        assert info.parse_error == parse_error or info.parse_error.startswith(parse_error)
    assert infos[0][1].required_anti_affinity_terms is not infos[2][1].required_anti_affinity_terms


# --- NodeInfo ------------------------------------------------------------------------------------


def _node(name: str = "n1", **allocatable: object) -> dict:
    return {
        "metadata": {"name": name, "labels": {"zone": "a"}},
        "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]},
        "status": {"allocatable": allocatable or {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }


def test_new_node_info_sums_pods() -> None:
    # upstream TestNewNodeInfo: two pods with requests and host ports on 127.0.0.1
    p1 = PodInfo(make_pod("test-1", uid="test-1", cpu="100m", mem="500", ports=[("127.0.0.1", "TCP", 80)]))
    p2 = PodInfo(make_pod("test-2", uid="test-2", cpu="200m", mem="1Ki", ports=[("127.0.0.1", "TCP", 8080)]))
    ni = NodeInfo(None, [p1, p2])
    assert ni.requested == Resource(milli_cpu=300, memory=1524)
    assert ni.non_zero_requested == Resource(milli_cpu=300, memory=1524)
    assert list(ni.used_ports) == [("127.0.0.1", "TCP", 80), ("127.0.0.1", "TCP", 8080)]
    assert ni.pods == [p1, p2] and ni.node is None and ni.name == ""
    assert ni.image_states == {} and ni.pvc_ref_counts == {}


def test_set_node() -> None:
    ni = NodeInfo()
    gen = ni.generation
    ni.set_node(_node())
    assert ni.name == "n1" and ni.labels == {"zone": "a"} and ni.taints[0]["key"] == "k"
    assert ni.allocatable == Resource(milli_cpu=4000, memory=8 << 30, allowed_pod_number=110)
    assert ni.generation > gen


def test_add_and_remove_pod() -> None:
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {}, "topologyKey": "z"}]}}
    vol = [{"name": "v", "persistentVolumeClaim": {"claimName": "claim"}}]
    p1 = PodInfo(make_pod("a", uid="1", cpu="1", ports=[("", "TCP", 80)], volumes=vol))
    p2 = PodInfo(make_pod("b", uid="2", mem="1Gi", affinity=anti, volumes=vol))
    p3 = PodInfo(make_pod("c", uid="3", cpu="500m"))
    ni = NodeInfo(_node(), [p1, p2, p3])
    assert ni.pods_with_affinity == [p2] and ni.pods_with_required_anti_affinity == [p2]
    assert ni.pvc_ref_counts == {"default/claim": 2}
    assert ni.requested == Resource(milli_cpu=1500, memory=1 << 30)
    assert ni.non_zero_requested == Resource(milli_cpu=1600, memory=(1 << 30) + 400 * 1024 * 1024)
    gen = ni.generation

    assert ni.remove_pod(p1)
    assert [p.name for p in ni.pods] == ["c", "b"]  # the last pod takes the removed one's place
    assert ni.requested == Resource(milli_cpu=500, memory=1 << 30)
    assert len(ni.used_ports) == 0 and ni.pvc_ref_counts == {"default/claim": 1}
    assert ni.generation > gen

    assert not ni.remove_pod(p1)  # already gone
    assert ni.remove_pod(p2)
    assert ni.pods_with_affinity == [] and ni.pods_with_required_anti_affinity == [] and ni.pvc_ref_counts == {}


def test_remove_pod_without_uid_matches_by_key() -> None:
    p = PodInfo(make_pod("a", cpu="1"))
    ni = NodeInfo(_node(), [p])
    assert ni.remove_pod(PodInfo(make_pod("a")))  # a fresh PodInfo for the same namespace/name
    assert ni.pods == [] and ni.requested.milli_cpu == 0


def test_clone_is_independent_but_shares_pod_infos() -> None:
    p1 = PodInfo(make_pod("a", uid="1", cpu="1", ports=[("", "TCP", 80)]))
    ni = NodeInfo(_node(), [p1])
    ni.image_states["img"] = ImageStateSummary(size=10, num_nodes=1)
    c = ni.clone()
    assert c.generation == ni.generation and c.pods[0] is p1 and c.image_states == ni.image_states
    c.add_pod(PodInfo(make_pod("b", uid="2", cpu="1", ports=[("", "TCP", 81)])))
    c.allocatable.milli_cpu = 1
    assert len(ni.pods) == 1 and ni.requested.milli_cpu == 1000 and len(ni.used_ports) == 1
    assert ni.allocatable.milli_cpu == 4000
    assert "n1" in repr(ni) and "'a'" in repr(ni)
