"""AsyncClient as a web backend uses it: one client shared by every request,
calls cancelled midway (a timeout, a task group, an HTTP client gone) under
asyncio, anyio and trio, the client usable afterwards with no connection,
task or thread left behind."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

import erpdata
import fault_api
from conftest import BIG_ROWS, ROOT, SANDBOX_TOKEN, SECRET_TOKEN, after_ctrl_c
from erpdata import AsyncClient

SETTINGS: dict[str, Any] = dict(
    project="demo", access_token=SANDBOX_TOKEN, company_id=1, year_id=2025
)
CUSTOMERS = [f"C{n:03d}" for n in range(1, 13)]


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_many_calls_cancelled_by_an_anyio_scope_give_back_their_connections(
    sandbox_url: str, backend: str
) -> None:
    # anyio (which Starlette and FastAPI run on) cancels a task again and
    # again until it leaves the cancelled scope. The calls' tasks, cancelled
    # once, must be let finish closing their connections: cancelled a
    # second time, httpx's cleanup stopped midway and left each connection
    # busy in the pool for good, so after a few such cancellations a shared
    # client had no connection left to send with.
    slow = fault_api.prefix(sandbox_url, "latency-3000", fault_api.new_key("anyio-cancel"))

    async def main() -> int:
        limits = httpx.Limits(max_connections=4)
        async with httpx.AsyncClient(limits=limits) as http:
            async with AsyncClient(slow, **SETTINGS, http_client=http) as late:
                for _ in range(2):
                    with anyio.move_on_after(0.3) as scope:
                        await late.dues_many(CUSTOMERS, "receipt", concurrency=4)
                    assert scope.cancelled_caught
                    with anyio.move_on_after(0.3) as scope:
                        await late.aging(accounts=CUSTOMERS, as_of="2025-12-31", concurrency=4)
                    assert scope.cancelled_caught
            async with AsyncClient(sandbox_url, **SETTINGS, http_client=http) as client:
                dues = await client.dues_many(CUSTOMERS, "receipt", concurrency=4, timeout=2)
                return len(dues)

    assert anyio.run(main, backend=backend) == len(CUSTOMERS)


def test_many_calls_cancelled_by_asyncio_leave_no_task(sandbox_url: str) -> None:
    slow = fault_api.prefix(sandbox_url, "latency-3000", fault_api.new_key("asyncio-cancel"))

    async def main() -> list[asyncio.Task[Any]]:
        async with AsyncClient(slow, **SETTINGS) as client:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(client.dues_many(CUSTOMERS, "receipt"), 0.3)
            return [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]

    assert asyncio.run(main()) == []


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_cancelled_export_stops_before_the_call_ends(
    big_sandbox_url: str, tmp_path: Path, backend: str
) -> None:
    # The export writes on worker threads. Cancelled, it went on: asyncio
    # let its threads write the whole dataset after the caller had moved
    # on, and trio did not cancel it at all until it was done. A caller
    # that tried again found the files still being written.
    key = fault_api.new_key("export-cancel", backend)
    slow = fault_api.prefix(big_sandbox_url, "trickle-32768x20", key)
    settings = {**SETTINGS, "access_token": SECRET_TOKEN}
    to = tmp_path / "erp"

    async def export(base: str, **options: Any) -> erpdata.export.ExportResult:
        async with AsyncClient(base, **settings) as client:
            return await client.export(
                "sales_invoice", years=[2024, 2025], to=to, batch_rows=1000, **options
            )

    async def main() -> float:
        with anyio.move_on_after(0.5) as scope:
            await export(slow, format="parquet", concurrency=1)
        assert scope.cancelled_caught
        return time.monotonic()

    started = time.monotonic()
    ended = anyio.run(main, backend=backend)
    assert ended - started < 3, "the export ran on after it was cancelled"
    # A reader left waiting on the service ends once that wait does (the
    # next trickle), handing and writing nothing.
    for thread in threading.enumerate():
        if thread.name.startswith("erpdata-export"):
            thread.join(2)
            assert not thread.is_alive(), thread.name
    time.sleep(0.5)  # nothing is written after the call ended
    assert not (to / "table=sales_invoice" / "compid=1" / "yearid=2025").exists()
    pending = json.loads((to / "_pending.json").read_text())
    assert [p["yearid"] for p in pending] == ["2025"], pending

    rest = anyio.run(lambda: export(big_sandbox_url, resume=True), backend=backend)
    assert [(p.yearid, p.rows) for p in rest.partitions] == [(2025, BIG_ROWS)]


def test_a_call_not_awaited_is_named_as_the_caller_wrote_it(sandbox_url: str) -> None:
    # Python's warning "coroutine ... was never awaited" names the
    # coroutine: it said 'Operations.table', a class no caller sees.
    async def main() -> list[str]:
        async with AsyncClient(sandbox_url, **SETTINGS) as client:
            calls = [client.table("account"), client.aging(), client.avg_pay_days("C001")]
            names = [getattr(call, "__qualname__", "") for call in calls]
            for call in calls:
                call.close()
            return names

    assert asyncio.run(main()) == [
        "AsyncClient.table",
        "AsyncClient.aging",
        "AsyncClient.avg_pay_days",
    ]
    assert erpdata.Client.table.__qualname__ == "Client.table"


def test_a_pool_with_no_free_connection_says_so(sandbox_url: str) -> None:
    # More calls at a time than the HTTP client has connections: the one
    # left waiting never reached the service, and the error says what ran
    # out (it said no answer came from the service within its timeouts).
    slow = fault_api.prefix(sandbox_url, "latency-1500", fault_api.new_key("pool"))

    async def main() -> list[BaseException | None]:
        async with httpx.AsyncClient(limits=httpx.Limits(max_connections=1)) as http:
            async with AsyncClient(slow, **SETTINGS, http_client=http, max_retries=0) as client:
                timeout = erpdata.Timeout(total=10, connect=0.3, read=5)

                async def one() -> BaseException | None:
                    try:
                        await client.dues("C001", "receipt", timeout=timeout)
                    except erpdata.TransportError as exc:
                        return exc
                    return None

                return list(await asyncio.gather(one(), one()))

    outcomes = asyncio.run(main())
    assert outcomes.count(None) == 1, outcomes
    (error,) = [e for e in outcomes if e is not None]
    assert isinstance(error, erpdata.TransportError) and error.transport_kind == "timeout"
    assert "no free connection to http://127.0.0.1:" in str(error)
    assert "within the connect timeout of 0.3 s" in str(error)
    assert "pool was busy with other calls" in str(error)


CTRL_C_IN_AN_EXPORT = """
import asyncio, sys, time
from pathlib import Path

