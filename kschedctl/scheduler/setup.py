"""What ``explain`` and ``simulate`` build once per cluster state and configuration.

Both answer questions about one cluster state under one ``KubeSchedulerConfiguration``: the
snapshot (NodeInfos and image summaries), the configured extenders, and for each profile the
plugin config the framework is built from (with the extenders' ignored resources folded into
NodeResourcesFit, as upstream's ``buildExtenders`` does) are the same for both, so they are
built here, once.
"""

from __future__ import annotations

import dataclasses
import gc
from typing import Any, Iterable

from kschedctl.config import load_config
from kschedctl.errors import UsageError
from kschedctl.framework.extender import build_extenders, ignored_extended_resources, with_ignored_resources
from kschedctl.framework.snapshot import Snapshot
from kschedctl.framework.types import DEFAULT_SCHEDULER_NAME, PodInfo



def load_default_config() -> Any:
    """The built-in default configuration (what kube-scheduler runs with no --config)."""
    return load_config(None)


class SchedulingSetup:
    """The snapshot, extenders and profiles shared by ``Explainer`` and ``Simulator``.

    ``config`` defaults to the built-in configuration, ``registry`` to the built-in plugins;
    ``extenders=False`` leaves the configured extenders uncalled (``--no-extenders``) and counts
    them in ``skipped_extenders``.
    """

    def __init__(
        self,
        cluster: Any,
        config: Any = None,
        registry: Any = None,
        seed: int | None = None,
        pod_infos: Iterable[PodInfo] | None = None,
        extenders: bool = True,
    ) -> None:
        if config is None:
            config = load_default_config()
        if registry is None:
            from kschedctl.plugins.registry import default_registry

            registry = default_registry()
        self.cluster = cluster
        self.config = config
        self.registry = registry
        self.seed = seed
        # Configured extenders are called over HTTP(S) unless disabled (--no-extenders).
        extender_configs = list(getattr(config, "extenders", None) or ())
        self.extenders = build_extenders(extender_configs, getattr(config, "source", None)) if extenders else []
        ignored = ignored_extended_resources(extender_configs) if extenders else []
        # Upstream buildExtenders makes every profile's NodeResourcesFit ignore the extenders'
        # ignoredByScheduler resources (and refuses to start if a profile has no such args).
        self._ignoring_plugin_config = {
            p.scheduler_name: with_ignored_resources(p.plugin_config, ignored, p.scheduler_name)
            for p in config.profiles} if ignored else {}
        self.skipped_extenders = 0 if extenders else len(extender_configs)
        was_enabled = gc.isenabled()
        gc.disable()  # building 100,000s of long-lived objects: collecting meanwhile only costs
        try:
            if pod_infos is None:
                pod_infos = [PodInfo(p) for p in getattr(cluster, "pods", ())]
            self.cluster_pod_infos = list(pod_infos)
            self.snapshot = Snapshot(getattr(cluster, "nodes", ()), self.cluster_pod_infos)
        finally:
            if was_enabled:
                gc.enable()

    # -- profiles -----------------------------------------------------------------------------
    def profile_names(self) -> list[str]:
        return [p.scheduler_name for p in self.config.profiles]

    def profile(self, name: str) -> Any:
        """Profile ``name`` as its framework is built from it."""
        profile = next((p for p in self.config.profiles if p.scheduler_name == name), None)
        if profile is None:
            raise UsageError(f'no profile with scheduler name "{name}" in the configuration '
                             f"(profiles: {', '.join(self.profile_names())})")
        if name in self._ignoring_plugin_config:
            profile = dataclasses.replace(profile, plugin_config=self._ignoring_plugin_config[name])
        return profile

    def not_handled_reason(self, pod_info: PodInfo, profile: str | None = None) -> str | None:
        """Why kube-scheduler with this configuration would never queue ``pod_info`` (its
        ``spec.schedulerName`` names no profile; upstream's informer filter drops such pods), or
        None when it would. ``profile`` given means the user picked the profile: always handled."""
        name = pod_info.scheduler_name or DEFAULT_SCHEDULER_NAME
        names = self.profile_names()
        if profile or name in names:
            return None
        return (f'no profile of the configuration serves scheduler "{name}" (profiles: {", ".join(names)}); '
                "kube-scheduler leaves the pod to that scheduler")

    def pick_profile(self, pod_info: PodInfo, profile: str | None = None) -> str:
        """The profile that schedules ``pod_info``: ``profile`` when given, else the one its
        ``spec.schedulerName`` names (upstream frameworkForPod)."""
        names = self.profile_names()
        if profile:
            if profile not in names:
                raise UsageError(f'no profile with scheduler name "{profile}" in the configuration '
                                 f"(profiles: {', '.join(names)})")
            return profile
        name = pod_info.scheduler_name or DEFAULT_SCHEDULER_NAME
        if name not in names:
            raise UsageError(f'pod {pod_info.key} asks for scheduler "{name}", which no profile of the '
                             f"configuration serves (profiles: {', '.join(names)}); pick one with --profile")
        return name

    def skipped_extenders_warning(self) -> str | None:
        if not self.skipped_extenders:
            return None
        return (f"{self.skipped_extenders} configured extender(s) skipped (--no-extenders): "
                f"kube-scheduler would call them")


def build_framework(cls: Any, profile: Any, registry: Any, handle: Any) -> Any:
    """``cls.from_profile`` with the profile's plugins expanded as upstream expands multiPoint."""
    from kschedctl.config.expand import expand_plugins

    return cls.from_profile(profile, registry, handle, expanded=expand_plugins(profile, registry.points_of))
