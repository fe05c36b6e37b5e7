"""Fixtures: a real sandbox ERP on loopback, and clients configured for it.

The sandbox binary comes from ERPDATA_SANDBOX_BIN (default
target/debug/erpdata-sandbox; build it with `make sandbox`).
"""

from __future__ import annotations

import importlib
import os
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

import erpdata
import fault_api

ROOT = Path(__file__).resolve().parents[2]
SANDBOX_TOKEN = "sandbox-token-not-secret"
FAKE_TOKEN = "fake-token-for-tests"
START_TIMEOUT = 20.0


def _first_line(proc: subprocess.Popen[str], timeout: float) -> str:
    """The sandbox's first stdout line (its URL), without hanging forever
    if it never prints one."""
    assert proc.stdout is not None
    stdout = proc.stdout
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    return line[0].strip() if line else ""


def _sandbox(args: list[str], env: dict[str, str] | None = None) -> Generator[str, None, None]:
    """Runs the sandbox binary with ``args`` until the fixture ends."""
    binary = Path(os.environ.get("ERPDATA_SANDBOX_BIN", ROOT / "target/debug/erpdata-sandbox"))
    if not binary.exists():
        pytest.fail(f"sandbox binary not found at {binary}; run `make sandbox`")
    draining: threading.Thread | None = None
    with tempfile.TemporaryFile("w+") as stderr:
        proc = subprocess.Popen(
            [str(binary), "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env={**os.environ, **(env or {})},
        )
        try:
            url = _first_line(proc, START_TIMEOUT)
            if not url.startswith("http"):
                proc.kill()
                stderr.seek(0)
                pytest.fail(f"sandbox did not print its URL (got {url!r}): {stderr.read()[-2000:]}")
            # Keep reading stdout so a chatty sandbox never blocks on a full pipe.
            assert proc.stdout is not None
            drain = proc.stdout
            draining = threading.Thread(target=lambda: [None for _ in drain], daemon=True)
            draining.start()
            yield url
        finally:
            proc.kill()
            proc.wait(timeout=10)
            # The pipe ends with the process: its reader stops at the end
            # and the pipe is closed here, not left to the collector.
            if draining is not None:
                draining.join(timeout=10)
            if proc.stdout is not None:
                proc.stdout.close()


@pytest.fixture(scope="session")
def sandbox_url() -> Iterator[str]:
    yield from _sandbox([])


SECRET_TOKEN = "fake+secret/token=with&more%20"
"""A fake token whose URL-encoded forms differ from its text, so a test can
look for every form it could leak in."""

BIG_ROWS = 60_000
"""Rows of sales_invoice (company 1, 2025) on the big sandbox."""


@pytest.fixture(scope="session")
def secret_sandbox_url() -> Iterator[str]:
    """A sandbox whose token is SECRET_TOKEN."""
    yield from _sandbox(["--quiet"], {"ERPDATA_SANDBOX_TOKEN": SECRET_TOKEN})


@pytest.fixture(scope="session")
def big_sandbox_url() -> Iterator[str]:
    """A sandbox with a large streamed sales_invoice and SECRET_TOKEN."""
    yield from _sandbox(
        ["--rows", str(BIG_ROWS), "--quiet"], {"ERPDATA_SANDBOX_TOKEN": SECRET_TOKEN}
    )


HUGE_ROWS = 1_000_000
"""Rows of sales_invoice (company 1, 2025) on the huge sandbox."""


@pytest.fixture(scope="session")
def huge_sandbox_url() -> Iterator[str]:
    """A sandbox whose sales_invoice takes a second or two to export: long
    enough to interrupt midway. Its rows are made as they are sent, so it
    costs no memory. Its token is SECRET_TOKEN."""
    yield from _sandbox(
        ["--rows", str(HUGE_ROWS), "--quiet"], {"ERPDATA_SANDBOX_TOKEN": SECRET_TOKEN}
    )


@pytest.fixture(scope="session")
def elsewhere_url() -> Iterator[str]:
    """A second sandbox: another origin, which redirect tests assert
    received nothing."""
    yield from _sandbox(["--quiet"], {"ERPDATA_SANDBOX_TOKEN": SECRET_TOKEN})


@dataclass(frozen=True)
class TlsSandbox:
    """A sandbox serving https with a self-signed certificate."""

    url: str
    cert: Path

    def ssl_context(self) -> ssl.SSLContext:
        """A context that trusts this sandbox's certificate (and only it)."""
        return ssl.create_default_context(cafile=str(self.cert))


@pytest.fixture(scope="session")
def tls_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsSandbox]:
    """An https sandbox whose token is SECRET_TOKEN."""
    cert = tmp_path_factory.mktemp("tls") / "sandbox.pem"
    running = _sandbox(
        ["--quiet", "--tls", "--tls-cert", str(cert)], {"ERPDATA_SANDBOX_TOKEN": SECRET_TOKEN}
    )
    url = next(running)
    try:
        assert url.startswith("https://"), url
        yield TlsSandbox(url, cert)
    finally:
        running.close()


