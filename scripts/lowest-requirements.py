#!/usr/bin/env python3
"""The oldest versions pyproject.toml says erpdata works with, as pins.

Prints one requirement a line, `name==floor`, for the package's
dependencies and the extras named on the command line: each must be
written `name>=floor` there (anything else is an error, so that a new
dependency cannot slip out of `make test-lowest`). A name several extras
share is pinned once, at its highest floor. With `--extras-only`, the
package's own dependencies are left for the installer to choose: the
oldest of them cannot go with every extra's oldest (mcp 2.1 needs a newer
httpcore than httpx 0.25 takes).

    python scripts/lowest-requirements.py [--extras-only] [EXTRA ...]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import tomllib

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
FLOOR = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)>=([0-9][0-9A-Za-z.]*)$")

# What some of the oldest versions need beside them and do not say in
# their metadata, as their users' environments of the time had it:
# pandas 2.1 and pyarrow 15 were built against NumPy 1 (a fresh install of
# them alone picks NumPy 2, which they cannot import), and dlt 1.0 imports
# pkg_resources (setuptools, which a virtualenv of Python 3.9 made by pip
# has and one made by uv has not).
ALONGSIDE = {"pyarrow": "numpy<2", "pandas": "numpy<2", "dlt": "setuptools<81"}


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version))


def main(args: list[str]) -> None:
    extras_only = "--extras-only" in args
    extras = [a for a in args if a != "--extras-only"]
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    optional = project.get("optional-dependencies", {})
    unknown = [e for e in extras if e not in optional]
    if unknown:
        sys.exit(f"lowest-requirements: no extra {', '.join(unknown)} in pyproject.toml")
    floors: dict[str, str] = {}
    own = [] if extras_only else project["dependencies"]
    for requirement in own + [r for e in extras for r in optional[e]]:
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
    for line in sorted({ALONGSIDE[name] for name in floors if name in ALONGSIDE}):
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
