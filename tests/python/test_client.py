"""The sync Client against the sandbox ERP over loopback."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import re
import subprocess
import sys
import time
import weakref
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

import erpdata
import fault_api
from conftest import FAKE_TOKEN, ROOT, SANDBOX_TOKEN, SECRET_TOKEN
from erpdata import Client, DuesKind
from leaks import package_frames

MONEY = ("amount", "paid", "balance")


def assert_money(rows: list[dict[str, object]]) -> None:
    for row in rows:
        for key in MONEY:
            value = row[key]
            assert isinstance(value, Decimal), (key, value)
            # Exactly as sent: two places, never a float.
            assert value.as_tuple().exponent == -2, (key, value)


def test_receivables_of_a_customer(client: Client) -> None:
    dues = client.receivables("C001")
    assert dues.acid == "C001"
    assert dues.kind is DuesKind.RECEIPT
    assert dues.rows
    assert_money(dues.rows)
    assert dues.rows[0]["doc_no"].startswith("INV-")
    assert '"status":"success"' in dues.raw
    assert dues.notices == []


def test_payables_of_a_supplier(client: Client) -> None:
    dues = client.payables("S001")
    assert dues.kind is DuesKind.PAYMENT
    assert dues.rows
    assert_money(dues.rows)
    assert all(r["balance"] == r["amount"] - r["paid"] for r in dues.rows)


def test_a_customer_with_no_dues(client: Client) -> None:
    # The demo data has customers without open invoices; which ones is the
    # sandbox's business, so look for one rather than hard-code it.
    customers = [f"C{n:03d}" for n in range(1, 13)]
    empty = [acid for acid in customers if not client.receivables(acid).rows]
    assert empty, "the sandbox should have a customer without dues"
    dues = client.receivables(empty[0])
    assert dues.rows == [] and dues.acid == empty[0]
    # And a customer owes nothing as a supplier.
    assert client.payables("C001").rows == []


def test_kind_as_enum_or_string_in_any_case(client: Client) -> None:
    expected = client.receivables("C001").rows
    for kind in (DuesKind.RECEIPT, "RECEIPT", "receipt", "Receipt"):
        dues = client.dues("C001", kind)
        assert dues.kind is DuesKind.RECEIPT
        assert dues.rows == expected
    assert client.dues("S001", "payment").kind is DuesKind.PAYMENT


def test_unknown_kind_is_invalid_input(refused_url: str) -> None:
    with Client(refused_url, project="demo") as c:
        with pytest.raises(erpdata.InvalidInputError) as info:
            c.dues("C001", "REFUND")
    assert info.value.field == "kind"
    assert isinstance(info.value, ValueError)


def test_table_post_and_get_give_equal_rows(client: Client) -> None:
    post = client.table("sales_invoice")
    get = client.table("sales_invoice", method="GET")
    assert len(post) > 0
    assert post == get
    assert list(post) == list(get)
    assert "invoice_no" in post.columns
    assert isinstance(post[0]["amount"], Decimal)
    assert "sales_invoice" not in repr(post) and f"{len(post)} rows" in repr(post)


def test_default_company_and_year_and_override(client: Client) -> None:
    default = client.table("sales_invoice")
    explicit = client.table("sales_invoice", company_id=1, year_id=2025)
    as_text = client.table("sales_invoice", company_id="1", year_id="2025")
    assert default == explicit == as_text
    other_company = client.table("sales_invoice", company_id=2)
    other_year = client.table("sales_invoice", year_id=2024)
    assert list(other_company) != list(default)
    assert list(other_year) != list(default)


def test_every_demo_table(client: Client) -> None:
    for name in ("account", "sales_invoice", "purchase_bill", "receipt", "payment"):
        table = client.table(name)
        assert len(table) > 0, name
        assert all(set(row) <= set(table.columns) for row in table)


def test_bad_token_is_a_service_error(sandbox_url: str) -> None:
    with Client(
        sandbox_url, project="demo", access_token=FAKE_TOKEN, company_id=1, year_id=2025
    ) as c:
        for method in ("POST", "GET"):
            with pytest.raises(erpdata.ServiceError) as info:
                c.table("sales_invoice", method=method)
            assert "Invalid access token" in info.value.message
            assert info.value.status == "error"
            assert FAKE_TOKEN not in str(info.value) + repr(info.value)


@pytest.mark.parametrize("kind", ["sync", "async", "stream"])
def test_a_failed_call_keeps_nothing_alive(
    sandbox_url: str, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    # A raised error's traceback holds the frames that raised it, and the
    # loop's frame holds the core's Failed action, which holds the error: a
    # cycle the garbage collector must be able to follow, or every failed
    # call would keep its client, its answer and its token alive (and the
    # token's redaction of httpx's log lines with them). With the package's
    # debug log kept, as the README shows it turned on and as a handler
    # that keeps records (pytest's own, here) would: no record holds the
    # error either.
    caplog.set_level(logging.DEBUG, logger="erpdata")

    def fail() -> weakref.ref[Any]:
        settings: dict[str, Any] = dict(
            project="demo", access_token=FAKE_TOKEN, company_id=1, year_id=2025
        )
        made: Client | erpdata.AsyncClient
        try:
            if kind == "async":
                made = async_made = erpdata.AsyncClient(sandbox_url, **settings)

                async def table() -> None:
                    async with async_made:
                        await async_made.table("account")

                asyncio.run(table())
            else:
                with Client(sandbox_url, **settings) as made:
                    if kind == "stream":
                        list(made.stream_table("account"))
                    else:
                        made.table("account")
        except erpdata.ServiceError as err:
            assert "Invalid access token" in err.message
        else:
            raise AssertionError("the fake token was accepted")
        return weakref.ref(made)

    gone = fail()
    gc.collect()
    assert gone() is None, [type(r).__name__ for r in gc.get_referrers(gone())]
    assert any(re.match(r"call \d+: failed", r.getMessage()) for r in caplog.records)


def test_unknown_table_is_a_service_error(client: Client) -> None:
    with pytest.raises(erpdata.ServiceError, match="nosuch"):
        client.table("nosuch")


def test_invalid_table_name_is_rejected_before_sending(refused_url: str) -> None:
    # Nothing listens at refused_url: had anything been sent, this would be
    # a TransportError.
    with Client(
        refused_url, project="demo", access_token=FAKE_TOKEN, company_id=1, year_id=2025
    ) as c:
        for bad in ("sales;drop table", "../etc", "1abc", ""):
            with pytest.raises(erpdata.InvalidInputError) as info:
                c.table(bad)
            assert info.value.field == "table"
        with pytest.raises(erpdata.TransportError):
            c.table("sales_invoice")


def test_connection_refused_is_a_transport_error(refused_url: str) -> None:
    with Client(
        refused_url, project="demo", access_token=FAKE_TOKEN, company_id=1, year_id=2025
    ) as c:
        with pytest.raises(erpdata.TransportError) as info:
            c.table("sales_invoice", method="GET")
    err = info.value
    assert not isinstance(err, erpdata.TimeoutError)
    assert err.kind == "transport"
    assert err.transport_kind == "connect"
    # No httpx exception in the chain: it would carry the GET URL.
    assert err.__cause__ is None and err.__context__ is None
    assert FAKE_TOKEN not in str(err) + repr(err)


def test_silent_server_is_a_timeout(silent_url: str) -> None:
    with Client(silent_url, project="demo", timeout=0.3) as c:
        started = time.monotonic()
        with pytest.raises(erpdata.TimeoutError) as info:
            c.receivables("C001")
        elapsed = time.monotonic() - started
    assert elapsed < 5
    assert info.value.transport_kind == "timeout"
    assert isinstance(info.value, erpdata.TransportError)
    assert isinstance(info.value, TimeoutError)  # the builtin, too


def test_timeout_none_means_the_default(refused_url: str) -> None:
    with Client(refused_url, project="demo", timeout=None) as c:
        assert c.timeout == erpdata.Timeout() == erpdata.Timeout(total=300, connect=10, read=30)


def test_configuration_from_the_environment(
    clean_env: pytest.MonkeyPatch, sandbox_url: str
) -> None:
    clean_env.setenv("ERPDATA_BASE_URL", sandbox_url)
    clean_env.setenv("ERPDATA_PROJECT", "demo")
    clean_env.setenv("ERPDATA_ACCESS_TOKEN", SANDBOX_TOKEN)
    clean_env.setenv("ERPDATA_COMPANY_ID", "1")
    clean_env.setenv("ERPDATA_YEAR_ID", "2025")
    with Client() as c:
        assert len(c.table("sales_invoice")) > 0
        assert c.receivables("C001").rows
    # An explicit argument wins over the environment.
    clean_env.setenv("ERPDATA_PROJECT_FOLDER", "no-such-folder")
    with Client(project_folder="demo") as c:
        assert c.receivables("C001").rows


@pytest.mark.parametrize(
    ("variable", "value", "reason"),
    [
        ("ERPDATA_BASE_URL", "erp.example.com", "is not an absolute URL"),
        ("ERPDATA_PROJECT", "", "must not be empty"),
        ("ERPDATA_ACCESS_TOKEN", f"{FAKE_TOKEN}\n", "control character U+000A"),
        ("ERPDATA_COMPANY_ID", " ", "must not be"),
        ("ERPDATA_PROJECT", "\udcff", "is not valid Unicode"),  # a byte not UTF-8
    ],
)
def test_a_bad_value_from_a_variable_names_the_variable(
    clean_env: pytest.MonkeyPatch, variable: str, value: str, reason: str
) -> None:
    """Where the value can be fixed: the variable, not the argument."""
    clean_env.setenv("ERPDATA_BASE_URL", "https://erp.example.com/")
    clean_env.setenv(variable, value)
    with pytest.raises(erpdata.InvalidInputError) as info:
        Client()
    assert info.value.field == variable
    assert str(info.value).startswith(f"invalid {variable}: ") and reason in str(info.value)
    assert FAKE_TOKEN not in str(info.value)
    # The same value given as an argument names the argument; an argument
    # given is not read from its variable at all.
    argument = variable.removeprefix("ERPDATA_").lower()
    if argument != "base_url":
        given: dict[str, Any] = {argument: value}
        with pytest.raises(erpdata.InvalidInputError) as info:
            Client(**given)
        assert info.value.field == argument
        Client(**{**given, argument: "1"}).close()


def test_missing_base_url(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(erpdata.InvalidInputError) as info:
        Client(project="demo")
    assert info.value.field == "base_url"
    assert "ERPDATA_BASE_URL" in str(info.value)


def test_plain_http_with_a_token_to_a_remote_host_is_refused() -> None:
    with pytest.raises(erpdata.InvalidInputError) as info:
        Client("http://erp.example.com/", project="demo", access_token=FAKE_TOKEN)
    assert info.value.field == "base_url"
    # It names the argument that allows it.
    assert "set allow_insecure_http to allow it" in str(info.value)


PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.mark.parametrize("client_class", [Client, erpdata.AsyncClient])
def test_a_loopback_service_is_never_reached_through_a_proxy(
    client_class: type[Any],
    sandbox_url: str,
    raw_server: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Plain http with the token is allowed to loopback because it never
    # leaves the machine; through the proxy of HTTP_PROXY it went, token
    # and all, to the proxy's host.
    proxy = raw_server(lambda send: send(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n"))
    for name in PROXY_VARS:
        monkeypatch.setenv(name, proxy.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    settings: dict[str, Any] = dict(
        project="demo", access_token=SANDBOX_TOKEN, company_id=1, year_id=2025, max_retries=0
    )

    async def table_async(url: str) -> Any:
        async with erpdata.AsyncClient(url, **settings) as c:
            return await c.table("account")

    def table(url: str) -> Any:
        if client_class is Client:
            with Client(url, **settings) as c:
                return c.table("account")
        return asyncio.run(table_async(url))

    assert len(table(sandbox_url)) > 0
    assert proxy.requests == 0
    # Elsewhere the proxy is used, as httpx would use it (here it answers
    # 502 for a host that does not exist).
    settings["allow_insecure_http"] = True
    with pytest.raises(erpdata.HttpStatusError) as info:
        table("http://erp.example.invalid/")
    assert info.value.status_code == 502 and proxy.requests == 1


def test_repr_and_str_never_show_the_token(refused_url: str) -> None:
    c = Client(refused_url, project="demo", access_token=FAKE_TOKEN, company_id=1, year_id=2025)
    try:
        assert repr(c) == f"Client(base_url={refused_url!r}, project='demo')"
        assert FAKE_TOKEN not in str(c) + repr(c)
    finally:
        c.close()
    # Nor where the caller put it in the base URL (a gateway's path).
    gateway = f"{refused_url}gateway/{FAKE_TOKEN}/"
    with Client(gateway, project="demo", access_token=FAKE_TOKEN) as c:
        assert repr(c) == f"Client(base_url='{refused_url}gateway/[REDACTED]/', project='demo')"
        assert repr(c._config) == (
            f"Config(base_url='{refused_url}gateway/[REDACTED]/', project='demo')"
        )
        assert c.base_url == gateway, "the setting itself is as given"


def test_a_token_pasted_into_schema_overrides_is_not_repeated(refused_url: str) -> None:
    # The type name was repeated lowered, and neither it nor a column's
    # name went through the client's redaction.
    token = "Tok-SECRET-4711-mixed"
    with Client(refused_url, project="demo", access_token=token, company_id=1, year_id=1) as c:
        calls: list[Callable[[], object]] = [
            lambda: c.table("account", schema_overrides={"amount": token}),
            lambda: c.table("account", schema_overrides={token: "nope"}),
            lambda: list(c.stream_table("account", schema_overrides={"amount": token})),
            lambda: c.dues_table(["C001"], "receipt", schema_overrides={"amount": token}),
        ]
        for call in calls:
            with pytest.raises(erpdata.InvalidInputError) as info:
                call()
            shown = f"{info.value} {info.value!r} {info.value.field} {info.value.reason}"
            assert "[REDACTED]" in shown and token not in shown, shown


def test_own_http_client_is_used_and_left_open(sandbox_url: str) -> None:
    seen: list[httpx.Request] = []
    with httpx.Client(event_hooks={"request": [seen.append]}) as http:
        with Client(sandbox_url, project="demo", http_client=http) as c:
            assert c.receivables("C001").rows
        assert not http.is_closed
        assert len(seen) == 1 and seen[0].method == "GET"
        assert seen[0].headers["user-agent"].startswith("erpdata/")


def test_own_client_is_closed_by_with(sandbox_url: str) -> None:
    with Client(sandbox_url, project="demo") as c:
        pass
    assert c._pool._http.is_closed


def test_a_traceback_with_its_locals_holds_no_token(raw_server: Any) -> None:
    # Sentry records each frame's locals, as do rich's and pytest's
    # showlocals: the last chunk of a body echoing the token, and the GET
    # form's request, were locals of the frame that raised.
    import traceback

    body = b'{"status":"error","message":"Invalid access token ' + SECRET_TOKEN.encode() + b'"}'
    server = raw_server(
        # It closes each connection after its answer, and says so: kept for
        # the next call, a connection it had closed was reused now and then
        # ("Server disconnected without sending a response", not retried).
        lambda send: send(
            b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: %d\r\n\r\n%s"
            % (len(body), body)
        )
    )
    settings: dict[str, Any] = dict(
        project="demo", access_token=SECRET_TOKEN, company_id=1, year_id=2025, max_retries=0
    )
    sync = Client(server.url, **settings)
    clients = {"GET": erpdata.AsyncClient(server.url, **settings)}
    clients["POST"] = clients["GET"]

    def failure(run: Any) -> BaseException:
        # The error's traceback starts here: its frames are the client's.
        try:
            run()
        except erpdata.ServiceError as exc:
            return exc
        raise AssertionError("no error")

    async def afailure(method: str) -> BaseException:
        try:
            await clients[method].table("account", method=method)
        except erpdata.ServiceError as exc:
            return exc
        raise AssertionError("no error")

    def shown(error: BaseException) -> str:
        return "".join(
            traceback.TracebackException.from_exception(error, capture_locals=True).format()
        )

    for method in ("GET", "POST"):
        errors = [
            failure(lambda m=method: sync.table("account", method=m)),
            failure(lambda m=method: list(sync.stream_table("account", method=m))),
            asyncio.run(afailure(method)),
        ]
        for error in errors:
            text = shown(error)
            assert "[REDACTED]" in text and SECRET_TOKEN not in text, (method, text)
    sync.close()


def test_a_refused_constructor_leaves_no_token_in_its_frames() -> None:
    # The token given to a constructor that then refused a setting was a
    # local of its frames (the argument, and the keyword arguments of the
    # method wrapping it), shown by a traceback printed with its locals.
    for make, kwargs in (
        (Client, {"access_token": SECRET_TOKEN, "project": "demo"}),
        (erpdata.AsyncClient, {"access_token": SECRET_TOKEN, "max_retries": 99}),
        (Client, {"acces_token": SECRET_TOKEN}),
    ):
        try:
            make("erp.example.com:8443", **kwargs)
        except (erpdata.ErpError, TypeError) as exc:
            error: BaseException = exc
        else:
            raise AssertionError("not refused")
        # The package's frames only: this test's own hold the token.
        shown = package_frames(error)
        assert "erpdata" in shown, error
        assert SECRET_TOKEN not in shown, shown


def test_a_misspelt_keyword_argument_names_the_method_and_what_was_meant(
    sandbox_url: str,
) -> None:
    # Python's TypeError named internal functions ("ClientBase.__init__()",
    # "Operations.table()") and guessed nothing; JS's options said whom.
    secret = "fake-secret-4711"
    with Client(sandbox_url, project="demo", access_token=SANDBOX_TOKEN) as c:
        for call, said in (
            (
                lambda: Client(sandbox_url, acces_token=secret),  # type: ignore[call-arg]
                "Client() got an unexpected keyword argument 'acces_token'; "
                "did you mean 'access_token'?",
            ),
            (
                lambda: c.table("account", companyId=secret),  # type: ignore[call-arg]
                "Client.table() got an unexpected keyword argument 'companyId'; "
                "did you mean 'company_id'?",
            ),
            (
                lambda: c.stream_table("account", batch_row=secret),  # type: ignore[call-overload]
                "Client.stream_table() got an unexpected keyword argument 'batch_row'; "
                "did you mean 'batch_rows'?",
            ),
            (
                lambda: c.net_profit("2025-01-01", "2025-06-30", send_tokn=secret),  # type: ignore[call-arg]
                "Client.net_profit() got an unexpected keyword argument 'send_tokn'; "
                "did you mean 'send_token'?",
            ),
            (
                lambda: c.receivables("C001", colour=secret),  # type: ignore[call-arg]
                "Client.receivables() got an unexpected keyword argument 'colour'; "
                "it takes acid, infer_strings, schema_overrides, timeout",
            ),
        ):
            with pytest.raises(TypeError) as caught:
                call()
            assert str(caught.value) == said
            assert secret not in repr(caught.value)


def test_a_call_on_a_closed_client_is_an_erp_error(sandbox_url: str) -> None:
    # httpx's RuntimeError ("Cannot send a request, as the client has been
    # closed") was the one failure of a call that was not an ErpError.
    with Client(sandbox_url, project="demo", access_token=SANDBOX_TOKEN) as c:
        assert c.receivables("C001").rows
    clone = c.with_options(timeout=5)
    c.close()  # again: nothing to do
    for call in (
        lambda: c.receivables("C001"),
        lambda: clone.table("account", company_id=1, year_id=2025),
        lambda: c.dues_many(["C001", "C002"], kind="receipt"),
        lambda: list(c.stream_table("account", company_id=1, year_id=2025)),
    ):
        with pytest.raises(erpdata.InvalidInputError) as caught:
            call()
        assert caught.value.field == "client" and caught.value.reason == "closed"
        assert str(caught.value).startswith("this Client has been closed (by close() or on ")
    with httpx.Client() as http:
        given = Client(sandbox_url, project="demo", http_client=http)
    with pytest.raises(erpdata.InvalidInputError, match="the Client given as http_client has"):
        given.receivables("C001")


def test_a_client_closed_while_its_call_runs_is_an_erp_error(sandbox_url: str) -> None:
    # close() from another thread during a slow answer: the read it cut
    # short was retried, and the retry met httpx's RuntimeError.
    import threading

    url = fault_api.prefix(sandbox_url, "trickle-200x100", fault_api.new_key("closed-midway"))
    c = Client(url, project="demo", access_token=SANDBOX_TOKEN, company_id=1, year_id=2025)
    threading.Timer(0.5, c.close).start()
    with pytest.raises(erpdata.InvalidInputError) as caught:
        c.table("sales_invoice")
    assert caught.value.field == "client" and caught.value.reason == "closed"
    assert "closed while this call ran" in str(caught.value)


def test_get_form_token_stays_out_of_httpx_logs(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    # httpx logs each request's URL at INFO; the GET form's URL holds the token.
    with caplog.at_level(logging.INFO, logger="httpx"):
        client.table("account", method="GET")
    assert any("HTTP Request" in r.getMessage() for r in caplog.records)
    assert SANDBOX_TOKEN not in caplog.text
    assert "[REDACTED]" in caplog.text


INTERRUPTED_TABLE = """
import os, signal, sys, threading

