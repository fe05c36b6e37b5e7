"""The core's retry and redirect policies: their shared vectors through
erpdata._core, and the client following them over real loopback HTTP."""

from __future__ import annotations

import email.utils
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

import pytest

import erpdata
from erpdata._core import Config
from erpdata._core._testing import RetryPolicy, follow_redirect

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
FAKE_TOKEN = "fake-token-for-tests"


def cases(name: str) -> list[Any]:
    found = json.loads((VECTORS / name).read_text(encoding="utf-8"))["cases"]
    assert found, f"{name} has no cases"
    return [pytest.param(c, id=c["name"]) for c in found]


@pytest.mark.parametrize("case", cases("retry.json"))
def test_retry_vector(case: dict[str, Any]) -> None:
    max_retry_after_ms = case.get("max_retry_after_ms")
    policy = RetryPolicy(
        case.get("max_retries", 2),
        None if max_retry_after_ms is None else max_retry_after_ms / 1000,
    )
    outcome = case["outcome"]
    now = None
    if "now" in case:
        now = email.utils.parsedate_to_datetime(case["now"]).timestamp()
    if "transport" in outcome:
        delay = policy.decide(
            case["retries_done"], transport=outcome["transport"], random=case["random"], now=now
        )
    else:
        delay = policy.decide(
            case["retries_done"],
            status=outcome["status"],
            retry_after=outcome.get("retry_after"),
            random=case["random"],
            now=now,
        )
    expected = case["expect"].get("retry_after_ms")
    if expected is None:
        assert delay is None
    else:
        assert delay is not None and round(delay * 1000) == expected


@pytest.mark.parametrize("case", cases("redirects.json"))
def test_redirect_vector(case: dict[str, Any]) -> None:
    settings = dict(case["config"])
    config = Config(settings.pop("base_url"), **settings)
    args = case["args"]
    if case["call"] == "dues":
        sent = config.invoke("dues", {"acid": args["acid"], "kind": args["kind"]}).request()
    else:
        table = {"name": args["table"], "method": args.get("method", "POST")}
        sent = config.invoke("table", table).request()
    response = case["response"]

    def call() -> Any:
        return follow_redirect(
            config, sent, response["status"], response.get("location"), case["hops_done"]
        )

    if "expect_error" in case:
        expected = case["expect_error"]
        with pytest.raises(erpdata.HttpStatusError) as info:
            call()
        err = info.value
        assert err.status_code == expected["status"]
        assert expected["message_contains"] in str(err)
        for secret in expected.get("not_contains", []):
            assert secret not in f"{err} {err!r} {err.args}"
        return
    follow = case["expect"]["follow"]
    got = call()
    if follow is None:
        assert got is None
    else:
        assert got is not None
        assert (got.method, got.url, got.body.decode()) == (
            follow["method"],
            follow["url"],
            follow["body"],
        )


# -- the client against real loopback servers ---------------------------------


class Recorder:
    """A loopback HTTP server that answers from a script and records every
    request it receives (path and body)."""

    def __init__(self, answers: list[tuple[int, dict[str, str], bytes]]) -> None:
        self.answers = list(answers)
        self.seen: list[tuple[str, str, bytes]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                recorder.seen.append((self.command, self.path, body))
                status, headers, payload = (
                    recorder.answers.pop(0) if recorder.answers else (500, {}, b"script exhausted")
                )
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def servers() -> Iterator[Callable[[list[tuple[int, dict[str, str], bytes]]], Recorder]]:
    made: list[Recorder] = []

    def make(answers: list[tuple[int, dict[str, str], bytes]]) -> Recorder:
        made.append(Recorder(answers))
        return made[-1]

    yield make
    for r in made:
        r.close()


OK = (200, {"content-type": "application/json"}, b'{"status":"success","data":[{"a":1}]}')


def client(url: str, **kw: Any) -> erpdata.Client:
    return erpdata.Client(
        url, project="demo", access_token=FAKE_TOKEN, company_id=1, year_id=2025, **kw
    )


def test_503_is_retried_then_succeeds(servers: Any) -> None:
    server = servers(
        [(503, {"retry-after": "0"}, b"busy"), (503, {"retry-after": "0"}, b"busy"), OK]
    )
    with client(server.url) as c:
        assert len(c.table("account")) == 1
    assert len(server.seen) == 3


def test_retries_stop_at_max_retries(servers: Any) -> None:
    server = servers([(503, {"retry-after": "0"}, b"busy")] * 5)
    with client(server.url, max_retries=1) as c, pytest.raises(erpdata.HttpStatusError) as info:
        c.table("account")
    assert info.value.status_code == 503
    assert len(server.seen) == 2


def test_500_and_service_errors_are_not_retried(servers: Any) -> None:
    server = servers([(500, {}, b"boom"), (200, {}, b'{"status":"error","message":"no"}')])
    with client(server.url) as c:
        with pytest.raises(erpdata.HttpStatusError):
            c.table("account")
        with pytest.raises(erpdata.ServiceError):
            c.table("account")
    assert len(server.seen) == 2


def test_backoff_sleeps_between_attempts(servers: Any) -> None:
    server = servers([(502, {}, b"bad gateway"), OK])
    start = time.monotonic()
    with client(server.url) as c:
        c.table("account")
    # The first backoff step is 0.25-0.5 s (0.5 s base, equal jitter).
    assert 0.2 <= time.monotonic() - start < 3
    assert len(server.seen) == 2


def test_same_origin_redirect_is_followed_with_the_form(servers: Any) -> None:
    server = servers([(307, {"location": "/moved/dataapi.php"}, b""), OK])
    with client(server.url) as c:
        assert len(c.table("account")) == 1
    (m1, p1, b1), (m2, p2, b2) = server.seen
    assert (m1, p1, m2, p2) == ("POST", "/apis/dataapi.php", "POST", "/moved/dataapi.php")
    assert b1 == b2 and b"accesstoken=" in b2


@pytest.mark.parametrize("method", ["POST", "GET"])
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_cross_origin_redirect_is_refused_and_the_other_origin_gets_nothing(
    servers: Any, status: int, method: str
) -> None:
    elsewhere = servers([OK])
    server = servers([(status, {"location": elsewhere.url + "/collect"}, b"")])
    with client(server.url) as c, pytest.raises(erpdata.HttpStatusError) as info:
        c.table("account", method=method)
    assert info.value.status_code == status
    assert "refused" in str(info.value) and elsewhere.url in str(info.value)
    assert FAKE_TOKEN not in repr(info.value) + str(info.value)
    assert elsewhere.seen == []
