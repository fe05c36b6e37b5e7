"""The public surface of ``Client`` and ``AsyncClient`` is pinned: each
public method's signature, whether it is a coroutine, and a digest of its
docstring, as scripts/public-api.py lists them, must equal
tests/python/public-api.txt. After a deliberate change, regenerate it with
``.venv/bin/python scripts/public-api.py > tests/python/public-api.txt``."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def listing() -> str:
    spec = importlib.util.spec_from_file_location("public_api", ROOT / "scripts/public-api.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text: str = module.listing()
    return text


def test_the_public_api_is_as_pinned() -> None:
    pinned = (ROOT / "tests/python/public-api.txt").read_text(encoding="utf-8")
    got = listing()
    missing = sorted(set(pinned.splitlines()) - set(got.splitlines()))
    added = sorted(set(got.splitlines()) - set(pinned.splitlines()))
    assert got == pinned, (
        "the public API differs from tests/python/public-api.txt\n"
        f"pinned, not found: {missing}\nfound, not pinned: {added}\n"
        "after a deliberate change, regenerate it with "
        ".venv/bin/python scripts/public-api.py > tests/python/public-api.txt"
    )


def test_every_method_of_one_client_is_in_the_other() -> None:
    # The two clients differ only in how they carry the work out.
    names = {
        c: {
            line.split(":")[0].split(".", 1)[1]
            for line in listing().splitlines()
            if line.startswith(f"{c}.")
        }
        for c in ("Client", "AsyncClient")
    }
    sync_only = {"__enter__", "__exit__", "close"}
    async_only = {"__aenter__", "__aexit__", "aclose"}
    assert names["Client"] - sync_only == names["AsyncClient"] - async_only
