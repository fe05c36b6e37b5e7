"""`make demo`: start the sandbox ERP, then query it through the Python and
JavaScript clients exactly as a user would, and stop it again; last, a
million-row table into pandas, timed, from a second sandbox.

`make demo` runs it on release builds (`--package`: the wheel's files, not
the tests' debug build in .venv, which decodes ten times slower)."""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SANDBOX_TOKEN = "sandbox-token-not-secret"
sys.path.insert(0, str(ROOT / "scripts"))
from sandbox_process import SandboxProcess  # noqa: E402


def show(title: str, rows: Sequence[Mapping[str, Any]], columns: Iterable[str]) -> None:
    cols = list(columns)
    print(f"\n{title}")
    if not rows:
        print("  (none)")
        return
    cells = [[fmt(r.get(c)) for c in cols] for r in rows]
    numeric = [all(isinstance(r.get(c), (int, Decimal)) for r in rows) for c in cols]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]

    def line(values: Sequence[str]) -> str:
        padded = (v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric))
        return ("  " + "  ".join(padded)).rstrip()

    print(line(cols))
    print("  " + "  ".join("-" * w for w in widths))
    for row in cells:
        print(line(row))


def fmt(value: Any) -> str:
    return "" if value is None else str(value)


def types_of(rows: Sequence[Mapping[str, Any]]) -> str:
    """Each column's Python type in the rows (what the core typed it as)."""
    seen: dict[str, str] = {}
    for row in rows:
        for key, value in row.items():
            if value is not None or key not in seen:
                seen[key] = "None" if value is None else type(value).__name__
    return ", ".join(f"{k}: {t}" for k, t in seen.items())


def python_part(base_url: str) -> None:
    import erpdata

    print("== Python client (erpdata.Client) ==")
    with erpdata.Client(
        base_url,
        project="demo",
        access_token=SANDBOX_TOKEN,
        company_id=1,
        year_id=2025,
    ) as client:
        dues = client.receivables("C001")
        show("Receivables of customer C001", dues.rows, dues.rows[0].keys() if dues.rows else [])
        # Money arrives as JSON strings ("1034.50") from a PHP service; the
        # core types it: exact Decimals, dates as datetime.date.
        print(f"  typed as: {types_of(dues.rows)}")
        total = sum((r["balance"] for r in dues.rows), Decimal("0.00"))
        print(f"  total outstanding: {total} ({type(total).__name__})")
        dues = client.payables("S001")
        show("Payables to supplier S001", dues.rows, dues.rows[0].keys() if dues.rows else [])
        print(f"  typed as: {types_of(dues.rows)}")
        total = sum((r["balance"] for r in dues.rows), Decimal("0.00"))
        print(f"  total to pay: {total}")
        table = client.table("sales_invoice")
        show(f"sales_invoice: first 5 of {len(table)} rows", table[:5], table.columns)
        print(f"  typed as: {types_of(table[:5])}")
        accounts = client.table(
            "account", schema_overrides={"credit_limit": "decimal(18,4)", "acid": "string"}
        )
        show("account, credit_limit declared decimal(18,4)", accounts[:3], accounts.columns)
        try:
            df = table.to_pandas()
        except ImportError:
            print("\n(pandas not installed: pip install 'erpdata[pandas]' for DataFrames)")
        else:
            print("\nsales_invoice as a DataFrame (Arrow-backed dtypes):")
            print("  " + ", ".join(f"{c}: {t}" for c, t in df.dtypes.items()))
            print("totals by customer:")
            top = df.groupby("customer_name")["total"].sum().sort_values(ascending=False).head(3)
            for name, total in top.items():
                print(f"  {name:<24} {total:>16}")
        batches = [len(b) for b in client.stream_table("sales_invoice", batch_rows=16)]
        print(f"\nstreamed in batches of {batches} rows")

    async def from_async() -> None:
        async with erpdata.AsyncClient(
            base_url, project="demo", access_token=SANDBOX_TOKEN, company_id=1, year_id=2025
        ) as aclient:
            customers = [f"C{n:03d}" for n in range(1, 13)]
            many = await aclient.dues_many(customers, "receipt", concurrency=4)
            owing = sum(1 for d in many.values() if d.rows)
            print(
                f"AsyncClient.dues_many: {owing} of {len(customers)} customers have open invoices"
            )

    asyncio.run(from_async())


