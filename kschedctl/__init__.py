"""kschedctl: a what-if tool for the Kubernetes scheduler (kube-scheduler v1.34)."""

__version__ = "0.1.0"

#: The upstream release whose behaviour kschedctl reproduces.
UPSTREAM_VERSION = "v1.34"
