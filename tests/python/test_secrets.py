"""The token appears nowhere a user could see it, and in no request URL
unless the GET form was chosen.

Every operation of ``Client``, ``AsyncClient`` and the ``erpdata``
command runs with the ``erpdata``, ``httpx`` and ``httpcore`` loggers at
DEBUG, on the success path and on each failure path (retries, service
errors, a refused redirect, a timeout, HTTP 500, a body cut off, a body
that is not JSON, a refused connection). Everything they show is
collected: stdout and stderr (at the file-descriptor level), log records
(message and arguments), exception strings, reprs and tracebacks; no form
of the token (as given, or URL-encoded) may appear in any of it. The
sandbox's record of each request (``/_faults/log/KEY``) shows where the
token travelled.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Awaitable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

import pytest

import erpdata
import fault_api
from conftest import ROOT, SECRET_TOKEN
from erpdata import AsyncClient, Client, Timeout
from leaks import assert_clean, error_text

WRONG_TOKEN = "wrong+token/with=chars&too%20"
"""A second fake token, sent to a sandbox that expects SECRET_TOKEN."""

LOGGERS = ("erpdata", "httpx", "httpcore")


@dataclass(frozen=True)
class Scenario:
    """A way a call can go: the sandbox fault it meets and the error
    expected of the table calls and of the dues calls (``None``: a
    result)."""

    name: str
    fault: str | None
    """A /_faults/ FAULT; ``None``: a loopback port where nothing listens."""
    table_error: type[erpdata.ErpError] | None
    dues_error: type[erpdata.ErpError] | None
    token: str = SECRET_TOKEN
    timeout: Timeout = Timeout(total=5.0, connect=2.0, read=2.0)
    max_retries: int = 1
    exit_code: int = 0
    """What the command exits with here."""


SCENARIOS = [
    Scenario("ok", "pass", None, None),
    Scenario("retried", "status-503x1", None, None),
    Scenario(
        "service-error", "service-error", erpdata.ServiceError, erpdata.ServiceError, exit_code=3
    ),
    # The dues query carries no token, so only the table calls fail.
    Scenario("wrong-token", "pass", erpdata.ServiceError, None, token=WRONG_TOKEN, exit_code=3),
    Scenario(
        "redirect-refused",
        "redirect-307-{elsewhere}",
        erpdata.HttpStatusError,
        erpdata.HttpStatusError,
        exit_code=3,
    ),
    Scenario(
        "timeout",
        "hang",
        erpdata.TimeoutError,
        erpdata.TimeoutError,
        timeout=Timeout(total=1.0, connect=1.0, read=0.2),
        max_retries=0,
        exit_code=4,
    ),
    Scenario(
        "http-500", "status-500x99", erpdata.HttpStatusError, erpdata.HttpStatusError, exit_code=3
    ),
    Scenario(
        "cut",
        "reset-400",
        erpdata.TransportError,
        erpdata.TransportError,
        max_retries=0,
        exit_code=4,
    ),
    Scenario("not-json", "html200", erpdata.DecodeError, erpdata.DecodeError, exit_code=3),
    Scenario(
        "refused", None, erpdata.TransportError, erpdata.TransportError, max_retries=0, exit_code=4
    ),
]

# ajax.php calls: the sandbox ignores a token there, so a wrong one does not
# fail them; the ones sending it send it by POST.
DUES_OPS = (
    "dues",
    "receivables",
    "payables",
    "dues_many",
    "dues-token",
    "dues_table",
    "dues_summary-token",
    "net_profit-token",
    "ajax-token",
)
TABLE_OPS = ("table", "table-GET", "stream_table", "stream_table-GET", "stream_table-arrow")


def settings(scenario: Scenario) -> dict[str, Any]:
    return dict(
        project="demo",
        access_token=scenario.token,
        company_id=1,
        year_id=2025,
        timeout=scenario.timeout,
        max_retries=scenario.max_retries,
    )


def operations(c: Any, stream: Callable[..., Any]) -> dict[str, Callable[[], Any]]:
    """Each operation of ``c``, a ``Client`` or an ``AsyncClient`` (whose
    calls return awaitables); ``stream`` reads a ``stream_table``."""
    return {
        "dues": lambda: c.dues("C001", "receipt"),
        "receivables": lambda: c.receivables("C001"),
        "payables": lambda: c.payables("S001"),
        "dues_many": lambda: c.dues_many(["C001", "C002", "C003"], erpdata.DuesKind.RECEIPT),
        "dues-token": lambda: c.dues("C001", "receipt", send_token=True),
        "dues_table": lambda: c.dues_table(["C001", "C002"], "receipt"),
        "dues_summary-token": lambda: c.dues_summary(send_token=True),
        "net_profit-token": lambda: c.net_profit("2025-01-01", "2025-03-31", send_token=True),
        "ajax-token": lambda: c.ajax("avgPayDays", {"acid": "C001"}, send_token=True),
        "table": lambda: c.table("sales_invoice"),
        "table-GET": lambda: c.table("sales_invoice", method="GET"),
        "stream_table": lambda: stream("POST"),
        "stream_table-GET": lambda: stream("GET"),
        "stream_table-arrow": lambda: stream("POST", "arrow"),
    }


def sync_ops(c: Client, shown: list[str]) -> dict[str, Callable[[], Any]]:
    """Each operation of ``Client``; what it returns is shown (repr'd)."""

    def stream(method: str, batch_format: str = "rows") -> Any:
        with c.stream_table(
            "sales_invoice",
            method=method,
            batch_rows=8,
            batch_format=batch_format,  # type: ignore[call-overload]
        ) as s:
            for batch in s:
                shown.append(repr(s) + repr(batch))
            return s

    return operations(c, stream)


def async_ops(c: AsyncClient, shown: list[str]) -> dict[str, Callable[[], Awaitable[Any]]]:
    """Each operation of ``AsyncClient``."""

    async def stream(method: str, batch_format: str = "rows") -> Any:
        async with c.stream_table(
            "sales_invoice",
            method=method,
            batch_rows=8,
            batch_format=batch_format,  # type: ignore[call-overload]
        ) as s:
            async for batch in s:
                shown.append(repr(s) + repr(batch))
            return s

    return operations(c, stream)


def expected_error(scenario: Scenario, op: str) -> type[erpdata.ErpError] | None:
    return scenario.dues_error if op in DUES_OPS else scenario.table_error


def record(scenario: Scenario, op: str, outcome: Any, shown: list[str]) -> None:
    """Keeps what the operation showed; checks it went the expected way."""
    want = expected_error(scenario, op)
    if isinstance(outcome, BaseException):
        shown.append(error_text(outcome))
        assert want is not None and isinstance(outcome, want), (
            f"{scenario.name} / {op}: {outcome!r}"
        )
    else:
        shown.append(repr(outcome))
        assert want is None, f"{scenario.name} / {op}: expected {want}, got {outcome!r}"


def run_sync(base: str, scenario: Scenario) -> list[str]:
    shown: list[str] = []
    with Client(base, **settings(scenario)) as c:
        shown.append(repr(c))
        for op, call in sync_ops(c, shown).items():
            try:
                outcome = call()
            except erpdata.ErpError as err:
                outcome = err
            record(scenario, op, outcome, shown)
    return shown


async def run_async(base: str, scenario: Scenario) -> list[str]:
    shown: list[str] = []
    async with AsyncClient(base, **settings(scenario)) as c:
        shown.append(repr(c))
        for op, call in async_ops(c, shown).items():
            try:
                outcome = await call()
            except erpdata.ErpError as err:
                outcome = err
            record(scenario, op, outcome, shown)
    return shown


def base_for(
    scenario: Scenario, request: pytest.FixtureRequest, key: str
) -> tuple[str, str | None, str | None]:
    """The client's base URL, the sandbox that records the requests (if
    any) and the second origin a redirect points to (if any)."""
    if scenario.fault is None:
        return request.getfixturevalue("refused_url"), None, None
    origin: str = request.getfixturevalue("secret_sandbox_url")
    elsewhere: str | None = None
    fault = scenario.fault
    if "{elsewhere}" in fault:
        elsewhere = request.getfixturevalue("elsewhere_url")
        fault = fault.format(elsewhere=elsewhere.rsplit(":", 1)[1])
    return fault_api.prefix(origin, fault, key), origin, elsewhere


def check_where_the_token_went(origin: str, key: str, token: str, expect_get: bool) -> None:
    """Only the GET form's table requests carry the token in their URL;
    the POST form carries it in the body; the dues query not at all."""
    sent = fault_api.log(origin, key)
    assert sent, "the sandbox recorded no request"
    in_url = 0
    encoded = urllib.parse.quote_plus(token)
    for req in sent:
        url = req["path"] + "?" + (req.get("query") or "")
        table_get = req["method"] == "GET" and req["path"].endswith("apis/dataapi.php")
        if table_get:
            assert f"accesstoken={encoded}" in url, "the GET form sends the token in its URL"
            in_url += 1
        else:
            assert_clean(url, token)
        if req["method"] == "POST":
            assert f"accesstoken={encoded}" in req["body"], (
                "the POST form sends the token in its body"
            )
            assert (
                req["headers"]
                .get("content-type", "")
                .startswith("application/x-www-form-urlencoded")
            )
    assert (in_url > 0) == expect_get


def debug_logs(caplog: pytest.LogCaptureFixture) -> None:
    for name in ("", *LOGGERS):
        caplog.set_level(logging.DEBUG, logger=name)


def logged(caplog: pytest.LogCaptureFixture) -> str:
    """Every record as a handler could show it: the message, and the raw
    arguments a structured handler might serialise."""
    return "\n".join(
        [caplog.text]
        + [f"{r.name} {r.getMessage()} {r.args!r} {r.exc_text or ''}" for r in caplog.records]
    )


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("scenario", [pytest.param(p, id=p.name) for p in SCENARIOS])
def test_clients_leak_nothing(
    scenario: Scenario,
    kind: str,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    debug_logs(caplog)
    key = fault_api.new_key("secrets", kind, scenario.name)
    base, origin, elsewhere = base_for(scenario, request, key)
    shown = run_sync(base, scenario) if kind == "sync" else asyncio.run(run_async(base, scenario))
    out, err = capfd.readouterr()
    assert_clean("\n".join(shown) + out + err + logged(caplog), SECRET_TOKEN, WRONG_TOKEN)
    # The scan saw real traffic: erpdata's and httpx's lines at DEBUG, the
    # request lines with the token's place redacted.
    names = {r.name for r in caplog.records}
    assert "erpdata" in names and any(n.startswith("httpcore") for n in names)
    if scenario.fault is not None:
        assert any(n == "httpx" for n in names)
        assert "accesstoken=[REDACTED]" in caplog.text
    if origin is not None:
        # The GET form's requests are sent whenever a call reaches the
        # sandbox, so the token is in exactly their URLs.
        check_where_the_token_went(origin, key, scenario.token, expect_get=True)
    if elsewhere is not None:
        assert fault_api.log(elsewhere, key) == []


# -- the command line ------------------------------------------------------------------

CLI_RUNS = {
    "dues-receipt": ["dues", "C001", "--kind", "receipt"],
    "table": ["table", "sales_invoice", "--format", "jsonl"],
    "table-GET": ["table", "sales_invoice", "--method", "GET"],
}


def cli(args: list[str], base: str, scenario: Scenario) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT / "python"),
        "ERPDATA_BASE_URL": base,
        "ERPDATA_PROJECT": "demo",
        "ERPDATA_COMPANY_ID": "1",
        "ERPDATA_YEAR_ID": "2025",
        "ERPDATA_ACCESS_TOKEN": scenario.token,
    }
    options = [
        "-vv",
        "--timeout",
        f"{scenario.timeout.total:g}",
        "--max-retries",
        str(scenario.max_retries),
    ]
    return subprocess.run(
        [sys.executable, "-m", "erpdata", *args[:1], *options, *args[1:]],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


# The command's failures go through the client tested above; these check
# what it prints of each kind of error (exit codes 3 and 4).
CLI_SCENARIOS = [
    s
    for s in SCENARIOS
    if s.name in ("ok", "wrong-token", "redirect-refused", "timeout", "http-500")
]


@pytest.mark.parametrize("scenario", [pytest.param(p, id=p.name) for p in CLI_SCENARIOS])
def test_command_leaks_nothing(scenario: Scenario, request: pytest.FixtureRequest) -> None:
    key = fault_api.new_key("secrets-cli", scenario.name)
    base, origin, elsewhere = base_for(scenario, request, key)
    with ThreadPoolExecutor(len(CLI_RUNS)) as pool:
        done = dict(zip(CLI_RUNS, pool.map(lambda a: cli(a, base, scenario), CLI_RUNS.values())))
    for name, run in done.items():
        want = (
            scenario.exit_code if name.startswith("table") or scenario.name != "wrong-token" else 0
        )
        assert run.returncode == want, f"{name}: exit {run.returncode}: {run.stderr[-2000:]}"
        assert "erpdata: " in run.stderr  # -vv logged the requests
        assert_clean(run.stdout + run.stderr, SECRET_TOKEN, WRONG_TOKEN)
    if origin is not None:
        check_where_the_token_went(origin, key, scenario.token, expect_get=True)
        assert "[REDACTED]" in done["table-GET"].stderr
    if elsewhere is not None:
        assert fault_api.log(elsewhere, key) == []


def test_httpx_log_redaction_survives_a_finalizer_logging_through_it() -> None:
    """Copying the set of live configurations allocates, which may run the
    garbage collector on the logging thread; an object it finalizes there
    may log through httpx (an unread answer closed), into the same filter.
    With a plain lock the thread deadlocked on itself, and every thread
    logging or making a client after it waited for good (a fault-matrix
    run hung so)."""
    from erpdata import _log

    line = logging.getLogger("httpx")
    real = _log._FILTER.filter
    depth = [0]

    def counted(record: logging.LogRecord) -> bool:
        """The filter, counting how deep it is entered."""
        depth[0] += 1
        try:
            return real(record)
        finally:
            depth[0] -= 1

    inside: list[bool] = []

    class LogsWhenCollected:
        def __init__(self) -> None:
            self.cycle = self

        def __del__(self) -> None:
            inside.append(depth[0] > 0)
            record = line.makeRecord(
                "httpx", logging.INFO, __file__, 0, "closed %s", (SECRET_TOKEN,), None
            )
            assert _log._FILTER.filter(record)
            assert SECRET_TOKEN not in record.getMessage()

    kept = Client("http://127.0.0.1:9/", project="demo", access_token=SECRET_TOKEN)

    def log_with_garbage_waiting(allocations: int) -> None:
        # The collector runs on the filter's own allocations, at some
        # count (which varies with the Python version): each is tried.
        record = line.makeRecord(
            "httpx", logging.INFO, __file__, 0, "GET %s", (SECRET_TOKEN,), None
        )
        gc.collect()
        gc.disable()
        LogsWhenCollected()  # garbage only the collector can free
        thresholds = gc.get_threshold()
        gc.set_threshold(gc.get_count()[0] + allocations)
        gc.enable()
        try:
            _log._FILTER.filter(record)
        finally:
            gc.set_threshold(*thresholds)

    _log._FILTER.filter = counted  # type: ignore[method-assign]
    try:
        for allocations in range(1, 16):
            worker = threading.Thread(
                target=log_with_garbage_waiting, args=(allocations,), daemon=True
            )
            worker.start()
            worker.join(10)
            assert not worker.is_alive(), "the logging thread deadlocked in the filter"
    finally:
        del _log._FILTER.filter
    assert any(inside), "the collector never ran inside the filter"
    kept.close()


def test_httpx_log_redaction_is_safe_across_threads() -> None:
    """httpx logs from a fan-out's worker threads while other threads make
    (and drop) clients: the redaction filter's set of live configurations
    must never be read while another thread changes it."""
    from erpdata import _log

    line = logging.getLogger("httpx")
    stop = False

    def make_clients() -> None:
        while not stop:
            for _ in range(50):
                Client("http://127.0.0.1:9/", project="demo", access_token=SECRET_TOKEN).close()

    # Clients live throughout (their tokens are redacted in every line),
    # enough that copying the set takes a while. (Without the filter's lock
    # the first few records already fail.)
    kept = [
        Client("http://127.0.0.1:9/", project="demo", access_token=SECRET_TOKEN) for _ in range(100)
    ]
    # Threads switch as often as they can, so the two meet mid-copy.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    with ThreadPoolExecutor(2) as pool:
        maker = pool.submit(make_clients)
        try:
            for _ in range(300):
                record = line.makeRecord(
                    "httpx", logging.INFO, __file__, 0, "GET %s", (SECRET_TOKEN,), None
                )
                assert _log._FILTER.filter(record)
                assert SECRET_TOKEN not in record.getMessage()
        finally:
            stop = True
            sys.setswitchinterval(interval)
        maker.result()
    for client in kept:
        client.close()
