"""`erpdata aging` and `erpdata credit-status` against the sandbox: the
terminal table, csv and json, and the HTML report, opened in headless
Chromium (ERPDATA_CHROMIUM, set by `make test-python` through
scripts/chromium.sh), whose screenshot must show the chart and the totals."""

from __future__ import annotations

import csv
import datetime
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
import unicodedata
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import erpdata
import erpdata.report
from conftest import FAKE_TOKEN, SANDBOX_TOKEN, missing, need
from test_cli import cli, env_for, plain_cli

AS_OF = "2025-12-31"
BAR_BLUE = (31, 119, 180)  # the chart's bar colour (report.aging_chart)


@pytest.fixture
def env(sandbox_url: str) -> dict[str, str]:
    return env_for(sandbox_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN)


def test_aging_terminal_table_has_every_account_and_the_totals(
    env: dict[str, str], client: erpdata.Client
) -> None:
    done = cli(["aging", "--as-of", AS_OF], env)
    assert done.returncode == 0, done.stderr
    expected = client.aging(as_of=AS_OF)
    lines = done.stdout.splitlines()
    assert "Receivables aging as of 2025-12-31" in lines[0]
    for row in expected:
        line = next(ln for ln in lines if f" {row['acid']} " in ln)
        assert f"{row['total']:,}" in line
    total = sum((r["total"] for r in expected), Decimal(0))
    assert any("Total" in ln and f"{total:,}" in ln for ln in lines)
    assert "…" not in done.stdout  # nothing elided


