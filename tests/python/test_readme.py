"""The Python examples of the README and of the package's page
(python/README.md) run as written against the sandbox (mypy checks them in
test_types.py)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PACKAGE_README = ROOT / "python" / "README.md"
QUICKSTART_URL = "http://127.0.0.1:8787"


def python_blocks() -> list[str]:
    return [
        block
        for page in (README, PACKAGE_README)
        for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    ]


def test_examples_run(sandbox_url: str) -> None:
    blocks = python_blocks()
    assert len(blocks) >= 6, "the pages show the client, DataFrames, streaming, async, settings"
    printed = ""
    for i, code in enumerate(blocks):
        assert QUICKSTART_URL in code, f"block {i} does not use the sandbox URL"
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(
                compile(code.replace(QUICKSTART_URL, sandbox_url), f"README block {i}", "exec"),
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
