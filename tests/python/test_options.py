"""Per-call settings (``with_options``) and the limits the package takes
from the core (``erpdata._core``): defaults, ranges, and the errors that
name the field."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import Any

import httpx
import pytest

import erpdata
import fault_api
from conftest import FAKE_TOKEN, SANDBOX_TOKEN
from erpdata import AsyncClient, Client, Timeout, _core

SETTINGS: dict[str, Any] = dict(project="demo", company_id=1, year_id=2025)


def test_the_defaults_are_the_cores() -> None:
    assert (_core.DEFAULT_TOTAL_TIMEOUT, _core.DEFAULT_CONNECT_TIMEOUT) == (300.0, 10.0)
    assert _core.DEFAULT_READ_TIMEOUT == 30.0
    assert Timeout() == Timeout(
        total=_core.DEFAULT_TOTAL_TIMEOUT,
        connect=_core.DEFAULT_CONNECT_TIMEOUT,
        read=_core.DEFAULT_READ_TIMEOUT,
    )
    assert (_core.DEFAULT_MAX_RETRIES, _core.MAX_RETRIES) == (2, 10)
    assert (_core.MIN_BATCH_ROWS, _core.DEFAULT_BATCH_ROWS, _core.MAX_BATCH_ROWS) == (
        1,
        65_536,
        1_048_576,
    )
    assert _core.DEFAULT_MAX_RETRY_AFTER == 30.0
    with Client("http://127.0.0.1:1/", **SETTINGS) as c:
        assert c.max_retries == _core.DEFAULT_MAX_RETRIES
        assert c.max_retry_after == _core.DEFAULT_MAX_RETRY_AFTER
        assert c.timeout == Timeout()


@pytest.mark.parametrize(
    ("field", "value", "text"),
    [
        ("max_retries", 11, "from 0 to 10, got 11"),
        ("max_retries", -1, "from 0 to 10, got -1"),
        ("max_retries", "2", "from 0 to 10, got '2'"),
        ("max_retries", True, "from 0 to 10, got True"),
        ("timeout", 0, "total must be a number of seconds above 0 and at most 86400, got 0"),
        ("timeout", 86_401, "at most 86400"),
        ("timeout", float("nan"), "got NaN"),
    ],
)
def test_limits_are_checked_by_the_core(field: str, value: Any, text: str) -> None:
    with pytest.raises(erpdata.InvalidInputError) as info:
        Client("http://127.0.0.1:1/", **SETTINGS, **{field: value})
    assert info.value.field == field
    assert text in info.value.reason
    assert info.value.kind == "invalid_input" and info.value.attempts is None
    with Client("http://127.0.0.1:1/", **SETTINGS) as c:
        with pytest.raises(erpdata.InvalidInputError) as again:
            c.with_options(**{field: value})
        assert again.value.reason == info.value.reason


@pytest.mark.parametrize("rows", [0, 1_048_577, 1.5])
def test_batch_rows_range_is_the_cores(rows: Any) -> None:
    with Client("http://127.0.0.1:1/", **SETTINGS, access_token=FAKE_TOKEN) as c:
        with pytest.raises(erpdata.InvalidInputError) as info:
            c.stream_table("sales_invoice", batch_rows=rows)
    assert info.value.field == "batch_rows"
    assert "from 1 to 1048576" in info.value.reason


def test_with_options_shares_the_http_client(sandbox_url: str) -> None:
    http = httpx.Client()
    try:
        with Client(sandbox_url, **SETTINGS, http_client=http, max_retries=2) as c:
            quick = c.with_options(timeout=5, max_retries=0)
            assert quick._http is c._http is http
            assert (quick.max_retries, quick.timeout.total, quick.timeout.read) == (0, 5.0, 5.0)
            # The original keeps its settings.
            assert (c.max_retries, c.timeout) == (2, Timeout())
            assert quick.receivables("C001").rows == c.receivables("C001").rows
            assert repr(quick) == repr(c)
            # Only the settings named change.
            assert quick.with_options(max_retries=1).timeout == quick.timeout
    finally:
        http.close()


def test_with_options_does_not_close_the_shared_client(sandbox_url: str) -> None:
    with Client(sandbox_url, **SETTINGS) as c:
        with c.with_options(max_retries=0) as other:
            other.receivables("C001")
        # Still usable: closing the derived client left the pool open.
        assert c.receivables("C001").rows


def test_with_options_governs_the_calls(sandbox_url: str) -> None:
    key = fault_api.new_key("with-options", "503")
    base = fault_api.prefix(sandbox_url, "status-503x9", key)
    with Client(base, **SETTINGS, max_retries=2) as c:
        with pytest.raises(erpdata.HttpStatusError) as info:
            c.with_options(max_retries=0).receivables("C001")
    assert info.value.status_code == 503 and info.value.attempts == 1
    assert fault_api.count(sandbox_url, key) == 1


def test_a_wait_longer_than_max_retry_after_ends_the_call_saying_so(sandbox_url: str) -> None:
    key = fault_api.new_key("retry-after", "120")
    base = fault_api.prefix(sandbox_url, "status-503x9-ra120", key)
    with Client(base, **SETTINGS, max_retries=2) as c:
        started = time.monotonic()
        with pytest.raises(erpdata.HttpStatusError) as info:
            c.receivables("C001")
        took = time.monotonic() - started
    err = info.value
    # Not retried, not waited for: the caller decides when to try again.
    assert (err.status_code, err.attempts, fault_api.count(sandbox_url, key)) == (503, 1, 1)
    assert took < 2
    assert err.retryable is True and err.retry_after == 120.0
    assert "asked to wait 120 s, longer than the longest wait a client retries after (30 s)" in str(
        err
    )


def test_max_retry_after_sets_the_longest_wait_a_call_waits_out(sandbox_url: str) -> None:
    # Retry-After: 2 on the first request only: waited out by a client that
    # allows 3 s, which then succeeds on its second attempt.
    key = fault_api.new_key("retry-after", "allowed")
    base = fault_api.prefix(sandbox_url, "status-429x1-ra2", key)
    with Client(base, **SETTINGS, max_retry_after=1) as c:
        patient = c.with_options(max_retry_after=3.0)
        assert (c.max_retry_after, patient.max_retry_after) == (1.0, 3.0)
        started = time.monotonic()
        dues = patient.receivables("C001")
        took = time.monotonic() - started
    assert dues.rows and 2 <= took < 4
    assert fault_api.count(sandbox_url, key) == 2

    # The same answer to an async client that allows 1.5 s: ended at once,
    # the error keeps the wait and names the client's limit.
    async def main() -> None:
        key = fault_api.new_key("retry-after", "refused")
        base = fault_api.prefix(sandbox_url, "status-429x1-ra2", key)
        async with AsyncClient(base, **SETTINGS, max_retry_after=1.5) as c:
            started = time.monotonic()
            with pytest.raises(erpdata.HttpStatusError) as info:
                await c.receivables("C001")
            assert time.monotonic() - started < 1
        err = info.value
        assert (err.status_code, err.attempts, err.retry_after) == (429, 1, 2.0)
        assert "asked to wait 2 s, longer than the longest wait a client retries after (1.5 s)" in (
            str(err)
        )
        assert fault_api.count(sandbox_url, key) == 1

    asyncio.run(main())


@pytest.mark.parametrize("value", [-1, -0.5, float("nan"), float("inf"), 86_401, "30", True, None])
def test_a_max_retry_after_out_of_range_is_refused_naming_it(value: Any) -> None:
    with pytest.raises(erpdata.InvalidInputError) as info:
        Client("http://127.0.0.1:1/", **SETTINGS, max_retry_after=value)
    assert info.value.field == "max_retry_after"
    assert str(info.value).startswith(
        "invalid max_retry_after: must be a number of seconds from 0 to 86400, got "
    )
    with Client("http://127.0.0.1:1/", **SETTINGS) as c:
        if value is None:  # None keeps the client's
            assert c.with_options(max_retry_after=value).max_retry_after == 30.0
        else:
            with pytest.raises(erpdata.InvalidInputError):
                c.with_options(max_retry_after=value)


def test_what_would_fail_again_is_not_retryable(sandbox_url: str) -> None:
    async def main() -> None:
        # The sandbox sends Retry-After: 0 with its 404: no wait to keep.
        base = fault_api.prefix(sandbox_url, "status-404x1", fault_api.new_key("404"))
        async with erpdata.AsyncClient(base, **SETTINGS) as c:
            with pytest.raises(erpdata.HttpStatusError) as info:
                await c.receivables("C001")
        assert info.value.status_code == 404
        assert (info.value.retryable, info.value.retry_after) == (False, None)
        base = fault_api.prefix(sandbox_url, "service-error", fault_api.new_key("service"))
        async with erpdata.AsyncClient(base, **SETTINGS) as c:
            with pytest.raises(erpdata.ServiceError) as service:
                await c.payables("S001")
        assert service.value.retryable is False

    asyncio.run(main())


def test_with_options_timeout_governs_the_calls(silent_url: str) -> None:
    with Client(silent_url, **SETTINGS, access_token=FAKE_TOKEN) as c:
        started = time.monotonic()
        with pytest.raises(erpdata.TimeoutError) as info:
            c.with_options(timeout=Timeout(total=0.5, connect=0.5, read=0.2)).table("sales_invoice")
    assert time.monotonic() - started < 3
    assert info.value.kind == "transport" and info.value.transport_kind == "timeout"


def test_async_with_options(sandbox_url: str) -> None:
    async def main() -> None:
        key = fault_api.new_key("with-options-async", "503")
        base = fault_api.prefix(sandbox_url, "status-503x9", key)
        async with AsyncClient(base, **SETTINGS) as c:
            fewer = c.with_options(max_retries=0, timeout=20)
            assert isinstance(fewer, AsyncClient) and fewer._http is c._http
            assert fewer.timeout.total == 20.0
            with pytest.raises(erpdata.HttpStatusError) as info:
                await fewer.receivables("C001")
            assert info.value.attempts == 1
            await fewer.aclose()
            # The shared client is still open.
            with pytest.raises(erpdata.HttpStatusError):
                await c.with_options(max_retries=0).receivables("C002")
        assert fault_api.count(sandbox_url, key) == 2

    asyncio.run(main())


def test_the_erpdata_logger_tells_each_request_answer_wait_and_end(
    sandbox_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # The core's lines, the same the Rust clients and a JS logger get.
    key = fault_api.new_key("log-lines", "503")
    base = fault_api.prefix(sandbox_url, "status-503x1", key)
    caplog.set_level(logging.DEBUG, logger="erpdata")
    with Client(base, **SETTINGS, access_token=SANDBOX_TOKEN) as c:
        c.table("account", method="GET")
        with pytest.raises(erpdata.ServiceError):
            c.table("nosuch")
    lines = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "erpdata"]
    levels = ["DEBUG", "DEBUG", "INFO", "DEBUG", "DEBUG", "DEBUG", "DEBUG", "DEBUG", "DEBUG"]
    assert [level for level, _ in lines] == levels, lines
    # Each line starts with its call's number: one for the first call's
    # six lines, another for the second's three.
    matched = [re.fullmatch(r"call (\d+): (.*)", text) for _, text in lines]
    assert all(matched), lines
    calls = [m[1] for m in matched if m]
    text = [m[2] for m in matched if m]
    assert calls == [calls[0]] * 6 + [calls[6]] * 3 and calls[0] != calls[6], calls
    assert text[0].startswith(f"request 1: GET {base}apis/dataapi.php?req=getdata&")
    assert "accesstoken=[REDACTED]" in text[0] and SANDBOX_TOKEN not in caplog.text
    assert text[1] == "answer 503"
    assert re.fullmatch(
        r"waiting \d+\.\d\d s before request 2 \(as the core's call asks\)", text[2]
    )
    assert text[3].startswith("request 2: GET ")
    assert text[4] == "answer 200"
    assert text[5] == "done after 2 requests"
    assert text[6].startswith("request 1: POST ") and " form: req=getdata&" in text[6]
    assert text[7] == "answer 200"
    assert text[8].startswith('failed after 1 request: service error (status "error")')
    assert "Unknown table: nosuch" in text[8]


def test_a_stream_its_caller_ends_early_says_so_in_its_last_line(
    sandbox_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Closed early (a `break`, a web response cancelled), its request read
    # as never answered; so did a call cancelled midway.
    caplog.set_level(logging.DEBUG, logger="erpdata")
    with Client(sandbox_url, **SETTINGS, access_token=SANDBOX_TOKEN) as c:
        with c.stream_table("sales_invoice", batch_rows=5) as stream:
            rows = len(next(iter(stream))) + len(next(iter(stream)))
    lines = [r.getMessage() for r in caplog.records if r.name == "erpdata"]
    assert re.fullmatch(rf"call \d+: ended by its caller after {rows} rows", lines[-1]), lines

    caplog.clear()
    slow = fault_api.prefix(sandbox_url, "latency-3000", fault_api.new_key("log-cancel"))

    async def cancelled() -> None:
        async with erpdata.AsyncClient(slow, **SETTINGS, access_token=SANDBOX_TOKEN) as c:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(c.table("account"), 0.3)

    asyncio.run(cancelled())
    lines = [r.getMessage() for r in caplog.records if r.name == "erpdata"]
    assert re.fullmatch(r"call \d+: ended by its caller after 0 rows", lines[-1]), lines
