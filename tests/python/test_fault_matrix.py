"""The fault matrix: every fault of the sandbox's hostile mode against
``Client`` and ``AsyncClient``, each call made through the sandbox's
``/_faults/FAULT/KEY/`` prefix, as the shared table
``tests/vectors/faults.json`` says (the table the Rust and JavaScript
clients run too, with the same expectations).

For each fault and each call (dues, ajax, table, stream_table, and
stream_table decoded on a thread of its own, which must behave as the
plain stream does) it asserts the typed error (and whether it says trying
later may help, and when) or the recovery, the exact number of requests
the sandbox counted and the attempts the error reports, the time taken (timeouts and
``Retry-After`` honoured within the table's tolerance), that no cut answer
comes back as a shorter result, and that no form of the token shows in an
error, repr, traceback or log record, nor in any request's URL. The
outcomes are written to ``target/fault-matrix/python-sync.json`` and
``python-async.json``.
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
OPS = ("dues", "ajax", "table", "stream", "stream-threads")
# The dues of C001 through the generic ajax.php call, the token sent by POST.
AJAX_DUES = ("getduesDet", {"acid": "C001", "type": "RECEIPT"})

TABLE: dict[str, Any] = json.loads((ROOT / "tests" / "vectors" / "faults.json").read_text())
DEFAULTS: dict[str, Any] = TABLE["defaults"]
TOLERANCE: float = TABLE["tolerance_s"]
"""Seconds a call may take beyond its expected time (shared cores)."""
CASES: list[dict[str, Any]] = TABLE["cases"]


def setting(case: dict[str, Any], name: str) -> Any:
    """A case's setting, or the table's default."""
    return case.get(name, DEFAULTS[name])


def expectation(case: dict[str, Any], op: str) -> dict[str, Any]:
    expect: dict[str, Any] = case["expect"]
    # A stream decoded on a thread of its own is held to the stream's row.
    op = "stream" if op == "stream-threads" else op
    return dict(expect[op] if op in expect else expect["all"])


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


def settings(case: dict[str, Any]) -> dict[str, Any]:
    return dict(
        project="demo",
        access_token=SECRET_TOKEN,
        company_id=1,
        year_id=2025,
        timeout=Timeout(**setting(case, "timeout")),
        max_retries=setting(case, "max_retries"),
        max_retry_after=setting(case, "max_retry_after"),
    )


def failed(got: Got, err: erpdata.ErpError, started: float) -> Got:
    got.elapsed = time.monotonic() - started
    got.error = err
    got.shown.append(error_text(err))
    return got


def call_sync(base: str, case: dict[str, Any], op: str, http: httpx.Client | None) -> Got:
    got = Got()
    with Client(base, **settings(case), http_client=http) as c:
        got.shown.append(repr(c))
        started = time.monotonic()
        try:
            if op == "dues":
                dues = c.receivables("C001")
                got.value, got.notices = dues.rows, dues.notices
                got.shown.append(repr(dues))
            elif op == "ajax":
                answer = c.ajax(*AJAX_DUES, send_token=True)
                got.value, got.notices = answer.rows, answer.notices
                got.shown.append(repr(answer))
            elif op == "table":
                table = c.table("sales_invoice")
                got.value, got.notices = list(table), table.notices
                got.shown.append(repr(table))
            else:
                rows: list[Any] = []
                stream = c.stream_table(
                    "sales_invoice",
                    batch_rows=setting(case, "batch_rows"),
                    use_threads=op == "stream-threads",
                )
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


async def call_async(base: str, case: dict[str, Any], op: str, tls: TlsSandbox | None) -> Got:
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
                elif op == "ajax":
                    answer = await c.ajax(*AJAX_DUES, send_token=True)
                    got.value, got.notices = answer.rows, answer.notices
                    got.shown.append(repr(answer))
                elif op == "table":
                    table = await c.table("sales_invoice")
                    got.value, got.notices = list(table), table.notices
                    got.shown.append(repr(table))
                else:
                    rows: list[Any] = []
                    stream = c.stream_table(
                        "sales_invoice",
                        batch_rows=setting(case, "batch_rows"),
                        use_threads=op == "stream-threads",
                    )
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
            ordered = {c["name"]: rows[c["name"]] for c in CASES if c["name"] in rows}
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
        dues = c.receivables("C001").rows
        return {
            "dues": dues,
            "ajax": dues,
            "table": table,
            "stream": table,
            "stream-threads": table,
        }


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


def summary(outcomes: dict[str, str], elapsed: list[float], case: dict[str, Any]) -> str:
    distinct = list(dict.fromkeys(outcomes.values()))
    text = (
        distinct[0] if len(distinct) == 1 else "; ".join(f"{op}: {o}" for op, o in outcomes.items())
    )
    timed = any("min_s" in e for e in case["expect"].values())
    if timed and elapsed:
        text += f" in {min(elapsed):.2f}-{max(elapsed):.2f} s"
    return f"{text}; {case['note']}" if "note" in case else text


# -- the test ----------------------------------------------------------------------------


@pytest.mark.parametrize("lang", [SYNC, ASYNC])
@pytest.mark.parametrize("case", [pytest.param(c, id=c["name"]) for c in CASES])
def test_fault(
    case: dict[str, Any],
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
            request.getfixturevalue("elsewhere_url") if "{elsewhere}" in case["fault"] else None
        )
        tls = request.getfixturevalue("tls_sandbox") if case.get("origin") == "tls" else None
        if tls is not None and tls not in READERS:
            READERS[tls] = httpx.Client(verify=tls.ssl_context())
        origin = tls.url if tls is not None else request.getfixturevalue("secret_sandbox_url")
        with ThreadPoolExecutor(len(OPS)) as pool:
            runs = {op: pool.submit(run_case, case, op, lang, origin, tls, elsewhere) for op in OPS}
            done = {op: run.result() for op, run in runs.items()}
        for op in OPS:
            expect = expectation(case, op)
            got, attempts = done[op]
            outcomes[op] = describe(got, attempts)
            elapsed.append(got.elapsed)
            check(case, op, expect, got, attempts, reference[op])
        assert_clean(caplog.text + "\n".join(r.getMessage() for r in caplog.records), SECRET_TOKEN)
    except BaseException:
        outcomes.setdefault("failed", "see the test's output")
        RESULTS[lang][case["name"]] = {"outcome": summary(outcomes, elapsed, case), "ok": False}
        raise
    RESULTS[lang][case["name"]] = {"outcome": summary(outcomes, elapsed, case), "ok": True}


def run_case(
    case: dict[str, Any],
    op: str,
    lang: str,
    origin: str,
    tls: TlsSandbox | None,
    elsewhere: str | None,
) -> tuple[Got, int]:
    """Makes the call under a fresh KEY; returns what it gave and the
    attempts the sandbox counted. Also checks what the sandboxes recorded."""
    key = fault_api.new_key(lang, case["name"], op)
    fault: str = case["fault"]
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


def check(
    case: dict[str, Any], op: str, expect: dict[str, Any], got: Got, attempts: int, want: Any
) -> None:
    where = f"{case['name']} / {op}"
    if "attempts" in expect:
        assert attempts == expect["attempts"], (
            f"{where}: the sandbox saw {attempts} requests, expected {expect['attempts']}"
        )
    low, high = expect.get("min_s", 0.0), expect.get("max_s", 5.0) + TOLERANCE
    assert low <= got.elapsed <= high, f"{where}: took {got.elapsed:.2f} s, expected {low}-{high} s"
    if expect["outcome"] == "ok":
        assert got.error is None, f"{where}: {got.error!r}"
        # The whole answer, exactly.
        assert got.value == want, f"{where}: result differs from the real answer"
        if expect.get("notices"):
            assert got.notices, f"{where}: the notices were not reported"
        if op.startswith("stream"):
            assert got.finished is True
        return
    err = got.error
    assert err is not None, f"{where}: no error where one was due"
    assert got.value is None, f"{where}: a result came back with the error"
    assert err.kind == expect["error"], f"{where}: {err!r}, expected a {expect['error']} error"
    if "transport_kind" in expect:
        assert isinstance(err, erpdata.TransportError), f"{where}: {err!r}"
        assert err.transport_kind == expect["transport_kind"], f"{where}: {err!r}"
        assert isinstance(err, erpdata.TimeoutError) == (err.transport_kind == "timeout")
    if "status" in expect:
        assert isinstance(err, erpdata.HttpStatusError) and err.status_code == expect["status"], (
            f"{where}: {err!r}"
        )
    # Whether trying later may help, and when: the core's rule.
    assert err.retryable is expect["retryable"], f"{where}: {err!r} retryable={err.retryable}"
    if "retry_after_s" in expect:
        assert isinstance(err, erpdata.HttpStatusError), f"{where}: {err!r}"
        assert err.retry_after == expect["retry_after_s"], (
            f"{where}: retry_after={err.retry_after}, not {expect['retry_after_s']}"
        )
    if "message" in expect:
        assert expect["message"] in str(err), f"{where}: {str(err)!r} lacks {expect['message']!r}"
    # Where the call stood, from the core.
    assert err.attempts is not None and err.url is not None, f"{where}: {err!r} has no call info"
    if "sent" in expect:
        assert err.attempts == expect["sent"], (
            f"{where}: {err.attempts} attempts reported, not {expect['sent']}"
        )
    assert_clean(err.url, SECRET_TOKEN)
    if op.startswith("stream"):
        # Never a quiet end with fewer rows: the stream raised, is not
        # finished, and says how far it got.
        assert got.finished is False
        assert err.rows_delivered == got.rows_before_error, (
            f"{where}: {err.rows_delivered} rows reported delivered, {got.rows_before_error} were"
        )
        if got.rows_before_error:
            n = err.rows_received
            assert f"{n} row{'s' if n != 1 else ''} had arrived" in str(err)
        if "rows_delivered" in expect:
            assert got.rows_before_error >= expect["rows_delivered"], (
                f"{where}: {got.rows_before_error} rows delivered before the error"
            )
    assert_clean(error_text(err), SECRET_TOKEN)
