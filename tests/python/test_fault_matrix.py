"""The fault matrix: every fault of the sandbox's hostile mode against
``Client`` and ``AsyncClient``, each call made through the sandbox's
``/_faults/FAULT/KEY/`` prefix.

For each fault and each call (dues, table, stream_table) it asserts the
typed error or the recovery, the exact number of attempts the sandbox
counted, the time taken (timeouts and ``Retry-After`` honoured within a
tolerance), that no cut answer comes back as a shorter result, and that
no form of the token shows in an error, repr, traceback or log record, nor
in any request's URL. The outcomes are written to
``target/fault-matrix/python-sync.json`` and ``python-async.json``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

import erpdata
import fault_api
from conftest import ROOT, SECRET_TOKEN, TlsSandbox
from erpdata import AsyncClient, Client, Timeout
from leaks import assert_clean, error_text

SYNC, ASYNC = "python-sync", "python-async"
OPS = ("dues", "table", "stream")
TOLERANCE = 1.5
"""Seconds a call may take beyond its expected time (shared cores)."""

FAST = Timeout(total=10.0, connect=2.0, read=5.0)
STREAM_BATCH = 1
"""One row a batch, so a cut stream has handed out what had arrived."""


@dataclass(frozen=True)
class Expect:
    """What one call meets under a fault."""

    attempts: int
    error: type[erpdata.ErpError] | None = None
    status_code: int | None = None
    message: str = ""
    notices: bool = False
    min_s: float = 0.0
    max_s: float = 5.0


@dataclass(frozen=True)
class Case:
    """A row of the matrix: a fault and what each call meets."""

    name: str
    fault: str
    expect: dict[str, Expect]
    max_retries: int = 2
    timeout: Timeout = FAST
    origin: str = "plain"
    """``plain`` (the http sandbox) or ``tls`` (the https one)."""
    note: str = ""
    """Said after the outcome (what else the row asserted)."""


def each(ops: tuple[str, ...] = OPS, **kw: Any) -> dict[str, Expect]:
    return {op: Expect(**kw) for op in ops}


def cut(attempts: int) -> Expect:
    """A body broken off: the connection's failure, after ``attempts``."""
    return Expect(attempts=attempts, error=erpdata.TransportError)


