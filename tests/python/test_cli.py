"""The erpdata command against the sandbox: output formats, the token's
sources, exit codes, one-line errors, progress only on a terminal."""

from __future__ import annotations

import csv
import datetime
import fcntl
import io
import json
import os
import pty
import re
import shutil
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import fault_api
from conftest import (
    BIG_ROWS,
    FAKE_TOKEN,
    ROOT,
    SANDBOX_TOKEN,
    SECRET_TOKEN,
    _first_line,
    _sandbox,
    after_ctrl_c,
    need,
)
from erpdata import Client
from erpdata import cli as command_line

PY = [sys.executable, "-m", "erpdata"]


def env_for(url: str, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ERPDATA_") or k == "ERPDATA_SANDBOX_BIN"
    }
    env.update(
        PYTHONPATH=str(ROOT / "python"),
        ERPDATA_BASE_URL=url,
        ERPDATA_PROJECT="demo",
        ERPDATA_COMPANY_ID="1",
        ERPDATA_YEAR_ID="2025",
    )
    env.update(extra)
    return env


def as_sent(value: Any) -> Any:
    """A row value as JSON gives it back: dates as their text."""
    if isinstance(value, datetime.datetime):
        return value.isoformat(" ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def cli(
    args: list[str], env: dict[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(PY + args, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(SECRET_TOKEN + "\n", encoding="utf-8")
    return path


@pytest.fixture
def expected(secret_sandbox_url: str) -> list[dict[str, Any]]:
    with Client(
        secret_sandbox_url, project="demo", access_token=SECRET_TOKEN, company_id=1, year_id=2025
    ) as c:
        return list(c.table("sales_invoice"))


def test_dues(secret_sandbox_url: str) -> None:
    done = cli(["dues", "C001", "--kind", "receipt"], env_for(secret_sandbox_url))
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    with Client(secret_sandbox_url, project="demo") as c:
        want = c.receivables("C001").rows
    assert [r["doc_no"] for r in rows] == [w["doc_no"] for w in want]
    assert [Decimal(r["balance"]) for r in rows] == [w["balance"] for w in want]
    assert done.stderr == ""
    raw = cli(["dues", "S001", "--kind", "PAYMENT", "--format", "raw"], env_for(secret_sandbox_url))
    assert json.loads(raw.stdout)["status"] == "success"


@pytest.mark.parametrize("fmt", ["jsonl", "json", "parquet"])
def test_dues_formats(secret_sandbox_url: str, tmp_path: Path, fmt: str) -> None:
    """The dues are written in each format `table` writes, typed the same."""
    out = tmp_path / f"dues.{fmt}"
    args = ["dues", "C001", "--kind", "receipt", "--format", fmt, "-o", str(out)]
    done = cli(args, env_for(secret_sandbox_url))
    assert done.returncode == 0, done.stderr
    with Client(secret_sandbox_url, project="demo") as c:
        want = c.receivables("C001").rows
    if fmt == "parquet":
        got = pq.read_table(out).to_pylist()
    elif fmt == "jsonl":
        got = [json.loads(x, parse_float=Decimal) for x in out.read_text().splitlines()]
    else:
        got = json.loads(out.read_text(), parse_float=Decimal)
    assert len(got) == len(want) > 1
    assert [r["balance"] for r in got] == [w["balance"] for w in want]
    assert [str(r["due_date"]) for r in got] == [w["due_date"].isoformat() for w in want]


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "json", "parquet"])
def test_table_formats(
    secret_sandbox_url: str,
    token_file: Path,
    tmp_path: Path,
    fmt: str,
    expected: list[dict[str, Any]],
) -> None:
    out = tmp_path / f"out.{fmt}"
    done = cli(
        [
            "table",
            "sales_invoice",
            "--company-id",
            "1",
            "--year-id",
            "2025",
            "--format",
            fmt,
            "-o",
            str(out),
            "--access-token-file",
            str(token_file),
        ],
        env_for(secret_sandbox_url),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""  # no progress: stderr is not a terminal
    if fmt == "parquet":
        rows = pq.read_table(out).to_pylist()
        assert [r["total"] for r in rows] == [r["total"] for r in expected]
        assert [r["date"] for r in rows] == [r["date"] for r in expected]
        return
    text = out.read_text(encoding="utf-8")
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(text)))
        assert [Decimal(r["total"]) for r in rows] == [r["total"] for r in expected]
        assert list(rows[0]) == list(expected[0])
    else:
        lines = text.splitlines() if fmt == "jsonl" else None
        parsed = (
            [json.loads(x, parse_float=Decimal) for x in lines]
            if lines
            else json.loads(text, parse_float=Decimal)
        )
        # Dates as the text MySQL sends.
        assert parsed == [{k: as_sent(v) for k, v in row.items()} for row in expected]
        # Exact digits: 0.00 stays 0.00.
        assert all(str(p["amount"]) == str(e["amount"]) for p, e in zip(parsed, expected))


def test_declared_types_and_strings_kept(secret_sandbox_url: str, token_file: Path) -> None:
    env = env_for(secret_sandbox_url)
    base = ["table", "sales_invoice", "--format", "jsonl", "--access-token-file", str(token_file)]
    declared = cli(base + ["--schema", "amount=decimal(14,4)", "--schema", "items=string"], env)
    assert declared.returncode == 0, declared.stderr
    row = json.loads(declared.stdout.splitlines()[0], parse_float=Decimal)
    assert str(row["amount"]).endswith("0") and len(str(row["amount"]).split(".")[1]) == 4
    assert isinstance(row["items"], str)
    assert isinstance(row["date"], str) and len(row["date"]) == 10
    kept = cli(base + ["--no-infer-strings"], env)
    assert kept.returncode == 0, kept.stderr
    first = json.loads(kept.stdout.splitlines()[0], parse_float=Decimal)
    assert isinstance(first["amount"], str)  # as the service sent it
    dues = cli(
        ["dues", "C001", "--kind", "receipt", "--format", "jsonl", "--schema", "balance=string"],
        env,
    )
    assert dues.returncode == 0, dues.stderr
    assert isinstance(json.loads(dues.stdout.splitlines()[0])["balance"], str)
    unknown = cli(base + ["--schema", "amount=money"], env)
    assert unknown.returncode == 2
    assert one_line_error(unknown).startswith(
        'erpdata: error: invalid --schema amount=...: unknown type "money": expected string, '
    )
    malformed = cli(base + ["--schema", "amount"], env)
    assert malformed.returncode == 2 and "COLUMN=TYPE" in one_line_error(malformed)


def test_token_from_the_environment_and_never_printed(
    secret_sandbox_url: str, expected: list[Any]
) -> None:
    env = env_for(secret_sandbox_url, ERPDATA_ACCESS_TOKEN=SECRET_TOKEN)
    done = cli(["table", "sales_invoice", "--format", "jsonl", "-vv", "--method", "GET"], env)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == len(expected)
    assert "GET" in done.stderr  # -vv logs the requests, redacted
    assert SECRET_TOKEN not in done.stdout + done.stderr
    assert "[REDACTED]" in done.stderr
    # -v before the command counts as after it; it was refused as an
    # argument `table` does not take.
    before = cli(["-v", "table", "account", "-v", "--method", "GET"], env)
    assert before.returncode == 0, before.stderr
    assert "GET" in before.stderr and "[REDACTED]" in before.stderr
    assert SECRET_TOKEN not in before.stdout + before.stderr


@pytest.fixture(scope="module")
def guarded_url() -> Iterator[str]:
    """A sandbox whose ajax.php wants the access token (SECRET_TOKEN) too."""
    yield from _sandbox(["--quiet", "--ajax-token"], {"ERPDATA_SANDBOX_TOKEN": SECRET_TOKEN})


def test_ajax_token_sends_the_token_to_ajax_php(guarded_url: str, token_file: Path) -> None:
    """For a service that wants the token on ajax.php too: every command
    that calls it, `erpdata mcp` included, takes --ajax-token."""
    env = env_for(guarded_url)
    token = ["--access-token-file", str(token_file)]
    refused = cli(["dues", "C001", "--kind", "receipt", *token], env)
    assert refused.returncode == 3 and "Invalid access token" in refused.stderr, refused.stderr
    for command, shown in (
        (["dues", "C001", "--kind", "receipt"], "INV-2025-0001"),
        (["aging", "--accounts", "C001", "--format", "csv"], "C001"),
        (["credit-status", "--accounts", "C001", "--format", "csv"], "C001"),
        (["dues-summary", "--format", "csv"], "C001"),
    ):
        done = cli([*command, *token, "--ajax-token", "-vv"], env)
        assert done.returncode == 0, done.stderr
        assert shown in done.stdout, done.stdout
        assert "accesstoken=[REDACTED]" in done.stderr  # -vv: the POST body, redacted
        for form in (SECRET_TOKEN, "fake%2Bsecret", "fake+secret"):
            assert form not in done.stdout + done.stderr
    assert "--ajax-token" in cli(["mcp", "--help"], env).stdout


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("erpdata: error: ")
    return lines[0]


