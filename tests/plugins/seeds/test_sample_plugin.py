"""sample-plugin: passes every pod at PreFilter, Filter and PreBind; its args and their schema."""

from __future__ import annotations

from kschedctl.framework.cycle_state import CycleState
from kschedctl.framework.status import Code
from kschedctl.plugins.loader import args_errors
from kschedctl.plugins.seeds.sample_plugin import SamplePlugin
from tests.plugins.harness import build, pod_info, run_filters

NODES = [{"metadata": {"name": "node01"}}, {"metadata": {"name": "node02"}}]
ARGS = {"favorite_color": "#326CE5", "favorite_number": 7, "thanks_to": "tanjunchen"}


def test_passes_every_pod_and_keeps_its_args() -> None:
    env = build(NODES)
    plugin = SamplePlugin(ARGS, env.handle)
    assert (plugin.favorite_color, plugin.favorite_number, plugin.thanks_to) == ("#326CE5", 7, "tanjunchen")
    pod = pod_info({"metadata": {"name": "test-scheduler-6d779d9465-vsvxh"}})
    verdicts = run_filters(plugin, pod, env)
    assert all(s is None or s.code == Code.Success for s in verdicts.values())
    assert plugin.pre_bind(CycleState(), pod, "node02").code == Code.Success
    assert plugin.seen == [
        "prefilter pod: test-scheduler-6d779d9465-vsvxh",
        "filter pod: test-scheduler-6d779d9465-vsvxh, node: node01",
        "filter pod: test-scheduler-6d779d9465-vsvxh, node: node02",
        "prebind node info: node02",
    ]


def test_pre_bind_to_a_node_not_in_the_snapshot() -> None:
    env = build(NODES)
    status = SamplePlugin(None, env.handle).pre_bind(CycleState(), pod_info({}), "gone")
    assert status.code == Code.Error
    assert status.reasons == ['prebind get node: gone info error: nodeinfo not found for node name "gone"']


def test_args_schema() -> None:
    assert args_errors(SamplePlugin, ARGS, "args") == []
    assert args_errors(SamplePlugin, None, "args") == []
    errors = args_errors(SamplePlugin, {"favorite_number": "seven", "favorColor": "#326CE5"}, "args")
    assert [(f, t) for f, t, _ in errors] == [("args.favorColor", "Invalid"), ("args.favorite_number", "Invalid")]
    assert errors[0][2] == 'unknown field "args.favorColor"'
    assert "favorColor" in errors[0][2]