import erpdata

url, to, backend = sys.argv[1], Path(sys.argv[2]), sys.argv[3]


async def main() -> None:
    async with erpdata.AsyncClient(url, project="demo", company_id=1, year_id=2025) as client:
        await client.export(
            "sales_invoice", years=[2024, 2025], to=to, batch_rows=1000, progress=False
        )


def files() -> dict[str, tuple[int, int]]:
    found = to.rglob("*") if to.exists() else []
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in found if p.is_file()}


try:
    if backend == "trio":
        import trio

        trio.run(main)
    else:
        asyncio.run(main())
except KeyboardInterrupt:
    before = files()
    time.sleep(0.5)
    print("written after the interrupt:", sorted(set(files().items()) - set(before.items())))
    raise
"""


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("fault", ["hang", "latency-0"])
def test_ctrl_c_during_an_export_ends_it_before_the_interrupt_reaches_the_script(
    huge_sandbox_url: str, tmp_path: Path, backend: str, fault: str
) -> None:
    # Ctrl-C in a script awaiting client.export(). asyncio.run() turns it
    # into a cancellation, which waited for the readers: against a service
    # that answers nothing, up to their time limits (minutes). trio raises
    # KeyboardInterrupt instead, which left the export running on its
    # thread: it went on writing after the script had its interrupt, and
    # as the interpreter exited under it the process aborted ("FATAL:
    # exception not rethrown", a reader or DuckDB still at work).
    key = fault_api.new_key("ctrl-c-export", backend, fault)
    url = fault_api.prefix(huge_sandbox_url, fault, key)
    script = tmp_path / "export.py"
    script.write_text(CTRL_C_IN_AN_EXPORT, encoding="utf-8")
    to = tmp_path / "erp.duckdb"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERPDATA_")}
    env.update(ERPDATA_ACCESS_TOKEN=SECRET_TOKEN, PYTHONPATH=str(ROOT / "python"))
    proc = subprocess.Popen(
        [sys.executable, str(script), url, str(to), backend],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Interrupted once the readers wait on the service, or once the
    # writing has begun.
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if fault_api.count(huge_sandbox_url, key) and (fault == "hang" or to.exists()):
            break
        time.sleep(0.002)
    time.sleep(0.05 if fault == "hang" else 0.0)
    assert proc.poll() is None, proc.communicate()
    stdout, stderr, took = after_ctrl_c(proc, 20, f"the script ({backend}, {fault})")
    assert took < 5, stderr
    assert proc.returncode == -signal.SIGINT, stderr[-2000:]
    assert stderr.rstrip().endswith("KeyboardInterrupt"), stderr[-2000:]
    assert stdout == "written after the interrupt: []\n", stdout
    assert SECRET_TOKEN not in stdout + stderr


def test_the_error_of_a_call_cancelled_midway_keeps_nothing_of_the_call(
    big_sandbox_url: str,
) -> None:
    # The frames of an error's traceback keep their locals: a caller that
    # kept the TimeoutError of asyncio.wait_for (or had it back from
    # gather(return_exceptions=True)) kept each cancelled call, with its
    # decoder thread and every row decoded so far, until it let go of the
    # error.
    from erpdata._core import Call

    key = fault_api.new_key("kept-error")
    slow = fault_api.prefix(big_sandbox_url, "trickle-32768x20", key)
    settings = {**SETTINGS, "access_token": SECRET_TOKEN}

    async def main() -> list[BaseException | erpdata.Table]:
        async with AsyncClient(slow, **settings) as client:
            calls = [asyncio.wait_for(client.table("sales_invoice"), 0.5) for _ in range(2)]
            return await asyncio.gather(*calls, return_exceptions=True)

    errors = asyncio.run(main())
    assert [type(e) for e in errors] == [asyncio.TimeoutError] * 2
    held = []
    for error in errors:
        assert isinstance(error, BaseException)
        seen: BaseException | None = error
        while seen is not None:
            traceback = seen.__traceback__
            while traceback is not None:
                frame = traceback.tb_frame
                held += [
                    (frame.f_code.co_name, name)
                    for name, value in frame.f_locals.items()
                    if isinstance(value, Call)
                ]
                traceback = traceback.tb_next
            seen = seen.__cause__ or seen.__context__
    assert held == []