def test_aging_csv_json_and_buckets(env: dict[str, str], client: erpdata.Client) -> None:
    done = cli(["aging", "--kind", "payment", "--as-of", AS_OF, "--format", "csv"], env)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    expected = client.aging("payment", as_of=AS_OF)
    assert [r["acid"] for r in rows] == [r["acid"] for r in expected]
    assert [Decimal(r["total"]) for r in rows] == [r["total"] for r in expected]
    done = cli(
        ["aging", "--accounts", "C001", "C002", "--buckets", "45", "--as-of", AS_OF]
        + ["--format", "json"],
        env,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [r["acid"] for r in report] == ["C001", "C002"]
    assert list(report[0]) == ["acid", "current", "1-45", "46+", "undated", "total"]


def test_credit_status_cli(env: dict[str, str], client: erpdata.Client) -> None:
    done = cli(["credit-status", "--as-of", AS_OF, "--format", "json"], env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    expected = client.credit_status(as_of=AS_OF)
    assert [(r["acid"], r["over_limit"]) for r in report] == [
        (r["acid"], r["over_limit"]) for r in expected
    ]
    done = cli(["credit-status", "--accounts", "S001", "--as-of", AS_OF], env)
    assert done.returncode == 2
    assert "S001" in done.stderr and "not a customer" in done.stderr
    done = cli(["credit-status", "--as-of", "2025-02-30"], env)
    assert done.returncode == 2 and "invalid --as-of: " in done.stderr, done.stderr


def test_terminal_tables_on_a_plain_install(
    env: dict[str, str], client: erpdata.Client, tmp_path: Path
) -> None:
    # No rich (nor any other extra): the default output is aligned text.
    done = plain_cli(["aging", "--as-of", AS_OF], env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    expected = client.aging(as_of=AS_OF)
    lines = done.stdout.splitlines()
    assert lines[0] == "Receivables aging as of 2025-12-31"
    assert lines[1].split() == [name for name, _ in expected.schema]
    assert set(lines[2]) == {"-", " "} and lines[-2] == lines[2]
    rows = lines[3:-2]
    assert [line.split()[0] for line in rows] == [r["acid"] for r in expected]
    for line, row in zip(rows, expected):
        assert line.split()[1:] == [f"{row[name]:,}" for name, _ in expected.schema[1:]]
    total = sum((r["total"] for r in expected), Decimal(0))
    assert lines[-1].startswith("Total") and lines[-1].endswith(f"{total:,}")
    # Numbers right-aligned: every row's total ends where the header's does.
    assert {len(line) for line in [lines[1], *rows, lines[-1]]} == {len(lines[1])}
    assert not set("│┃━─") & set(done.stdout)  # no rich box drawing
    credit = plain_cli(["credit-status", "--as-of", AS_OF], env, tmp_path)
    assert credit.returncode == 0, credit.stderr
    assert credit.stdout.startswith("Customer credit status as of 2025-12-31\n")
    assert "O'Brien Hardware" in credit.stdout
    assert credit.stdout.splitlines()[-1].startswith("Total")
    # And rich, when installed, still draws the table.
    rich = cli(["aging", "--as-of", AS_OF], env)
    assert rich.returncode == 0 and "│" in rich.stdout


def test_an_html_report_names_the_extra_it_needs(
    env: dict[str, str], tmp_path: Path, refused_url: str
) -> None:
    for command in ("aging", "credit-status"):
        out = tmp_path / f"{command}.html"
        done = plain_cli([command, "--format", "html", "-o", str(out)], env, tmp_path)
        assert done.returncode == 2
        assert done.stderr == (
            "erpdata: error: an HTML report needs matplotlib: pip install 'erpdata[report]'\n"
        )
        assert not out.exists()
    # Said before anything is asked of the service: here nothing listens.
    nowhere = {**env, "ERPDATA_BASE_URL": refused_url}
    done = plain_cli(["aging", "--format", "html", "--max-retries", "0"], nowhere, tmp_path)
    assert done.returncode == 2 and "erpdata[report]" in done.stderr


def report_file(env: dict[str, str], tmp_path: Path, command: str) -> Path:
    out = tmp_path / f"{command}.html"
    done = cli([command, "--as-of", AS_OF, "--format", "html", "-o", str(out)], env)
    assert done.returncode == 0, done.stderr
    assert f"report written to {out}" in done.stderr
    return out


def test_html_reports_are_self_contained(env: dict[str, str], tmp_path: Path) -> None:
    for command in ("aging", "credit-status"):
        page = report_file(env, tmp_path, command).read_text(encoding="utf-8")
        assert page.startswith("<!DOCTYPE html>")
        # Nothing to fetch: the chart is a data: URL, no script or link.
        assert re.search(r'<img id="chart" alt="[^"]+" src="data:image/png;base64,', page)
        assert not re.search(r"(src|href)=\"(https?:)?//", page)
        assert "<script" not in page
        assert '<tr class="totals">' in page
        assert SANDBOX_TOKEN not in page
    credit = (tmp_path / "credit-status.html").read_text(encoding="utf-8")
    assert "O&#x27;Brien Hardware" in credit  # names escaped


def chromium() -> str:
    found = os.environ.get("ERPDATA_CHROMIUM") or shutil.which("chromium")
    if not found:
        missing("no Chromium (scripts/chromium.sh could not install one)")
    return found


def screenshot(binary: str, page: Path, out: Path, profile: Path) -> None:
    args = [
        binary,
        "--headless=new",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--window-size=1100,1400",
        f"--screenshot={out}",
        page.as_uri(),
    ]
    if os.geteuid() == 0:
        args.insert(1, "--no-sandbox")
    subprocess.run(args, capture_output=True, timeout=120, check=True)


def dom(binary: str, page: Path, profile: Path) -> str:
    args = [binary, "--headless=new", "--disable-gpu", f"--user-data-dir={profile}"]
    if os.geteuid() == 0:
        args.append("--no-sandbox")
    done = subprocess.run(
        [*args, "--dump-dom", page.as_uri()], capture_output=True, timeout=120, check=True
    )
    return done.stdout.decode()


def test_report_in_chromium_shows_the_chart_and_the_totals(
    env: dict[str, str], client: erpdata.Client, tmp_path: Path
) -> None:
    binary = chromium()
    image = need("PIL.Image")
    page = report_file(env, tmp_path, "aging")
    shot = Path(os.environ.get("ERPDATA_REPORT_SCREENSHOT", tmp_path / "aging.png"))
    shot.parent.mkdir(parents=True, exist_ok=True)
    screenshot(binary, page, shot, tmp_path / "profile")
    with image.open(shot) as picture:
        rgb = picture.convert("RGB")
        width, height = rgb.size
        assert (width, height) == (1100, 1400)
        # The chart drew: its bars' colour covers a good area of the page.
        colours = dict((c, n) for n, c in rgb.getcolors(maxcolors=width * height))
        blue = colours.get(BAR_BLUE, 0)
        assert blue > 2_000, f"{blue} pixels of the bar colour: the chart did not render"
    text = dom(binary, page, tmp_path / "profile")
    total = sum((r["total"] for r in client.aging(as_of=AS_OF)), Decimal(0))
    assert f'data-column="total">{total:,}</td>' in text
    assert "Receivables aging as of 2025-12-31" in text


def test_html_reprs_for_notebooks(client: erpdata.Client) -> None:
    table = client.table("sales_invoice")
    html = table._repr_html_()
    assert f"{len(table):,} rows" in html and f"{len(table.columns)} columns" in html
    for name, kind in table.schema:
        assert f'<th>{name}<br><span class="type">{kind}</span></th>' in html
    assert html.count("<tr>") == 1 + 10  # the header and the first ten rows
    assert f"… {len(table) - 10:,} more rows" in html
    dues = client.receivables("C001")
    assert "Receipt dues of C001" in dues._repr_html_()
    answer = client.avg_pay_days("C001")
    assert "avg_pay_days" in answer._repr_html_() and "object" in answer._repr_html_()
    aging = client.aging(as_of=AS_OF)
    assert "decimal(38,2)" in aging._repr_html_()
    # Values are escaped, notices shown; the plain repr stays one short line.
    config = erpdata._core.Config(
        "https://erp.example.com/", project="demo", access_token="fake-token-for-tests"
    )
    odd = config.parse_table(
        200,
        b"\n<br />\n<b>Notice</b>:  Undefined index: <i>x</i> in <b>/var/www/x.php</b>"
        b' on line <b>3</b><br />\n{"status":"success","data":[{"n":"<script>alert(1)</script>"}]}',
    )
    html = odd._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert odd.notices and "notice: Notice: Undefined index: &lt;i&gt;x&lt;/i&gt;" in html
    assert len(repr(table).splitlines()) == 1 and len(repr(table)) < 200


def parsed(rows: list[dict[str, Any]]) -> erpdata.Table:
    """A table from the rows of an answer, as the core parses it."""
    config = erpdata._core.Config(
        "https://erp.example.com/", project="demo", access_token=FAKE_TOKEN
    )
    body = json.dumps({"status": "success", "data": rows}).encode()
    table: erpdata.Table = config.parse_table(200, body)
    return table


# What an account's name may hold: text that rich reads as markup or emoji,
# an escape sequence that would clear the terminal, a newline, and a bidi
# override that would show the row's figures reversed.
ODD_NAMES = ["Acme [ltd]", "[/]", ":warning: Co", "x\x1b[2Jy", "two\nlines", "\u202e123"]


@pytest.mark.parametrize("rich", [True, False], ids=["rich", "plain"])
def test_terminal_tables_show_the_data_as_it_is(
    rich: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not rich:
        monkeypatch.setitem(sys.modules, "rich.console", None)
    table = parsed([{"acid": name, "balance": "1.00"} for name in ODD_NAMES])
    out = io.StringIO()
    erpdata.report.print_table(table, title="Dues [draft]\x1b[8m", file=out)
    text = out.getvalue()
    for shown in ["Acme [ltd]", "[/]", ":warning: Co", "x\\x1b[2Jy", "two\\nlines"]:
        assert shown in text, (shown, text)
    assert "\\u202e123" in text and "Dues [draft]\\x1b[8m" in text
    # No control character but the lines' ends, no bidi override.
    assert not {c for c in text if c != "\n" and unicodedata.category(c) == "Cc"}
    assert "\u202e" not in text
    assert len(text.splitlines()) == len(ODD_NAMES) + (7 if rich else 5)  # one a row
    assert "6.00" in text.splitlines()[-2 if rich else -1]


def test_html_reports_draw_dollar_signs_as_text() -> None:
    need("matplotlib")
    # matplotlib reads text between two $ as math: an account "$\frac$"
    # failed the report (ValueError), "$x^2$" was drawn as a formula.
    rows = [
        {"acid": acid, "credit_limit": "100.00", "outstanding": "150.00", "over_limit": True}
        for acid in ["$\\frac$", "$x^2$"]
    ]
    page = erpdata.report.credit_status_html(parsed(rows), as_of=AS_OF, title="$\\frac$ due")
    assert '<td class="">$\\frac$</td>' in page and "<h1>$\\frac$ due</h1>" in page


@pytest.mark.parametrize("rich", [True, False], ids=["rich", "plain"])
def test_a_total_in_the_first_column_says_it_is_the_total(
    rich: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not rich:
        monkeypatch.setitem(sys.modules, "rich.console", None)
    table = parsed([{"balance": "1.50", "acid": "C001"}, {"balance": "-4.00", "acid": "C002"}])
    out = io.StringIO()
    erpdata.report.print_table(table, file=out)
    lines = out.getvalue().splitlines()
    assert "Total -2.50" in lines[-2 if rich else -1]
    if not rich:
        need("matplotlib")
        page = erpdata.report.aging_html(table, as_of=AS_OF)
        assert (
            '<tfoot><tr class="totals"><td class="num" data-column="balance">Total -2.50</td>'
            in page
        )


@pytest.mark.parametrize("rich", [True, False], ids=["rich", "plain"])
def test_the_totals_leave_out_the_ids_a_table_carries(
    rich: bool, client: erpdata.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The ERP's tables carry compid and yearid (and often an id) as a PHP
    # service's SELECT * sends them: company 1's invoices of 2025 totalled
    # "Total 40" and "81,000" under them.
    if not rich:
        monkeypatch.setitem(sys.modules, "rich.console", None)
    invoices = client.table("sales_invoice")
    assert invoices.columns[:2] == ["compid", "yearid"]
    out = io.StringIO()
    erpdata.report.print_table(invoices, file=out)
    lines = out.getvalue().splitlines()
    footer = lines[-2 if rich else -1]
    sums = [f"{sum(r[c] for r in invoices):,}" for c in ("amount", "tax", "total", "items")]
    assert footer.replace("│", " ").split() == ["Total", *sums], footer
    ids = parsed([{"id": 7, "compid": 1, "yearid": 2025, "customer_id": 3, "amount": "2.50"}])
    out = io.StringIO()
    erpdata.report.print_table(ids, file=out)
    footer = out.getvalue().splitlines()[-2 if rich else -1]
    assert footer.replace("│", " ").split() == ["Total", "2.50"], footer
    if not rich:
        need("matplotlib")
        page = erpdata.report.credit_status_html(
            parsed(
                [
                    {
                        "compid": 1,
                        "yearid": 2025,
                        "acid": "C001",
                        "credit_limit": "5.00",
                        "over_limit": False,
                        "outstanding": "1.00",
                    }
                ]
            ),
            as_of=AS_OF,
        )
        foot = page.split("<tfoot>")[1]
        assert 'data-column="compid"' not in foot and 'data-column="yearid"' not in foot
        assert '<td class="num" data-column="credit_limit">5.00</td>' in foot


@pytest.mark.parametrize("rich", [True, False], ids=["rich", "plain"])
def test_timestamps_are_shown_as_sent(
    rich: bool, client: erpdata.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "2019-04-01 10:15:00" as the service sent it and the CSV writes it;
    # the terminal table and the HTML report showed "2019-04-01T10:15:00".
    if not rich:
        monkeypatch.setitem(sys.modules, "rich.console", None)
    accounts = client.table("account")
    first = accounts[0]["created_at"]
    assert isinstance(first, datetime.datetime)
    out = io.StringIO()
    erpdata.report.print_table(accounts, file=out)
    text = out.getvalue()
    assert first.isoformat(" ") in text and first.isoformat() not in text
    if not rich:
        need("matplotlib")
        table = parsed([{"acid": "C001", "balance": "1.00", "at": "2025-04-01 13:45:00.5"}])
        page = erpdata.report.aging_html(table, as_of=AS_OF)
        assert '<td class="">2025-04-01 13:45:00.500000</td>' in page


@pytest.mark.parametrize("rich", [True, False], ids=["rich", "plain"])
def test_a_decimal_of_many_places_is_shown_at_its_scale(
    rich: bool, client: erpdata.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Python's str() and format() write a Decimal under 1E-6 in exponent
    # form: a zero of scale 8 showed as "0E-8" in the terminal, the HTML
    # report and a notebook, its total as "0E-8" too.
    if not rich:
        monkeypatch.setitem(sys.modules, "rich.console", None)
    dues = client.receivables("C001", schema_overrides={"paid": "decimal(20,8)"}).to_table()
    assert Decimal(0) in [r["paid"] for r in dues]
    out = io.StringIO()
    erpdata.report.print_table(dues, file=out)
    text = out.getvalue()
    assert "E-8" not in text and " 0.00000000 " in text
    assert "1,366,927.00000000" in text.splitlines()[-2 if rich else -1]
    html = dues._repr_html_()
    assert "E-8" not in html and '<td class="num">0.00000000</td>' in html
    if not rich:
        need("matplotlib")
        page = erpdata.report.aging_html(dues, as_of=AS_OF)
        assert "E-8" not in page and '<td class="num">0.00000000</td>' in page


def test_the_credit_chart_draws_the_customers_that_matter_not_thousands() -> None:
    need("matplotlib")
    # One bar a customer: 8,000 took 203 s and 2 GB for a page no one could
    # read. Those over their limit come first, then the largest balances.
    rows = [
        {
            "acid": f"C{i:05}",
            "credit_limit": "1000.00",
            "outstanding": f"{i}.00" if i % 97 else "5000.00",
            "over_limit": i % 97 == 0,
        }
        for i in range(1, 2001)
    ]
    table = parsed(rows)
    charted = erpdata.report.charted_customers(table)
    assert len(charted) == erpdata.report.CHART_CUSTOMERS == 40
    over = [r["acid"] for r in charted if r["over_limit"]]
    assert over == [f"C{i:05}" for i in range(97, 2001, 97)]  # all 20, first
    assert [r["acid"] for r in charted[len(over) :]] == [f"C{i:05}" for i in range(2000, 1980, -1)]
    started = time.perf_counter()
    page = erpdata.report.credit_status_html(table, as_of=AS_OF)
    assert time.perf_counter() - started < 30
    assert "The chart shows the 40 customers over their limit or owing the most" in page
    assert "the table lists all 2000" in page and page.count("<tr>") == 2001  # and the head
    assert len(page) < 3_000_000
    # A few customers: every one drawn, in the table's order.
    assert erpdata.report.charted_customers(parsed(rows[:5])) == list(parsed(rows[:5]))