def test_exit_codes(secret_sandbox_url: str, refused_url: str, token_file: Path) -> None:
    env = env_for(secret_sandbox_url)
    usage = cli(["table"], env)
    assert usage.returncode == 2
    invalid = cli(["table", "no;such", "--access-token-file", str(token_file)], env)
    assert invalid.returncode == 2 and "table" in one_line_error(invalid)
    no_token = cli(["table", "sales_invoice"], env)
    assert no_token.returncode == 2 and one_line_error(no_token) == (
        "erpdata: error: invalid --access-token-file: is required: pass --access-token-file "
        "or set ERPDATA_ACCESS_TOKEN"
    )
    missing_file = cli(["table", "sales_invoice", "--access-token-file", "/nonexistent/token"], env)
    assert missing_file.returncode == 2
    service = cli(
        ["table", "sales_invoice"], env_for(secret_sandbox_url, ERPDATA_ACCESS_TOKEN=FAKE_TOKEN)
    )
    assert service.returncode == 3 and "Invalid access token" in one_line_error(service)
    assert FAKE_TOKEN not in service.stderr
    unknown = cli(["table", "nosuch", "--access-token-file", str(token_file)], env)
    assert unknown.returncode == 3
    transport = cli(
        ["dues", "C001", "--kind", "receipt", "--max-retries", "0"], env_for(refused_url)
    )
    assert transport.returncode == 4 and "connect" in one_line_error(transport)
    # Out of range, said by the core in the clients' words, as any setting.
    for seconds in ("0", "100000", "nan"):
        timeout = cli(["dues", "C001", "--kind", "receipt", "--timeout", seconds], env)
        assert timeout.returncode == 2
        assert "invalid --timeout: total must be a number of seconds above 0 and at most 86400" in (
            one_line_error(timeout)
        )


def test_max_retry_after_ends_a_call_asked_to_wait_longer(sandbox_url: str) -> None:
    # The first answer is a 429 asking for 2 s: waited out by default, not
    # with --max-retry-after 1, which ends the command at once (exit 3).
    waits = fault_api.new_key("cli-retry-after", "waits")
    done = cli(
        ["dues", "C001", "--kind", "receipt", "--format", "csv"],
        env_for(fault_api.prefix(sandbox_url, "status-429x1-ra2", waits)),
    )
    assert done.returncode == 0 and "INV-2025-0001" in done.stdout, done.stderr
    assert fault_api.count(sandbox_url, waits) == 2
    ends = fault_api.new_key("cli-retry-after", "ends")
    done = cli(
        ["dues", "C001", "--kind", "receipt", "--max-retry-after", "1"],
        env_for(fault_api.prefix(sandbox_url, "status-429x1-ra2", ends)),
    )
    assert done.returncode == 3
    assert "asked to wait 2 s, longer than the longest wait a client retries after (1 s)" in (
        one_line_error(done)
    )
    # The core's words name no language's setting; the command line's is an option.
    assert "or pass --max-retry-after 2 to wait it out" in done.stderr
    assert fault_api.count(sandbox_url, ends) == 1
    refused = cli(
        ["dues", "C001", "--kind", "receipt", "--max-retry-after", "-1"], env_for(sandbox_url)
    )
    assert refused.returncode == 2 and "invalid --max-retry-after: " in one_line_error(refused)


def run_on_a_terminal(url: str, args: list[str], tmp_path: Path) -> str:
    """What the CLI writes to stderr when stderr is a terminal (a pty)."""
    token = tmp_path / "token"
    token.write_text(SANDBOX_TOKEN, encoding="utf-8")
    master, slave = pty.openpty()
    # A terminal 100 columns wide (a fresh pty has none: tqdm draws nothing).
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    proc = subprocess.Popen(
        PY + [*args, "--access-token-file", str(token)],
        env=env_for(url),
        stdout=subprocess.DEVNULL,
        stderr=slave,
    )
    os.close(slave)
    seen = read_all(master)
    assert proc.wait(timeout=60) == 0
    os.close(master)
    return seen.decode(errors="replace")


def read_all(master: int) -> bytes:
    """Everything a pseudo-terminal's other end wrote, until it closed."""
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    return seen


def test_progress_on_a_terminal(sandbox_url: str, tmp_path: Path) -> None:
    # A slow answer (1 KiB every 150 ms): the bar appears after a second.
    slow = f"{sandbox_url}/_faults/trickle-1024x150/progress/"
    out = ["--format", "csv", "-o", str(tmp_path / "t.csv")]
    text = run_on_a_terminal(slow, ["table", "sales_invoice", *out], tmp_path)
    # tqdm's bar: the table's name, bytes with a unit, and the rows decoded.
    assert "sales_invoice" in text and "kB" in text and "rows=40" in text, text
    assert "40 rows written to" in text
    assert SANDBOX_TOKEN not in text
    quiet = run_on_a_terminal(slow, ["table", "sales_invoice", "--no-progress", *out], tmp_path)
    assert "rows=" not in quiet and "40 rows written to" in quiet, quiet
    fast = run_on_a_terminal(sandbox_url, ["table", "sales_invoice", *out], tmp_path)
    assert "rows=" not in fast, fast  # done within the second: no bar at all


def test_stdout_is_utf8_whatever_the_locales_encoding(sandbox_url: str) -> None:
    # Redirected on Windows, stdout is in the code page: `> credit.html`
    # wrote "Müller GmbH" in cp1252 under <meta charset="utf-8">, and a
    # code page without "ü" (cp1251) ended the CSV with a traceback.
    need("matplotlib")
    base = ["credit-status", "--as-of", "2025-12-31", "--no-pay-days", "--format"]
    for encoding in ("cp1252", "cp1251"):
        env = env_for(sandbox_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN, PYTHONIOENCODING=encoding)
        for fmt in ("csv", "json", "html"):
            done = subprocess.run(PY + [*base, fmt], env=env, capture_output=True, timeout=60)
            assert done.returncode == 0, (encoding, fmt, done.stderr)
            assert "Müller GmbH" in done.stdout.decode("utf-8"), (encoding, fmt)
    # A terminal keeps its encoding: what it lacks is shown as its escape.
    master, slave = pty.openpty()
    env = env_for(sandbox_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN, PYTHONIOENCODING="ascii")
    with subprocess.Popen(
        PY + [*base, "table"], env=env, stdout=slave, stderr=subprocess.PIPE
    ) as proc:
        os.close(slave)
        seen = read_all(master)
        os.close(master)
        assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    assert b"M\\xfcller GmbH" in seen and b"Total" in seen


def test_without_format_the_outputs_extension_chooses_it(sandbox_url: str, tmp_path: Path) -> None:
    # `erpdata aging -o aging.xlsx` wrote the terminal table's text into a
    # file Excel refuses to open, `table ... -o t.parquet` a CSV.
    need("xlsxwriter")
    need("matplotlib")
    env = env_for(sandbox_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN)

    def written(args: list[str], name: str) -> Path:
        path = tmp_path / name
        done = cli([*args, "-o", str(path)], env)
        assert done.returncode == 0, done.stderr
        return path

    aging = ["aging", "--as-of", "2025-12-31"]
    assert written(aging, "aging.xlsx").read_bytes()[:2] == b"PK"  # a zip: a workbook
    page = written(["credit-status", "--as-of", "2025-12-31", "--no-pay-days"], "c.HTML")
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert pq.read_table(written(["table", "account"], "t.parquet")).num_rows == 20
    dues = json.loads(written(["dues", "C001", "--kind", "receipt"], "d.json").read_text())
    assert len(dues) == 6
    jsonl = written(["dues", "C001", "--kind", "receipt"], "d.jsonl").read_text()
    assert len(jsonl.splitlines()) == 6
    # --format named wins; an extension that names no format keeps the
    # command's default (one naming a format the command does not write
    # is refused: test_a_format_the_command_cannot_write_is_refused_...).
    asked = written(["table", "account", "--format", "csv"], "asked.json")
    assert asked.read_text().startswith("compid,acid,")
    assert "Total" in written(aging, "aging.txt").read_text()