import erpdata
from erpdata._core import Call

def ctrl_c_in_the_progress_bar(received, rows):
    # Where a Ctrl-C lands while a notebook's progress bar updates.
    if received:
        raise KeyboardInterrupt

with erpdata.Client(sys.argv[1], project="demo", company_id=1, year_id=2025) as client:
    try:
        if sys.argv[2] == "signal":
            threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
            client.table("sales_invoice")
        else:
            client.table("sales_invoice", progress=ctrl_c_in_the_progress_bar)
    except KeyboardInterrupt as interrupt:
        held, traceback = [], interrupt.__traceback__
        while traceback is not None:
            frame = traceback.tb_frame
            ours = "/erpdata/" in frame.f_code.co_filename  # httpx's frames hold its bytes
            held += [(frame.f_code.co_name, name) for name, value in frame.f_locals.items()
                     if isinstance(value, Call) or (ours and isinstance(value, bytes))]
            traceback = traceback.tb_next
        print("held:", held)
"""


@pytest.mark.parametrize("where", ["signal", "progress"])
def test_the_interrupt_of_a_call_keeps_nothing_of_the_call(
    big_sandbox_url: str, tmp_path: Path, where: str
) -> None:
    # A traceback keeps its frames' locals: the KeyboardInterrupt of a
    # table download interrupted midway, kept (a notebook keeps the last
    # error), kept the call, its decoder thread and the rows decoded so far,
    # and (raised in the progress callback) the last chunk of the body.
    key = fault_api.new_key("kept-interrupt", where)
    script = tmp_path / "interrupted.py"
    script.write_text(INTERRUPTED_TABLE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERPDATA_")}
    env.update(ERPDATA_ACCESS_TOKEN=SECRET_TOKEN, PYTHONPATH=str(ROOT / "python"))
    url = fault_api.prefix(big_sandbox_url, "trickle-32768x20", key)
    done = subprocess.run(
        [sys.executable, str(script), url, where],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout == "held: []\n", done.stdout + done.stderr


IN_THE_CORE_AT_EXIT = """
import threading, time
from erpdata._core import _testing

