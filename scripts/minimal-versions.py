#!/usr/bin/env python3
"""A workspace of the published crate alone, for `make test-msrv` to build
with the oldest versions of its dependencies that its Cargo.toml allows.

Writes DIR/Cargo.toml (a workspace of one member, with the workspace's
[workspace.package] and [workspace.dependencies]), DIR/erpdata (the crate's
sources and manifest without its dev-dependencies, tests, examples and
benches: a user's build needs none of them, and their own floors are not
the crate's promise) and DIR/Cargo.lock (the workspace's, for cargo to
start from). `cargo update -Z direct-minimal-versions` there then moves
each of the crate's own dependencies to the oldest version its
requirement allows, the others to the newest.

    python scripts/minimal-versions.py DIR
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
CRATE = ROOT / "crates" / "erpdata"


def section(text: str, header: str) -> str:
    """`[header]` and its lines, up to the next table header."""
    match = re.search(rf"^\[{re.escape(header)}\]\n.*?(?=^\[|\Z)", text, re.S | re.M)
    if match is None:
        sys.exit(f"minimal-versions: no [{header}] in Cargo.toml")
    return match.group(0)


def main(out: Path) -> None:
    root = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    dependencies = section(root, "workspace.dependencies")
    # The crate itself is no dependency of its own workspace.
    dependencies = re.sub(r"^erpdata = .*\n", "", dependencies, flags=re.M)
    workspace = '[workspace]\nmembers = ["erpdata"]\nresolver = "2"\n\n'
    workspace += section(root, "workspace.package") + "\n" + dependencies

    manifest = (CRATE / "Cargo.toml").read_text(encoding="utf-8")
    manifest = re.sub(
        r"^\[(?:target\.[^\n]*\.)?dev-dependencies\]\n.*?(?=^\[|\Z)",
        "",
        manifest,
        flags=re.S | re.M,
    )
    manifest = re.sub(
        r"^\[\[(?:test|example|bench)\]\]\n.*?(?=^\[|\Z)", "", manifest, flags=re.S | re.M
    )
    for text in (workspace, manifest):
        tomllib.loads(text)  # still TOML
    assert "dev-dependencies" not in manifest and "[[" not in manifest, manifest

    shutil.rmtree(out, ignore_errors=True)
    crate = out / "erpdata"
    crate.mkdir(parents=True)
    (out / "Cargo.toml").write_text(workspace, encoding="utf-8")
    shutil.copy(ROOT / "Cargo.lock", out / "Cargo.lock")
    (crate / "Cargo.toml").write_text(manifest, encoding="utf-8")
    for name in ("src", "build.rs", "README.md"):
        source = CRATE / name
        if source.is_dir():
            shutil.copytree(source, crate / name)
        elif source.exists():
            shutil.copy(source, crate / name)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: minimal-versions.py DIR")
    main(Path(sys.argv[1]))
