"""``erpdata._core.Call`` driven by hand, as the clients' loops drive it:
the core decides, the host only does what the actions say."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

import erpdata
from erpdata import _core
from erpdata._core import Call, Config, Done, Emit, Failed, Invocation, Read, Send, Sleep

TOKEN = "fake-token-for-call-tests"
CONFIG = Config(
    "https://erp.example.com/", project="demo", access_token=TOKEN, company_id=1, year_id=2025
)
LIMITS: dict[str, Any] = dict(total=300.0, connect=10.0, read=30.0, max_retries=2)
DUES = b'{"status":"success","data":[{"acid":"C001","amount":"12.50"}]}'
TABLE = b'{"status":"success","data":[{"n":1},{"n":2},{"n":3}]}'


def dues_call(now: float = 0.0, **limits: Any) -> Call:
    invocation = CONFIG.invoke("dues", {"acid": "C001", "kind": "RECEIPT"})
    return Call.start(invocation, **{**LIMITS, **limits, "now": now})


def table_invocation() -> Invocation:
    return CONFIG.invoke("table", {"name": "sales_invoice"})


def test_a_503_then_the_answer() -> None:
    call = dues_call()
    send = call.next(0.0)
    assert isinstance(send, Send)
    assert TOKEN not in repr(send)
    assert (send.connect, send.read) == (10.0, 30.0)
    call.head(0.0, 503, retry_after="1")
    sleep = call.next(0.0)
    assert isinstance(sleep, Sleep) and sleep.seconds == 1.0
    assert isinstance(call.next(1.0), Send)
    call.head(1.0, 200)
    assert isinstance(call.next(1.0), Read)
    call.chunk(1.0, DUES)
    assert isinstance(call.next(1.0), Read)
    call.end(1.0)
    done = call.next(1.0)
    assert isinstance(done, Done) and isinstance(done.output, erpdata.Dues)
    assert done.output.rows[0]["acid"] == "C001" and call.attempts == 2


def busy_and_not_retried(call: Call, **head: Any) -> Any:
    """The error ``call`` ends with when its first answer is a 503 with
    ``head`` (its Retry-After) that it does not retry: the body is read
    for the error's excerpt."""
    assert isinstance(call.next(0.0), Send)
    call.head(0.0, 503, **head)
    assert isinstance(call.next(0.0), Read)
    call.chunk(0.0, b"<html>busy</html>")
    assert isinstance(call.next(0.0), Read)
    call.end(0.0)
    failed = call.next(0.0)
    assert isinstance(failed, Failed)
    return failed.error


def test_a_failure_carries_where_the_call_stood() -> None:
    err = busy_and_not_retried(dues_call(max_retries=0), retry_after="7")
    assert isinstance(err, erpdata.HttpStatusError) and err.status_code == 503
    assert (err.kind, err.attempts, err.rows_received, err.rows_delivered) == (
        "http_status",
        1,
        None,
        None,
    )
    assert err.url is not None and err.url.startswith("https://erp.example.com/")
    # It may pass later, after the wait the answer asked for.
    assert (err.retryable, err.retry_after) == (True, 7.0)
    again = pickle.loads(pickle.dumps(err))
    assert (again.attempts, again.url, again.kind) == (err.attempts, err.url, err.kind)
    assert (again.retryable, again.retry_after) == (True, 7.0)


def test_a_wait_longer_than_the_client_waits_ends_the_call_saying_so() -> None:
    # An HTTP date two minutes after the binding's clock (time.time()).
    err = busy_and_not_retried(
        dues_call(max_retries=2),
        retry_after="Sun, 22 Nov 2026 10:02:00 GMT",
        date=1795341600.0,
    )
    assert isinstance(err, erpdata.HttpStatusError) and err.attempts == 1
    assert (err.retryable, err.retry_after) == (True, 120.0)
    assert "asked to wait 120 s, longer than the longest wait a client retries after (30 s)" in str(
        err
    )


def test_a_transport_failure_is_retried_then_reported() -> None:
    call = dues_call(max_retries=1)
    assert isinstance(call.next(0.0), Send)
    call.failed(0.0, "connect", f"ConnectError: refused token={TOKEN}")
    assert isinstance(call.next(0.0), Sleep)
    assert isinstance(call.next(1.0), Send)
    call.failed(1.0, "reset", "ReadError")
    failed = call.next(1.0)
    assert isinstance(failed, Failed)
    err = failed.error
    assert isinstance(err, erpdata.TransportError) and not isinstance(err, erpdata.TimeoutError)
    assert (err.kind, err.transport_kind, err.attempts) == ("transport", "reset", 2)
    assert err.retryable
    assert TOKEN not in str(err)


