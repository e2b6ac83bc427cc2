"""The cluster state's own changes, below the scheduler: what-if edits (drain, cordon, taints,
labels, nodes added or removed, the eviction API's budgets; ``edits``) and what controllers make
of a workload (a Deployment's replicas, a StatefulSet's ordinals and claims, a DaemonSet's pod
per node; ``replicas``). Nothing here schedules: it reads and writes ``ClusterState``.
"""
