"""Timeouts: finite by default, a total limit for the whole call, per-call
overrides, and no way to ask for "forever"."""

from __future__ import annotations

import math
import time
from typing import Any, Callable

import pytest

import erpdata
from conftest import FAKE_TOKEN
from erpdata import Client, Timeout


def test_defaults_are_finite(refused_url: str) -> None:
    with Client(refused_url, project="demo") as c:
        assert c.timeout == Timeout(total=300.0, connect=10.0, read=30.0)
    for value in (None,):
        with Client(refused_url, project="demo", timeout=value) as c:
            assert all(
                math.isfinite(v) for v in (c.timeout.total, c.timeout.connect, c.timeout.read)
            )


def test_a_number_is_the_total_and_caps_the_rest(refused_url: str) -> None:
    with Client(refused_url, project="demo", timeout=5) as c:
        assert c.timeout == Timeout(total=5.0, connect=5.0, read=5.0)
    with Client(refused_url, project="demo", timeout=60) as c:
        assert c.timeout == Timeout(total=60.0, connect=10.0, read=30.0)


@pytest.mark.parametrize("bad", [0, -1, math.inf, math.nan, "5", True])
def test_unbounded_or_invalid_limits_are_refused(refused_url: str, bad: Any) -> None:
    with pytest.raises(erpdata.InvalidInputError) as info:
        Client(refused_url, project="demo", timeout=bad)
    assert info.value.field == "timeout"
    with pytest.raises(erpdata.InvalidInputError):
        Timeout(connect=bad)


def test_per_call_override(silent_url: str) -> None:
    with Client(silent_url, project="demo", timeout=60, max_retries=0) as c:
        started = time.monotonic()
        with pytest.raises(erpdata.TimeoutError):
            c.receivables("C001", timeout=Timeout(total=0.4, read=0.2))
        assert time.monotonic() - started < 3


def test_total_limit_stops_a_dripping_answer(raw_server: Any) -> None:
    # Each byte comes well within the read limit; only the total stops it.
    def drip(send: Callable[[bytes], None]) -> None:
        send(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n")
        for _ in range(200):
            send(b" ")
            time.sleep(0.05)

    server = raw_server(drip)
    with Client(server.url, project="demo", max_retries=0) as c:
        started = time.monotonic()
        with pytest.raises(erpdata.TimeoutError) as info:
            c.receivables("C001", timeout=Timeout(total=0.6, read=5))
        elapsed = time.monotonic() - started
    assert 0.5 < elapsed < 4
    assert "call's timeout" in str(info.value)


def test_retries_stop_at_the_deadline(raw_server: Any) -> None:
    def busy(send: Callable[[bytes], None]) -> None:
        send(b"HTTP/1.1 503 Service Unavailable\r\nretry-after: 2\r\ncontent-length: 4\r\n\r\nbusy")

    server = raw_server(busy)
    with Client(
        server.url, project="demo", access_token=FAKE_TOKEN, company_id=1, year_id=1, max_retries=5
    ) as c:
        started = time.monotonic()
        with pytest.raises(erpdata.HttpStatusError) as info:
            c.table("account", timeout=1.0)
        # A 2 s wait does not fit in 1 s: the 503 is the answer, at once.
        assert time.monotonic() - started < 1.0
    assert info.value.status_code == 503
    assert server.requests == 1


def test_a_stream_total_counts_waiting_not_the_consumer(sandbox_url: str) -> None:
    # The caller takes ~2 s over the batches, well past the 1 s total;
    # only time spent waiting for the answer counts, so nothing is cut off.
    # (A body that never ends is stopped: the fault matrix's never-ending row.)
    with Client(
        sandbox_url,
        project="demo",
        access_token="sandbox-token-not-secret",
        company_id=1,
        year_id=2025,
    ) as c:
        started = time.monotonic()
        with c.stream_table("sales_invoice", batch_rows=1, timeout=1.0) as stream:
            rows = 0
            for batch in stream:
                rows += len(batch)
                time.sleep(0.05)
        assert stream.finished and rows == 40
        assert time.monotonic() - started > 2.0
