"""The wheel with the oldest versions of its dependencies and extras it
declares (`make test-lowest`).

Run in a fresh virtualenv that holds the x86_64 wheel and exactly the pins
`scripts/lowest-requirements.py` printed for EXTRAS (their file is the
first argument): it checks that each installed version is its pin, that
both clients read a table, then that what each named extra is for works
against the sandbox the wheel ships, and that the paths agree with each
other (the same total through rows, Arrow, pandas, polars, DuckDB,
Parquet, a workbook, a report, dlt and the MCP server's tools).

    python lowest_smoke.py PINS_FILE EXTRA...
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Callable

import erpdata
from wheel_smoke import TOKEN, start_sandbox

ROWS = 40  # sales_invoice of company 1, year 2025 in the sandbox's demo data


@dataclass
class Run:
    """What each extra's check works with."""

    client: erpdata.Client
    table: erpdata.Table
    total: Decimal
    folder: Path
    script: Path
    env: dict[str, str]

    def cli(self, *args: str) -> str:
        done = subprocess.run(
            [str(self.script), *args], env=self.env, capture_output=True, text=True
        )
        assert done.returncode == 0, (args, done.stderr)
        return done.stdout


def check_arrow(run: Run) -> None:
    import pyarrow as pa

    arrow = run.table.to_arrow()
    assert arrow.num_rows == ROWS and arrow.schema.field("total").type == pa.decimal128(38, 2)
    assert sum(arrow.column("total").to_pylist()) == run.total
    batches = list(run.client.stream_table("sales_invoice", batch_format="arrow", batch_rows=7))
    assert len(batches) == 6 and sum(b.num_rows for b in batches) == ROWS
    run.cli("table", "sales_invoice", "--format", "parquet", "-o", str(run.folder / "t.parquet"))
    assert (run.folder / "t.parquet").stat().st_size > 0


def check_pandas(run: Run) -> None:
    frame = run.table.to_pandas()
    assert str(frame["total"].dtype) == "decimal128(38, 2)[pyarrow]", frame.dtypes
    assert frame["total"].sum() == run.total
    numpy = run.table.to_pandas(dtype_backend="numpy")
    assert numpy["total"].dtype == "float64" and abs(numpy["total"].sum() - float(run.total)) < 0.01
    assert str(numpy["posted_at"].dtype) == "datetime64[us]", numpy.dtypes


def check_polars(run: Run) -> None:
    polars = run.table.to_polars()
    assert polars.height == ROWS and polars["total"].sum() == run.total, polars.schema


def check_export(run: Run) -> None:
    import duckdb
    import pyarrow.parquet as pq

    copy = run.folder / "erp.duckdb"
    assert run.client.export("sales_invoice", to=copy, progress=False).rows == ROWS
    with duckdb.connect(str(copy), read_only=True) as db:
        summed = db.execute("select sum(total) from sales_invoice").fetchone()
    assert summed is not None and Decimal(str(summed[0])) == run.total, summed
    dataset = run.folder / "dataset"
    assert run.client.export("sales_invoice", to=dataset, progress=False).rows == ROWS
    parquet = pq.read_table(dataset)
    assert parquet.num_rows == ROWS and sum(parquet.column("total").to_pylist()) == run.total


def check_excel(run: Run) -> None:
    book = run.table.to_excel(run.folder / "invoices.xlsx", totals=True)
    assert book.sheets == {"Sheet1": ROWS}, book


def check_report(run: Run) -> None:
    report = run.folder / "aging.html"
    run.cli("aging", "--as-of", "2025-12-31", "--format", "html", "-o", str(report))
    html = report.read_text(encoding="utf-8")
    assert "C005" in html and "961,529.72" in html and '<img id="chart"' in html, html[:500]
    assert "Northwind Supplies" in run.cli("credit-status", "--as-of", "2025-12-31")


def check_dlt(run: Run) -> None:
    import dlt
    import duckdb

    from erpdata.dlt import erpdata_source

    os.environ["RUNTIME__DLTHUB_TELEMETRY"] = "false"
    pipeline = dlt.pipeline(
        "erp",
        destination=dlt.destinations.duckdb(str(run.folder / "dlt.duckdb")),
        dataset_name="erp_data",
        pipelines_dir=str(run.folder / "dlt"),
    )
    source = erpdata_source(
        ["sales_invoice"], base_url=run.env["ERPDATA_BASE_URL"], project="demo",
        access_token=TOKEN, companies=[1], years=[2025],
    )  # fmt: skip
    pipeline.run(source)
    with duckdb.connect(str(run.folder / "dlt.duckdb"), read_only=True) as db:
        summed = db.execute("select sum(total) from erp_data.sales_invoice").fetchone()
    assert summed is not None and Decimal(str(summed[0])) == run.total, summed


