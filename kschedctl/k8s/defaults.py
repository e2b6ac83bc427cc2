"""Names the API server and kube-scheduler's configuration both default to.

Upstream: ``v1.DefaultSchedulerName`` (k8s.io/api/core/v1/types.go, release-1.34), written by the
API server into a pod's ``spec.schedulerName`` when it names none, and by the configuration's
defaulting into a profile without ``schedulerName``.
"""

from __future__ import annotations

__all__ = ["DEFAULT_SCHEDULER_NAME"]

DEFAULT_SCHEDULER_NAME = "default-scheduler"
