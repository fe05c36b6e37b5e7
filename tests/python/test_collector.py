"""The table decoder on its own thread (what ``Client.table`` feeds while
it reads): the sequential decoder's results and errors, reported at the
next call."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import pytest

import erpdata
from erpdata._core import Config
from erpdata._core._testing import TableCollector

CONFIG = Config("http://127.0.0.1:1/", project="demo", access_token="fake-token-for-tests")
BODY = (
    b'\nNotice: Undefined index: sort in /var/www/apis/dataapi.php on line 8\n{"status":"success","data":['
    + b",".join(b'{"n":%d,"x":"%d.5","s":"v%d"}' % (i, i, i % 3) for i in range(2500))
    + b"]}"
)


def eventually(condition: Callable[[], bool], seconds: float = 30) -> bool:
    """Whether ``condition`` holds within ``seconds``, polled."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def collect(body: bytes, step: int, batch_rows: int = 100, copy: bool = False) -> erpdata.Table:
    collector = TableCollector(CONFIG, 200, batch_rows=batch_rows)
    for at in range(0, len(body), step):
        collector.feed(body[at : at + step], copy=copy)
    return erpdata.Table(collector.finish_table())


@pytest.mark.parametrize("copy", [False, True], ids=["lent", "copied"])
@pytest.mark.parametrize("step", [1, 7, 4096, len(BODY)])
def test_same_table_as_the_whole_body_parsed(step: int, copy: bool) -> None:
    expected = CONFIG.parse_table(200, BODY)
    got = collect(BODY, step, copy=copy)
    assert len(got) == 2500
    assert got == expected
    assert (
        got.notices
        == expected.notices
        == ["Notice: Undefined index: sort in /var/www/apis/dataapi.php on line 8"]
    )


def test_lent_and_copied_chunks_keep_their_order() -> None:
    # A chunk the clients lend goes to the decoder as it is, between the
    # copies of others gathered into the inbox's buffers.
    collector = TableCollector(CONFIG, 200, batch_rows=100)
    sizes = [1, 300, 5, 70_000, 2, 4096, 13]
    at, k = 0, 0
    while at < len(BODY):
        step = sizes[k % len(sizes)]
        collector.feed(BODY[at : at + step], copy=k % 3 == 0)
        at, k = at + step, k + 1
    assert erpdata.Table(collector.finish_table()) == CONFIG.parse_table(200, BODY)


def test_lent_chunks_are_given_back() -> None:
    # The decoder thread keeps each lent chunk alive only until it decoded
    # it: a finished or failed answer holds none of them.
    chunks = [BODY[at : at + 5000] for at in range(0, len(BODY), 5000)]
    held = [sys.getrefcount(c) for c in chunks]
    collector = TableCollector(CONFIG, 200, batch_rows=100)
    for k in range(len(chunks)):
        collector.feed(chunks[k])
    collector.finish_table()
    assert [sys.getrefcount(c) for c in chunks] == held

    bad = b'{"status":"success","data":[{"n":1},{"n":oops}' + b" " * 8192
    before = sys.getrefcount(bad)
    collector = TableCollector(CONFIG, 200)
    collector.feed(bad)
    with pytest.raises(erpdata.DecodeError, match="not valid JSON"):
        collector.check()
    assert sys.getrefcount(bad) == before


def test_small_chunks_of_a_large_body_are_decoded_while_it_arrives() -> None:
    # A whole table's chunks are gathered into buffers before the decoder
    # thread gets them: it must still get them as they fill, not at the end.
    body = (
        b'{"status":"success","data":['
        + b",".join(b'{"n":%d,"s":"v%d"}' % (i, i % 7) for i in range(100_000))
        + b"]}"
    )
    collector = TableCollector(CONFIG, 200, batch_rows=1000)
    half = len(body) // 2
    for at in range(0, half, 8192):
        collector.feed(body[at : min(at + 8192, half)])
    assert eventually(lambda: collector.rows > 0), "nothing decoded before the body ended"
    for at in range(half, len(body), 8192):
        collector.feed(body[at : at + 8192])
    got = erpdata.Table(collector.finish_table())
    assert len(got) == 100_000
    assert got == CONFIG.parse_table(200, body)


def test_a_pause_in_the_body_does_not_hold_back_what_arrived() -> None:
    # Far less than the decoder thread is woken for, in small chunks, then
    # nothing more for a while: what arrived is decoded all the same (a
    # stream's batches must not wait for the service to go on).
    collector = TableCollector(CONFIG, 200, batch_rows=100)
    head = BODY[:20_000]
    for at in range(0, len(head), 1000):
        collector.feed(head[at : at + 1000])
    assert eventually(lambda: collector.rows > 0), "the bytes that arrived wait for more"
    collector.feed(BODY[len(head) :])
    assert erpdata.Table(collector.finish_table()) == CONFIG.parse_table(200, BODY)


def test_rows_counted_once_decoded() -> None:
    collector = TableCollector(CONFIG, 200)
    collector.feed(BODY[: len(BODY) // 2])
    collector.check()
    assert 0 < collector.rows < 2500
    collector.feed(BODY[len(BODY) // 2 :])
    collector.finish_table()
    assert collector.rows == 2500


def test_bad_answer_raised_by_check_and_every_later_call() -> None:
    collector = TableCollector(CONFIG, 200)
    collector.feed(b'{"status":"success","data":[{"n":1},{"n":oops}' + b" " * 8192)
    with pytest.raises(erpdata.DecodeError, match="not valid JSON"):
        collector.check()
    with pytest.raises(erpdata.DecodeError, match="not valid JSON"):
        collector.feed(b"more")
    with pytest.raises(erpdata.DecodeError, match="not valid JSON"):
        collector.finish_table()


def test_error_envelope_raised_at_the_end() -> None:
    collector = TableCollector(CONFIG, 200)
    collector.feed(b'{"status":"error","message":"no such table"}')
    with pytest.raises(erpdata.ServiceError, match="no such table"):
        collector.finish_table()


def test_malformed_row_raised_not_fewer_rows() -> None:
    bad = BODY.replace(b'{"n":1200,', b'{"n":12 00,')
    with pytest.raises(erpdata.DecodeError):
        collect(bad, 4096)


def test_cut_off_body_is_a_truncation_error() -> None:
    with pytest.raises(erpdata.DecodeError, match="truncated"):
        collect(BODY[:-100], 4096)


def test_finished_collector_refuses_more() -> None:
    collector = TableCollector(CONFIG, 200)
    collector.feed(BODY)
    collector.finish_table()
    with pytest.raises(ValueError, match="finished"):
        collector.feed(b"x")
    with pytest.raises(ValueError, match="finished"):
        collector.finish_table()


def test_dropped_unfinished_collector_ends_its_thread() -> None:
    import gc
    import os
    import threading

    def native_threads() -> int:
        # Linux lists a process's threads, native ones too.
        return len(os.listdir("/proc/self/task"))

    gc.collect()
    before = native_threads()
    python_before = threading.active_count()
    for _ in range(50):
        collector = TableCollector(CONFIG, 200)
        collector.feed(BODY[:1000])
        del collector
    assert eventually(lambda: native_threads() <= before), "decoder threads left waiting"
    assert threading.active_count() == python_before