def test_the_total_bounds_the_call() -> None:
    call = dues_call(total=2.0, connect=1.0, read=1.0)
    assert isinstance(call.next(0.0), Send)
    call.head(0.5, 200)
    read = call.next(1.5)
    assert isinstance(read, Read) and read.wait == pytest.approx(0.5)
    call.chunk(1.9, DUES[:10])
    failed = call.next(2.5)
    assert isinstance(failed, Failed) and isinstance(failed.error, erpdata.TimeoutError)
    assert "call's timeout of 2 s" in str(failed.error)


def test_a_stream_emits_batches_and_counts_them() -> None:
    call = Call.start(table_invocation(), stream=True, batch_rows=1, **LIMITS, now=0.0)
    assert isinstance(call.next(0.0), Send)
    call.head(0.0, 200)
    assert isinstance(call.next(0.0), Read)
    call.chunk(0.0, TABLE)
    batches = []
    while True:
        action = call.next(0.0)
        if isinstance(action, Emit):
            batches.append(action.batch.to_rows())
        else:
            break
    assert isinstance(action, Read)
    call.end(0.0)
    while isinstance(action := call.next(0.0), Emit):
        batches.append(action.batch.to_rows())
    assert isinstance(action, Done) and action.output == ([], 3)
    assert [r for b in batches for r in b] == [{"n": 1}, {"n": 2}, {"n": 3}]
    assert call.rows_delivered == 3


def test_a_table_is_decoded_on_its_thread() -> None:
    call = Call.start(table_invocation(), batch_rows=_core.DEFAULT_BATCH_ROWS, **LIMITS, now=0.0)
    assert isinstance(call.next(0.0), Send)
    call.head(0.0, 200)
    for at in range(0, len(TABLE), 7):
        assert isinstance(call.next(0.0), Read)
        call.chunk(0.0, TABLE[at : at + 7])
    assert isinstance(call.next(0.0), Read)
    call.end(0.0)
    done = call.next(0.0)
    assert isinstance(done, Done)
    assert erpdata.Table(done.output) == CONFIG.parse_table(200, TABLE)


def test_misuse_is_an_error_not_a_crash() -> None:
    call = dues_call()
    call.chunk(0.0, b"x")
    failed = call.next(0.0)
    assert isinstance(failed, Failed) and "a bug in the binding" in str(failed.error)


@pytest.mark.parametrize(
    ("limits", "field"),
    [
        ({"max_retries": 11}, "max_retries"),
        ({"total": 0.0}, "timeout"),
        ({"read": float("inf")}, "timeout"),
    ],
)
def test_the_core_checks_the_limits(limits: dict[str, Any], field: str) -> None:
    with pytest.raises(erpdata.InvalidInputError) as info:
        dues_call(**limits)
    assert info.value.field == field


def test_only_a_table_is_streamed() -> None:
    invocation = CONFIG.invoke("dues", {"acid": "C001", "kind": "RECEIPT"})
    with pytest.raises(erpdata.InvalidInputError) as info:
        Call.start(invocation, stream=True, **LIMITS, now=0.0)
    assert info.value.field == "stream" and "only a table can be streamed" in str(info.value)


def test_the_core_checks_batch_rows() -> None:
    with pytest.raises(erpdata.InvalidInputError) as info:
        Call.start(table_invocation(), stream=True, batch_rows=0, **LIMITS, now=0.0)
    assert info.value.field == "batch_rows"


def test_reprs_count_in_words() -> None:
    # "1 row", not "1 rows"; thousands grouped.
    one = CONFIG.parse_table(200, b'{"status":"success","data":[{"n":1}]}')
    assert repr(one) == "<Table: 1 row; columns: n>"
    rows = ",".join(f'{{"n":{i}}}' for i in range(1250)).encode()
    many = CONFIG.parse_table(200, b'{"status":"success","data":[%s]}' % rows)
    assert repr(many) == "<Table: 1,250 rows; columns: n>"