CASES = [
    Case("latency", "latency-300", each(attempts=1, min_s=0.3, max_s=0.3 + TOLERANCE)),
    # The whole body takes ~0.6 s (31 chunks of 256 bytes, 20 ms apart)
    # while reads may wait 0.4 s: the read limit is per gap, not a total.
    Case(
        "slow-body",
        "trickle-256x20",
        {
            "dues": Expect(attempts=1, min_s=0.04, max_s=0.1 + TOLERANCE),
            "table": Expect(attempts=1, min_s=0.5, max_s=0.7 + TOLERANCE),
            "stream": Expect(attempts=1, min_s=0.5, max_s=0.7 + TOLERANCE),
        },
        timeout=Timeout(total=10.0, connect=2.0, read=0.4),
    ),
    Case("429-retry-after", "status-429x1-ra1", each(attempts=2, min_s=1.0, max_s=1.0 + TOLERANCE)),
    Case(
        "500-html",
        "status-500x1",
        each(attempts=1, error=erpdata.HttpStatusError, status_code=500, message="500"),
    ),
    Case("502-html", "status-502x2", each(attempts=3, max_s=TOLERANCE)),
    Case("503-html", "status-503x2", each(attempts=3, max_s=TOLERANCE)),
    Case("504-html", "status-504x2", each(attempts=3, max_s=TOLERANCE)),
    Case(
        "503-exhausted",
        "status-503x9",
        each(attempts=3, error=erpdata.HttpStatusError, status_code=503, max_s=TOLERANCE),
    ),
    Case("php-notice", "notice", each(attempts=1, notices=True)),
    Case("html-200", "html200", each(attempts=1, error=erpdata.DecodeError)),
    Case(
        "service-error",
        "service-error",
        each(attempts=1, error=erpdata.ServiceError, message="Database connection failed"),
    ),
    # 400 bytes: inside the dues rows, after the first table row.
    Case("cut-with-length", "truncate-400", each(attempts=1, error=erpdata.DecodeError)),
    # A broken body is retried (dues and table start again) until retries
    # run out; a stream that has handed out rows raises at once.
    Case(
        "cut-length-mismatch",
        "short-400",
        {
            "dues": cut(2),
            "table": cut(2),
            "stream": cut(1),
        },
        max_retries=1,
    ),
    Case(
        "reset-mid-body",
        "reset-400",
        {
            "dues": cut(2),
            "table": cut(2),
            "stream": cut(1),
        },
        max_retries=1,
    ),
    Case("redirect-same-origin", "redirect-307-self", each(attempts=1), note="followed"),
    Case(
        "redirect-other-origin",
        "redirect-307-{elsewhere}",
        each(attempts=1, error=erpdata.HttpStatusError, status_code=307, message="refused"),
        note="refused; the other origin got nothing",
    ),
    Case(
        "redirect-https-to-http",
        "redirect-307-{elsewhere}",
        each(attempts=1, error=erpdata.HttpStatusError, status_code=307, message="refused"),
        origin="tls",
        note="refused; the http origin got nothing",
    ),
    Case(
        "redirect-loop",
        "redirect-302-loop",
        each(
            attempts=6,
            error=erpdata.HttpStatusError,
            status_code=302,
            message="more than 5 redirects",
        ),
    ),
    # Each attempt waits 0.3 s for bytes that never come; one retry after
    # a backoff of 0.25-0.5 s.
    Case(
        "read-timeout",
        "hang",
        each(attempts=2, error=erpdata.TimeoutError, min_s=0.6, max_s=1.1 + TOLERANCE),
        max_retries=1,
        timeout=Timeout(total=10.0, connect=2.0, read=0.3),
    ),
    # Only the total limit stops a body that keeps coming (for a stream:
    # the time spent waiting for it).
    Case(
        "never-ending",
        "endless",
        each(
            attempts=1,
            error=erpdata.TimeoutError,
            message="total timeout",
            min_s=0.8,
            max_s=0.8 + TOLERANCE,
        ),
        timeout=Timeout(total=0.8, connect=0.8, read=5.0),
    ),
]


# -- running one call ------------------------------------------------------------------


@dataclass
class Got:
    """What one call gave: a result or an error, and what a user could see."""

    value: Any = None
    error: erpdata.ErpError | None = None
    elapsed: float = 0.0
    notices: list[str] = field(default_factory=list)
    rows_before_error: int = 0
    finished: bool | None = None
    shown: list[str] = field(default_factory=list)


def settings(case: Case) -> dict[str, Any]:
    return dict(
        project="demo",
        access_token=SECRET_TOKEN,
        company_id=1,
        year_id=2025,
        timeout=case.timeout,
        max_retries=case.max_retries,
    )


def failed(got: Got, err: erpdata.ErpError, started: float) -> Got:
    got.elapsed = time.monotonic() - started
    got.error = err
    got.shown.append(error_text(err))
    return got


def call_sync(base: str, case: Case, op: str, http: httpx.Client | None) -> Got:
    got = Got()
    with Client(base, **settings(case), http_client=http) as c:
        got.shown.append(repr(c))
        started = time.monotonic()
        try:
            if op == "dues":
                dues = c.receivables("C001")
                got.value, got.notices = dues.rows, dues.notices
                got.shown.append(repr(dues))
            elif op == "table":
                table = c.table("sales_invoice")
                got.value, got.notices = list(table), table.notices
                got.shown.append(repr(table))
            else:
                rows: list[Any] = []
                stream = c.stream_table("sales_invoice", batch_rows=STREAM_BATCH)
                try:
                    with stream:
                        for batch in stream:
                            rows.extend(batch)
                            got.shown.append(repr(stream))
                finally:
                    got.rows_before_error, got.finished = len(rows), stream.finished
                got.value, got.notices = rows, stream.notices
        except erpdata.ErpError as err:
            return failed(got, err, started)
        got.elapsed = time.monotonic() - started
    return got


