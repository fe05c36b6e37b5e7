"""The README's Python quickstart runs as written against the sandbox."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
QUICKSTART_URL = "http://127.0.0.1:8787"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_quickstart_runs(sandbox_url: str) -> None:
    blocks = python_blocks()
    assert blocks, "the README has no Python example"
    for code in blocks:
        assert QUICKSTART_URL in code
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code.replace(QUICKSTART_URL, sandbox_url), "README.md", "exec"), {})
        printed = out.getvalue()
        assert "INV-2025-" in printed and "bills to pay" in printed