def functions_part(base_url: str) -> None:
    import erpdata

    with erpdata.Client(base_url, project="demo") as client:
        summary = client.dues_summary()
        show("Receivables summary (getduesSumm)", summary.rows[:5], summary.rows[0].keys())
        profit = client.net_profit("2025-01-01", "2025-12-31").fields
        print(
            f"\nnet profit 2025 (netProfit): {profit['net_profit']} ({type(profit['net_profit']).__name__})"
        )
        owed = client.dues_table([r["acid"] for r in summary.rows], "receipt")
        print(
            f"dues_table: {len(owed)} open invoices of {len(summary.rows)} customers in one table"
        )


def finance_part(base_url: str) -> None:
    import erpdata

    with erpdata.Client(
        base_url, project="demo", access_token=SANDBOX_TOKEN, company_id=1, year_id=2025
    ) as client:
        aging = client.aging(as_of="2025-12-31")
        status = client.credit_status(as_of="2025-12-31")
    try:
        from erpdata import report
    except ImportError:
        print("\n(rich/matplotlib not installed: pip install 'erpdata[report]' for the reports)")
        return
    print()
    report.print_table(aging, title="Receivables aging as of 2025-12-31 (client.aging)")
    print()
    report.print_table(
        status, title="Customer credit status as of 2025-12-31 (client.credit_status)"
    )
    folder = ROOT / "target" / "demo"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "aging.html").write_text(report.aging_html(aging, as_of="2025-12-31"), "utf-8")
    (folder / "credit-status.html").write_text(
        report.credit_status_html(status, as_of="2025-12-31"), "utf-8"
    )
    print(f"HTML reports with charts: {folder / 'aging.html'}, {folder / 'credit-status.html'}")


AGING_SQL = """
WITH open AS (
  SELECT i.customer, i.due_date, i.total - COALESCE(SUM(r.amount), 0) AS balance
  FROM sales_invoice i
  LEFT JOIN receipt r
    ON r.compid = i.compid AND r.yearid = i.yearid AND r.invoice_no = i.invoice_no
  WHERE i.compid = 1 AND i.yearid = 2025
  GROUP BY i.invoice_no, i.customer, i.due_date, i.total
  HAVING balance > 0
), aged AS (
  SELECT customer, balance, date_diff('day', due_date, DATE '2025-12-31') AS days FROM open
)
SELECT customer,
  COALESCE(SUM(balance) FILTER (WHERE days <= 0), 0) AS "current",
  COALESCE(SUM(balance) FILTER (WHERE days BETWEEN 1 AND 30), 0) AS "1-30",
  COALESCE(SUM(balance) FILTER (WHERE days BETWEEN 31 AND 60), 0) AS "31-60",
  COALESCE(SUM(balance) FILTER (WHERE days BETWEEN 61 AND 90), 0) AS "61-90",
  COALESCE(SUM(balance) FILTER (WHERE days > 90), 0) AS "91+",
  SUM(balance) AS total
FROM aged GROUP BY customer ORDER BY total DESC
"""


def export_part(base_url: str) -> None:
    import erpdata

    try:
        import duckdb

        from erpdata.export import export
    except ImportError:
        print("\n(duckdb not installed: pip install 'erpdata[export]' for the analytical copy)")
        return
    target = ROOT / "target" / "demo" / "erp.duckdb"
    target.parent.mkdir(parents=True, exist_ok=True)
    with erpdata.Client(base_url, project="demo", access_token=SANDBOX_TOKEN) as client:
        result = export(
            client,
            ["sales_invoice", "receipt", "account"],
            companies=[1, 2],
            years=[2024, 2025],
            to=target,
            progress=False,
        )
    print(f"\n== Export: {result.rows} rows in {len(result.partitions)} partitions to {target} ==")
    con = duckdb.connect(str(target))
    try:
        columns = ["customer", "current", "1-30", "31-60", "61-90", "91+", "total"]
        rows = [dict(zip(columns, r)) for r in con.execute(AGING_SQL).fetchall()]
        show(
            "Receivables aging by customer at 2025-12-31 (SQL over the DuckDB copy)", rows, columns
        )
    finally:
        con.close()