async def call_async(base: str, case: Case, op: str, tls: TlsSandbox | None) -> Got:
    got = Got()
    http = httpx.AsyncClient(verify=tls.ssl_context()) if tls is not None else None
    try:
        async with AsyncClient(base, **settings(case), http_client=http) as c:
            got.shown.append(repr(c))
            started = time.monotonic()
            try:
                if op == "dues":
                    dues = await c.receivables("C001")
                    got.value, got.notices = dues.rows, dues.notices
                    got.shown.append(repr(dues))
                elif op == "table":
                    table = await c.table("sales_invoice")
                    got.value, got.notices = list(table), table.notices
                    got.shown.append(repr(table))
                else:
                    rows: list[Any] = []
                    stream = c.stream_table("sales_invoice", batch_rows=STREAM_BATCH)
                    try:
                        async with stream:
                            async for batch in stream:
                                rows.extend(batch)
                                got.shown.append(repr(stream))
                    finally:
                        got.rows_before_error, got.finished = len(rows), stream.finished
                    got.value, got.notices = rows, stream.notices
            except erpdata.ErpError as err:
                return failed(got, err, started)
            got.elapsed = time.monotonic() - started
    finally:
        if http is not None:
            await http.aclose()
    return got


# -- the matrix file ---------------------------------------------------------------------

RESULTS: dict[str, dict[str, dict[str, Any]]] = {SYNC: {}, ASYNC: {}}


@pytest.fixture(scope="module", autouse=True)
def matrix_file() -> Iterator[None]:
    """Writes the outcomes of the rows that ran, once the module is done."""
    yield
    folder = ROOT / "target" / "fault-matrix"
    folder.mkdir(parents=True, exist_ok=True)
    for lang, rows in RESULTS.items():
        if rows:
            ordered = {c.name: rows[c.name] for c in CASES if c.name in rows}
            (folder / f"{lang}.json").write_text(
                json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"
            )


READERS: dict[TlsSandbox, httpx.Client] = {}
"""The httpx clients that read an https sandbox's fault API back, made
once: a new one costs more than most calls under test."""


@pytest.fixture(scope="module", autouse=True)
def readers() -> Iterator[None]:
    yield
    for http in READERS.values():
        http.close()
    READERS.clear()


@pytest.fixture(scope="session")
def reference(secret_sandbox_url: str) -> dict[str, Any]:
    """The real answers, for comparing a recovered call's result."""
    with Client(
        secret_sandbox_url, project="demo", access_token=SECRET_TOKEN, company_id=1, year_id=2025
    ) as c:
        table = list(c.table("sales_invoice"))
        return {"dues": c.receivables("C001").rows, "table": table, "stream": table}


def describe(got: Got, attempts: int) -> str:
    tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
    if got.error is None:
        how = "ok" if attempts == 1 else "retried→ok"
        return f"{how}{' with notices' if got.notices else ''} ({tries})"
    name = type(got.error).__name__
    if isinstance(got.error, erpdata.HttpStatusError):
        name += f" {got.error.status_code}"
    if got.error.rows_received:
        n = got.error.rows_received
        tries += f", {n} row{'s' if n != 1 else ''} had arrived"
    return f"{name} ({tries})"


def summary(outcomes: dict[str, str], elapsed: list[float], case: Case) -> str:
    distinct = list(dict.fromkeys(outcomes.values()))
    text = (
        distinct[0] if len(distinct) == 1 else "; ".join(f"{op}: {o}" for op, o in outcomes.items())
    )
    timed = any(e.min_s > 0 for e in case.expect.values())
    if timed and elapsed:
        text += f" in {min(elapsed):.2f}-{max(elapsed):.2f} s"
    return f"{text}; {case.note}" if case.note else text


# -- the test ----------------------------------------------------------------------------


