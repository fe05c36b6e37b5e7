"""Smoke test of an installed erpdata, run by `make test-dist` in a fresh
virtualenv that has only the package and its dependencies (no pyarrow,
pandas or polars): the package imports from site-packages with its stubs
and licence files, `erpdata sandbox` starts a sandbox, and the client and
the console script work against it (dues, a table, a stream, typed errors).

Usage:
  python wheel_smoke.py --shipped-sandbox     a wheel: `erpdata sandbox`
                                              runs the binary it ships
  python wheel_smoke.py --no-shipped-sandbox  an sdist install: it ships
                                              none, says so in one line;
                                              ERPDATA_SANDBOX_BIN names one
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import subprocess
import sys
import threading
from pathlib import Path

import erpdata

TOKEN = "sandbox-token-not-secret"


def start_sandbox(script: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """`erpdata sandbox --port 0`, and the URL it prints first."""
    process = subprocess.Popen(
        [str(script), "sandbox", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    stdout = process.stdout
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(stdout.readline()), daemon=True)
    reader.start()
    reader.join(60)
    url = line[0].strip() if line else ""
    if not url.startswith("http://127.0.0.1:"):
        process.kill()
        raise AssertionError(f"erpdata sandbox printed {url!r}")
    return process, url


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shipped-sandbox", action=argparse.BooleanOptionalAction, required=True)
    shipped = parser.parse_args().shipped_sandbox

    package = Path(erpdata.__file__).parent
    assert "site-packages" in str(package), package
    for needed in ("py.typed", "_core.pyi", "cli.py"):
        assert (package / needed).exists(), needed
    assert erpdata.__version__ == importlib.metadata.version("erpdata"), erpdata.__version__
    files = [str(f) for f in importlib.metadata.files("erpdata") or []]
    for license in ("LICENSE-MIT", "LICENSE-APACHE"):
        assert any(f.endswith(f"licenses/{license}") for f in files), (license, files)
    metadata = importlib.metadata.metadata("erpdata")
    assert metadata["License-Expression"] == "MIT OR Apache-2.0", metadata["License-Expression"]

    script = Path(sys.executable).parent / "erpdata"
    env = {k: v for k, v in os.environ.items() if k != "ERPDATA_SANDBOX_BIN"}
    env["PATH"] = os.defpath  # no erpdata-sandbox of a checkout on PATH
    binary = package / "_bin" / "erpdata-sandbox"
    if shipped:
        assert binary.is_file() and os.access(binary, os.X_OK), f"{binary} not shipped"
    else:
        assert not binary.exists(), binary
        done = subprocess.run(
            [str(script), "sandbox", "--port", "0"], env=env, capture_output=True, text=True
        )
        message = done.stderr.strip()
        assert done.returncode == 2 and "sandbox binary was not found" in message, done
        assert len(message.splitlines()) == 1, message
        env["ERPDATA_SANDBOX_BIN"] = os.environ["ERPDATA_SANDBOX_BIN"]

    sandbox, url = start_sandbox(script, env)
    try:
        with erpdata.Client(
            url, project="demo", access_token=TOKEN, company_id=1, year_id=2025
        ) as client:
            dues = client.receivables("C001")
            assert dues.rows and all("doc_no" in row for row in dues.rows), dues.rows
            table = client.table("sales_invoice")
            assert len(table) == 40 and table[0]["invoice_no"] == "INV-2025-0001"
            assert sum(len(b) for b in client.stream_table("sales_invoice", batch_rows=7)) == 40
            try:
                table.to_arrow()
            except ImportError as exc:
                assert "erpdata[arrow]" in str(exc)
            else:
                raise AssertionError("pyarrow should not be installed here")
            try:
                client.table("no such table")
            except erpdata.InvalidInputError as exc:
                assert "table" in str(exc), exc
            else:
                raise AssertionError("a table name with spaces was sent")
        wrong = "wrong-token-not-secret"
        with erpdata.Client(
            url, project="demo", access_token=wrong, company_id=1, year_id=2025, max_retries=0
        ) as client:
            try:
                client.table("account")
            except erpdata.ServiceError as exc:
                assert "Invalid access token" in str(exc), exc
                assert wrong not in f"{exc} {exc!r}", exc
            else:
                raise AssertionError("a wrong token was accepted")
        cli_env = {**env, "ERPDATA_BASE_URL": url, "ERPDATA_PROJECT": "demo"}
        done = subprocess.run(
            [str(script), "dues", "C001", "--kind", "receipt"],
            env=cli_env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0 and done.stdout.startswith("doc_no,"), done.stderr
    finally:
        sandbox.terminate()
        sandbox.wait(10)
    how = "its own sandbox" if shipped else "no sandbox of its own"
    print(
        f"smoke test passed: erpdata {erpdata.__version__} on Python {sys.version.split()[0]}, {how}"
    )


if __name__ == "__main__":
    main()
