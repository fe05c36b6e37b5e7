"""AsyncClient under trio: single calls and streams (httpx's own trio
support), and what waits on the async library itself (a retry's sleep,
many calls as tasks, the export's worker thread), each as under asyncio."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import trio

import erpdata
import fault_api
from conftest import BIG_ROWS, ROOT, SANDBOX_TOKEN, SECRET_TOKEN
from erpdata import AsyncClient

SETTINGS: dict[str, Any] = dict(
    project="demo", access_token=SANDBOX_TOKEN, company_id=1, year_id=2025
)


def test_calls_and_streams(sandbox_url: str) -> None:
    async def main() -> tuple[int, int, int]:
        async with AsyncClient(sandbox_url, **SETTINGS) as c:
            table = await c.table("sales_invoice")
            streamed = 0
            async for rows in c.stream_table("sales_invoice", batch_rows=7, use_threads=True):
                streamed += len(rows)
            dues = await c.receivables("C001")
            return len(table), streamed, len(dues.rows)

    rows, streamed, dues = trio.run(main)
    assert rows == streamed == 40 and dues > 0


def test_a_retry_sleeps_with_trio(sandbox_url: str) -> None:
    key = fault_api.new_key("trio-retry")
    base = fault_api.prefix(sandbox_url, "status-503x1-ra1", key)

    async def main() -> int:
        async with AsyncClient(base, **SETTINGS) as c:
            return len((await c.table("account")).columns)

    started = time.monotonic()
    assert trio.run(main) > 0
    assert time.monotonic() - started >= 1.0, "Retry-After: 1 was not waited"
    assert fault_api.count(sandbox_url, key) == 2


def test_many_calls_run_as_tasks(sandbox_url: str) -> None:
    async def main() -> tuple[Any, ...]:
        async with AsyncClient(sandbox_url, **SETTINGS) as c:
            many = await c.dues_many(["C001", "C002", "C003"], "receipt", concurrency=2)
            table = await c.dues_table(["C001", "C002"], "receipt")
            aging = await c.aging(as_of="2025-12-31")
            return many, table, aging

    many, table, aging = trio.run(main)
    with erpdata.Client(sandbox_url, **SETTINGS) as c:
        assert many == c.dues_many(["C001", "C002", "C003"], "receipt")
        assert list(table) == list(c.dues_table(["C001", "C002"], "receipt"))
        assert list(aging) == list(c.aging(as_of="2025-12-31"))
    assert sum((r["total"] for r in aging), Decimal(0)) > 0


def test_the_first_failure_is_raised_as_itself(sandbox_url: str) -> None:
    # Not wrapped in an ExceptionGroup, as trio's nursery would hand it out.
    async def main() -> None:
        async with AsyncClient(sandbox_url, **SETTINGS) as c:
            await c.dues_many(["C001", "NOSUCH", "C002"], "receipt", concurrency=1)

    with pytest.raises(erpdata.ServiceError, match="NOSUCH"):
        trio.run(main)


def test_a_cancelled_call_ends_at_once(sandbox_url: str) -> None:
    # Answers 3 s late, under a 0.5 s deadline: the tasks of many calls
    # are cancelled with it, and none is left running.
    base = fault_api.prefix(sandbox_url, "latency-3000", fault_api.new_key("trio-cancel"))

    async def main() -> bool:
        async with AsyncClient(base, **SETTINGS) as c:
            with trio.move_on_after(0.5) as scope:
                await c.dues_many(["C001", "C002", "C003"], "receipt", concurrency=3)
            return scope.cancelled_caught

    started = time.monotonic()
    assert trio.run(main)
    assert time.monotonic() - started < 3


def test_export_writes_on_a_worker_thread(sandbox_url: str, tmp_path: Path) -> None:
    async def main() -> erpdata.export.ExportResult:
        async with AsyncClient(sandbox_url, **SETTINGS) as c:
            return await c.export(["account", "sales_invoice"], to=tmp_path / "erp.duckdb")

    result = trio.run(main)
    assert result.rows == 60 and len(result.partitions) == 2


def test_a_large_stream_of_rows(big_sandbox_url: str) -> None:
    # Batches past 4,096 rows are made in turns, trio's loop let run
    # between them.
    async def main() -> list[int]:
        settings = {**SETTINGS, "access_token": SECRET_TOKEN}
        async with AsyncClient(big_sandbox_url, **settings) as c:
            stream = c.stream_table("sales_invoice", batch_rows=10_000)
            return [len(rows) async for rows in stream]

    sizes = trio.run(main)
    assert sum(sizes) == BIG_ROWS and max(sizes) == 10_000


CTRL_C_IN_MANY_CALLS = """
import sys

import trio

import erpdata

url, method = sys.argv[1], sys.argv[2]


async def main() -> None:
    async with erpdata.AsyncClient(url, project="demo", company_id=1, year_id=2025) as c:
        if method == "aging":
            await c.aging(as_of="2025-12-31")
        else:
            await c.dues_many(["C001", "C002", "C003"], "receipt")


try:
    trio.run(main)
except KeyboardInterrupt:
    print("KeyboardInterrupt")
except BaseException as exc:
    print(type(exc).__name__, repr(exc)[:300])
"""


@pytest.mark.parametrize("method", ["aging", "dues_many"])
def test_ctrl_c_while_many_calls_run_is_a_keyboard_interrupt(
    sandbox_url: str, tmp_path: Path, method: str
) -> None:
    # Ctrl-C under trio raises KeyboardInterrupt in the waiting task; the
    # nursery of the calls handed it out inside an ExceptionGroup, which
    # `except KeyboardInterrupt` does not catch: a traceback, exit 1.
    key = fault_api.new_key("trio-ctrl-c", method)
    script = tmp_path / "many.py"
    script.write_text(CTRL_C_IN_MANY_CALLS, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERPDATA_")}
    env.update(ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN, PYTHONPATH=str(ROOT / "python"))
    proc = subprocess.Popen(
        [sys.executable, str(script), fault_api.prefix(sandbox_url, "latency-5000", key), method],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while fault_api.count(sandbox_url, key) == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, proc.communicate()
    interrupted = time.monotonic()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=20)
    assert time.monotonic() - interrupted < 3
    assert stdout == "KeyboardInterrupt\n", stdout + stderr
    assert proc.returncode == 0, stderr