@pytest.mark.parametrize("lang", [SYNC, ASYNC])
@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_fault(
    case: Case,
    lang: str,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
    reference: dict[str, Any],
) -> None:
    caplog.set_level(logging.DEBUG)
    outcomes: dict[str, str] = {}
    elapsed: list[float] = []
    try:
        # The calls of a row run at once (each under its own KEY), so the
        # row takes as long as its slowest call.
        elsewhere = (
            request.getfixturevalue("elsewhere_url") if "{elsewhere}" in case.fault else None
        )
        tls = request.getfixturevalue("tls_sandbox") if case.origin == "tls" else None
        if tls is not None and tls not in READERS:
            READERS[tls] = httpx.Client(verify=tls.ssl_context())
        origin = tls.url if tls is not None else request.getfixturevalue("secret_sandbox_url")
        with ThreadPoolExecutor(len(case.expect)) as pool:
            runs = {
                op: pool.submit(run_case, case, op, lang, origin, tls, elsewhere)
                for op in case.expect
            }
            done = {op: run.result() for op, run in runs.items()}
        for op, expect in case.expect.items():
            got, attempts = done[op]
            outcomes[op] = describe(got, attempts)
            elapsed.append(got.elapsed)
            check(case, op, expect, got, attempts, reference[op])
        assert_clean(caplog.text + "\n".join(r.getMessage() for r in caplog.records), SECRET_TOKEN)
    except BaseException:
        outcomes.setdefault("failed", "see the test's output")
        RESULTS[lang][case.name] = {"outcome": summary(outcomes, elapsed, case), "ok": False}
        raise
    RESULTS[lang][case.name] = {"outcome": summary(outcomes, elapsed, case), "ok": True}


def run_case(
    case: Case, op: str, lang: str, origin: str, tls: TlsSandbox | None, elsewhere: str | None
) -> tuple[Got, int]:
    """Makes the call under a fresh KEY; returns what it gave and the
    attempts the sandbox counted. Also checks what the sandboxes recorded."""
    key = fault_api.new_key(lang, case.name, op)
    fault = case.fault
    if elsewhere is not None:
        fault = fault.format(elsewhere=elsewhere.rsplit(":", 1)[1])
    base = fault_api.prefix(origin, fault, key)
    reader = READERS[tls] if tls is not None else None
    if lang == SYNC:
        got = call_sync(base, case, op, reader if tls is not None else None)
    else:
        got = asyncio.run(call_async(base, case, op, tls))
    attempts = fault_api.count(origin, key, reader)
    sent = fault_api.log(origin, key, reader)
    assert len(sent) == attempts
    for each_request in sent:
        # The POST form (the default) keeps the token out of every URL.
        assert_clean(each_request["path"] + "?" + each_request.get("query", ""), SECRET_TOKEN)
    if elsewhere is not None:
        # The other origin received nothing at all under this KEY.
        assert fault_api.count(elsewhere, key) == 0
        assert fault_api.log(elsewhere, key) == []
    assert_clean("\n".join(got.shown), SECRET_TOKEN)
    return got, attempts


def check(case: Case, op: str, expect: Expect, got: Got, attempts: int, want: Any) -> None:
    where = f"{case.name} / {op}"
    assert attempts == expect.attempts, f"{where}: {attempts} attempts, expected {expect.attempts}"
    assert expect.min_s <= got.elapsed <= expect.max_s, (
        f"{where}: took {got.elapsed:.2f} s, expected {expect.min_s}-{expect.max_s} s"
    )
    if expect.error is None:
        assert got.error is None, f"{where}: {got.error!r}"
        # The whole answer, exactly.
        assert got.value == want, f"{where}: result differs from the real answer"
        assert bool(got.notices) == expect.notices, f"{where}: notices {got.notices!r}"
        if op == "stream":
            assert got.finished is True
        return
    err = got.error
    assert isinstance(err, expect.error), f"{where}: {err!r}, expected {expect.error.__name__}"
    assert got.value is None, f"{where}: a result came back with the error"
    if expect.status_code is not None:
        assert isinstance(err, erpdata.HttpStatusError) and err.status_code == expect.status_code
    assert expect.message in str(err), f"{where}: {str(err)!r} lacks {expect.message!r}"
    if op == "stream":
        # Never a quiet end with fewer rows: the stream raised, is not
        # finished, and says how far it got.
        assert got.finished is False
        if got.rows_before_error:
            assert err.rows_received == got.rows_before_error
            assert f"{err.rows_received} rows had arrived" in str(err)
        else:
            assert err.rows_received in (None, 0)
        if case.name.startswith(("cut-", "reset-")):
            assert got.rows_before_error >= 1, f"{where}: expected rows before the cut"
    assert_clean(error_text(err), SECRET_TOKEN)
