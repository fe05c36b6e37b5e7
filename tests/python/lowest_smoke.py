"""The wheel with the oldest versions of its dependencies and extras it
declares, on the oldest Python it supports (`make test-lowest`).

Run in a fresh virtualenv that holds the x86_64 wheel and exactly the pins
`scripts/lowest-requirements.py` printed (their file is the argument): it
checks that each installed version is its pin, then that what each extra
is for works against the sandbox the wheel ships, and that the paths agree
with each other (the same totals through rows, Arrow, pandas, polars,
DuckDB, Parquet and a workbook).

    python lowest_smoke.py PINS_FILE
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
import tempfile
from decimal import Decimal
from pathlib import Path

import erpdata
from wheel_smoke import TOKEN, start_sandbox

ROWS = 40  # sales_invoice of company 1, year 2025 in the sandbox's demo data


def check_pins(pins: Path) -> list[str]:
    """Every `name==version` of the file is what is installed."""
    installed = []
    for line in pins.read_text(encoding="utf-8").split():
        if "==" not in line:
            continue
        name, version = line.split("==")
        found = importlib.metadata.version(name)
        padded = re.sub(r"(\.0)+$", "", found)
        assert padded == re.sub(r"(\.0)+$", "", version), (
            f"{name} {found} installed, {version} pinned"
        )
        installed.append(f"{name} {found}")
    assert installed, f"no pins in {pins}"
    return installed


def main() -> None:
    installed = check_pins(Path(sys.argv[1]))
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq

    script = Path(sys.executable).parent / "erpdata"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ERPDATA_")}
    env["PATH"] = os.defpath
    sandbox, url = start_sandbox(script, env)
    try:
        with erpdata.Client(
            url, project="demo", access_token=TOKEN, company_id=1, year_id=2025
        ) as client:
            table = client.table("sales_invoice")
            total = sum(row["total"] for row in table)
            assert len(table) == ROWS and isinstance(total, Decimal), (len(table), total)

            arrow = table.to_arrow()
            assert arrow.num_rows == ROWS and arrow.schema.field("total").type == pa.decimal128(
                38, 2
            )
            assert sum(arrow.column("total").to_pylist()) == total

            frame = table.to_pandas()
            assert str(frame["total"].dtype) == "decimal128(38, 2)[pyarrow]", frame.dtypes
            assert frame["total"].sum() == total
            numpy = table.to_pandas(dtype_backend="numpy")
            assert (
                numpy["total"].dtype == "float64"
                and abs(numpy["total"].sum() - float(total)) < 0.01
            )
            assert str(numpy["posted_at"].dtype) == "datetime64[us]", numpy.dtypes

            polars = table.to_polars()
            assert polars.height == ROWS and polars["total"].sum() == total, polars.schema

            streamed = client.stream_table("sales_invoice", batch_format="arrow", batch_rows=7)
            batches = list(streamed)
            assert len(batches) == 6 and sum(b.num_rows for b in batches) == ROWS

            with tempfile.TemporaryDirectory() as folder:
                copy = Path(folder) / "erp.duckdb"
                result = client.export("sales_invoice", to=copy, progress=False)
                assert result.rows == ROWS, result
                with duckdb.connect(str(copy), read_only=True) as db:
                    summed = db.execute("select sum(total) from sales_invoice").fetchone()
                assert summed is not None and Decimal(str(summed[0])) == total, summed

                dataset = Path(folder) / "dataset"
                assert client.export("sales_invoice", to=dataset, progress=False).rows == ROWS
                parquet = pq.read_table(dataset)
                assert (
                    parquet.num_rows == ROWS and sum(parquet.column("total").to_pylist()) == total
                )

                book = table.to_excel(Path(folder) / "invoices.xlsx", totals=True)
                assert book.sheets == {"Sheet1": ROWS}, book

                cli_env = {
                    **env,
                    "ERPDATA_BASE_URL": url,
                    "ERPDATA_PROJECT": "demo",
                    "ERPDATA_ACCESS_TOKEN": TOKEN,
                    "ERPDATA_COMPANY_ID": "1",
                    "ERPDATA_YEAR_ID": "2025",
                }
                report = Path(folder) / "aging.html"
                done = subprocess.run(
                    [
                        str(script),
                        "aging",
                        "--as-of",
                        "2025-12-31",
                        "--format",
                        "html",
                        "-o",
                        str(report),
                    ],
                    env=cli_env,
                    capture_output=True,
                    text=True,
                )
                assert done.returncode == 0, done.stderr
                html = report.read_text(encoding="utf-8")
                assert "C005" in html and "961,529.72" in html and '<img id="chart"' in html, html[
                    :500
                ]
                done = subprocess.run(
                    [str(script), "credit-status", "--as-of", "2025-12-31"],
                    env=cli_env,
                    capture_output=True,
                    text=True,
                )
                assert done.returncode == 0 and "Northwind Supplies" in done.stdout, done
    finally:
        sandbox.terminate()
        sandbox.wait(10)
    print(
        f"lowest versions passed on Python {sys.version.split()[0]}: {', '.join(installed)}"
        f" (numpy {importlib.metadata.version('numpy')})"
    )


if __name__ == "__main__":
    main()
