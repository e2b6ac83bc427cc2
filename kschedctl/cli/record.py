"""``kschedctl record``: watch a live cluster (read-only) and write what happens as a trace."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from kschedctl.cli.app import app
from kschedctl.cli.options import ContextOption, KubeconfigOption, QuietOption, RequestTimeoutOption

_EPILOG = """Example: an hour of the cluster's life, then what another profile would have done with it.

  $ kschedctl record --duration 1h -o trace.jsonl        # needs a live cluster
  $ kschedctl replay trace.jsonl -c profiles/bin-packing.yaml
"""


def _duration_seconds(value: Optional[str]) -> Optional[float]:
    if value is None:
        return None
    from kschedctl.errors import UsageError
    from kschedctl.k8s.duration import parse_go_duration

    text = value.strip()
    try:
        seconds = float(text) if text.replace(".", "", 1).isdigit() else parse_go_duration(text)
    except ValueError:
        raise UsageError(f"--duration {value}: not a duration (for example 90s, 30m, 1h)") from None
    if seconds <= 0:
        raise UsageError(f"--duration {value}: must be more than 0")
    return seconds


def _span(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


@app.command(epilog=_EPILOG)
def record(
    output: Annotated[Path, typer.Option(
        "--output", "-o", metavar="FILE", dir_okay=False,
        help="The trace file to write (JSON lines, kschedctl.io/trace/v1; written whole when the recording "
             "ends, mode 0600).")],
    duration: Annotated[Optional[str], typer.Option(
        "--duration", metavar="DURATION", help="How long to record (90s, 30m, 1h); default: until Ctrl-C.")] = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    quiet: QuietOption = False,
    request_timeout: RequestTimeoutOption = None,
) -> None:
    """Record a live cluster's scheduling life as a trace: list every scheduling-relevant object
    (as kschedctl snapshot does, cleaned the same way), then watch nodes, pods, PersistentVolumeClaims
    and PersistentVolumes from that list's resourceVersion (with bookmarks; a dropped connection is
    opened again, a 410 Gone lists again and records the difference), writing node changes, pod
    arrivals, bindings, nominations and deletions with their times. Only GET requests are sent.
    Ctrl-C ends the recording cleanly, with a valid trace. kschedctl replay reads it."""
    from kschedctl.atomic import writing_atomic
    from kschedctl.cli.live import print_warnings
    from kschedctl.cli.options import request_timeout_seconds
    from kschedctl.errors import EXIT_OK
    from kschedctl.inputs.kube import connect
    from kschedctl.inputs.recorder import Recorder
    from kschedctl.inputs.trace import encode
    from kschedctl.printable import message_line
    from kschedctl.render.progress import ListingProgress, progress_wanted

    seconds = _duration_seconds(duration)
    timeout = request_timeout_seconds(request_timeout)
    client = connect(None if kubeconfig is None else str(kubeconfig), context,
                     **({} if timeout is None else {"timeout": timeout}))
    interactive = progress_wanted(quiet)
    started = time.monotonic()
    try:
        with writing_atomic(output, private=True) as fh:  # a cluster's inventory: readable by its owner only
            def emit(line: dict) -> None:
                fh.write(encode(line) + "\n")

            recorder = Recorder(client, emit)
            try:
                with ListingProgress(interactive) as on_progress:
                    recorder.start(on_progress)
            except KeyboardInterrupt:
                from kschedctl.errors import UsageError

                raise UsageError("interrupted before the cluster was listed: no trace written") from None
            if not quiet:
                print_warnings(recorder.warnings)
                what = f"for {_span(seconds)}" if seconds else "until Ctrl-C"
                typer.echo(message_line(f"recording {client.server} {what} into {output}"), err=True)
            every = 10.0 if interactive else 60.0
            last = [time.monotonic()]
            warned = [len(recorder.warnings)]

            def tick() -> None:
                if not quiet and len(recorder.warnings) > warned[0]:  # a watch that had to stop
                    print_warnings(recorder.warnings[warned[0]:])
                    warned[0] = len(recorder.warnings)
                now = time.monotonic()
                if quiet or now - last[0] < every:
                    return
                last[0] = now
                typer.echo(f"recording: {_span(now - started)}"
                           + (f" of {_span(seconds)}" if seconds else "") + f", {_summary(recorder)}", err=True)

            until = None if seconds is None else recorder.clock() + seconds
            reason = recorder.run(until, on_tick=tick)
            recorder.finish(reason)
    finally:
        client.close()
    if not quiet:
        ended = "interrupted" if reason == "interrupted" else "done"
        typer.echo(message_line(f"{ended}: wrote {output} ({_span(time.monotonic() - started)}, "
                                f"{_summary(recorder)})"), err=True)
    raise typer.Exit(EXIT_OK)


def _summary(recorder: object) -> str:
    stats = recorder.stats  # type: ignore[attr-defined]
    by = stats.by_type
    parts = [f"{stats.events} events", f"{by.get('PodCreated', 0)} arrivals", f"{by.get('PodBound', 0)} bindings"]
    if stats.reconnects:
        parts.append(f"{stats.reconnects} reconnects")
    if stats.resyncs:
        parts.append(f"{stats.resyncs} relists")
    return ", ".join(parts)

