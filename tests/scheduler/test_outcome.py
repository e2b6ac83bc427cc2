"""Outcomes are one ``StrEnum``: results carry its members, and JSON and YAML print the plain word."""

from __future__ import annotations

import json

import pytest
import yaml

from kschedctl.render.output import dump
from kschedctl.scheduler.outcome import Outcome
from kschedctl.scheduler.simulate import simulate
from tests.framework.fakes import make_node
from tests.scheduler.test_simulate import cluster, pod


def test_members_are_their_words() -> None:
    assert [str(o) for o in Outcome] == ["Scheduled", "Unschedulable", "Rejected", "Gated", "Waiting", "Error",
                                         "Preempted", "NotHandled", "Pending"]
    assert Outcome.SCHEDULED == "Scheduled" and f"{Outcome.NOT_HANDLED}" == "NotHandled"


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_output_prints_plain_words_as_before(fmt: str) -> None:
    # one pod fits, one does not: the result holds Outcome members, the output plain strings
    result = simulate([pod("fits", "1"), pod("too-big", "64")], cluster([make_node("a")]), None, seed=1)
    assert [type(p.outcome) for p in result.placements] == [Outcome, Outcome]
    data = result.to_dict()
    plain = json.loads(json.dumps(data))  # every Outcome turned into the str it spells
    assert dump(data, fmt) == dump(plain, fmt)
    text = dump(data, fmt)
    assert "!!python" not in text and "Outcome" not in text
    back = json.loads(text) if fmt == "json" else yaml.safe_load(text)
    assert [p["outcome"] for p in back["placements"]] == ["Scheduled", "Unschedulable"]
