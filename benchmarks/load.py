"""Time reading a large cluster from disk: YAML (the safe reader) against JSON and plain PyYAML.

    python3 -m benchmarks.load                      # 50,000 pods on 5,000 nodes
    python3 -m benchmarks.load --pods 10000 --repeat 5

The cluster of ``benchmarks.synthetic`` (10 pods per node) is written once to a temporary
directory in three shapes: a YAML stream of documents (``---``), one YAML ``kind: List`` (what
``kubectl get -o yaml`` prints) and a JSON stream. Each is read with
``kschedctl.inputs.loader.load_documents`` (best of ``--repeat`` runs, garbage collector as the
loader leaves it), with field names checked as ``--validate=strict`` checks them and, for the
YAML List, once more with ``--validate=ignore`` to show what the check costs. For scale, the
same YAML stream is also read with plain ``yaml.load_all(..., Loader=yaml.CSafeLoader)``, which
has none of the reader's checks.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import yaml

from benchmarks.synthetic import cluster_objects


def _write(objects: list[dict[str, Any]], directory: Path) -> dict[str, Path]:
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    paths = {"YAML stream": directory / "cluster.yaml", "YAML List": directory / "list.yaml",
             "JSON stream": directory / "cluster.json"}
    paths["YAML stream"].write_text(yaml.dump_all(objects, Dumper=dumper), encoding="utf-8")
    paths["YAML List"].write_text(yaml.dump({"apiVersion": "v1", "kind": "List", "items": objects}, Dumper=dumper),
                                  encoding="utf-8")
    paths["JSON stream"].write_text("\n".join(json.dumps(o) for o in objects) + "\n", encoding="utf-8")
    return paths


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best = float("inf")
    result: Any = None
    for _ in range(repeat):
        result = None  # let the previous run's objects go before timing the next
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pods", type=int, default=50_000, help="pods in the cluster (10 per node)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is shown")
    parser.add_argument("--no-pyyaml", action="store_true", help="skip the plain PyYAML reference")
    args = parser.parse_args(argv)

    from kschedctl.inputs.fields import field_validation
    from kschedctl.inputs.loader import load_documents

    def load(path: Path, validate: str = "strict") -> Any:
        with field_validation(validate):
            return load_documents([str(path)])

    nodes, pods = cluster_objects(max(1, args.pods // 10), 10)
    objects = nodes + pods
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    print(f"{len(pods):,} pods + {len(nodes):,} nodes; best of {args.repeat}")
    print(f"{'input':<34} {'MB':>7} {'seconds':>8} {'objects/s':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        paths = _write(objects, Path(tmp))
        rows: list[tuple[str, Path, Callable[[], Any]]] = [
            (f"kschedctl, {label}", path, (lambda p=path: load(p))) for label, path in paths.items()]
        rows.append(("kschedctl, List, --validate=ignore", paths["YAML List"],
                     lambda: load(paths["YAML List"], "ignore")))
        if not args.no_pyyaml:
            stream = paths["YAML stream"]
            rows.append(("plain PyYAML load_all, YAML stream", stream,
                         lambda: list(yaml.load_all(stream.read_text(encoding="utf-8"), Loader=loader))))
        for label, path, fn in rows:
            took, result = _best(fn, args.repeat)
            count = len(result)
            size = path.stat().st_size / 1e6
            print(f"{label:<34} {size:>7.1f} {took:>8.2f} {count / took:>10,.0f}")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
