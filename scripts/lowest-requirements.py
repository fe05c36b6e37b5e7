#!/usr/bin/env python3
"""The oldest versions pyproject.toml says erpdata works with, as pins.

Prints one requirement a line, `name==floor`, for the package's
dependencies and the extras named on the command line: each must be
written `name>=floor` there (anything else is an error, so that a new
dependency cannot slip out of `make test-lowest`). A name several extras
share is pinned once, at its highest floor.

    python scripts/lowest-requirements.py [EXTRA ...]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import tomllib

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
FLOOR = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)>=([0-9][0-9A-Za-z.]*)$")

# pandas 2.1 and pyarrow 15 were built against NumPy 1 without saying so
# in their metadata: a fresh install of them alone picks NumPy 2, which
# they cannot import. Their users' environments have the NumPy they were
# built with; so has this one.
ALONGSIDE = ["numpy<2"]


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version))


def main(extras: list[str]) -> None:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    optional = project.get("optional-dependencies", {})
    unknown = [e for e in extras if e not in optional]
    if unknown:
        sys.exit(f"lowest-requirements: no extra {', '.join(unknown)} in pyproject.toml")
    floors: dict[str, str] = {}
    for requirement in project["dependencies"] + [r for e in extras for r in optional[e]]:
        match = FLOOR.match(requirement.replace(" ", ""))
        if match is None:
            sys.exit(
                f"lowest-requirements: {requirement!r} is not `name>=version`: "
                "say its oldest version so that make test-lowest can install it"
            )
        name, floor = match[1].lower(), match[2]
        if name not in floors or version_key(floor) > version_key(floors[name]):
            floors[name] = floor
    for name, floor in sorted(floors.items()):
        print(f"{name}=={floor}")
    for line in ALONGSIDE:
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
