"""stream_table: batches as the answer arrives, in bounded memory, and an
answer cut off part-way raises after the last complete batch."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable

import httpx
import pyarrow as pa
import pytest

import erpdata
from conftest import BIG_ROWS, FAKE_TOKEN, SECRET_TOKEN, table_body
from erpdata import AsyncClient, Client

Send = Callable[[bytes], None]


def big_client(url: str, **kw: Any) -> Client:
    return Client(url, project="demo", access_token=SECRET_TOKEN, company_id=1, year_id=2025, **kw)


def test_batches_add_up_to_the_table(client: Client) -> None:
    table = client.table("sales_invoice")
    with client.stream_table("sales_invoice", batch_rows=16) as stream:
        batches = list(stream)
    assert [len(b) for b in batches] == [16, 16, 8]
    assert [row for b in batches for row in b] == list(table)
    assert stream.finished and stream.rows_received == stream.rows_delivered == 40
    assert stream.notices == [] and stream.bytes_received > 0


def test_arrow_batches(client: Client) -> None:
    batches = list(client.stream_table("sales_invoice", batch_rows=25, batch_format="arrow"))
    assert all(isinstance(b, pa.RecordBatch) for b in batches)
    assert [b.num_rows for b in batches] == [25, 15]
    assert batches[0].schema.field("date").type == pa.date32()
    assert pa.types.is_decimal(batches[0].schema.field("amount").type)
    # One schema for every batch: they make one table as they are.
    assert batches[1].schema == batches[0].schema
    whole = pa.Table.from_batches(batches)
    table = client.table("sales_invoice")
    assert whole.column("invoice_no").to_pylist() == [r["invoice_no"] for r in table]
    assert whole.column("total").to_pylist() == [r["total"] for r in table]


def test_invalid_arguments_raise_before_sending(refused_url: str) -> None:
    with Client(refused_url, project="demo", access_token=FAKE_TOKEN, company_id=1, year_id=1) as c:
        with pytest.raises(erpdata.InvalidInputError) as info:
            c.stream_table("bad name")
        assert info.value.field == "table"
        with pytest.raises(erpdata.InvalidInputError) as info:
            c.stream_table("account", batch_rows=0)
        assert info.value.field == "batch_rows"
        with pytest.raises(erpdata.InvalidInputError) as info:
            c.stream_table("account", batch_format="csv")  # type: ignore[call-overload]
        assert info.value.field == "batch_format"
        with pytest.raises(erpdata.InvalidInputError) as info:
            c.stream_table("account", use_threads="yes")  # type: ignore[call-overload]
        assert info.value.field == "use_threads"
        assert "True or False" in str(info.value)


def decoder_threads() -> int:
    """Threads of this process named as the package's decoder threads."""
    tasks = Path("/proc/self/task")
    return sum((task / "comm").read_text().strip() == "erpdata-decode" for task in tasks.iterdir())


@pytest.mark.parametrize("batch_format", ["rows", "arrow"])
def test_a_stream_decoded_on_a_thread_gives_the_same_batches(
    big_sandbox_url: str, batch_format: str
) -> None:
    with big_client(big_sandbox_url) as c:
        plain = list(c.stream_table("sales_invoice", batch_rows=7000, batch_format=batch_format))  # type: ignore[call-overload]
        threaded = []
        with c.stream_table(
            "sales_invoice",
            batch_rows=7000,
            batch_format=batch_format,
            use_threads=True,  # type: ignore[call-overload]
        ) as stream:
            for batch in stream:
                threaded.append(batch)
                if len(threaded) == 1:
                    # The body is being decoded on the package's thread.
                    assert decoder_threads() >= 1
        assert stream.finished and stream.rows_delivered == stream.rows_received == BIG_ROWS
    assert [len(b) for b in threaded] == [len(b) for b in plain]
    if batch_format == "arrow":
        assert pa.Table.from_batches(threaded).equals(pa.Table.from_batches(plain))
    else:
        assert threaded == plain


def test_row_dicts_come_in_smaller_batches_than_arrow_by_default(big_sandbox_url: str) -> None:
    # A row dict weighs about ten times its values in columns: lists of
    # 65,536 of them tripled a stream's peak memory. The defaults are the
    # core's, the same as JavaScript's.
    with big_client(big_sandbox_url) as c:
        rows = [len(b) for b in c.stream_table("sales_invoice")]
        arrow = [b.num_rows for b in c.stream_table("sales_invoice", batch_format="arrow")]
    assert erpdata._core.DEFAULT_ROW_BATCH_ROWS == 4_096
    assert max(rows) == 4_096 and sum(rows) == BIG_ROWS
    assert arrow == [BIG_ROWS]  # under the 65,536 of erpdata._core.DEFAULT_BATCH_ROWS


