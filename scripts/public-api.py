"""Writes the public surface of ``erpdata.Client`` and ``erpdata.AsyncClient``
(each public method's signature, whether it is a coroutine function, and
a digest of its docstring) as text, one line a method, to stdout.

tests/python/test_public_api.py compares it with tests/python/public-api.txt;
after a deliberate change to the public API, regenerate that file with
``.venv/bin/python scripts/public-api.py > tests/python/public-api.txt``.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))


def listing() -> str:
    """The public surface, one line a member, sorted."""
    from erpdata import AsyncClient, Client

    lines = []
    for cls in (Client, AsyncClient):
        for name in sorted(dir(cls)):
            if name.startswith("_") and name not in (
                "__init__",
                "__enter__",
                "__exit__",
                "__aenter__",
                "__aexit__",
            ):
                continue
            member = inspect.getattr_static(cls, name)
            if isinstance(member, property):
                doc = inspect.getdoc(member) or ""
                digest = hashlib.sha256(doc.encode()).hexdigest()[:12]
                lines.append(f"{cls.__name__}.{name}: property doc={digest}")
                continue
            value = getattr(cls, name)
            if not callable(value):
                continue
            kind = "async " if inspect.iscoroutinefunction(value) else ""
            doc = inspect.getdoc(value) or ""
            digest = hashlib.sha256(doc.encode()).hexdigest()[:12]
            lines.append(f"{cls.__name__}.{name}: {kind}{inspect.signature(value)} doc={digest}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(listing())
