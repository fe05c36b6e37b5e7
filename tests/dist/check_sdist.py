"""What the sdist in dist/ must hold for pip to build it from scratch: the
Python sources, every workspace crate the native module is built from
(the core, the binding), the workspace manifest and lock, and the licence
files; and nothing of the build (target/, node_modules, dist/).

Usage: python check_sdist.py SDIST
"""

from __future__ import annotations

import sys
import tarfile
from pathlib import Path


def main() -> None:
    sdist = Path(sys.argv[1])
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    root = names[0].split("/", 1)[0]
    inside = {n.split("/", 1)[1] for n in names if "/" in n}
    for needed in (
        "pyproject.toml",
        "PKG-INFO",
        "Cargo.toml",
        "Cargo.lock",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "python/README.md",
        "python/erpdata/__init__.py",
        "python/erpdata/py.typed",
        "python/erpdata/_core.pyi",
        "crates/erpdata/Cargo.toml",
        "crates/erpdata/src/lib.rs",
        "crates/erpdata/README.md",
        "crates/erpdata-python/Cargo.toml",
        "crates/erpdata-python/src/lib.rs",
    ):
        assert needed in inside, f"{needed} missing from {sdist.name}"
    for unwanted in ("target/", "node_modules/", "dist/", ".venv/", "erpdata/_bin/"):
        found = [n for n in inside if unwanted in n]
        assert not found, f"{sdist.name} holds {found[:5]}"
    print(f"{sdist.name}: {sdist.stat().st_size / 1e6:.2f} MB, {len(names)} entries under {root}/")


if __name__ == "__main__":
    main()
