"""The README's Python examples run as written against the sandbox (mypy
checks them in test_types.py)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
QUICKSTART_URL = "http://127.0.0.1:8787"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_examples_run(sandbox_url: str) -> None:
    blocks = python_blocks()
    assert len(blocks) >= 5, "the README shows the client, DataFrames, streaming, async, settings"
    printed = ""
    for i, code in enumerate(blocks):
        assert QUICKSTART_URL in code, f"block {i} does not use the sandbox URL"
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(
                compile(code.replace(QUICKSTART_URL, sandbox_url), f"README.md block {i}", "exec"),
                {},
            )
        assert out.getvalue(), f"block {i} printed nothing"
        printed += out.getvalue()
    for expected in (
        "INV-2025-",
        "bills to pay",
        "decimal128",
        "owes the most",
        "rows in",
        "date32",
    ):
        assert expected in printed, expected
    assert "sandbox-token-not-secret" not in printed