@pytest.mark.parametrize("use_threads", [False, True])
def test_batches_come_while_the_body_is_still_arriving(
    big_sandbox_url: str, use_threads: bool
) -> None:
    # On a thread, the reading runs ahead of the decoding by up to the 4 MiB
    # its inbox holds: the first batch comes later, still long before the
    # end.
    with (
        big_client(big_sandbox_url) as c,
        c.stream_table("sales_invoice", batch_rows=1000, use_threads=use_threads) as stream,
    ):
        first = next(stream)
        at_first = stream.bytes_received
        rows = len(first) + sum(len(b) for b in stream)
        total = stream.bytes_received
    assert rows == BIG_ROWS
    assert len(first) == 1000
    # The first batch was handed out after a small part of the body.
    assert at_first < total / (2 if use_threads else 10), (at_first, total)


def test_a_table_keeps_none_of_its_body_once_decoded(big_sandbox_url: str) -> None:
    # The decoder thread is lent httpx's chunks rather than given copies,
    # and gives each back to be freed: once the call is over, none of the
    # body's bytes objects are alive (the table itself is Arrow memory,
    # which tracemalloc does not see).
    import tracemalloc

    with big_client(big_sandbox_url) as c:
        with c.stream_table("sales_invoice") as stream:  # imports, the connection
            for _ in stream:
                pass
            body = stream.bytes_received
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            table = c.table("sales_invoice")
            held = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
    assert len(table) == BIG_ROWS
    assert held < body / 20, (held, body)


def test_leaving_early_releases_the_connection(big_sandbox_url: str) -> None:
    limits = httpx.Limits(max_connections=1)
    with httpx.Client(limits=limits) as http, big_client(big_sandbox_url, http_client=http) as c:
        for _ in range(3):
            with c.stream_table("sales_invoice", batch_rows=100) as stream:
                next(stream)
        # Had a stream kept its connection, this would wait for the pool.
        assert c.receivables("C001", timeout=5).rows


