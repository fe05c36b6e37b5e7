"""The Python examples of the README and of the package's page
(python/README.md) run as written against the sandbox (mypy checks them in
test_types.py)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PACKAGE_README = ROOT / "python" / "README.md"
DATA_STACK = ROOT / "docs" / "data-stack.md"
QUICKSTART_URL = "http://127.0.0.1:8787"


def python_blocks() -> list[str]:
    """The examples but Spark's (tests/spark runs those on a real local Spark)."""
    return [
        block
        for page in (README, PACKAGE_README)
        for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
        if "pyspark" not in block
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


def test_data_stack_guide_runs(
    sandbox_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/data-stack.md's Python examples but Spark's (tests/spark runs
    that one on a real local Spark), in a scratch folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DLT_DATA_DIR", str(tmp_path / "dlt"))
    monkeypatch.setenv("RUNTIME__DLTHUB_TELEMETRY", "false")
    monkeypatch.setenv("ERPDATA_ACCESS_TOKEN", "sandbox-token-not-secret")
    blocks = re.findall(r"```python\n(.*?)```", DATA_STACK.read_text(encoding="utf-8"), re.S)
    runnable = [b for b in blocks if "pyspark" not in b]
    assert len(runnable) == 4 and len(blocks) == 5
    printed = ""
    for i, code in enumerate(runnable):
        assert QUICKSTART_URL in code, f"block {i} does not use the sandbox URL"
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code.replace(QUICKSTART_URL, sandbox_url), f"data-stack {i}", "exec"), {})
        assert out.getvalue(), f"block {i} printed nothing"
        printed += out.getvalue()
    for expected in ("rows in 4 partitions", "9022989.03", "40 rows written", "no failed jobs"):
        assert expected in printed, (expected, printed)
    # The dlt pipeline's file is its own, not the export example's erp.duckdb.
    assert (tmp_path / "erp-copy.duckdb").exists() and (tmp_path / "erp_dlt.duckdb").exists()
    assert not (tmp_path / "erp.duckdb").exists()
    assert "sandbox-token-not-secret" not in printed
