"""The node what-if flags (``--without-node``, ``--cordon``, ``--drain``, ``--add-nodes``, ...) as
the core's edits. The edits apply in a fixed order: nodes are added first (so that ``--like`` may
name a node another flag removes), then removed, cordoned and drained."""

from __future__ import annotations

from typing import Any


#: The flags naming nodes to remove, cordon or drain (each a list of names or selectors).
_NODE_FLAGS = ("without_node", "without_nodes", "cordon", "drain")


def what_if_of(options: Any) -> Any:
    """The ``WhatIf`` of the flags of ``options`` (a ``CommandInputs`` or any object with the
    flags as attributes); ``UsageError`` naming the flag when one is malformed or misused."""
    from kschedctl.errors import InputError, UsageError
    from kschedctl.analyses.what_if import WhatIf

    edits: list[Any] = []
    add_nodes, like = getattr(options, "add_nodes", None), getattr(options, "like", None)
    labels, taints = getattr(options, "set_label", None) or [], getattr(options, "taint", None) or []
    if add_nodes is None and not like and not labels and not taints and not any(
            getattr(options, flag, None) for flag in ("drain_force", *_NODE_FLAGS)):
        return WhatIf(edits)  # no what-if: the edits are not even imported
    from kschedctl.cluster.edits import AddNodes, Cordon, Drain, NodeTarget, RemoveNodes, parse_label, parse_taint
    if add_nodes is None and (like or labels or taints):
        used = [flag for flag, value in (("--like", like), ("--set-label", labels), ("--taint", taints)) if value]
        verb = "describes" if len(used) == 1 else "describe"
        raise UsageError(f"{', '.join(used)} {verb} the nodes --add-nodes N adds: add --add-nodes")
    if getattr(options, "drain_force", False) and not getattr(options, "drain", None):
        raise UsageError("--drain-force goes with --drain")

    def parsed(flag: str, value: str, parse: Any) -> Any:
        try:
            return parse(value)
        except InputError as exc:
            message = exc.message
            for echo in (f"{value}: ", f"taint {value!r}: ", f"label {value!r}: "):
                message = message.removeprefix(echo)
            raise UsageError(f"{flag} {value}: {message}") from None

    if add_nodes is not None:
        if not like:
            raise UsageError("--add-nodes N needs --like NODE: the node the new ones copy")
        from kschedctl.limits import ADD_NODES_MAX

        if not 1 <= add_nodes <= ADD_NODES_MAX:
            raise UsageError(f"--add-nodes {add_nodes}: must be between 1 and {ADD_NODES_MAX:,} "
                             "(the limit on nodes added per run)")
        label_pairs = tuple(parsed("--set-label", text, parse_label) for text in labels)
        if any(value is None for _, value in label_pairs):
            raise UsageError("--set-label takes KEY=VALUE (new nodes have no label to remove)")
        for text in taints:
            parsed("--taint", text, parse_taint)
        edits.append(AddNodes(like, add_nodes, label_pairs, tuple(taints), origin=f"--like {like}"))
    for name in getattr(options, "without_node", None) or ():
        edits.append(RemoveNodes(parsed("--without-node", name, lambda t: NodeTarget.parse(t, selector=False)),
                                 origin=f"--without-node {name}"))
    for text in getattr(options, "without_nodes", None) or ():
        edits.append(RemoveNodes(parsed("--without-nodes", text, lambda t: NodeTarget.parse(t, selector=True)),
                                 origin=f"--without-nodes {text}"))
    for text in getattr(options, "cordon", None) or ():
        edits.append(Cordon(parsed("--cordon", text, NodeTarget.parse), origin=f"--cordon {text}"))
    for text in getattr(options, "drain", None) or ():
        edits.append(Drain(parsed("--drain", text, NodeTarget.parse),
                           force=bool(getattr(options, "drain_force", False)), origin=f"--drain {text}"))
    return WhatIf(edits)