def cut_off(body: bytes, keep: int) -> Callable[[Send], None]:
    """Promises the whole body, sends ``keep`` bytes, closes."""

    def answer(send: Send) -> None:
        send(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n")
        send(f"content-length: {len(body)}\r\n\r\n".encode() + body[:keep])

    return answer


@pytest.mark.parametrize("use_threads", [False, True])
def test_a_cut_off_body_raises_after_the_last_complete_batch(
    raw_server: Any, use_threads: bool
) -> None:
    body = table_body(1000)
    server = raw_server(cut_off(body, len(body) * 3 // 4))
    got: list[Any] = []
    with Client(server.url, project="demo", access_token=FAKE_TOKEN, company_id=1, year_id=1) as c:
        with pytest.raises(erpdata.TransportError) as info:
            for batch in c.stream_table("sales_invoice", batch_rows=100, use_threads=use_threads):
                got.append(batch)
    err = info.value
    assert len(got) == 7 and all(len(b) == 100 for b in got)
    assert err.rows_received is not None and 700 <= err.rows_received < 1000
    assert f"{err.rows_received} rows had arrived" in str(err)
    assert "700 of them delivered" in str(err)
    assert err.__context__ is None and err.__cause__ is None
    # Batches had gone out, so it is not retried.
    assert server.requests == 1


@pytest.mark.parametrize("use_threads", [False, True])
def test_a_truncated_json_body_raises_a_decode_error(raw_server: Any, use_threads: bool) -> None:
    body = table_body(500)[:-200]

    def answer(send: Send) -> None:
        send(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(body) + body)

    server = raw_server(answer)
    rows = 0
    with Client(server.url, project="demo", access_token=FAKE_TOKEN, company_id=1, year_id=1) as c:
        with pytest.raises(erpdata.DecodeError) as info:
            for batch in c.stream_table("sales_invoice", batch_rows=64, use_threads=use_threads):
                rows += len(batch)
        assert "truncated" in str(info.value)
        assert (
            rows == 448 and info.value.rows_received is not None and info.value.rows_received > 448
        )
        # table() never turns a truncated answer into fewer rows either.
        with pytest.raises(erpdata.DecodeError, match="truncated"):
            c.table("sales_invoice")


def test_table_retries_a_body_cut_off(raw_server: Any) -> None:
    body = table_body(300)
    calls = 0

    def flaky(send: Send) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            cut_off(body, 1000)(send)
        else:
            send(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(body) + body)

    server = raw_server(flaky)
    with Client(server.url, project="demo", access_token=FAKE_TOKEN, company_id=1, year_id=1) as c:
        assert len(c.table("sales_invoice")) == 300
    assert server.requests == 2


def test_async_stream_cut_off(raw_server: Any) -> None:
    body = table_body(1000)
    server = raw_server(cut_off(body, len(body) // 2))

    async def main() -> tuple[int, erpdata.ErpError]:
        rows = 0
        async with AsyncClient(
            server.url, project="demo", access_token=FAKE_TOKEN, company_id=1, year_id=1
        ) as c:
            try:
                async for batch in c.stream_table(
                    "sales_invoice", batch_rows=100, batch_format="arrow"
                ):
                    rows += batch.num_rows
            except erpdata.TransportError as err:
                return rows, err
        raise AssertionError("no error")

    rows, err = asyncio.run(main())
    assert rows == 400 or rows == 500
    assert err.rows_received is not None and err.rows_received >= rows
    assert "rows had arrived" in str(err)


def test_service_error_in_a_stream(sandbox_url: str) -> None:
    with Client(
        sandbox_url, project="demo", access_token=FAKE_TOKEN, company_id=1, year_id=2025
    ) as c:
        with pytest.raises(erpdata.ServiceError, match="Invalid access token"):
            list(c.stream_table("sales_invoice"))


# -- the sandbox's body faults (/_body/FAULT/KEY/ in front of the path) -----------


def fault(base: str, path: str) -> str:
    return f"{base.rstrip('/')}/_body/{path}/"


def count(base: str, key: str) -> int:
    return int(httpx.get(fault(base, f"count/{key}").rstrip("/")).text)


def test_sandbox_reset_mid_stream(big_sandbox_url: str) -> None:
    key = "py-stream-reset"
    got = 0
    with big_client(fault(big_sandbox_url, f"reset-2000000/{key}")) as c:
        with pytest.raises(erpdata.TransportError) as info:
            for batch in c.stream_table("sales_invoice", batch_rows=1000):
                got += len(batch)
    err = info.value
    assert got > 0 and got % 1000 == 0
    assert err.rows_received is not None and got <= err.rows_received < BIG_ROWS
    assert f"{got} of them delivered" in str(err)
    assert count(big_sandbox_url, key) == 1  # not retried once rows went out


def test_sandbox_truncated_body(big_sandbox_url: str) -> None:
    key = "py-stream-truncate"
    got = 0
    with big_client(fault(big_sandbox_url, f"truncate-2000000/{key}"), max_retries=1) as c:
        with pytest.raises(erpdata.DecodeError, match="truncated") as info:
            for batch in c.stream_table("sales_invoice", batch_rows=1000):
                got += len(batch)
        assert info.value.rows_received is not None and got <= info.value.rows_received < BIG_ROWS
        # The whole-table call never turns it into fewer rows either.
        with pytest.raises(erpdata.DecodeError, match="truncated"):
            c.table("sales_invoice")


def test_sandbox_reset_retried_by_table(big_sandbox_url: str) -> None:
    key = "py-table-reset"
    with big_client(fault(big_sandbox_url, f"reset-100000/{key}"), max_retries=1) as c:
        with pytest.raises(erpdata.TransportError) as info:
            c.table("sales_invoice")
    assert info.value.transport_kind == "reset"
    assert count(big_sandbox_url, key) == 2


@pytest.mark.parametrize("use_threads", [False, True])
def test_an_async_stream_makes_its_rows_in_turns(
    big_sandbox_url: str, use_threads: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A batch's row dicts are made ROWS_PER_TURN at a time, the event loop
    # let run between them (a batch of 65,536 at once held it for 80 ms):
    # the same rows, in as many turns as the batch needs.
    from erpdata import _stream

    turns: list[int] = []

    async def checkpoint() -> None:
        turns.append(len(turns))
        await asyncio.sleep(0)

    monkeypatch.setattr(_stream, "_checkpoint", checkpoint)
    batch_rows = 4 * _stream.ROWS_PER_TURN + 100

    async def main() -> list[list[dict[str, Any]]]:
        async with AsyncClient(
            big_sandbox_url, project="demo", access_token=SECRET_TOKEN, company_id=1, year_id=2025
        ) as c:
            stream = c.stream_table("sales_invoice", batch_rows=batch_rows, use_threads=use_threads)
            return [batch async for batch in stream]

    batches = asyncio.run(main())
    with big_client(big_sandbox_url) as c:
        whole = list(c.stream_table("sales_invoice", batch_rows=batch_rows))
    assert batches == whole
    expected = sum(-(-len(b) // _stream.ROWS_PER_TURN) - 1 for b in whole)
    assert len(turns) == expected > 0