def js_part(base_url: str) -> None:
    print("\n== JavaScript client (ErpClient) ==", flush=True)
    env = dict(os.environ)
    env.update(
        ERPDATA_BASE_URL=base_url,
        ERPDATA_PROJECT="demo",
        ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN,
        ERPDATA_COMPANY_ID="1",
        ERPDATA_YEAR_ID="2025",
    )
    subprocess.run(["node", str(ROOT / "js/examples/demo.mjs")], check=True, env=env)


def speed_part(sandbox: str, rows: int) -> None:
    """A large table through the client, timed against reading its body
    alone: the decoding runs while the body arrives, so the DataFrame
    costs little more than the download."""
    import time

    import httpx

    import erpdata

    try:
        import pandas  # noqa: F401
    except ImportError:
        print("\n(pandas not installed: pip install 'erpdata[pandas]' for the timed DataFrame)")
        return
    print(f"\n== Speed: {rows:,} invoices into pandas ==", flush=True)
    # The sandbox makes the answer once, before the clock, and sends it
    # again from memory (--cache-answers): a service elsewhere would not
    # make it on this machine's cores while the client reads it.
    with SandboxProcess(
        sandbox, "--rows", str(rows), "--token", SANDBOX_TOKEN, "--cache-answers"
    ) as erp:
        form = {
            "req": "getdata",
            "project": "demo",
            "accesstoken": SANDBOX_TOKEN,
            "yearid": "2025",
            "compid": "1",
            "table": "sales_invoice",
        }
        url = f"{erp.url}/apis/dataapi.php"
        httpx.post(url, data=form, timeout=300).raise_for_status()
        # The body streamed and each chunk dropped, as the client reads it:
        # `.content` would also join the chunks, which the client never does.
        t0 = time.perf_counter()
        size = 0
        with httpx.stream("POST", url, data=form, timeout=300) as answer:
            for chunk in answer.iter_bytes():
                size += len(chunk)
        read = time.perf_counter() - t0
        with erpdata.Client(
            erp.url, project="demo", access_token=SANDBOX_TOKEN, company_id=1, year_id=2025
        ) as client:
            t0 = time.perf_counter()
            df = client.table("sales_invoice").to_pandas()
            took = time.perf_counter() - t0
    print(
        f"  client.table('sales_invoice').to_pandas(): {len(df):,} rows x {len(df.columns)} columns "
        f"in {took:.2f} s ({size / took / 1e6:,.0f} MB/s of JSON)"
    )
    print(
        f"  httpx reading the same {size / 1e6:,.0f} MB body chunk by chunk, "
        f"decoding and keeping nothing: {read:.2f} s"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sandbox", default=str(ROOT / "target/release/erpdata-sandbox"))
    parser.add_argument(
        "--package",
        help="folder holding the erpdata package to use (default: the one installed)",
    )
    parser.add_argument(
        "--rows", type=int, default=1_000_000, help="rows of the timed table (0: none)"
    )
    args = parser.parse_args()
    if args.package:
        sys.path.insert(0, args.package)
    proc = subprocess.Popen(
        [args.sandbox, "--port", "0", "--token", SANDBOX_TOKEN],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        if not base_url.startswith("http"):
            print(f"the sandbox did not start (said {base_url!r})", file=sys.stderr)
            return 1
        print(f"sandbox ERP running at {base_url}\n")
        python_part(base_url)
        functions_part(base_url)
        finance_part(base_url)
        js_part(base_url)
        export_part(base_url)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print("\nsandbox stopped")
    if args.rows:
        speed_part(args.sandbox, args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
