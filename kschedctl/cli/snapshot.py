"""``kschedctl snapshot``: the live cluster's scheduling-relevant objects, as fixtures ``--cluster`` reads back."""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from kschedctl.cli.app import app
from kschedctl.cli.options import ContextOption, KubeconfigOption, QuietOption, RequestTimeoutOption


class SnapshotFormat(str, Enum):
    yaml = "yaml"
    json = "json"


_EPILOG = """Example: save the cluster's scheduling-relevant objects, then ask questions offline.

  $ kschedctl snapshot -o json --file prod.json
  $ kschedctl explain new-deployment.yaml --cluster prod.json
"""


@app.command(epilog=_EPILOG)
def snapshot(
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    output: Annotated[SnapshotFormat, typer.Option(
        "--output", "-o", help="yaml: one document per object; json: one kind: List.",
        case_sensitive=False)] = SnapshotFormat.yaml,
    file: Annotated[Optional[Path], typer.Option(
        "--file", metavar="FILE", help="Write the snapshot to this file instead of standard output.", dir_okay=False)] = None,
    namespace: Annotated[Optional[list[str]], typer.Option(
        "--namespace", "-n", metavar="NAME", help="Only this namespace's namespaced objects (repeatable; default: all).")] = None,
    quiet: QuietOption = False,
    request_timeout: RequestTimeoutOption = None,
) -> None:
    """Print the live cluster's scheduling-relevant objects (nodes, pods, volumes, priority classes,
    disruption budgets, workloads' selectors, ...) as YAML or JSON that --cluster reads back with the
    same results. Cleaned of managedFields, resourceVersion and other noise; containers lose env,
    envFrom, command, args, lifecycle hooks and probe commands, paths and headers, volumes their
    URLs, addresses, credentials, options and CSI attributes, StorageClasses their parameters,
    device configurations their opaque parameters, claims their device data (never read by the
    scheduler, often secret; the YAML header lists them); Secrets are never read. --file is
    written with mode 0600."""
    from kschedctl.cli.live import print_warnings, read_live_objects
    from kschedctl.errors import EXIT_OK, UsageError

    namespaces = [n for n in namespace or () if n]
    for ns in namespaces:
        if "/" in ns:
            raise UsageError(f"--namespace {ns}: not a namespace name")
    from kschedctl.cli.options import request_timeout_seconds

    live = read_live_objects(kubeconfig, context, quiet, namespaces=namespaces or None,
                             request_timeout=request_timeout_seconds(request_timeout))
    warnings = list(live.warnings)
    if namespaces:
        warnings.append("the snapshot holds only the pods of namespace(s) " + ", ".join(sorted(set(namespaces)))
                        + ": nodes will look emptier than they are")
    text = render_snapshot(live, output.value, warnings)
    if file is not None:
        from kschedctl.atomic import write_text_atomic

        write_text_atomic(file, text, private=True)  # a cluster's inventory: readable by its owner only
    else:
        sys.stdout.write(text)
    if not quiet:
        print_warnings(warnings)
        counts = ", ".join(f"{n} {kind}" for kind, n in live.counts().items())
        if file is not None:
            from kschedctl.printable import message_line

            typer.echo(message_line(f"wrote {file}: {counts or 'no objects'}"), err=True)
    raise typer.Exit(EXIT_OK)


def render_snapshot(live: Any, fmt: str, warnings: list[str]) -> str:
    """The snapshot text: YAML documents under a comment header, or one JSON ``List``.

    Fields a v1.34 client does not know (a newer API server's) are left out, as kube-scheduler
    v1.34's informers leave them out, so that the file reads back under --validate=strict.
    """
    from kschedctl.inputs.fields import drop_unknown_fields

    objects = live.all()
    dropped: dict[str, int] = {}
    for obj in objects:
        for unknown in drop_unknown_fields(obj):
            name = f"{obj.get('kind')} {unknown.dotted}"
            dropped[name] = dropped.get(name, 0) + 1
    if dropped:
        shown = ", ".join(f"{name} ({n})" if n > 1 else name for name, n in list(dropped.items())[:5])
        more = f" and {len(dropped) - 5} more" if len(dropped) > 5 else ""
        warnings.append(f"fields kube-scheduler v1.34 does not know (a newer API server's) were left out, as its "
                        f"client leaves them out: {shown}{more}")
    if fmt == "json":
        from kschedctl.render.output import to_json

        return to_json({"apiVersion": "v1", "kind": "List", "metadata": {}, "items": objects}) + "\n"
    from kschedctl.printable import printable
    from kschedctl.render.output import to_yaml_documents

    taken = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    header = [
        f"# kschedctl snapshot of {live.source}, taken {taken}",
        "# Read it back with: kschedctl explain POD --cluster THIS_FILE",
    ]
    counts = ", ".join(f"{n} {kind}" for kind, n in live.counts().items())
    header.append(f"# {counts or 'no objects'}")
    from kschedctl.inputs.strip import REDACTED

    header.append(f"# Left out (kube-scheduler v1.34 never reads them; secrets end up there): {REDACTED}")
    header.extend(f"# warning: {w}" for w in warnings)
    # the objects' strings as -o yaml writes them (a value holding ##[ or :: cannot act on a CI log)
    body = to_yaml_documents(objects) if objects else ""
    return "\n".join(printable(line) for line in header) + "\n" + body