@pytest.fixture(autouse=True)
def _fault_api_connections() -> Iterator[None]:
    """The fault API's kept-alive connections, closed after each test: a
    test's worker threads end with it."""
    yield
    fault_api.close_connections()


@pytest.fixture
def client(sandbox_url: str) -> Iterator[erpdata.Client]:
    with erpdata.Client(
        sandbox_url,
        project="demo",
        access_token=SANDBOX_TOKEN,
        company_id=1,
        year_id=2025,
        timeout=10.0,
    ) as c:
        yield c


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No ERPDATA_* settings from the developer's shell leak into a test."""
    for name in list(os.environ):
        if name.startswith("ERPDATA_") and name != "ERPDATA_SANDBOX_BIN":
            monkeypatch.delenv(name)
    return monkeypatch


@pytest.fixture
def refused_url() -> Iterator[str]:
    """A loopback URL where nothing listens: the port is bound (so no one
    else takes it) but not listening, so a connect is refused at once."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        sock.close()


@pytest.fixture
def silent_url() -> Iterator[str]:
    """A loopback server that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/"
    finally:
        stop.set()
        thread.join(2)
        for conn in held:
            conn.close()
        server.close()


class RawServer:
    """A loopback HTTP/1.1 server that answers every request with bytes
    written by ``answer(send)`` (status line, headers and body as given, so
    it can cut a body short or drip it), then closes the connection."""

    def __init__(self, answer: Callable[[Callable[[bytes], None]], None]) -> None:
        self.answer = answer
        self.requests = 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/"
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        self.sock.settimeout(0.1)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data:
                part = conn.recv(65536)
                if not part:
                    return
                data += part
            head, _, body = data.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            while len(body) < length:
                body += conn.recv(65536)
            self.requests += 1
            try:
                self.answer(conn.sendall)
            except OSError:
                pass

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


@pytest.fixture
def raw_server() -> Iterator[Callable[[Callable[[Callable[[bytes], None]], None]], RawServer]]:
    made: list[RawServer] = []

    def make(answer: Callable[[Callable[[bytes], None]], None]) -> RawServer:
        made.append(RawServer(answer))
        return made[-1]

    yield make
    for server in made:
        server.close()


def table_body(rows: int) -> bytes:
    """A table answer of ``rows`` invoice-like rows."""
    parts = [
        f'{{"invoice_no":"INV-{i:07d}","date":"2025-01-{1 + i % 28:02d}","amount":{i}.{i % 100:02d},"currency":"USD"}}'
        for i in range(rows)
    ]
    return ('{"status":"success","data":[' + ",".join(parts) + "]}").encode()


def after_ctrl_c(proc: subprocess.Popen[str], within: float, what: str) -> tuple[str, str, float]:
    """Sends ``proc`` a Ctrl-C (SIGINT) and waits up to ``within`` seconds
    for it to end: its stdout, its stderr and the seconds it took. Still
    running then, it is killed and the test fails, naming ``what``."""
    interrupted = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        stdout, stderr = proc.communicate(timeout=within)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{what} still ran {within:g} s after Ctrl-C")
    return stdout, stderr, time.monotonic() - interrupted


def missing(why: str) -> NoReturn:
    """A tool or module a test needs is missing: the test is skipped on a
    developer's machine, and fails under CI (``CI`` set), whose machine can
    install everything, so that a CI run never passes without having run
    it."""
    if os.environ.get("CI"):
        pytest.fail(f"{why}; under CI every test runs", pytrace=False)
    pytest.skip(why, allow_module_level=True)


def need(module: str) -> Any:
    """``module`` imported (one of requirements-dev.txt); where it cannot
    be, see :func:`missing`."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        missing(f"{module} cannot be imported ({e})")
