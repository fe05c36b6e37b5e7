"""Fixtures: a real sandbox ERP on loopback, and clients configured for it.

The sandbox binary comes from ERPDATA_SANDBOX_BIN (default
target/debug/erpdata-sandbox; build it with `make sandbox`).
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import erpdata

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


@pytest.fixture(scope="session")
def sandbox_url() -> Iterator[str]:
    binary = Path(os.environ.get("ERPDATA_SANDBOX_BIN", ROOT / "target/debug/erpdata-sandbox"))
    if not binary.exists():
        pytest.fail(f"sandbox binary not found at {binary}; run `make sandbox`")
    with tempfile.TemporaryFile("w+") as stderr:
        proc = subprocess.Popen(
            [str(binary), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
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
            threading.Thread(target=lambda: [None for _ in drain], daemon=True).start()
            yield url
        finally:
            proc.kill()
            proc.wait(timeout=10)


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
