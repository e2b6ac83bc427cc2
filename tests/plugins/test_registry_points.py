"""Every registered plugin has the method of each extension point the registry says it extends:
configuration validation trusts ``points_of``, and the framework refuses a plugin lacking the
method of a point it is configured at (upstream's NewFramework does), so a gap would reach users
as a start-up failure of a valid configuration."""

from __future__ import annotations

import pytest

from kschedctl.framework.interfaces import EXTENSION_POINT_METHODS
from kschedctl.plugins.registry import Registry

REGISTRY = Registry()


@pytest.mark.parametrize("name", REGISTRY.names())
def test_plugin_has_the_method_of_each_point_it_extends(name: str) -> None:
    cls = REGISTRY.load(name)
    points = REGISTRY.points_of(name)
    assert points, name
    assert [p for p in points if not callable(getattr(cls, EXTENSION_POINT_METHODS[p], None))] == []