def check_mcp(run: Run) -> None:
    """`erpdata mcp` over stdio, through the MCP SDK's own client."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def session() -> dict[str, str]:
        params = StdioServerParameters(command=str(run.script), args=["mcp"], env=run.env)
        texts = {}
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            tools = {t.name for t in (await s.list_tools()).tools}
            assert {"table", "aging", "describe_table", "query"} <= tools, tools
            calls = {
                "aging": {"as_of": "2025-12-31"},
                "describe_table": {"name": "sales_invoice"},
                "query": {"sql": "select count(*) as n, sum(total) as t from sales_invoice"},
            }
            for name, arguments in calls.items():
                result = await s.call_tool(name, arguments)
                text = " ".join(getattr(c, "text", "") for c in result.content)
                assert not result.is_error, (name, text)
                texts[name] = text
        return texts

    texts = anyio.run(session)
    assert "12 rows" in texts["aging"], texts["aging"]
    assert f"| {ROWS} | {run.total} |" in texts["query"], texts["query"]


async def async_total(url: str) -> tuple[int, int, Decimal]:
    """The same table through `AsyncClient`: its rows whole and streamed,
    and their total."""
    async with erpdata.AsyncClient(
        url, project="demo", access_token=TOKEN, company_id=1, year_id=2025
    ) as client:
        table = await client.table("sales_invoice")
        streamed = 0
        async for rows in client.stream_table("sales_invoice", batch_rows=7):
            streamed += len(rows)
        return len(table), streamed, sum(row["total"] for row in table)


CHECKS: dict[str, Callable[[Run], None]] = {
    "arrow": check_arrow,
    "pandas": check_pandas,
    "polars": check_polars,
    "export": check_export,
    "excel": check_excel,
    "report": check_report,
    "dlt": check_dlt,
    "mcp": check_mcp,
}


def check_pins(pins: Path) -> list[str]:
    """Every `name==version` of the file is what is installed."""
    installed = []
    for line in pins.read_text(encoding="utf-8").split():
        if "==" not in line:
            continue
        name, version = line.split("==")
        found = importlib.metadata.version(name)
        trimmed = re.sub(r"(\.0)+$", "", found)
        assert trimmed == re.sub(r"(\.0)+$", "", version), (
            f"{name} {found} installed, {version} pinned"
        )
        installed.append(f"{name} {found}")
    assert installed, f"no pins in {pins}"
    return installed


def main() -> None:
    pins, extras = Path(sys.argv[1]), sys.argv[2:]
    unknown = [e for e in extras if e not in CHECKS]
    assert extras and not unknown, f"extras to check: {', '.join(CHECKS)}; got {extras}"
    installed = check_pins(pins)
    script = Path(sys.executable).parent / "erpdata"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERPDATA_")}
    env["PATH"] = os.defpath
    sandbox, url = start_sandbox(script, env)
    env |= {
        "ERPDATA_BASE_URL": url,
        "ERPDATA_PROJECT": "demo",
        "ERPDATA_ACCESS_TOKEN": TOKEN,
        "ERPDATA_COMPANY_ID": "1",
        "ERPDATA_YEAR_ID": "2025",
    }
    client = erpdata.Client(url, project="demo", access_token=TOKEN, company_id=1, year_id=2025)
    try:
        with client, tempfile.TemporaryDirectory() as folder:
            table = client.table("sales_invoice")
            total = sum(row["total"] for row in table)
            assert len(table) == ROWS and isinstance(total, Decimal), (len(table), total)
            assert asyncio.run(async_total(url)) == (ROWS, ROWS, total)
            run = Run(client, table, total, Path(folder), script, env)
            for extra in extras:
                CHECKS[extra](run)
    finally:
        sandbox.terminate()
        sandbox.wait(10)
    print(
        f"lowest versions passed ({', '.join(extras)}) on Python {sys.version.split()[0]}: "
        f"{', '.join(installed)} (numpy {importlib.metadata.version('numpy')})"
    )


if __name__ == "__main__":
    main()
