"""AsyncClient against the sandbox over loopback: the same answers as
Client, the caller's httpx.AsyncClient kept, bounded concurrency."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
import pytest

import erpdata
from conftest import FAKE_TOKEN, SANDBOX_TOKEN
from erpdata import AsyncClient, Client, DuesKind

T = TypeVar("T")


def run(make: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(make())  # type: ignore[arg-type]


def settings(url: str) -> dict[str, Any]:
    return dict(
        project="demo", access_token=SANDBOX_TOKEN, company_id=1, year_id=2025, timeout=10.0
    )


def test_same_answers_as_the_sync_client(sandbox_url: str) -> None:
    with Client(sandbox_url, **settings(sandbox_url)) as sync:
        expected = (
            sync.receivables("C001"),
            sync.payables("S001"),
            sync.dues("C002", "receipt"),
            sync.table("sales_invoice"),
            sync.table("account", method="GET"),
        )

    async def main() -> tuple[Any, ...]:
        async with AsyncClient(sandbox_url, **settings(sandbox_url)) as client:
            return (
                await client.receivables("C001"),
                await client.payables("S001"),
                await client.dues("C002", DuesKind.RECEIPT),
                await client.table("sales_invoice"),
                await client.table("account", method="GET"),
            )

    got = run(main)
    assert got == expected
    assert got[3].to_arrow().equals(expected[3].to_arrow())


def test_stream_table_with_async_for(sandbox_url: str) -> None:
    async def main() -> tuple[list[Any], list[Any]]:
        async with AsyncClient(sandbox_url, **settings(sandbox_url)) as client:
            rows: list[Any] = []
            sizes = []
            async with client.stream_table("sales_invoice", batch_rows=7) as stream:
                async for batch in stream:
                    sizes.append(len(batch))
                    rows.extend(batch)
            assert stream.finished and stream.rows_delivered == len(rows)
            return rows, sizes

    rows, sizes = run(main)
    with Client(sandbox_url, **settings(sandbox_url)) as sync:
        assert rows == list(sync.table("sales_invoice"))
    assert sizes == [7] * (len(rows) // 7) + ([len(rows) % 7] if len(rows) % 7 else [])


def test_dues_many_bounds_concurrency(sandbox_url: str) -> None:
    in_flight = 0
    peak = 0

    async def on_request(request: httpx.Request) -> None:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)

    async def on_response(response: httpx.Response) -> None:
        nonlocal in_flight
        await asyncio.sleep(0.02)  # keep requests overlapping
        in_flight -= 1

    acids = [f"C{n:03d}" for n in range(1, 13)] + ["C001"]

    async def main() -> dict[str, erpdata.Dues]:
        hooks: dict[str, list[Callable[..., Any]]] = {
            "request": [on_request],
            "response": [on_response],
        }
        async with httpx.AsyncClient(event_hooks=hooks) as http:
            async with AsyncClient(sandbox_url, project="demo", http_client=http) as client:
                return await client.dues_many(acids, "RECEIPT", concurrency=3)

    result = run(main)
    assert list(result) == [f"C{n:03d}" for n in range(1, 13)]  # duplicates asked once
    assert 1 < peak <= 3
    with Client(sandbox_url, project="demo") as sync:
        assert result["C001"] == sync.receivables("C001")
        assert (
            sync.dues_many(["C001", "C002"], DuesKind.RECEIPT, concurrency=2)["C002"]
            == result["C002"]
        )


def test_dues_many_checks_every_id_before_sending(refused_url: str) -> None:
    async def main() -> None:
        async with AsyncClient(refused_url, project="demo") as client:
            with pytest.raises(erpdata.InvalidInputError) as info:
                await client.dues_many(["C001", " "], "RECEIPT")
            assert info.value.field == "acids" and "item 2" in str(info.value)
            with pytest.raises(erpdata.InvalidInputError) as info:
                await client.dues_many(["C001"], "RECEIPT", concurrency=0)
            assert info.value.field == "concurrency"

    run(main)


def test_own_async_http_client_is_kept_and_left_open(sandbox_url: str) -> None:
    seen: list[httpx.Request] = []

    async def hook(request: httpx.Request) -> None:
        seen.append(request)

    async def main() -> httpx.AsyncClient:
        async with httpx.AsyncClient(event_hooks={"request": [hook]}) as http:
            async with AsyncClient(
                sandbox_url, **settings(sandbox_url), http_client=http
            ) as client:
                assert (await client.receivables("C001")).rows
                assert len(await client.table("account")) > 0
            assert not http.is_closed
            return http

    run(main)
    assert [r.method for r in seen] == ["GET", "POST"]
    assert seen[0].headers["user-agent"].startswith("erpdata/")


def test_own_client_is_closed_by_async_with(sandbox_url: str) -> None:
    async def main() -> AsyncClient:
        async with AsyncClient(sandbox_url, project="demo") as client:
            pass
        return client

    assert run(main)._pool._http.is_closed


def test_a_misspelt_keyword_argument_names_the_async_method(sandbox_url: str) -> None:
    async def main() -> None:
        with pytest.raises(TypeError, match=r"^AsyncClient\(\) got an unexpected keyword "):
            AsyncClient(sandbox_url, compnay_id=1)  # type: ignore[call-arg]
        async with AsyncClient(sandbox_url, project="demo", access_token=SANDBOX_TOKEN) as c:
            with pytest.raises(TypeError) as caught:
                await c.dues("C001", kinds="RECEIPT")  # type: ignore[call-arg]
            assert str(caught.value) == (
                "AsyncClient.dues() got an unexpected keyword argument 'kinds'; "
                "did you mean 'kind'?"
            )

    run(main)


def test_a_call_on_a_closed_async_client_is_an_erp_error(sandbox_url: str) -> None:
    async def main() -> None:
        async with AsyncClient(sandbox_url, project="demo", access_token=SANDBOX_TOKEN) as c:
            assert (await c.receivables("C001")).rows
        await c.aclose()  # again: nothing to do
        for call in (
            lambda: c.receivables("C001"),
            lambda: c.dues_many(["C001", "C002"], kind="receipt"),
        ):
            with pytest.raises(erpdata.InvalidInputError) as caught:
                await call()
            assert caught.value.field == "client" and caught.value.reason == "closed"
            assert str(caught.value).startswith("this AsyncClient has been closed (by aclose()")
        with pytest.raises(erpdata.InvalidInputError, match="AsyncClient has been closed"):
            async with c.stream_table("account", company_id=1, year_id=2025) as stream:
                async for _ in stream:
                    pass

    run(main)


def test_errors_are_the_same_types(sandbox_url: str, refused_url: str) -> None:
    async def main() -> None:
        async with AsyncClient(
            sandbox_url, project="demo", access_token=FAKE_TOKEN, company_id=1, year_id=2025
        ) as c:
            with pytest.raises(erpdata.ServiceError, match="Invalid access token"):
                await c.table("sales_invoice")
            with pytest.raises(erpdata.InvalidInputError):
                await c.table("no;such")
        async with AsyncClient(refused_url, project="demo", max_retries=0) as c:
            with pytest.raises(erpdata.TransportError) as info:
                await c.receivables("C001")
            assert info.value.transport_kind == "connect"
            assert info.value.__cause__ is None and info.value.__context__ is None

    run(main)


def test_silent_server_times_out_with_asyncio(silent_url: str) -> None:
    async def main() -> float:
        async with AsyncClient(silent_url, project="demo", max_retries=0) as c:
            started = time.monotonic()
            with pytest.raises(erpdata.TimeoutError):
                await c.receivables("C001", timeout=0.3)
            return time.monotonic() - started

    assert run(main) < 3


def test_repr_shows_no_token(refused_url: str) -> None:
    client = AsyncClient(refused_url, project="demo", access_token=FAKE_TOKEN)
    assert repr(client) == f"AsyncClient(base_url={refused_url!r}, project='demo')"
    assert FAKE_TOKEN not in repr(client) + str(client)
    run(client.aclose)


def test_sync_client_works_inside_a_running_event_loop(
    sandbox_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As in a notebook cell: a loop is running in this thread. The sync
    # client must neither need nor start one.
    def no_asyncio_run(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("asyncio.run called")

    async def cell() -> tuple[int, int]:
        asyncio.get_running_loop()
        monkeypatch.setattr(asyncio, "run", no_asyncio_run)
        with Client(sandbox_url, **settings(sandbox_url)) as client:
            table = client.table("sales_invoice")
            streamed = sum(len(b) for b in client.stream_table("sales_invoice", batch_rows=9))
            return len(table), streamed

    count, streamed = asyncio.run(cell())
    assert count == streamed > 0
