"""erpdata.spark on a real local Spark (make test-spark): the sandbox's
tables read through the Python data source, one partition per (table,
company, year), with the rows, types and totals erpdata's own client gives,
and the token in no plan, error or log line."""

from __future__ import annotations

import contextlib
import datetime
import decimal
import http.server
import io
import json
import os
import re
import subprocess
import sys
import threading
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession
from pyspark.sql.datasource import InputPartition

import erpdata
from erpdata.spark import ErpDataSource

ROOT = Path(__file__).resolve().parents[2]
# The Python suite's helpers for finding the token (no imports of their own).
sys.path.insert(0, str(ROOT / "tests" / "python"))
from leaks import package_frames  # noqa: E402

SANDBOX_BIN = os.environ.get(
    "ERPDATA_SANDBOX_BIN", str(ROOT / "target" / "debug" / "erpdata-sandbox")
)
TOKEN = "fake-spark-token-9f3c"


@pytest.fixture(scope="module")
def sandbox_url() -> Iterator[str]:
    with subprocess.Popen(
        [SANDBOX_BIN, "--port", "0", "--quiet", "--token", TOKEN],
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:  # its end closes the pipe and waits for the process
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        try:
            yield url
        finally:
            proc.terminate()


@pytest.fixture(scope="module")
def empty_first_url() -> Iterator[str]:
    """A sandbox whose sales_invoice has no rows in company 1, 2025 (a
    year just begun) and its usual rows elsewhere."""
    with subprocess.Popen(
        [SANDBOX_BIN, "--port", "0", "--quiet", "--token", TOKEN, "--rows", "0"],
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        try:
            yield url
        finally:
            proc.terminate()


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("erpdata-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    session.dataSource.register(ErpDataSource)
    try:
        yield session
    finally:
        session.stop()


def reader(spark: SparkSession, url: str) -> object:
    return (
        spark.read.format("erpdata")
        .option("baseUrl", url)
        .option("project", "demo")
        .option("accessToken", TOKEN)
    )


def test_one_partition_per_table_company_year(spark: SparkSession, sandbox_url: str) -> None:
    df = (
        reader(spark, sandbox_url)
        .option("tables", "sales_invoice")  # type: ignore[attr-defined]
        .option("companies", "1,2")
        .option("years", "2024,2025")
        .load()
    )
    assert df.rdd.getNumPartitions() == 4
    types = dict(df.dtypes)
    assert types["total"].startswith("decimal(")
    assert types["date"] == "date"
    assert types["posted_at"] == "timestamp_ntz"
    # The table's own compid and yearid (the sandbox sends them, as a PHP
    # service's SELECT * does) are kept once, typed as sent; `table` added.
    assert df.columns[:3] == ["compid", "yearid", "invoice_no"]
    assert df.columns[-1] == "table" and df.columns.count("compid") == 1
    assert types["compid"] == types["yearid"] == "bigint"
    counts = {
        (r["compid"], r["yearid"]): r["count"]
        for r in df.groupBy("compid", "yearid").count().collect()
    }
    with erpdata.Client(sandbox_url, project="demo", access_token=TOKEN) as client:
        for compid in (1, 2):
            for yearid in (2024, 2025):
                table = client.table("sales_invoice", company_id=compid, year_id=yearid)
                assert counts[(compid, yearid)] == len(table)
                total = sum((row["total"] for row in table), decimal.Decimal(0))
                got = (
                    df.where(f"compid = {compid} AND yearid = {yearid}")
                    .agg({"total": "sum"})
                    .first()
                )
                assert got is not None and got[0] == total
    # account has a compid of its own and no yearid: the partition's is
    # added, as text, as given.
    accounts = (
        reader(spark, sandbox_url)
        .option("tables", "account")  # type: ignore[attr-defined]
        .option("companies", "1,2")
        .option("years", "2025")
        .load()
    )
    assert accounts.columns[:2] == ["compid", "acid"]
    assert accounts.columns[-2:] == ["table", "yearid"]
    assert dict(accounts.dtypes)["yearid"] == "string"
    by_company = accounts.groupBy("compid", "yearid").count().collect()
    assert sorted(tuple(r) for r in by_company) == [(1, "2025", 20), (2, "2025", 20)]


def test_a_first_partition_without_rows_keeps_the_columns(
    spark: SparkSession, empty_first_url: str
) -> None:
    # The schema was read from the first partition only: with no rows
    # there, the DataFrame had no column but table, compid and yearid, and
    # company 2's invoices came back as 28 rows of nothing else.
    df = (
        reader(spark, empty_first_url)
        .option("tables", "sales_invoice")  # type: ignore[attr-defined]
        .option("companies", "1,2")
        .option("years", "2025")
        .load()
    )
    with erpdata.Client(empty_first_url, project="demo", access_token=TOKEN) as client:
        assert len(client.table("sales_invoice", company_id=1, year_id=2025)) == 0
        table = client.table("sales_invoice", company_id=2, year_id=2025)
    assert df.columns[:3] == ["compid", "yearid", "invoice_no"]
    assert dict(df.dtypes)["total"].startswith("decimal(")
    rows = df.groupBy("compid").agg({"total": "sum", "*": "count"}).collect()
    total = sum((row["total"] for row in table), decimal.Decimal(0))
    assert [tuple(r) for r in rows] == [(2, total, len(table))]


def test_each_tables_columns_are_kept(spark: SparkSession, sandbox_url: str) -> None:
    # The schema was the first table's: receipt's rows came back without
    # receipt_no and mode, account's without acid and name, silently.
    df = (
        reader(spark, sandbox_url)
        .option("tables", "sales_invoice,receipt,account")  # type: ignore[attr-defined]
        .option("companies", "1")
        .option("years", "2025")
        .load()
    )
    types = dict(df.dtypes)
    assert types["amount"].startswith("decimal(") and types["date"] == "date"
    # compid and yearid are sales_invoice's and receipt's own, numbers;
    # account has no yearid, so its rows take the partition's.
    assert types["compid"] == types["yearid"] == "bigint"
    got = [row.asDict() for row in df.collect()]
    with erpdata.Client(sandbox_url, project="demo", access_token=TOKEN) as client:
        for name in ("sales_invoice", "receipt", "account"):
            table = client.table(name, company_id=1, year_id=2025)
            rows = [row for row in got if row["table"] == name]
            assert len(rows) == len(table) > 0, name
            assert {(r["compid"], r["yearid"]) for r in rows} == {(1, 2025)}, name
            # Every column the table sent, value for value (the others null).
            for column in table.columns:
                key = lambda v: (v is None, str(v))  # noqa: E731
                sent = sorted((r[column] for r in table), key=key)
                assert sorted((r[column] for r in rows), key=key) == sent, (name, column)
    assert all(r["receipt_no"] is None for r in got if r["table"] == "account")


def test_the_method_option_is_every_requests(spark: SparkSession, sandbox_url: str) -> None:
    # The schema was read with a POST whatever the option said.
    key = f"method-{os.getpid()}"
    df = (
        reader(spark, f"{sandbox_url}/_faults/pass/{key}/")
        .option("tables", "account")  # type: ignore[attr-defined]
        .option("companies", "1,2")
        .option("years", "2025")
        .option("method", "GET")
        .load()
    )
    assert df.count() == 40
    with urllib.request.urlopen(f"{sandbox_url}/_faults/log/{key}", timeout=10) as answer:
        methods = [request["method"] for request in json.load(answer)]
    assert methods and set(methods) == {"GET"}, methods


def test_a_given_schema_declares_the_types(spark: SparkSession, sandbox_url: str) -> None:
    df = (
        reader(spark, sandbox_url)
        .schema(  # type: ignore[attr-defined]
            "invoice_no STRING, total DECIMAL(14,2), customer STRING, table STRING, compid STRING, yearid STRING"
        )
        .option("tables", "sales_invoice")
        .option("companies", "1")
        .option("years", "2025")
        .load()
    )
    assert dict(df.dtypes)["total"] == "decimal(14,2)"
    assert df.count() == 40
    assert df.columns == ["invoice_no", "total", "customer", "table", "compid", "yearid"]


def test_the_token_is_in_no_plan_or_error(
    spark: SparkSession, sandbox_url: str, capfd: pytest.CaptureFixture[str]
) -> None:
    df = (
        reader(spark, sandbox_url)
        .option("tables", "account")  # type: ignore[attr-defined]
        .option("companies", "1")
        .option("years", "2025")
        .load()
    )
    plan = df._jdf.queryExecution().toString()
    assert TOKEN not in plan
    with pytest.raises(Exception) as err:
        (
            reader(spark, sandbox_url)
            .option("tables", "no_such_table")  # type: ignore[attr-defined]
            .option("companies", "1")
            .option("years", "2025")
            .load()
            .count()
        )
    assert "Unknown table" in str(err.value)
    assert TOKEN not in str(err.value)
    out, errout = capfd.readouterr()
    assert TOKEN not in out and TOKEN not in errout


def test_no_frame_of_the_data_source_holds_the_token(sandbox_url: str) -> None:
    # Spark's options were a local of every frame that read them: a
    # traceback printed with its locals (Sentry's default) showed the token.
    options = {
        "baseUrl": sandbox_url,
        "project": "demo",
        "accessToken": TOKEN,
        "tables": "account",
        "companies": "1",
        "years": "2025",
    }
    caught: list[BaseException] = []
    for run in (
        lambda: ErpDataSource({**options, "timeout": "-5"}).schema(),
        lambda: ErpDataSource({**options, "tables": "no_such_table"}).schema(),
    ):
        with pytest.raises(erpdata.ErpError) as err:
            run()
        caught.append(err.value)
    source = ErpDataSource(options)
    reader = source.reader(source.schema())
    with pytest.raises(erpdata.ServiceError) as err:
        list(reader.read(InputPartition(("no_such_table", "1", "2025"))))
    caught.append(err.value)
    shown = [package_frames(error) for error in caught]
    assert all("spark.py" in frames for frames in shown), shown
    assert "options = Settings(" in shown[0], shown[0][-2000:]
    for frames in shown:
        assert TOKEN not in frames, frames
    assert TOKEN not in repr(source.options) + repr(reader._options)


def test_bad_options_are_refused_before_anything_is_sent(
    spark: SparkSession, sandbox_url: str
) -> None:
    with pytest.raises(Exception) as err:
        reader(spark, sandbox_url).option("tables", "sales;drop").option(  # type: ignore[attr-defined]
            "companies", "1"
        ).option("years", "2025").load()
    assert "table" in str(err.value)
    # Each on the driver, naming the option: not a ValueError of float(),
    # nor, for batchRows and method, a failure of the first task.
    for name, value, said in [
        ("timeout", "ten", "invalid timeout: must be a number of seconds, got 'ten'"),
        ("maxRetries", "2.5", "invalid maxRetries: must be a whole number, got '2.5'"),
        ("maxRetryAfter", "soon", "invalid maxRetryAfter: must be a number of seconds"),
        ("maxRetryAfter", "-1", "invalid max_retry_after: must be a number of seconds from 0"),
        ("batchRows", "lots", "invalid batchRows: must be a whole number, got 'lots'"),
        ("batchRows", "0", "batch_rows"),
        ("method", "PUT", "method"),
    ]:
        options = (
            reader(spark, sandbox_url)
            .option("tables", "sales_invoice")  # type: ignore[attr-defined]
            .option("companies", "1")
            .option("years", "2025")
            .option(name, value)
        )
        with pytest.raises(Exception) as err:
            options.load()  # the schema read on the driver
        assert said in str(err.value), (name, value, str(err.value)[:300])
    # With a schema given, the reader made on the driver checks them.
    with pytest.raises(Exception) as err:
        (
            reader(spark, sandbox_url)
            .schema("invoice_no STRING")  # type: ignore[attr-defined]
            .option("tables", "sales_invoice")
            .option("companies", "1")
            .option("years", "2025")
            .option("batchRows", "lots")
            .load()
            .count()
        )
    assert "invalid batchRows: must be a whole number, got 'lots'" in str(err.value)


class _PhpLikeService(http.server.BaseHTTPRequestHandler):
    """A table fetch answered as a PHP service's `SELECT *` answers it:
    each row carries its own compid and yearid columns."""

    def rows(self, compid: int, yearid: int) -> list[dict[str, object]]:
        return [
            {"id": i, "compid": compid, "yearid": yearid, "amount": f"{compid}{i}.50"}
            for i in range(compid + 1)
        ]

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        rows = self.rows(int(form["compid"][0]), int(form["yearid"][0]))
        body = json.dumps({"status": "success", "data": rows}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def serving(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """A loopback HTTP server answering with ``handler``: its URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_tables_own_compid_and_yearid_are_kept_not_doubled(spark: SparkSession) -> None:
    # Two columns of one name made every use of it ambiguous
    # (AMBIGUOUS_REFERENCE); the table's own are kept, `table` added.
    with serving(_PhpLikeService) as url:
        df = (
            reader(spark, url)
            .option("tables", "sales_invoice")  # type: ignore[attr-defined]
            .option("companies", "1,2")
            .option("years", "2025")
            .load()
        )
        assert df.columns == ["id", "compid", "yearid", "amount", "table"]
        counts = sorted(tuple(r) for r in df.groupBy("compid", "yearid").count().collect())
        assert counts == [(1, 2025, 2), (2, 2025, 3)]
        assert {r[0] for r in df.select("table").distinct().collect()} == {"sales_invoice"}


class _NullInOneCompany(_PhpLikeService):
    """credit notes whose discount and settled_on are NULL on every row of
    company 1 and money and dates in company 2's, as a PHP service sends
    a column one company never fills."""

    def rows(self, compid: int, yearid: int) -> list[dict[str, object]]:
        return [
            {
                "id": compid * 10 + i,
                "compid": compid,
                "amount": f"{100 + i}.00",
                "discount": None if compid == 1 else f"{i}.25",
                "settled_on": None if compid == 1 else f"2025-03-0{i + 1}",
            }
            for i in range(2)
        ]


def test_a_column_null_in_the_first_partition_is_typed_from_the_next(
    spark: SparkSession,
) -> None:
    # The schema was read from company 1's rows only: discount and
    # settled_on, NULL there, were string columns, and company 2's money
    # and dates came back as text.
    with serving(_NullInOneCompany) as url:
        df = (
            reader(spark, url)
            .option("tables", "credit_note")  # type: ignore[attr-defined]
            .option("companies", "1,2")
            .option("years", "2025")
            .load()
        )
        types = dict(df.dtypes)
        rows = sorted(tuple(r) for r in df.select("id", "discount", "settled_on").collect())
    assert types["discount"] == "decimal(38,2)" and types["settled_on"] == "date", types
    assert rows == [
        (10, None, None),
        (11, None, None),
        (20, decimal.Decimal("0.25"), datetime.date(2025, 3, 1)),
        (21, decimal.Decimal("1.25"), datetime.date(2025, 3, 2)),
    ]


class _MoreDigitsInOneCompany(_PhpLikeService):
    """Exchange rates, a DOUBLE a PHP service sends with the digits each
    needs: two after the point in company 1's rows, four in company 2's."""

    def rows(self, compid: int, yearid: int) -> list[dict[str, object]]:
        return [{"id": compid, "rate": 83.25 if compid == 1 else 1.0825}]


def test_a_value_the_schema_cannot_hold_says_how_to_read_it_in_spark(
    spark: SparkSession,
) -> None:
    # The schema is read from company 1's rows (decimal(38,2)); company
    # 2's 1.0825 does not fit it. The core's error said to "declare
    # another type", which a Spark user does with spark.read.schema.
    with serving(_MoreDigitsInOneCompany) as url:
        df = (
            reader(spark, url)
            .option("tables", "fx_rate")  # type: ignore[attr-defined]
            .option("companies", "1,2")
            .option("years", "2025")
            .load()
        )
        assert dict(df.dtypes)["rate"] == "decimal(38,2)"
        with pytest.raises(Exception) as failed:
            df.collect()
        said = str(failed.value)
        assert "DecodeError" in said and "column `rate`, row 1" in said, said
        ddl = "`id` BIGINT, `rate` STRING, `table` STRING, `compid` STRING, `yearid` STRING"
        assert f'spark.read.schema("{ddl}")' in said, said
        # As it says: read with that schema, every value as sent.
        given = (
            reader(spark, url)
            .schema(ddl)  # type: ignore[attr-defined]
            .option("tables", "fx_rate")
            .option("companies", "1,2")
            .option("years", "2025")
            .load()
        )
        assert sorted(r["rate"] for r in given.collect()) == ["1.0825", "83.25"]


def test_the_documented_examples_run(
    spark: SparkSession, sandbox_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Spark examples of the README and docs/data-stack.md, as written,
    on this session."""
    monkeypatch.setenv("ERPDATA_ACCESS_TOKEN", TOKEN)
    with erpdata.Client(sandbox_url, project="demo", access_token=TOKEN) as client:
        totals = {
            (compid, yearid): sum(
                (
                    r["total"]
                    for r in client.table("sales_invoice", company_id=compid, year_id=yearid)
                ),
                decimal.Decimal(0),
            )
            for compid in ("1", "2")
            for yearid in ("2024", "2025")
        }
    ran = 0
    for page in ("README.md", "docs/data-stack.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        for code in re.findall(r"```python\n(.*?)```", text, re.S):
            if "pyspark" not in code:
                continue
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code.replace("http://127.0.0.1:8787", sandbox_url), page, "exec"), {})
            shown = out.getvalue()
            assert TOKEN not in shown
            by_year = "yearid" in code.split("groupBy(")[1].split(")")[0]
            for (compid, yearid), total in totals.items():
                if by_year:
                    pattern = rf"\|\s*{compid}\|\s*{yearid}\|\s*{total}\|"
                elif yearid == "2025":
                    pattern = rf"\|\s*{compid}\|\s*{total}\|"
                else:
                    continue
                assert re.search(pattern, shown), (page, pattern, shown)
            ran += 1
    assert ran == 2
