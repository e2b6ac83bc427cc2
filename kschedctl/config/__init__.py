"""KubeSchedulerConfiguration in, effective profiles out: decode, defaults, validation."""
