"""Plugins from the seed articles (blog posts about writing scheduler plugins), in Python.

``PodCapacityOfNode`` scores nodes by their free pod slots; ``sample-plugin`` is the article's
sample with its three args that lets every pod through. Out-of-tree like the scheduler-plugins
ports: always known, imported when a profile enables them.
"""

from __future__ import annotations

#: name -> ("module:Class", extension points in config spelling, pipeline order).
SEED_PLUGINS: dict[str, tuple[str, tuple[str, ...]]] = {
    "PodCapacityOfNode": ("kschedctl.plugins.seeds.pod_capacity_of_node:PodCapacityOfNode", ("score",)),
    "sample-plugin": ("kschedctl.plugins.seeds.sample_plugin:SamplePlugin", ("preFilter", "filter", "preBind")),
}