def test_console_script_and_sandbox_command() -> None:
    script = Path(sys.executable).parent / "erpdata"
    assert script.exists(), "the erpdata console script is installed with the package"
    assert subprocess.run([str(script), "--help"], capture_output=True, timeout=30).returncode == 0
    binary = os.environ.get("ERPDATA_SANDBOX_BIN", str(ROOT / "target/debug/erpdata-sandbox"))
    env = env_for("http://unused.invalid/", ERPDATA_SANDBOX_BIN=binary)
    with subprocess.Popen(
        PY + ["sandbox", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as proc:  # its end closes the pipe and waits for the process
        try:
            url = _first_line(proc, 20)
            assert url.startswith("http://127.0.0.1:")
            with Client(url, project="demo") as c:
                assert c.receivables("C001").rows
        finally:
            proc.terminate()


def test_the_sandbox_command_takes_the_binarys_options(tmp_path: Path) -> None:
    # Only --port and --rows were taken: `erpdata sandbox --quiet` was refused.
    binary = os.environ.get("ERPDATA_SANDBOX_BIN", str(ROOT / "target/debug/erpdata-sandbox"))
    listed = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=30)
    offered = set(re.findall(r"^  (--[a-z-]+)", listed.stdout, re.M)) - {"--help", "--version"}
    sub = command_line._commands(command_line.parser())["sandbox"]
    taken = {o for a in sub._actions for o in a.option_strings if a.help != "==SUPPRESS=="}
    # Each of the binary's options but its --token (refused, as for every command).
    assert offered - {"--token"} <= taken, offered - taken
    env = env_for("http://unused.invalid/", ERPDATA_SANDBOX_BIN=binary)
    args = ["sandbox", "--port", "0", "--quiet", "--style", "STRINGS", "--seed", "7"]
    with subprocess.Popen(
        PY + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as proc:
        try:
            url = _first_line(proc, 20)
            assert url.startswith("http://127.0.0.1:"), url
            with Client(url, project="demo") as c:
                (row, *_) = c.receivables("C001", infer_strings=False).rows
            # --style strings: every value a string, money included.
            assert all(isinstance(v, str) for v in row.values() if v is not None), row
        finally:
            proc.terminate()
            _, stderr = proc.communicate(timeout=10)
    # --quiet: the request above was not logged.
    assert "ajax.php" not in stderr, stderr


def test_the_sandbox_command_says_where_its_token_and_binary_come_from() -> None:
    env = env_for("http://unused.invalid/")
    done = cli(["sandbox", "--token", FAKE_TOKEN], env)
    assert done.returncode == 2
    # Not the advice for a client's token, which does not change the sandbox's.
    assert one_line_error(done) == (
        "erpdata: error: --token: the sandbox's token is set by the ERPDATA_SANDBOX_TOKEN "
        "environment variable [default: sandbox-token-not-secret], not on the command line"
    )
    assert FAKE_TOKEN not in done.stderr
    done = cli(["sandbox"], {**env, "ERPDATA_SANDBOX_BIN": "/no/such/erpdata-sandbox"})
    assert done.returncode == 2
    assert one_line_error(done) == (
        "erpdata: error: cannot start the sandbox /no/such/erpdata-sandbox "
        "(ERPDATA_SANDBOX_BIN): No such file or directory; set ERPDATA_SANDBOX_BIN to the "
        "erpdata-sandbox binary, or unset it"
    )


def test_the_functions_of_ajax_php(secret_sandbox_url: str) -> None:
    env = env_for(secret_sandbox_url)
    with Client(secret_sandbox_url, project="demo") as c:
        summary = c.dues_summary()
        avg = c.avg_pay_days("C001")
    done = cli(["dues-summary"], env)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [r["acid"] for r in rows] == [r["acid"] for r in summary.rows]
    assert [Decimal(str(r["balance"])) for r in rows] == [r["balance"] for r in summary.rows]
    done = cli(["avg-pay-days", "C001"], env)
    assert json.loads(done.stdout, parse_float=Decimal) == {
        k: as_sent(v) for k, v in avg.fields.items()
    }
    # One record as CSV is one row under its fields' names (it was JSON).
    done = cli(["avg-pay-days", "C001", "--format", "csv"], env)
    assert done.returncode == 0, done.stderr
    assert list(csv.DictReader(io.StringIO(done.stdout))) == [
        {k: str(v) for k, v in avg.fields.items()}
    ]
    done = cli(["net-profit", "2025-01-01", "2025-06-30", "--format", "raw"], env)
    assert json.loads(done.stdout)["status"] == "success"
    done = cli(["schedule", "Sundry Debtors", "2025-01-01", "2025-12-31", "--format", "csv"], env)
    assert next(csv.reader(io.StringIO(done.stdout))) == [
        "acid",
        "name",
        "debit",
        "credit",
        "balance",
    ]
    done = cli(["ajax", "avgPayDays", "acid=C001"], env)
    assert json.loads(done.stdout, parse_float=Decimal)["payments"] == avg.fields["payments"]
    # The token, sent when asked, never printed.
    done = cli(
        ["ajax", "avgPayDays", "acid=C001", "--send-token", "-vv"],
        env_for(secret_sandbox_url, ERPDATA_ACCESS_TOKEN=SECRET_TOKEN),
    )
    assert done.returncode == 0, done.stderr
    assert SECRET_TOKEN not in done.stdout + done.stderr
    done = cli(["dues-table", "C001", "C002", "--kind", "receipt"], env)
    table = list(csv.DictReader(io.StringIO(done.stdout)))
    assert {r["acid"] for r in table} == {"C001", "C002"}
    # Bad input: a usage error naming the argument, nothing sent.
    done = cli(["net-profit", "2025-02-30", "2025-03-01"], env)
    assert done.returncode == 2
    assert "start" in done.stderr
    done = cli(["ajax", "avgPayDays", "acid"], env)
    assert done.returncode == 2


def test_every_function_of_the_catalogue_is_a_command() -> None:
    # The commands come from the core's catalogue: each function of
    # ajax.php is one (under its old name where it had one), taking its
    # required arguments in the catalogue's order.
    import argparse

    from erpdata import _core
    from erpdata.cli import parser

    operations = json.loads(_core.catalogue_json())["operations"]
    functions = [op for op in operations if op["answer"] == "function"]
    assert {op["name"] for op in functions} >= {"net_profit", "schedule_accounts", "ajax"}
    (commands,) = [a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)]
    for op in functions:
        name = {"schedule-accounts": "schedule"}.get(op["cli_name"], op["cli_name"])
        assert name in commands.choices, name
        if name == "ajax":
            continue
        positional = [a.dest for a in commands.choices[name]._actions if not a.option_strings]
        assert positional == [p["name"] for p in op["params"] if p["required"]], name


def test_export_to_duckdb(secret_sandbox_url: str, tmp_path: Path) -> None:
    target = tmp_path / "erp.duckdb"
    done = cli(
        ["export", "sales_invoice", "account", "--years", "2024", "2025", "--to", str(target)],
        env_for(secret_sandbox_url, ERPDATA_ACCESS_TOKEN=SECRET_TOKEN),
    )
    assert done.returncode == 0, done.stderr
    assert "4 partitions" in done.stderr
    import duckdb

    con = duckdb.connect(str(target))
    assert con.execute("SELECT count(DISTINCT yearid) FROM sales_invoice").fetchall() == [(2,)]
    assert SECRET_TOKEN not in done.stdout + done.stderr


# -- a new user's first hour -------------------------------------------------------

OPTIONAL = ("rich", "matplotlib", "pyarrow", "duckdb", "pandas", "polars", "xlsxwriter")
"""What a plain ``pip install erpdata`` lacks (the extras' packages)."""

PLAIN_INSTALL = f"""\
import sys

# A plain install: importing any extra's package fails, as when it is absent.
for name in {OPTIONAL!r}:
    sys.modules[name] = None
"""


def plain_cli(
    args: list[str], env: dict[str, str], tmp_path: Path, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """The CLI in a process where no optional dependency can be imported."""
    runner = tmp_path / "plain_install.py"
    runner.write_text(
        PLAIN_INSTALL + "from erpdata.cli import main\n\nsys.exit(main(sys.argv[1:]))\n",
        encoding="utf-8",
    )
    return subprocess.run(
        [sys.executable, str(runner), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_a_plain_install_lacks_every_extra(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        PLAIN_INSTALL
        + "import importlib\n"
        + "for name in sys.argv[1:]:\n"
        + "    try:\n"
        + "        importlib.import_module(name)\n"
        + "    except ImportError:\n"
        + "        print(name)\n",
        encoding="utf-8",
    )
    modules = ["rich.console", "matplotlib.pyplot", "pyarrow.parquet", "duckdb", "httpx", "tqdm"]
    done = subprocess.run(
        [sys.executable, str(probe), *modules], capture_output=True, text=True, timeout=30
    )
    assert done.stdout.split() == modules[:4], done.stderr


def test_the_command_line_starts_without_asyncio() -> None:
    # asyncio is a tenth of a second of every command's start: only
    # AsyncClient's methods need it, and they import it when they run.
    probe = "import sys, erpdata, erpdata.cli\nprint('asyncio' in sys.modules)\n"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=30)
    assert done.stdout == "False\n", done.stderr


@pytest.mark.parametrize(
    ("module", "blocked", "message"),
    [
        ("erpdata.spark", "pyspark", "erpdata.spark (Spark 4 or later) needs pyspark"),
        ("erpdata.dlt", "dlt", "erpdata.dlt needs dlt"),
        ("erpdata.spark", "pyarrow", "erpdata.spark (Spark 4 or later) needs pyarrow"),
    ],
)
def test_an_integration_without_its_extra_names_it(
    tmp_path: Path, module: str, blocked: str, message: str
) -> None:
    extra = module.split(".")[1]
    probe = tmp_path / "probe.py"
    probe.write_text(
        f"import sys\nsys.modules[{blocked!r}] = None\nimport {module}\n", encoding="utf-8"
    )
    done = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last == f"ImportError: {message}: pip install 'erpdata[{extra}]'", done.stderr


TOKEN_GIVEN = [
    ["table", "account", "--access-token", SECRET_TOKEN],
    ["table", "account", "--token", SECRET_TOKEN],
    ["table", "account", f"--access-token={SECRET_TOKEN}"],
    ["table", "account", f"--token={SECRET_TOKEN}"],
    ["--access-token", SECRET_TOKEN, "table", "account"],
    ["dues", "C001", "--kind", "receipt", "--access-token", SECRET_TOKEN],
    ["aging", "--token", SECRET_TOKEN, "--as-of", "2025-12-31"],
    ["net-profit", "2025-01-01", "2025-06-30", "--access-token", SECRET_TOKEN],
    ["export", "account", "--to", "never.duckdb", "--access-token", SECRET_TOKEN],
    # A command without the connection options refuses them all the same.
    ["sandbox", "--token", SECRET_TOKEN],
    ["sandbox", "--port", "0", f"--access-token={SECRET_TOKEN}"],
    # Spelled otherwise (as the Python argument, mistyped, another name):
    # argparse echoed these back, token and all, as unrecognized arguments.
    ["table", "account", "--access_token", SECRET_TOKEN],
    ["table", "account", f"--accesstoken={SECRET_TOKEN}"],
    ["dues", "C001", "--kind", "receipt", "--acess-token", SECRET_TOKEN],
    ["aging", "--api-token", SECRET_TOKEN],
    ["--Access-Token", SECRET_TOKEN, "table", "account"],
]


@pytest.mark.parametrize("args", TOKEN_GIVEN, ids=lambda a: " ".join(a).replace(SECRET_TOKEN, "T"))
def test_a_token_on_the_command_line_is_refused_by_name(
    secret_sandbox_url: str, tmp_path: Path, args: list[str]
) -> None:
    env = env_for(secret_sandbox_url)
    done = subprocess.run(
        PY + args, env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 2
    error = one_line_error(done)
    option = next(a for a in args if a.startswith("--") and "token" in a.lower()).partition("=")[0]
    assert error.startswith(f"erpdata: error: {option}: "), error
    if args[0] == "sandbox":
        # A client's token does not change the sandbox's.
        assert "ERPDATA_SANDBOX_TOKEN" in error and "not on the command line" in error
    else:
        assert "not taken on the command line" in error
        assert "--access-token-file PATH" in error and "ERPDATA_ACCESS_TOKEN" in error
    assert "cannot read" not in error  # not taken for --access-token-file
    for form in (SECRET_TOKEN, SECRET_TOKEN.split("/")[0]):
        assert form not in done.stdout + done.stderr
    assert not (tmp_path / "never.duckdb").exists()


def test_the_token_given_as_its_file_is_not_repeated(secret_sandbox_url: str) -> None:
    env = env_for(secret_sandbox_url)
    done = cli(["table", "account", "--access-token-file", SECRET_TOKEN], env)
    assert done.returncode == 2, done.stderr
    assert one_line_error(done) == (
        "erpdata: error: cannot read --access-token-file: No such file or directory (it takes "
        "the path of a file holding the token, not the token)"
    )
    for form in (SECRET_TOKEN, SECRET_TOKEN.split("/")[0]):
        assert form not in done.stdout + done.stderr


STRAY = [
    # The token pasted where no option asks for it: argparse repeated
    # every stray argument on stderr, the token with them.
    ["table", "account", SECRET_TOKEN],
    ["table", "account", "--format", "csv", SECRET_TOKEN, "--no-progress"],
    ["aging", "--as-of", "2025-12-31", SECRET_TOKEN],
    ["sandbox", SECRET_TOKEN],
    ["table", "account", "--verbose-ish", SECRET_TOKEN],
    ["table", "account", f"--tkn={SECRET_TOKEN}"],
    [SECRET_TOKEN, "table", "account"],
    ["secrettokenvalue", "table", "account"],
    # Read by the command itself: "ajax parameters are NAME=VALUE, got
    # '<the token>'", "--schema expects COLUMN=TYPE, got '<the token>'".
    # (The token's part before its "=": with it, the word reads as
    # NAME=VALUE, and is taken as one.)
    ["ajax", "getduesSumm", SECRET_TOKEN.split("=")[0]],
    ["table", "account", "--schema", SECRET_TOKEN.split("=")[0]],
]


NOT_TAKEN = [
    # The token pasted after an option that cannot take it: argparse said
    # "invalid int value: '<the token>'".
    ["table", "account", "--max-retries", SECRET_TOKEN],
    ["table", "account", "--format", SECRET_TOKEN],
    ["dues", "C001", "--kind", SECRET_TOKEN],
    ["mcp", "--port", SECRET_TOKEN],
    # Options read as numbers by the command's own parsing: "not a number
    # of seconds: '<the token>'".
    ["dues", "C001", "--kind", "receipt", "--timeout", SECRET_TOKEN],
    ["table", "account", "--max-retry-after", SECRET_TOKEN],
    ["mcp", "--max-rows", SECRET_TOKEN],
    ["mcp", "--query-seconds", SECRET_TOKEN],
    # A flag given a value: "ignored explicit argument '<the token>'".
    ["dues-summary", f"--send-token={SECRET_TOKEN}"],
    ["table", "account", f"--ajax-token={SECRET_TOKEN}"],
    ["table", "account", f"-v{SECRET_TOKEN}"],
]


@pytest.mark.parametrize("args", NOT_TAKEN, ids=lambda a: " ".join(a).replace(SECRET_TOKEN, "T"))
def test_a_value_an_option_cannot_take_is_not_repeated(
    secret_sandbox_url: str, args: list[str]
) -> None:
    done = cli(args, env_for(secret_sandbox_url))
    assert done.returncode == 2, done.stderr
    error = done.stderr.strip().splitlines()[-1]
    said = (
        r": (invalid (choice|int value|float value):|ignored explicit argument) <value>"
        r"|^erpdata: error: <value>: unrecognized option"  # -v run into a token-like word
    )
    assert re.search(said, error), error
    for form in (SECRET_TOKEN, SECRET_TOKEN.split("/")[0]):
        assert form not in done.stdout + done.stderr


@pytest.mark.parametrize("args", STRAY, ids=lambda a: " ".join(a).replace(SECRET_TOKEN, "T"))
def test_a_stray_argument_is_refused_without_repeating_it(
    secret_sandbox_url: str, args: list[str]
) -> None:
    env = env_for(secret_sandbox_url)
    done = cli(args, env)
    assert done.returncode == 2, done.stderr
    error = done.stderr.strip().splitlines()[-1]
    assert "<value>" in error and "values are not repeated" in error, error
    for form in (SECRET_TOKEN, SECRET_TOKEN.split("/")[0], "secrettokenvalue"):
        assert form not in done.stdout + done.stderr
    assert done.stdout == ""


def test_no_option_is_taken_by_a_prefix(secret_sandbox_url: str, token_file: Path) -> None:
    import argparse

    from erpdata.cli import parser

    env = env_for(secret_sandbox_url)
    # A prefix of --access-token-file, of --no-progress, of --format: unknown.
    for args in (
        ["table", "account", "--access-token-fil", str(token_file)],
        ["table", "account", "--access-token-file", str(token_file), "--no-prog"],
        ["dues", "C001", "--kind", "receipt", "--form", "jsonl"],
    ):
        done = cli(args, env)
        assert done.returncode == 2, args
        # Named as unknown; one whose name says token without what followed it.
        assert "unrecognized arguments" in done.stderr or (
            "unrecognized option (did you mean --access-token-file?)" in done.stderr
            and str(token_file) not in done.stderr
        ), done.stderr
    # Every parser, each command's included, has abbreviations off.
    top = parser()
    (commands,) = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    assert top.allow_abbrev is False
    assert all(sub.allow_abbrev is False for sub in commands.choices.values())
    # The full names still work.
    done = cli(["table", "account", "--access-token-file", str(token_file), "--no-progress"], env)
    assert done.returncode == 0, done.stderr


def test_a_mistyped_command_or_option_is_said_by_the_command_with_what_was_meant(
    refused_url: str,
) -> None:
    # The top parser said it, with its usage "erpdata [-h] [--version]
    # COMMAND ...", which names none of the command's options, and no
    # guess. Nothing listens at refused_url: nothing is fetched.
    env = env_for(refused_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN)
    for args, said in (
        (
            ["table", "account", "--fromat", "csv"],
            "erpdata table: error: unrecognized arguments: --fromat <value> "
            "(--fromat: did you mean --format?; values are not repeated, as one may be a "
            "secret)",
        ),
        (
            ["aging", "--buckts=15"],
            "erpdata aging: error: unrecognized arguments: --buckts=<value> "
            "(--buckts: did you mean --buckets?; values are not repeated, as one may be a "
            "secret)",
        ),
        (
            ["table", "account", "--no-progres"],
            "erpdata table: error: unrecognized arguments: --no-progres "
            "(--no-progres: did you mean --no-progress?)",
        ),
        (
            ["table", "account", "extra"],
            "erpdata table: error: unrecognized arguments: <value> "
            "(values are not repeated, as one may be a secret)",
        ),
        (
            ["tabel", "account"],
            "erpdata: error: argument COMMAND: invalid choice: 'tabel' (did you mean 'table'?; "
            "`erpdata --help` lists the commands)",
        ),
        # The core's rule, as the clients' keywords and options: two
        # letters swapped are one edit, and _ stands for -.
        (
            ["mpc", "--list-tools"],
            "erpdata: error: argument COMMAND: invalid choice: 'mpc' (did you mean 'mcp'?; "
            "`erpdata --help` lists the commands)",
        ),
        (
            ["table", "account", "--max_retries", "3"],
            "erpdata table: error: unrecognized arguments: --max_retries <value> "
            "(--max_retries: did you mean --max-retries?; values are not repeated, as one may "
            "be a secret)",
        ),
    ):
        done = cli(args, env)
        assert done.returncode == 2, (args, done.stderr)
        usage, error = done.stderr.split("\n", 1)[0], done.stderr.strip().splitlines()[-1]
        assert error == said, done.stderr
        prog = said.partition(":")[0]
        assert usage.startswith(f"usage: {prog} "), done.stderr
        if prog != "erpdata":
            assert "--format" in done.stderr  # the command's usage, its options


def test_allow_insecure_http(secret_sandbox_url: str, token_file: Path) -> None:
    # 0.0.0.0 reaches this machine's loopback listener on Linux, but the
    # core does not count it as loopback: plain http to it is refused
    # unless allowed.
    url = secret_sandbox_url.replace("127.0.0.1", "0.0.0.0")
    assert url != secret_sandbox_url
    args = ["table", "account", "--format", "jsonl", "--access-token-file", str(token_file)]
    refused = cli(args, env_for(url))
    assert refused.returncode == 2
    error = one_line_error(refused)
    assert "plain http" in error and "--allow-insecure-http" in error, error
    assert "allow_insecure_http" not in error
    # Given as an option, the URL is named by its option.
    as_option = cli([*args, "--base-url", url], env_for(secret_sandbox_url))
    assert as_option.returncode == 2
    error = one_line_error(as_option)
    assert error.startswith("erpdata: error: invalid --base-url: "), error
    assert "--allow-insecure-http" in error and "base_url" not in error, error
    allowed = cli([*args, "--allow-insecure-http"], env_for(url))
    assert allowed.returncode == 0, allowed.stderr
    with Client(
        secret_sandbox_url, project="demo", access_token=SECRET_TOKEN, company_id=1, year_id=2025
    ) as c:
        accounts = c.table("account")
    assert [json.loads(line)["acid"] for line in allowed.stdout.splitlines()] == [
        r["acid"] for r in accounts
    ]
    assert SECRET_TOKEN not in refused.stderr + allowed.stdout + allowed.stderr


def test_a_missing_setting_names_its_option(sandbox_url: str, token_file: Path) -> None:
    env = env_for(sandbox_url)
    del env["ERPDATA_COMPANY_ID"]
    done = cli(["table", "account", "--access-token-file", str(token_file)], env)
    assert done.returncode == 2, done.stderr
    error = one_line_error(done)
    assert "ERPDATA_COMPANY_ID" in error and "--company-id" in error, error


def test_settings_with_a_settings_files_quotes_are_refused_by_name(
    secret_sandbox_url: str,
) -> None:
    # NAME="value" lines of a .env file read as plain NAME=value lines
    # (docker run --env-file, systemd's EnvironmentFile) keep the quotes:
    # the service answered only 'Invalid company or year', 'Unknown
    # project: "demo"' or 'Invalid access token'.
    for name, value in (
        ("ERPDATA_COMPANY_ID", '"1"'),
        ("ERPDATA_YEAR_ID", "'2025'"),
        ("ERPDATA_PROJECT", '"demo"'),
        ("ERPDATA_BASE_URL", f'"{secret_sandbox_url}"'),
        ("ERPDATA_ACCESS_TOKEN", f'"{SECRET_TOKEN}"'),
    ):
        env = env_for(secret_sandbox_url, **{"ERPDATA_ACCESS_TOKEN": SECRET_TOKEN, name: value})
        done = cli(["table", "account"], env)
        assert done.returncode == 2, (name, done.stderr)
        error = one_line_error(done)
        assert error.startswith(f"erpdata: error: invalid {name}: "), error
        assert "wrapped in quotes" in error, error
        assert SECRET_TOKEN not in done.stdout + done.stderr
    # Quotes inside a value are the value's own: sent, and the service's answer shown.
    env = env_for(secret_sandbox_url, ERPDATA_ACCESS_TOKEN=SECRET_TOKEN, ERPDATA_PROJECT='"demo')
    done = cli(["table", "account"], env)
    assert done.returncode == 3 and 'Unknown project: "demo' in done.stderr, done.stderr


def test_a_token_file_holding_more_than_the_token_is_named(
    secret_sandbox_url: str, tmp_path: Path
) -> None:
    # The core's refusal named "access_token", no option of the command
    # line, and advised a settings file's fix, a comment on a line of its
    # own, after which the token file was refused for its newline.
    env = env_for(secret_sandbox_url)
    path = tmp_path / "token"
    for text in (
        f"{SECRET_TOKEN}  # production\n",
        f"# production\n{SECRET_TOKEN}\n",
        f"ERPDATA_ACCESS_TOKEN= {SECRET_TOKEN}\n",
    ):
        path.write_text(text, encoding="utf-8")
        done = cli(["table", "account", "--access-token-file", str(path)], env)
        assert done.returncode == 2, done.stderr
        error = one_line_error(done)
        assert error.startswith(f"erpdata: error: --access-token-file {path}: "), error
        assert "leave only the token in the file" in error and "line of its own" not in error
        assert SECRET_TOKEN not in done.stdout + done.stderr
    path.write_text(f'"{SECRET_TOKEN}"\n', encoding="utf-8")
    done = cli(["table", "account", "--access-token-file", str(path)], env)
    error = one_line_error(done)
    assert done.returncode == 2 and error.startswith(
        "erpdata: error: invalid --access-token-file: is wrapped in quotes"
    ), error
    assert SECRET_TOKEN not in done.stdout + done.stderr


def test_a_token_file_that_is_not_text_is_said_so(secret_sandbox_url: str, tmp_path: Path) -> None:
    # A binary file was a UnicodeDecodeError's traceback.
    path = tmp_path / "token.bin"
    path.write_bytes(b"\x00\xff" + SECRET_TOKEN.encode() + b"\xfe")
    done = cli(["table", "account", "--access-token-file", str(path)], env_for(secret_sandbox_url))
    assert done.returncode == 2, done.stderr
    assert one_line_error(done) == (
        "erpdata: error: cannot read --access-token-file: it is not UTF-8 text "
        "(it takes a text file holding the token alone)"
    )
    assert SECRET_TOKEN not in done.stdout + done.stderr


def test_a_token_file_saved_with_a_byte_order_mark_is_read(
    secret_sandbox_url: str, tmp_path: Path
) -> None:
    # Windows editors save UTF-8 with a BOM; it is not part of the token.
    path = tmp_path / "token"
    path.write_bytes(b"\xef\xbb\xbf" + SECRET_TOKEN.encode() + b"\r\n")
    done = cli(
        ["table", "account", "--format", "jsonl", "--access-token-file", str(path)],
        env_for(secret_sandbox_url),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") > 0


def test_a_refused_argument_is_named_by_its_option(refused_url: str) -> None:
    # The core names the Python argument (as_of, accounts_table); on the
    # command line it is the option. Refused before sending: nothing
    # listens at refused_url.
    env = env_for(refused_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN)
    for args, said in (
        (["aging", "--as-of", "31/12/2025"], "invalid --as-of: must be a calendar date"),
        (["aging", "--buckets", "60", "30"], "invalid --buckets: must be positive"),
        (["credit-status", "--concurrency", "0"], "invalid --concurrency: must be"),
        (["aging", "--accounts-table", "sales invoice"], "invalid --accounts-table: must be"),
        (["aging", "--accounts", "C001", ""], "invalid --accounts: item 2 must not be empty"),
        (["dues-table", "C001", " ", "--kind", "receipt"], "invalid ACID: item 2 must not be"),
        (["dues-table", "C001", "c001", "--kind", "receipt"], "invalid ACID: items 1 and 2"),
        (["dues", " ", "--kind", "receipt"], "invalid ACID: must not be only whitespace"),
        (["export", "sales_invoice", "--to", "/no/such/x.duckdb"], "invalid --to: "),
        (["table", "account", "--year-id", " 2025"], "invalid --year-id: has whitespace"),
        # The client's settings, named as Python's arguments until they were.
        (["table", "account", "--max-retries", "11"], "invalid --max-retries: must be a whole"),
        (
            ["dues", "C001", "--kind", "receipt", "--max-retry-after", "-1"],
            "invalid --max-retry-after: must be a",
        ),
        (["aging", "--max-retry-after", "-1"], "invalid --max-retry-after: must be a"),
        (
            ["table", "account", "--company-id", "1", "--project", ""],
            "invalid --project: must not be empty",
        ),
    ):
        done = cli(args, env)
        assert done.returncode == 2, (args, done.stderr)
        assert one_line_error(done).startswith(f"erpdata: error: {said}"), done.stderr
    # A setting missing: the option or the variable, not a Python caller's
    # advice ("pass one with the call, give the client a default").
    del env["ERPDATA_COMPANY_ID"]
    done = cli(["table", "account"], env)
    assert done.returncode == 2, done.stderr
    assert one_line_error(done) == (
        "erpdata: error: invalid --company-id: is required: pass --company-id or set "
        "ERPDATA_COMPANY_ID"
    )
    # The export's companies and years, named as Python's arguments were
    # ("invalid companies: ... the client has no default company_id").
    done = cli(["export", "sales_invoice", "--to", "x.duckdb"], env)
    assert done.returncode == 2, done.stderr
    assert one_line_error(done) == (
        "erpdata: error: invalid --companies: must be given: pass --companies or set "
        "ERPDATA_COMPANY_ID"
    )
    del env["ERPDATA_YEAR_ID"]
    done = cli(["export", "sales_invoice", "--to", "x.duckdb", "--companies", "1"], env)
    assert done.returncode == 2, done.stderr
    assert one_line_error(done) == (
        "erpdata: error: invalid --years: must be given: pass --years or set ERPDATA_YEAR_ID"
    )


def test_accounts_and_all_together_are_refused(refused_url: str) -> None:
    # The last one given won: `--accounts C001 --all` reported every
    # customer. Refused before sending: nothing listens at refused_url.
    env = env_for(refused_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN)
    for command in ("aging", "credit-status"):
        for args in (["--accounts", "C001", "--all"], ["--all", "--accounts", "C001"]):
            done = cli([command, *args], env)
            assert done.returncode == 2, (command, args, done.stderr)
            said = done.stderr.strip().splitlines()[-1]
            assert said.startswith(f"erpdata {command}: error: argument --"), done.stderr
            assert "not allowed with argument" in said, done.stderr
            assert "--accounts" in said and "--all" in said, done.stderr


def test_format_is_taken_in_any_case(secret_sandbox_url: str) -> None:
    # `--kind RECEIPT` was taken, `--format CSV` refused.
    env = env_for(secret_sandbox_url)
    done = cli(["dues", "C001", "--kind", "RECEIPT", "--format", "CSV"], env)
    assert done.returncode == 0, done.stderr
    assert "doc_no" in next(csv.reader(io.StringIO(done.stdout)))
    done = cli(["dues", "C001", "--kind", "receipt", "--format", "JsonL"], env)
    assert done.returncode == 0, done.stderr
    assert "doc_no" in json.loads(done.stdout.splitlines()[0])


def test_help_command_prints_the_help() -> None:
    top = cli(["--help"], os.environ.copy())
    done = cli(["help"], os.environ.copy())
    assert done.returncode == 0, done.stderr
    assert done.stdout == top.stdout
    aging = cli(["aging", "--help"], os.environ.copy())
    done = cli(["help", "aging"], os.environ.copy())
    assert done.returncode == 0, done.stderr
    assert done.stdout == aging.stdout and "--accounts" in done.stdout
    done = cli(["help", "agin"], os.environ.copy())
    assert done.returncode == 2
    assert one_line_error(done) == (
        "erpdata: error: no command 'agin' (did you mean 'aging'?; `erpdata help` lists the "
        "commands)"
    )
    # A word near no command is not repeated: it may be anything pasted there.
    done = cli(["help", FAKE_TOKEN], os.environ.copy())
    assert done.returncode == 2 and FAKE_TOKEN not in done.stderr, done.stderr


def test_version() -> None:
    import importlib.metadata

    import erpdata

    done = cli(["--version"], os.environ.copy())
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"erpdata {erpdata.__version__}\n"
    assert erpdata.__version__ == importlib.metadata.version("erpdata")
    # Also with a command's options around it: --version answers first.
    assert cli(["--version", "table"], os.environ.copy()).returncode == 0


def test_help_reads_well() -> None:
    import argparse

    from erpdata.cli import parser

    top = cli(["--help"], os.environ.copy())
    assert top.returncode == 0
    text = top.stdout
    for said in (
        "--version",
        "erpdata COMMAND --help",
        "ERPDATA_ACCESS_TOKEN or --access-token-file FILE",
        "exit codes: 0 ok",
    ):
        assert said in text, said
    (commands,) = [a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)]
    for name, sub in commands.choices.items():
        page = sub.format_help()
        assert "SUPPRESS" not in page and "--token" not in page, name
        assert "--access-token " not in page, name  # refused, so never offered
        # Each command's page says what it does, as the list of commands does.
        assert sub.description and sub.description[0].isupper(), name
        for action in sub._actions:
            # Every option a user can give is explained.
            if action.option_strings and action.help is not argparse.SUPPRESS:
                assert action.help, (name, action.option_strings)
        if name not in ("sandbox", "help"):
            assert "--allow-insecure-http" in page and "--access-token-file FILE" in page, name
    # argparse's own rendering, through the command line, for one command.
    page = cli(["export", "--help"], os.environ.copy())
    assert page.returncode == 0 and "erpdata[export]" in page.stdout


def test_a_decimal_of_many_places_is_written_at_its_scale(secret_sandbox_url: str) -> None:
    # A column of scale 8 (an exchange rate, a quantity, a DOUBLE sent as
    # 1.0e-7) held zeros that CSV and JSON wrote as "0E-8", as Python's
    # str() writes a Decimal under 1E-6: read as a float, not the column.
    base = ["dues", "C001", "--kind", "receipt", "--schema", "paid=decimal(20,8)"]
    with Client(secret_sandbox_url, project="demo") as c:
        paid = [r["paid"] for r in c.receivables("C001").rows]
    assert Decimal(0) in paid  # an unpaid invoice
    want = [f"{p:.8f}" for p in paid]
    done = cli([*base, "--format", "csv"], env_for(secret_sandbox_url))
    assert done.returncode == 0, done.stderr
    assert [r["paid"] for r in csv.DictReader(io.StringIO(done.stdout))] == want
    for fmt in ("json", "jsonl"):
        done = cli([*base, "--format", fmt], env_for(secret_sandbox_url))
        assert done.returncode == 0, done.stderr
        assert "E-" not in done.stdout
        assert [f'"paid":{w},' in done.stdout for w in want] == [True] * len(want)


class _Text(str):
    pass


def test_values_are_written_as_sent() -> None:
    # Each type a row can hold, and the subclasses and odd values that the
    # fast paths (exact types first) must leave to the general ones.
    when = datetime.datetime(2025, 1, 2, 3, 4, 5, 6)
    cases: list[tuple[Any, str, str]] = [
        (None, "null", ""),
        (True, "true", "true"),
        (12, "12", "12"),
        (10**30, str(10**30), str(10**30)),
        (Decimal("1500.00"), "1500.00", "1500.00"),
        (Decimal("-0.00"), "-0.00", "-0.00"),
        (Decimal("NaN"), '"NaN"', "NaN"),
        # Python's str() writes these in exponent form ("0E-8", "-1.2E-7").
        (Decimal("0.00000000"), "0.00000000", "0.00000000"),
        (Decimal("-0.00000012"), "-0.00000012", "-0.00000012"),
        ('Müller "&" Co\n\t\x01', r'"Müller \"&\" Co\n\t\u0001"', 'Müller "&" Co\n\t\x01'),
        (_Text("sub"), '"sub"', "sub"),
        (datetime.date(2025, 2, 28), '"2025-02-28"', "2025-02-28"),
        (datetime.datetime(2025, 1, 2, 3, 4, 5), '"2025-01-02 03:04:05"', "2025-01-02 03:04:05"),
        (when, '"2025-01-02 03:04:05.000006"', "2025-01-02 03:04:05.000006"),
        (
            {"a": [1, None, {"b": Decimal("2.50")}], 3: "x"},
            '{"a":[1,null,{"b":2.50}],"3":"x"}',
            '{"a":[1,null,{"b":2.50}],"3":"x"}',
        ),
    ]
    for value, as_json, as_csv in cases:
        assert command_line.json_value(value) == as_json, value
        assert command_line.csv_value(value) == as_csv, value


def test_an_output_that_cannot_be_written_is_refused_before_fetching(
    refused_url: str, tmp_path: Path
) -> None:
    # Nothing listens at refused_url: a fetch would exit 4, a transport error.
    env = env_for(refused_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN)
    missing = tmp_path / "no" / "such"
    for args, words in (
        (["table", "sales_invoice", "-o", str(missing / "x.csv")], "does not exist"),
        (["table", "sales_invoice", "-o", str(tmp_path)], "is a folder"),
        (["dues", "C001", "--kind", "receipt", "-o", str(tmp_path)], "is a folder"),
        (["aging", "--format", "html", "-o", str(missing / "a.html")], "does not exist"),
        (["dues-summary", "--format", "csv", "-o", str(missing / "s.csv")], "does not exist"),
        (["dues-summary", "--format", "parquet"], "needs -o FILE"),
        (["dues-table", "C001", "--kind", "receipt", "--format", "parquet"], "needs -o FILE"),
        (["table", "account", "--format", "parquet", "-o", "-"], "needs -o FILE"),
    ):
        done = cli(args, env)
        assert done.returncode == 2, (args, done.stderr)
        assert words in one_line_error(done), args


def test_a_closed_stdout_is_said_before_fetching(refused_url: str) -> None:
    # `erpdata table t >&-`: it fetched, then failed with a traceback
    # (sys.stdout is None in a process started without fd 1).
    env = env_for(refused_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN)
    done = subprocess.run(
        PY + ["table", "account"],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.close(1),
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "erpdata: error: stdout is closed: pass -o FILE, or give the command a stdout"
    ]


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_an_output_the_system_refuses_is_named_as_given(sandbox_url: str) -> None:
    # Its folder exists, but no file can be made in it: the error named
    # the partial file written first (/proc/.t.csv.1a2b3c4d5e6f.partial).
    env = env_for(sandbox_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN)
    for args in (
        ["table", "account", "-o", "/proc/erpdata-t.csv"],
        ["table", "account", "-o", "/proc/erpdata-t.parquet"],
        # xlsxwriter's own FileCreateError was a traceback.
        ["table", "account", "-o", "/proc/erpdata-t.xlsx"],
        ["aging", "--as-of", "2025-12-31", "-o", "/proc/erpdata-a.xlsx"],
    ):
        done = cli(args, env)
        assert done.returncode == 1, (args, done.stderr)
        error = one_line_error(done)
        assert error.startswith("erpdata: error: ") and args[-1] in error, error
        assert "partial" not in error, error


def answering(body: bytes) -> Callable[[Callable[[bytes], None]], None]:
    """A raw server's answer: ``body`` with status 200."""

    def answer(send: Callable[[bytes], None]) -> None:
        send(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))

    return answer


def test_a_format_the_command_cannot_write_is_refused_before_anything_is_sent(
    refused_url: str, tmp_path: Path
) -> None:
    # Nothing listens at refused_url: a fetch would exit 4. An -o FILE
    # whose extension names a format the command does not write had the
    # command's default written into it (aging's terminal table into
    # a.parquet, a table's CSV into t.html).
    env = env_for(refused_url, ERPDATA_ACCESS_TOKEN=FAKE_TOKEN)
    reports = "table, csv, json, jsonl, html, xlsx"
    rows = "csv, jsonl, json, parquet, xlsx"
    for args, writes in (
        (["aging", "-o", str(tmp_path / "a.parquet")], reports),
        (["credit-status", "-o", str(tmp_path / "c.parquet")], reports),
        (["table", "account", "-o", str(tmp_path / "t.html")], rows),
        (["dues-table", "C001", "--kind", "receipt", "-o", str(tmp_path / "d.htm")], rows),
        (["dues", "C001", "--kind", "receipt", "-o", str(tmp_path / "d.html")], f"{rows}, raw"),
        (
            ["net-profit", "2025-01-01", "2025-06-30", "-o", str(tmp_path / "n.HTML")],
            f"{rows}, raw",
        ),
    ):
        done = cli(args, env)
        assert done.returncode == 2, (args, done.stderr)
        error = one_line_error(done)
        assert f"-o {args[-1]}: erpdata {args[0]} does not write " in error, error
        assert f"it writes {writes} (pass --format FORMAT" in error, error
    # --format of one the command does not write: argparse lists those it does.
    done = cli(["aging", "--format", "parquet", "-o", str(tmp_path / "a.parquet")], env)
    assert done.returncode == 2
    assert "argument --format: invalid choice: <value> (choose from 'table', " in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_function_answer_of_any_shape_is_written_as_parquet(
    raw_server: Any, tmp_path: Path
) -> None:
    # The shape of a function's answer is known only once it has arrived:
    # one object (net-profit's) or one value was refused then, after the
    # call. It is one row, as in csv (test_excel reads the workbooks).
    for data, row in (
        (b'{"income":10.50,"day":"2025-01-31"}', {"income": Decimal("10.50"), "day": "2025-01-31"}),
        (b"42", {"value": 42}),
    ):
        body = b'{"status":"success","data":%s}' % data
        server = raw_server(answering(body))
        out = tmp_path / "answer.parquet"
        done = cli(["ajax", "someFunc", "-o", str(out)], env_for(server.url))
        assert done.returncode == 0, done.stderr
        got = pq.read_table(out).to_pylist()
        assert [{k: as_sent(v) for k, v in r.items()} for r in got] == [row]


def test_zero_rows_write_no_blank_header(secret_sandbox_url: str, raw_server: Any) -> None:
    # An account with no dues: the service sends `"data":[]`, which names
    # no columns. The CSV was one blank line, which reads as a header of
    # one column named ""; with no column known it is empty.
    env = env_for(secret_sandbox_url)
    with Client(secret_sandbox_url, project="demo") as c:
        assert c.receivables("C008").rows == []
        assert c.dues_table(["C008"], "receipt").columns == ["acid"]
    for fmt, text in (("csv", ""), ("json", "[]\n"), ("jsonl", "")):
        done = cli(["dues", "C008", "--kind", "receipt", "--format", fmt], env)
        assert (done.returncode, done.stdout, done.stderr) == (0, text, ""), fmt
    # The dues of many accounts have the one column every row gets.
    done = cli(["dues-table", "C008", "--kind", "receipt"], env)
    assert (done.returncode, done.stdout) == (0, "acid\n"), done.stderr
    # A table of no rows and a function's object of no fields alike.
    for data, args in (
        (b"[]", ["table", "account", "--format", "csv"]),
        (b"[]", ["dues-summary", "--format", "csv"]),
        (b"{}", ["ajax", "someFunc", "--format", "csv"]),
    ):
        body = b'{"status":"success","data":%s}' % data
        server = raw_server(answering(body))
        done = cli(args, env_for(server.url, ERPDATA_ACCESS_TOKEN=FAKE_TOKEN))
        assert (done.returncode, done.stdout) == (0, ""), (args, done.stderr)


def test_parquet_without_pyarrow_is_said_before_fetching(refused_url: str, tmp_path: Path) -> None:
    # It was said once the whole table had arrived (14 s for 2 million
    # invoices); nothing listens at refused_url, where a fetch would exit 4.
    env = env_for(refused_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN)
    out = tmp_path / "x.parquet"
    for command in (
        ["table", "sales_invoice"],
        ["dues", "C001", "--kind", "receipt"],
        ["dues-table", "C001", "--kind", "receipt"],
        ["dues-summary"],
    ):
        done = plain_cli([*command, "--format", "parquet", "-o", str(out)], env, tmp_path)
        assert done.returncode == 2, (command, done.stderr)
        assert done.stderr == (
            "erpdata: error: --format parquet needs pyarrow: pip install 'erpdata[arrow]'\n"
        ), command
        assert not out.exists()


EARLIER = "the export of last month\n"


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_ctrl_c_while_writing_leaves_the_earlier_file_as_it_was(
    big_sandbox_url: str, tmp_path: Path, fmt: str
) -> None:
    # A table is read whole, then written: Ctrl-C during the writing left
    # the rows written so far, a file that reads as the whole table, over
    # the one that was there. -o FILE now appears whole or not at all.
    out = tmp_path / f"invoices.{fmt}"
    out.write_text(EARLIER, encoding="utf-8")
    env = env_for(big_sandbox_url, ERPDATA_ACCESS_TOKEN=SECRET_TOKEN)
    args = ["table", "sales_invoice", "--format", fmt, "-o", str(out), "--no-progress"]
    proc = subprocess.Popen(
        PY + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    # Interrupted as soon as the writing has begun: a file beside the
    # target appears, or the target itself changes.
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if len(list(tmp_path.iterdir())) > 1 or out.stat().st_size != len(EARLIER):
            break
        time.sleep(0.002)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert stdout == ""
    assert out.read_text(encoding="utf-8") == EARLIER
    assert list(tmp_path.iterdir()) == [out]
    # Let run, the file is replaced whole.
    done = cli(args, env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.iterdir()) == [out]
    # (Parquet goes through the same partial file; pyarrow writes these
    # rows too fast for a Ctrl-C to land reliably in the writing.)
    assert len(out.read_text(encoding="utf-8").splitlines()) == BIG_ROWS + (fmt == "csv")


@pytest.mark.parametrize(
    "command",
    [
        ["aging", "--accounts", "C001", "C002", "C003"],
        ["credit-status"],
        ["dues-table", "C001", "C002", "--kind", "receipt"],
        ["export", "account", "sales_invoice", "--to", "erp.duckdb", "--no-progress"],
        ["export", "account", "sales_invoice", "--to", "erp-dataset", "--no-progress"],
    ],
    ids=lambda c: " ".join(c[:1] + c[-2:-1]) if c[0] == "export" else c[0],
)
def test_ctrl_c_while_many_calls_wait_on_a_silent_service_exits_at_once(
    secret_sandbox_url: str, command: list[str], tmp_path: Path
) -> None:
    # The calls of a flow run on threads. Interrupted, the command waited
    # for each running call to end (a ThreadPoolExecutor's exit, then the
    # interpreter's; export's wait for its readers): against a service
    # that answers nothing, up to the read limit of every attempt, minutes
    # with the default retries.
    key = fault_api.new_key("ctrl-c", command[0])
    url = fault_api.prefix(secret_sandbox_url, "hang", key)
    env = env_for(url, ERPDATA_ACCESS_TOKEN=SECRET_TOKEN)
    proc = subprocess.Popen(
        PY + command,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    # Interrupted once its calls wait on the service (not while Python
    # still imports, which a busy machine makes slow).
    fault_api.wait_for(secret_sandbox_url, key, seconds=60)
    time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()
    stdout, stderr, took = after_ctrl_c(proc, 10, command[0])
    assert proc.returncode == 130, stderr
    assert took < 5
    assert stdout == "" and "Traceback" not in stderr, stderr
    assert list(tmp_path.iterdir()) == []  # an export that finished nothing leaves nothing


def test_ctrl_c_while_an_export_reads_exits_with_130_not_an_abort(
    huge_sandbox_url: str, tmp_path: Path
) -> None:
    # Interrupted, the export left its readers running: a reader decoding
    # in the core as the interpreter exited could not take the GIL back,
    # and the process aborted ("FATAL: exception not rethrown", exit -6,
    # in most interrupts of a large export). It now waits for each reader
    # to end or to wait on the service (never long), then exits with 130.
    env = env_for(huge_sandbox_url, ERPDATA_ACCESS_TOKEN=SECRET_TOKEN)
    to = tmp_path / "erp"
    args = ["export", "sales_invoice", "--years", "2024", "2025", "--to", str(to)]
    for delay in (0.02, 0.1, 0.2, 0.3, 0.4):
        proc = subprocess.Popen(
            PY + [*args, "--no-progress"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while not to.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(delay)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
        assert proc.returncode == 130, (delay, stderr[-2000:])
        assert "Traceback" not in stderr and "FATAL" not in stderr, (delay, stderr[-2000:])
        shutil.rmtree(to, ignore_errors=True)


def test_ctrl_c_that_a_library_turns_into_its_own_error_still_exits_with_130() -> None:
    # DuckDB meets the KeyboardInterrupt of a Ctrl-C and raises an error of
    # its own (RuntimeError: Query interrupted; an interrupted COMMIT makes
    # the ROLLBACK after it fail instead): `erpdata export --to x.duckdb`
    # then ended with a traceback and exit 1 in a third of its interrupts.
    # Where a query meets the signal is a matter of timing, so the library
    # here is a function doing what DuckDB does, in the command's wrapper.
    script = """
import signal, sys
from erpdata import cli

def run(_):
    try:
        signal.raise_signal(signal.SIGINT)
    except KeyboardInterrupt:
        raise RuntimeError("Query interrupted") from None
    return 0

try:
    cli._interruptible(run, None)
except KeyboardInterrupt as exc:
    print(type(exc.__cause__).__name__, exc.__cause__)
    sys.exit(130)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 130, done.stderr
    assert done.stdout.strip() == "RuntimeError Query interrupted", done.stdout
    # The handler in place before is put back.
    script = script.replace(
        "sys.exit(130)",
        "sys.exit(130 if signal.getsignal(signal.SIGINT) is signal.default_int_handler else 1)",
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 130, done.stderr


def test_a_device_given_as_the_output_is_written_as_it_is(sandbox_url: str) -> None:
    # -o /dev/stdout is written through, not replaced by a file.
    env = env_for(sandbox_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN)
    done = cli(["dues", "C001", "--kind", "receipt", "-o", "/dev/stdout"], env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("doc_no,date,due_date,amount,paid,balance\n")


def test_php_notices_are_shown_with_verbose(secret_sandbox_url: str) -> None:
    # What the service printed before its answer was kept on the answer
    # only: the command line never showed it, even with -vv.
    env = env_for(
        f"{secret_sandbox_url}/_faults/notice/cli-notice/", ERPDATA_ACCESS_TOKEN=SECRET_TOKEN
    )
    said = "the service printed before its answer: Notice: Undefined index: x"
    for command in (["table", "account"], ["dues", "C001", "--kind", "receipt"]):
        done = cli([*command, "-v"], env)
        assert done.returncode == 0, done.stderr
        assert said in done.stderr, (command, done.stderr)
        assert SECRET_TOKEN not in done.stdout + done.stderr
        quiet = cli(command, env)
        assert quiet.returncode == 0 and said not in quiet.stderr
