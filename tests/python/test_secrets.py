"""The token appears nowhere: not in log lines at DEBUG (erpdata's, httpx's
and httpcore's), exception messages, reprs or tracebacks, for every
operation of both clients, both table methods and both table forms."""

from __future__ import annotations

import asyncio
import logging
import traceback
import urllib.parse
from typing import Any, Callable

import pytest

import erpdata
from erpdata import AsyncClient, Client

from conftest import SECRET_TOKEN, table_body

WRONG_TOKEN = "wrong+token/with=chars&too%20"
FORMS = {
    token: (token, urllib.parse.quote_plus(token), urllib.parse.quote(token, safe=""))
    for token in (SECRET_TOKEN, WRONG_TOKEN)
}


def assert_clean(text: str, token: str = SECRET_TOKEN) -> None:
    for form in FORMS[token]:
        assert form not in text, f"{form!r} leaked"


def error_text(err: BaseException) -> str:
    return "".join(traceback.format_exception(type(err), err, err.__traceback__)) + repr(err) + str(err.args)


def settings(token: str = SECRET_TOKEN) -> dict[str, Any]:
    return dict(project="demo", access_token=token, company_id=1, year_id=2025, timeout=20)


def sync_operations(url: str) -> list[str]:
    seen: list[str] = []
    with Client(url, **settings()) as c:
        seen.append(repr(c))
        c.receivables("C001")
        c.payables("S001")
        c.dues_many(["C001", "C002"], "receipt")
        for method in ("POST", "GET"):
            table = c.table("sales_invoice", method=method)
            seen.append(repr(table))
            with c.stream_table("sales_invoice", method=method, batch_rows=16) as stream:
                for _ in stream:
                    seen.append(repr(stream))
            seen.append(repr(next(iter(c.stream_table("account", method=method, batch_format="arrow")))))
    with Client(url, **settings(WRONG_TOKEN)) as c:
        for method in ("POST", "GET"):
            with pytest.raises(erpdata.ServiceError) as info:
                c.table("sales_invoice", method=method)
            seen.append(error_text(info.value))
            with pytest.raises(erpdata.ServiceError) as info:
                list(c.stream_table("sales_invoice", method=method))
            seen.append(error_text(info.value))
    return seen


async def async_operations(url: str) -> list[str]:
    seen: list[str] = []
    async with AsyncClient(url, **settings()) as c:
        seen.append(repr(c))
        await c.receivables("C001")
        await c.payables("S001")
        await c.dues_many(["C001", "C002"], "receipt")
        for method in ("POST", "GET"):
            seen.append(repr(await c.table("sales_invoice", method=method)))
            async with c.stream_table("sales_invoice", method=method, batch_rows=16) as stream:
                async for _ in stream:
                    seen.append(repr(stream))
    return seen


def test_nothing_leaks_at_debug(secret_sandbox_url: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        seen = sync_operations(secret_sandbox_url)
        seen += asyncio.run(async_operations(secret_sandbox_url))
    messages = [r.getMessage() for r in caplog.records]
    assert any(r.name == "erpdata" and "GET" in r.getMessage() for r in caplog.records)
    assert any(r.name.startswith("httpx") for r in caplog.records)
    # The form body and the GET URL were logged, redacted.
    assert any("accesstoken=[REDACTED]" in m for m in messages)
    for token in FORMS:
        assert_clean(caplog.text + "\n".join(messages) + "\n".join(seen), token)


def test_transport_failures_and_retries_leak_nothing(
    raw_server: Any, refused_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    body = table_body(10)
    calls = 0

    def busy_then_cut(send: Callable[[bytes], None]) -> None:
        nonlocal calls
        calls += 1
        if calls <= 2:
            send(b"HTTP/1.1 503 Busy\r\nretry-after: 0\r\ncontent-length: 4\r\n\r\nbusy")
        else:
            send(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(body) + body[:300])

    server = raw_server(busy_then_cut)
    texts: list[str] = []
    with caplog.at_level(logging.DEBUG):
        for url in (server.url, refused_url):
            with Client(url, **settings(), max_retries=2 if url == server.url else 0) as c:
                for method in ("GET", "POST"):
                    calls = 0
                    with pytest.raises(erpdata.ErpError) as info:
                        list(c.stream_table("sales_invoice", method=method, batch_rows=2))
                    texts.append(error_text(info.value))
                    calls = 0
                    with pytest.raises(erpdata.ErpError) as info:
                        c.table("sales_invoice", method=method)
                    texts.append(error_text(info.value))

            async def main() -> None:
                async with AsyncClient(url, **settings(), max_retries=1) as ac:
                    try:
                        await ac.table("sales_invoice", method="GET")
                    except erpdata.ErpError as err:
                        texts.append(error_text(err))

            asyncio.run(main())
    assert any("retrying" in r.getMessage() for r in caplog.records)
    assert any("[REDACTED]" in r.getMessage() for r in caplog.records)
    assert_clean(caplog.text + "\n".join(r.getMessage() for r in caplog.records) + "\n".join(texts))