class SlowToFinalize:
    def __del__(self):
        time.sleep(1.0)  # the GIL let go of while the interpreter finalizes

keep = SlowToFinalize()
# A daemon thread of the caller's own, in the core (as in a call) when the
# program ends, and coming back from it while the interpreter finalizes.
threading.Thread(target=_testing.detached_sleep, args=(0.4,), daemon=True).start()
time.sleep(0.1)
"""


def test_a_daemon_thread_in_the_core_at_exit_does_not_abort_the_process(
    tmp_path: Path,
) -> None:
    # Before Python 3.14 a daemon thread taking the GIL back while the
    # interpreter finalizes is ended by pthread_exit, whose unwinding
    # cannot cross Rust frames: "FATAL: exception not rethrown", exit 134.
    script = tmp_path / "exit.py"
    script.write_text(IN_THE_CORE_AT_EXIT, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    done = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_an_interrupt_halts_the_calls_it_leaves_running(sandbox_url: str) -> None:
    # Interrupted, dues_many returns at once and leaves its calls on daemon
    # threads, going in and out of the core as their answers arrive: one
    # in the core as the interpreter exits aborts the process ("FATAL:
    # exception not rethrown"). Each is now halted at its next wait on the
    # service, so they end within a chunk, not with their answers.
    import _thread
    import threading

    key = fault_api.new_key("halt-many")
    url = fault_api.prefix(sandbox_url, "trickle-16x100", key)  # 160 bytes a second

    def interrupt_once_they_read() -> None:
        fault_api.wait_for(sandbox_url, key, at_least=3, every=0.02)
        time.sleep(0.5)  # the heads have come; the bodies trickle
        _thread.interrupt_main()

    before = set(threading.enumerate())
    watcher = threading.Thread(target=interrupt_once_they_read, daemon=True)
    with Client(url, project="demo", company_id=1, year_id=2025) as client:
        watcher.start()
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            client.dues_many(["C001", "C002", "C003"], "receipt", concurrency=3)
        interrupted = time.monotonic() - started
        watcher.join()
        pool = [t for t in set(threading.enumerate()) - before if t.name.startswith("erpdata_")]
        deadline = time.monotonic() + 2
        while any(t.is_alive() for t in pool) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not any(t.is_alive() for t in pool), "a call went on after the interrupt"
    # Each answer is longer than a second at this pace: the calls were cut.
    assert interrupted < 10
