"""Print pip constraints pinning every direct dependency (and the test extra's) to the lowest
version pyproject.toml allows, so that CI also tests what a user with older libraries gets."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path


def lowest_pins(pyproject: Path) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    pins = []
    for requirement in [*project["dependencies"], *project["optional-dependencies"]["test"]]:
        match = re.match(r"\s*([A-Za-z0-9_.-]+)\s*(?:\[[^\]]*\])?\s*([^;]*)", requirement)
        name, specifiers = match.group(1), match.group(2)
        floor = re.search(r">=\s*([0-9][^,\s]*)", specifiers)
        if floor is None:
            sys.exit(f"{requirement!r}: no lower bound; every dependency needs one")
        pins.append(f"{name}=={floor.group(1)}")
    return pins


if __name__ == "__main__":
    print("\n".join(lowest_pins(Path(sys.argv[1] if len(sys.argv) > 1 else "pyproject.toml"))))
