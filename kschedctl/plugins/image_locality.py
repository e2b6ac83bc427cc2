"""ImageLocality: favour nodes that already hold the pod's container images.

Upstream: pkg/scheduler/framework/plugins/imagelocality/image_locality.go (release-1.34).
For every init and app container, and every image volume (``volumes[].image.reference``, since
upstream PR #130231), whose image (normalized) is in the node's image states, the image's size
scaled by its spread (nodes having it / all nodes in the snapshot) is summed, truncated to an
integer per image. The sum is clamped to [23 MiB, 1000 MiB x containers] and mapped linearly
onto [0, 100]; image volumes add to the sum but not to the container count, as in v1.34 (upstream
changed that only later, PR #138951). There is no NormalizeScore.
Image names: the pod's image gets ":latest" when it has no tag (its last ":" is not after its
last "/"; digests keep their form). Nothing else is normalized: no "docker.io/library/" prefix
is added or removed, exactly as upstream, so "nginx" in a pod does not match
"docker.io/library/nginx:latest" in node status. Node image names are used as listed.
Differences from upstream: none known.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kschedctl.framework.interfaces import MAX_NODE_SCORE, Plugin
from kschedctl.framework.status import Status
from kschedctl.plugins import names
from kschedctl.plugins.facts import PluginFacts

if TYPE_CHECKING:  # pragma: no cover - typing only
    from kschedctl.framework.cycle_state import CycleState
    from kschedctl.framework.types import NodeInfo, PodInfo

NAME = names.IMAGE_LOCALITY

MB = 1024 * 1024
#: Bounds of the summed image score (upstream minThreshold and maxContainerThreshold).
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB

#: CycleState key of the per-pod facts computed on the first Score call of a cycle.
STATE_KEY = "Score" + NAME


class ImageLocality(Plugin):
    """Score: image sizes already on the node, scaled by how widely each image has spread."""

    name = NAME

    def score(self, state: "CycleState", pod_info: "PodInfo", node_info: "NodeInfo") -> tuple[int, Status | None]:
        try:
            images, num_containers, total_nodes = state.read(STATE_KEY)
        except KeyError:
            # Upstream has no PreScore here; the per-pod facts are computed once per cycle instead.
            images, num_containers = pod_images(pod_info.pod)
            total_nodes = self._total_num_nodes()
            state.write(STATE_KEY, (images, num_containers, total_nodes))
        image_states = node_info.image_states
        total = 0
        if image_states:
            for image in images:
                summary = image_states.get(image)
                if summary is not None:
                    total += scaled_image_score(summary.size, summary.num_nodes, total_nodes)
        return calculate_priority(total, num_containers), None

    def _total_num_nodes(self) -> int:
        snapshot = self.handle.snapshot() if self.handle is not None else None
        if snapshot is None:
            return 0
        return len(snapshot.node_infos())


def normalized_image_name(name: str) -> str:
    """Upstream ``normalizedImageName``: append ":latest" when the image has no tag."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def pod_images(pod: dict) -> tuple[tuple[str, ...], int]:
    """The pod's normalized images (init containers, containers, then image volumes; duplicates
    kept, as upstream sums them once per container) and its number of init + app containers."""
    spec = pod.get("spec") or {}
    containers = list(spec.get("initContainers") or ()) + list(spec.get("containers") or ())
    images = [normalized_image_name((c or {}).get("image") or "") for c in containers]
    for volume in spec.get("volumes") or ():
        image = (volume or {}).get("image")
        if image is not None:
            images.append(normalized_image_name(image.get("reference") or ""))
    return tuple(images), len(containers)


def scaled_image_score(size: int, num_nodes: int, total_num_nodes: int) -> int:
    """An image's size scaled by its spread, truncated as upstream's float64 -> int64 conversion."""
    if total_num_nodes <= 0:
        return 0
    spread = float(num_nodes) / float(total_num_nodes)
    return int(float(size) * spread)


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """Clamp ``sum_scores`` to [MIN_THRESHOLD, MAX_CONTAINER_THRESHOLD x containers] and map it
    linearly onto [0, MAX_NODE_SCORE] (integer division; both operands are non-negative)."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    denominator = max_threshold - MIN_THRESHOLD
    if denominator <= 0:
        return 0
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // denominator


# -- facts --------------------------------------------------------------------------------------


FACTS = PluginFacts(
    name=ImageLocality.name,
    points=("score",),
    # Only node events (or updates of the pod itself) can help; a batch has none.
    events={},
    node_local=frozenset({"score"}),
    # Score reads the pod and the node object (and the images spread, taken with the snapshot)
    object_local=frozenset({"score"}),
    default_weight=1,
)
