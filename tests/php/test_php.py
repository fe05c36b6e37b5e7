"""The Python client against the real PHP service over MariaDB (tests/php).

Run by tests/php/run.sh (make test-php), which starts the service and sets
ERPDATA_PHP_URL. Every test runs against both code paths of the service:
project ``modern`` (mysqlnd prepared statements: INT native, DECIMAL and
dates as strings) and ``legacy`` (mysqli_query: every value a string).
"""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import httpx
import pyarrow as pa
import pytest

import erpdata

TOKEN = "php-test-token-not-secret"
PROJECTS = ["modern", "legacy"]

# What the seed data (tests/php/schema.sql) holds, company 1, year 2025.
INVOICE_COLUMNS = [
    "id",
    "compid",
    "yearid",
    "invoice_no",
    "date",
    "due_date",
    "customer",
    "amount",
    "tax",
    "total",
    "items",
    "posted_at",
    "cleared_on",
    "remarks",
]
C001_DUES = ["INV-2025-0001", "INV-2025-0014", "INV-2025-0040"]


def _url() -> str:
    url = os.environ.get("ERPDATA_PHP_URL")
    if not url:
        # Never a silent skip: without the service nothing here was tested.
        pytest.fail(
            "ERPDATA_PHP_URL is not set: run `make test-php` (tests/php/run.sh starts the PHP service)"
        )
    return url


@pytest.fixture(scope="session")
def php_url() -> str:
    return _url()


@pytest.fixture(params=PROJECTS)
def project(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def client(php_url: str, project: str) -> Iterator[erpdata.Client]:
    with erpdata.Client(
        php_url,
        project=project,
        access_token=TOKEN,
        company_id=1,
        year_id=2025,
        timeout=20.0,
        max_retries=0,
    ) as c:
        yield c


def expected(
    php_url: str, table: str, column: str, compid: int = 1, yearid: int = 2025
) -> dict[str, str]:
    """What MariaDB itself says: the row count and the exact SUM(column)."""
    res = httpx.get(
        f"{php_url}/_test/expected.php",
        params={"table": table, "column": column, "compid": compid, "yearid": yearid},
        timeout=20.0,
    )
    res.raise_for_status()
    answer: dict[str, str] = res.json()
    assert "rows" in answer, answer
    return answer


def is_string(t: Any) -> bool:
    """A string column (dictionary-encoded strings count)."""
    if pa.types.is_dictionary(t):
        t = t.value_type
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t))


def by_acid(table: erpdata.Table) -> dict[str, dict[str, Any]]:
    return {row["acid"]: row for row in table}


# --- the wire: requests, escapes, notices, errors ------------------------------


def test_post_and_get_give_the_same_rows(client: erpdata.Client, php_url: str) -> None:
    posted = client.table("sales_invoice")
    fetched = client.table("sales_invoice", method="GET")
    assert len(posted) == int(expected(php_url, "sales_invoice", "amount")["rows"]) == 40
    assert posted.columns == INVOICE_COLUMNS
    assert list(posted) == list(fetched)
    assert posted.notices == []
    assert [row["invoice_no"] for row in posted][:2] == ["INV-2025-0001", "INV-2025-0002"]


def test_company_and_year_filter_the_rows(client: erpdata.Client, php_url: str) -> None:
    other = client.table("sales_invoice", company_id=2, year_id=2024)
    assert len(other) == int(expected(php_url, "sales_invoice", "amount", 2, 2024)["rows"]) == 22
    assert {str(row["compid"]) for row in other} == {"2"}
    assert {str(row["yearid"]) for row in other} == {"2024"}
    bills = client.table("purchase_bill", company_id="01", year_id="2025")
    assert len(bills) == 24


def test_json_encode_escapes_are_decoded(client: erpdata.Client) -> None:
    accounts = by_acid(client.table("account"))
    assert accounts["C001"]["name"] == "Müller GmbH"  # "M\u00fcller GmbH"
    assert accounts["C002"]["name"] == "A/B Traders"  # "A\/B Traders"
    assert accounts["C003"]["name"] == 'Café "Zum Löwen"'
    assert accounts["C007"]["name"] == "Tokyo 商事"
    assert accounts["C009"]["name"] == "O'Brien Ltd"
    assert (
        accounts["C010"]["name"] == "Emoji Shop \N{SHOPPING TROLLEY}"
    )  # a surrogate pair on the wire
    invoices = client.table("sales_invoice")
    assert invoices[1]["remarks"] == "Delivered \N{CHECK MARK} \N{THUMBS UP SIGN}"
    assert invoices[2]["remarks"] == 'Ref: A/B-7 "urgent"'


def test_a_php_warning_before_the_json_is_kept_as_a_notice(client: erpdata.Client) -> None:
    table = client.table("noisy")
    assert len(table.notices) == 1, table.notices
    assert "Undefined variable $debug_where" in table.notices[0]
    assert [row["label"] for row in table] == ["first", "zweite Zeile", "third"]
    assert [str(row["amount"]) for row in table] == ["10.50", "20.00", "0.05"]
    streamed = [row for rows in client.stream_table("noisy") for row in rows]
    assert [row["label"] for row in streamed] == ["first", "zweite Zeile", "third"]


def test_a_fatal_error_page_is_a_decode_error(client: erpdata.Client) -> None:
    with pytest.raises(erpdata.DecodeError) as caught:
        client.table("broken")
    assert "erp_format_rows" in str(caught.value) or "Fatal error" in str(caught.value)


ECHOED = [
    (
        "echoed_fatal",
        "PHP Fatal error: Uncaught Error: Call to undefined function erp_format_row()",
    ),
    ("echoed_memory", "PHP Fatal error: Allowed memory size of 4194304 bytes exhausted"),
    ("echoed_timeout", "PHP Fatal error: Maximum execution time of 1 second exceeded"),
]
"""The PHP service's tables whose script echoes half the rows one by one,
then stops with PHP's error, and what that error says."""


@pytest.mark.parametrize(("table", "said"), ECHOED)
def test_a_php_error_after_echoed_rows_leads_the_message(
    client: erpdata.Client, table: str, said: str
) -> None:
    half = len(client.table("sales_invoice")) // 2
    for read in (client.table, lambda t: [b for b in client.stream_table(t, batch_rows=1)]):
        with pytest.raises(erpdata.DecodeError) as caught:
            read(table)
        err = caught.value
        # Every row echoed arrives, but when PHP runs out of memory it drops
        # what its output buffer held: as many rows as reached the client.
        found = re.search(r"the service failed after (\d+) complete rows: (.*)", str(err))
        assert found is not None and found.group(2).startswith(said), err
        rows = int(found.group(1))
        assert rows == err.rows_received and (rows == half or table == "echoed_memory"), err
        assert 0 < rows <= half, err
        # The excerpt is where the body broke off, and shows PHP's error.
        assert err.excerpt_at is not None and err.excerpt_at > 1000, err
        assert "Fatal error" in err.excerpt, err.excerpt


def test_an_empty_answer_names_json_encode(client: erpdata.Client) -> None:
    with pytest.raises(erpdata.DecodeError) as caught:
        client.table("latin1")
    message = str(caught.value)
    assert "the body is empty" in message and "json_encode" in message, message


def test_service_errors(client: erpdata.Client, php_url: str, project: str) -> None:
    with erpdata.Client(
        php_url, project=project, access_token="wrong-token", company_id=1, year_id=2025
    ) as wrong:
        with pytest.raises(erpdata.ServiceError, match="Invalid access token"):
            wrong.table("sales_invoice")
    with pytest.raises(erpdata.ServiceError, match="Unknown table: users"):
        client.table("users")
    with pytest.raises(erpdata.ServiceError, match="Invalid company or year"):
        client.table("sales_invoice", company_id=3)
    with pytest.raises(erpdata.ServiceError, match="Unknown account: NOPE"):
        client.receivables("NOPE")


def test_dues_of_an_account(client: erpdata.Client) -> None:
    dues = client.receivables("C001")
    assert [row["doc_no"] for row in dues.rows] == C001_DUES
    assert list(dues.rows[0]) == ["doc_no", "date", "due_date", "amount", "paid", "balance"]
    assert str(dues.rows[0]["balance"]) == "1650.00"
    assert str(dues.rows[2]["paid"]) == "2800.95"  # partly paid
    assert [row["doc_no"] for row in client.payables("S001").rows] == [
        "BILL-2025-0001",
        "BILL-2025-0009",
        "BILL-2025-0017",
    ]
    assert client.receivables("C012").rows == []  # always pays in full
    assert client.payables("C001").rows == []  # a customer has no payables


def test_an_id_with_a_leading_zero_stays_text(client: erpdata.Client) -> None:
    accounts = client.table("account")
    bond = [row for row in accounts if row["name"] == "Bond Supplies"]
    assert [row["acid"] for row in bond] == ["007"]
    customers = {row["customer"] for row in client.table("sales_invoice")}
    assert "007" in customers
    dues = client.receivables("007")
    assert dues.acid == "007"
    assert [row["doc_no"] for row in dues.rows] == ["INV-2025-0013", "INV-2025-0026"]


# --- typing (the core's typed columns) -----------------------------------------


def kind(t: Any) -> str:
    """An Arrow type as these tests compare it: decimals by scale only (any
    precision), strings whatever their encoding."""
    if pa.types.is_decimal(t):
        return f"decimal(*,{t.scale})"
    if is_string(t):
        return "string"
    return str(t)


def kinds(schema: Any, names: list[str]) -> dict[str, str]:
    return {name: kind(schema.field(name).type) for name in names}


def test_sales_invoice_arrow_schema(client: erpdata.Client) -> None:
    schema = client.table("sales_invoice").to_arrow().schema
    # One comparison, so a failure shows every column's type at once.
    assert kinds(schema, INVOICE_COLUMNS) == {
        "id": "int64",
        "compid": "int64",
        "yearid": "int64",
        "invoice_no": "string",
        "date": "date32[day]",
        "due_date": "date32[day]",
        "customer": "string",  # '007' among 'C001'...
        "amount": "decimal(*,2)",
        "tax": "decimal(*,2)",
        "total": "decimal(*,2)",
        "items": "int64",
        "posted_at": "timestamp[us]",  # no time zone
        "cleared_on": "date32[day]",
        "remarks": "string",
    }


def test_zero_dates_and_nulls_are_nulls_in_arrow(client: erpdata.Client) -> None:
    arrow = client.table("sales_invoice").to_arrow()
    # Every 4th invoice is not cleared: '0000-00-00' on the wire.
    assert arrow.column("cleared_on").null_count == 10
    # The last invoice is a draft: posted_at '0000-00-00 00:00:00'.
    assert arrow.column("posted_at").null_count == 1
    # remarks: NULL for every 3rd but the 3rd.
    assert arrow.column("remarks").null_count == 12


def test_a_stream_has_one_schema_of_the_same_kinds(client: erpdata.Client) -> None:
    whole = client.table("sales_invoice").to_arrow().schema
    batches = list(client.stream_table("sales_invoice", batch_format="arrow", batch_rows=16))
    assert [b.num_rows for b in batches] == [16, 16, 8]
    # One schema for every batch (a stream's decimals may be wider than the
    # whole table's: it cannot see the later values).
    assert len({b.schema for b in batches}) == 1, [b.schema for b in batches]
    names = ["amount", "items", "date", "posted_at", "cleared_on", "remarks"]
    assert kinds(batches[0].schema, names) == kinds(whole, names)


def test_rows_are_typed(client: erpdata.Client) -> None:
    rows = client.table("sales_invoice")
    first = rows[0]
    assert isinstance(first["amount"], Decimal) and str(first["amount"]) == "1500.00"
    assert first["amount"] == Decimal("1500.00")
    assert first["date"] == datetime.date(2025, 1, 1)
    assert first["posted_at"] == datetime.datetime(2025, 1, 1, 9, 22, 53)
    assert type(first["items"]) is int and first["items"] == 8
    assert type(first["id"]) is int
    assert rows[3]["cleared_on"] is None  # '0000-00-00'
    assert rows[39]["posted_at"] is None  # '0000-00-00 00:00:00'
    assert rows[5]["remarks"] is None  # NULL
    assert rows[4]["remarks"] == ""  # an empty string stays one
    assert str(rows[9]["amount"]) == "-250.00"  # a credit note


def test_pandas_sum_is_the_exact_sql_sum(client: erpdata.Client, php_url: str) -> None:
    frame = client.table("sales_invoice").to_pandas()
    for column in ("amount", "total"):
        total = frame[column].sum()
        assert isinstance(total, Decimal), (column, frame[column].dtype, type(total))
        assert total == Decimal(expected(php_url, "sales_invoice", column)["sum"]), column


def test_account_types(client: erpdata.Client) -> None:
    table = client.table("account")
    schema = table.to_arrow().schema
    assert kinds(schema, table.columns) == {
        "compid": "int64",
        "acid": "string",
        "name": "string",
        "kind": "string",
        "city": "string",
        "credit_limit": "decimal(*,2)",
        "credit_days": "int64",
        "active": "int64",
        "created_at": "timestamp[us]",
        "updated_at": "timestamp[us]",
    }
    accounts = by_acid(table)
    assert accounts["007"]["acid"] == "007"
    assert accounts["C001"]["updated_at"] == datetime.datetime(2025, 4, 1, 13, 45, 0, 123456)
    assert accounts["C003"]["updated_at"] == datetime.datetime(2025, 1, 10, 17, 30, 5, 1)
    assert accounts["C005"]["updated_at"] is None  # '0000-00-00 00:00:00.000000'
    assert accounts["C005"]["created_at"] is None  # '0000-00-00 00:00:00'
    assert accounts["C007"]["updated_at"] is None  # NULL
    assert accounts["C005"]["active"] == 0 and type(accounts["C005"]["active"]) is int
    assert accounts["C003"]["city"] is None
    assert accounts["C006"]["credit_limit"] == Decimal("1250000.75")


def test_dues_balance_is_a_decimal(client: erpdata.Client) -> None:
    rows = client.receivables("C001").rows
    assert isinstance(rows[0]["balance"], Decimal), type(rows[0]["balance"])
    assert rows[0]["balance"] == Decimal("1650.00")
    assert sum((row["balance"] for row in rows), Decimal(0)) == Decimal("7788.02")


# --- schema control -------------------------------------------------------------


def test_schema_overrides(client: erpdata.Client) -> None:
    table = client.table(
        "account",
        schema_overrides={
            "acid": "string",
            "credit_limit": "decimal(18,4)",
            "created_at": "timestamp",
        },
    )
    schema = table.to_arrow().schema
    assert is_string(schema.field("acid").type)
    assert schema.field("credit_limit").type == pa.decimal128(18, 4)
    assert schema.field("created_at").type == pa.timestamp("us")
    accounts = by_acid(table)
    assert accounts["C001"]["credit_limit"] == Decimal("50000.00")
    assert accounts["C005"]["created_at"] is None


def test_infer_strings_off(client: erpdata.Client, project: str) -> None:
    table = client.table("account", infer_strings=False)
    schema = table.to_arrow().schema
    if project == "legacy":
        # Every value was sent as a string (or null): every column stays string.
        assert all(is_string(f.type) for f in schema), schema
        assert by_acid(table)["C001"]["credit_limit"] == "50000.00"
    else:
        # mysqlnd sent INT columns as numbers; DECIMAL and DATETIME as strings.
        assert schema.field("credit_days").type == pa.int64()
        assert schema.field("active").type == pa.int64()
        assert is_string(schema.field("credit_limit").type)
        assert is_string(schema.field("updated_at").type)
        assert by_acid(table)["C005"]["updated_at"] == "0000-00-00 00:00:00.000000"


# --- the other functions of ajax.php ---------------------------------------------


def test_each_function_in_its_own_shape(client: erpdata.Client) -> None:
    """The PHP service answers each function its own way: rows, fields
    beside status, a bare JSON string, data as one object; each is typed
    the same on both code paths (counts int whether sent as numbers or as
    strings)."""
    summary = client.dues_summary()
    assert summary.shape == "rows"
    assert dict(summary.schema)["documents"] == "int"
    assert all(isinstance(r["balance"], Decimal) for r in summary.rows)
    avg = client.avg_pay_days("C001")
    assert avg.shape == "object" and isinstance(avg.fields["payments"], int)
    assert isinstance(avg.fields["avg_pay_days"], Decimal)
    net = client.net_profit(datetime.date(2025, 1, 1), "2025-12-31")
    assert net.shape == "value" and isinstance(net.value, Decimal)
    gross = client.gross_profit("2025-01-01", "2025-06-30").fields
    assert gross["gross_profit"] == gross["sales"] - gross["cost_of_sales"]
    creditors = client.schedule_accounts("Sundry Creditors", "2025-01-01", "2025-12-31")
    assert creditors.rows and all(r["acid"].startswith("S") for r in creditors.rows)
    with pytest.raises(erpdata.ServiceError):
        client.schedule_accounts("Nobody", "2025-01-01", "2025-12-31")


def test_the_summary_is_the_sum_of_the_dues(client: erpdata.Client) -> None:
    summary = client.dues_summary()
    table = client.dues_table([r["acid"] for r in summary.rows], "receipt", concurrency=4)
    for row in summary.rows:
        owed = sum((r["balance"] for r in table if r["acid"] == row["acid"]), Decimal(0))
        assert owed == row["balance"], row["acid"]


# --- the dlt source over a service whose tables carry compid and yearid ---------


def test_dlt_keeps_the_tables_own_compid_and_yearid(
    php_url: str, project: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A PHP service's `SELECT *` sends the compid and yearid columns; the
    # source added a second of each, and dlt loaded the columns shifted
    # (company 1's rows with compid 2025).
    import dlt  # pinned in requirements-dev.txt: a missing one fails, never skips
    import duckdb

    from erpdata.dlt import erpdata_source

    monkeypatch.setenv("RUNTIME__DLTHUB_TELEMETRY", "false")
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "warehouse.duckdb"
    pipeline = dlt.pipeline(
        pipeline_name=f"php_{project}",
        pipelines_dir=str(tmp_path / "pipelines"),
        destination=dlt.destinations.duckdb(str(db)),
        dataset_name="erp",
    )
    source = erpdata_source(
        ["sales_invoice", "account"],
        companies=[1, 2],
        years=[2025],
        base_url=php_url,
        project=project,
        access_token=TOKEN,
        write_disposition="merge",
    )
    assert not pipeline.run(source).has_failed_jobs
    con = duckdb.connect(str(db))
    try:
        invoices = con.execute(
            "SELECT compid, yearid, count(*) FROM erp.sales_invoice GROUP BY ALL ORDER BY ALL"
        ).fetchall()
        accounts = con.execute(
            "SELECT compid, count(*) FROM erp.account GROUP BY ALL ORDER BY ALL"
        ).fetchall()
        columns = [
            name
            for (name,) in con.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_schema = 'erp' AND table_name = 'sales_invoice'"
            ).fetchall()
        ]
    finally:
        con.close()
    for compid in (1, 2):
        rows = int(expected(php_url, "sales_invoice", "amount", compid, 2025)["rows"])
        assert (compid, 2025, rows) in invoices, invoices
    assert {c for c, _ in accounts} == {1, 2}
    assert columns.count("compid") == columns.count("yearid") == 1


def test_dlt_types_a_column_null_in_one_company_from_another(
    php_url: str, project: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # credit_note's discount and settled_on are NULL on every row of
    # company 1 (a stream types such a column as text) and money and dates
    # in company 2: dlt refused to buffer the two together and the run
    # failed (IncompatibleArrowSchema) whichever company came first.
    import dlt
    import duckdb

    from erpdata.dlt import erpdata_source

    monkeypatch.setenv("RUNTIME__DLTHUB_TELEMETRY", "false")
    monkeypatch.chdir(tmp_path)
    for companies in ([1, 2], [2, 1]):
        db = tmp_path / f"warehouse-{companies[0]}.duckdb"
        pipeline = dlt.pipeline(
            pipeline_name=f"php_nulls_{project}_{companies[0]}",
            pipelines_dir=str(tmp_path / "pipelines"),
            destination=dlt.destinations.duckdb(str(db)),
            dataset_name="erp",
        )
        source = erpdata_source(
            "credit_note",
            companies=companies,
            years=[2025],
            base_url=php_url,
            project=project,
            access_token=TOKEN,
        )
        assert not pipeline.run(source).has_failed_jobs
        con = duckdb.connect(str(db))
        try:
            types = dict(
                con.execute(
                    "SELECT column_name, data_type FROM information_schema.columns "
                    "WHERE table_schema = 'erp' AND table_name = 'credit_note'"
                ).fetchall()
            )
            rows = con.execute(
                "SELECT compid, count(*), count(discount), sum(discount), max(settled_on) "
                "FROM erp.credit_note GROUP BY ALL ORDER BY ALL"
            ).fetchall()
        finally:
            con.close()
        assert types["discount"].startswith("DECIMAL("), types
        assert types["settled_on"] == "DATE", types
        assert rows == [
            (1, 2, 0, None, None),
            (2, 2, 2, Decimal("12.51"), datetime.date(2025, 4, 15)),
        ], companies


def dlt_load(
    service: tuple[str, str, Any],
    table: str,
    name: str,
    companies: list[int],
    query: str,
    **kwargs: Any,
) -> list[tuple[Any, ...]]:
    """``table`` of ``companies`` (2025) loaded by a dlt pipeline ``name``
    from the PHP service (``service``: its URL, the project and the folder
    the pipelines and databases go in) into DuckDB ``name.duckdb``, with
    ``erpdata_source``'s ``kwargs`` (``refresh`` the run's): what ``query``
    then reads there."""
    import dlt
    import duckdb

    from erpdata.dlt import erpdata_source

    php_url, project, folder = service
    refresh = kwargs.pop("refresh", None)
    pipeline = dlt.pipeline(
        pipeline_name=f"php_{project}_{name}",
        pipelines_dir=str(folder / "pipelines"),
        destination=dlt.destinations.duckdb(str(folder / f"{name}.duckdb")),
        dataset_name="erp",
    )
    source = erpdata_source(
        table,
        companies=companies,
        years=[2025],
        base_url=php_url,
        project=project,
        access_token=TOKEN,
        **kwargs,
    )
    assert not pipeline.run(source, refresh=refresh).has_failed_jobs
    with duckdb.connect(str(folder / f"{name}.duckdb")) as con:
        return con.execute(query).fetchall()


def decode_error_in(raised: BaseException) -> BaseException:
    """The DecodeError behind what dlt raised (it wraps a resource's
    error in its own)."""
    error: BaseException | None = raised
    while error is not None and not isinstance(error, erpdata.DecodeError):
        error = error.__cause__
    assert isinstance(error, erpdata.DecodeError), repr(raised)
    return error


def test_dlt_keeps_every_digit_a_double_column_sends(
    php_url: str, project: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # fx_rate.rate is typed from the digits its values need: decimal(38,2)
    # in company 1, decimal(38,4) in company 2. In one run dlt failed
    # (IncompatibleArrowSchema); over two, it loaded company 2's rates into
    # the column of two digits, rounded: 1.0825 became 1.08.
    import duckdb

    monkeypatch.setenv("RUNTIME__DLTHUB_TELEMETRY", "false")
    monkeypatch.chdir(tmp_path)

    def load(name: str, companies: list[int], **kwargs: Any) -> list[tuple[Any, ...]]:
        return dlt_load(
            (php_url, project, tmp_path),
            "fx_rate",
            f"rates_{name}",
            companies,
            "SELECT compid, rate, typeof(rate) FROM erp.fx_rate ORDER BY id",
            write_disposition="merge",
            **kwargs,
        )

    exact = [
        (c, rate.quantize(Decimal("0.0001")), "DECIMAL(38,4)") for c in (1, 2) for rate in RATES[c]
    ]
    # The partition of more digits first: the other's are given as many.
    assert load("more_first", [2, 1]) == exact
    # Fewer first: the second run stops, saying how to load them whole.
    assert [row[:2] for row in load("fewer_first", [1])] == [(1, r) for r in RATES[1]]
    with pytest.raises(Exception) as caught:
        load("fewer_first", [2])
    error = decode_error_in(caught.value)
    assert "schema_overrides={'rate': 'decimal(38,4)'}" in str(error)
    assert "refresh='drop_resources'" in str(error)
    with duckdb.connect(str(tmp_path / "rates_fewer_first.duckdb")) as con:
        assert con.execute("SELECT DISTINCT compid FROM erp.fx_rate").fetchall() == [(1,)]
    declared = {"schema_overrides": {"rate": "decimal(38,4)"}, "refresh": "drop_resources"}
    assert load("fewer_first", [1, 2], **declared) == exact


def test_dlt_keeps_text_that_is_numbers_in_one_company(
    php_url: str, project: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # voucher.ref is 1001, 1002 in company 1 (an int column) and A-17, 0042
    # in company 2 (text): dlt failed the run (IncompatibleArrowSchema)
    # whichever came first.
    monkeypatch.setenv("RUNTIME__DLTHUB_TELEMETRY", "false")
    monkeypatch.chdir(tmp_path)

    def load(name: str, companies: list[int], **kwargs: Any) -> list[tuple[Any, ...]]:
        return dlt_load(
            (php_url, project, tmp_path),
            "voucher",
            f"refs_{name}",
            companies,
            "SELECT ref, typeof(ref) FROM erp.voucher ORDER BY id",
            **kwargs,
        )

    text = [(ref, "VARCHAR") for ref in ("1001", "1002", "A-17", "0042")]
    # Text first: the numbers are given as their text.
    assert load("text_first", [2, 1]) == text
    # Numbers first: the run stops, saying how to load the text.
    with pytest.raises(Exception) as caught:
        load("numbers_first", [1, 2])
    error = decode_error_in(caught.value)
    assert "schema_overrides={'ref': 'string'}" in str(error)
    declared = {"schema_overrides": {"ref": "string"}, "refresh": "drop_resources"}
    assert load("numbers_first", [1, 2], **declared) == text


def test_export_keeps_the_tables_own_compid_and_yearid(
    php_url: str, project: str, tmp_path: Any
) -> None:
    # DuckDB: the insert failed ("Duplicate column name compid"); Parquet:
    # the files repeated the folders' compid and yearid, and a reader
    # failed to merge the two. Twice, to show a re-run replaces.
    import duckdb
    import pyarrow.dataset as ds

    from erpdata.export import export

    with erpdata.Client(php_url, project=project, access_token=TOKEN, max_retries=0) as client:
        for _ in range(2):
            for to in (tmp_path / "erp.duckdb", tmp_path / "parquet"):
                export(
                    client,
                    ["sales_invoice", "account"],
                    companies=[1, 2],
                    years=[2025],
                    to=to,
                    progress=False,
                )
    invoices = {
        c: int(expected(php_url, "sales_invoice", "amount", c, 2025)["rows"]) for c in (1, 2)
    }
    con = duckdb.connect(str(tmp_path / "erp.duckdb"))
    try:
        got = con.execute(
            "SELECT compid, count(*) FROM sales_invoice GROUP BY ALL ORDER BY ALL"
        ).fetchall()
        columns = [
            c for (c,) in con.execute("SELECT name FROM pragma_table_info('account')").fetchall()
        ]
    finally:
        con.close()
    assert dict(got) == invoices
    assert columns.count("compid") == columns.count("yearid") == 1
    dataset = ds.dataset(tmp_path / "parquet" / "table=sales_invoice", partitioning="hive")
    counts = dataset.to_table().group_by("compid").aggregate([("id", "count")]).to_pylist()
    assert {row["compid"]: row["id_count"] for row in counts} == invoices


def test_export_types_a_column_null_in_one_company_from_another(
    php_url: str, project: str, tmp_path: Any
) -> None:
    # credit_note's discount and settled_on are NULL on every row of
    # company 1: its partition, first, made them VARCHAR columns, and
    # company 2's money and dates were kept as text (sum() refused them);
    # company 2 first, they were DECIMAL and DATE. So in one export, and
    # over two, company 1 then company 2.
    import duckdb

    from erpdata.export import export

    runs = {"one.duckdb": [[1, 2]], "two.duckdb": [[1], [2], [1]]}
    with erpdata.Client(php_url, project=project, access_token=TOKEN, max_retries=0) as client:
        for name, companies in runs.items():
            for ids in companies:
                export(
                    client,
                    "credit_note",
                    companies=ids,
                    years=[2025],
                    to=tmp_path / name,
                    progress=False,
                )
    for name in runs:
        with duckdb.connect(str(tmp_path / name)) as con:
            types = dict(
                con.execute(
                    "SELECT column_name, data_type FROM information_schema.columns "
                    "WHERE table_name = 'credit_note'"
                ).fetchall()
            )
            rows = con.execute(
                "SELECT compid, count(*), count(discount), sum(discount), max(settled_on) "
                "FROM credit_note GROUP BY ALL ORDER BY ALL"
            ).fetchall()
        assert types["discount"].startswith("DECIMAL(") and types["settled_on"] == "DATE", name
        assert rows == [
            (1, 2, 0, None, None),
            (2, 2, 2, Decimal("12.51"), datetime.date(2025, 4, 15)),
        ], name


RATES = {1: [Decimal("83.25"), Decimal("2")], 2: [Decimal("1.0825"), Decimal("0.125")]}
"""fx_rate's rate (a DOUBLE): each company's, in id order."""


def three_copies(php_url: str, project: str, tmp_path: Any, table: str) -> list[Any]:
    """``table`` of companies 1 and 2 exported to DuckDB three ways: in one
    export, in two, and with company 2's partition begun while company
    1's is still being written (its table cannot be altered then: the
    partition is moved in once both are done). The three files' paths."""
    from erpdata.export import _DuckDB, export

    with erpdata.Client(php_url, project=project, access_token=TOKEN, max_retries=0) as client:
        for name, runs in {"one.duckdb": [[1, 2]], "two.duckdb": [[1], [2]]}.items():
            for ids in runs:
                export(
                    client, table, companies=ids, years=[2025], to=tmp_path / name, progress=False
                )
        batches = {
            c: client.table(table, company_id=c, year_id=2025).to_arrow().to_batches()[0]
            for c in (1, 2)
        }
    writer = _DuckDB(tmp_path / "open.duckdb")
    keys = {c: (table, c, 2025) for c in (1, 2)}
    try:
        for c in (1, 2):
            writer.begin(keys[c], batches[c].schema, batches[c])
            writer.write(keys[c], batches[c])
        for c in (1, 2):
            writer.commit(keys[c], partition_entry(keys[c], batches[c].num_rows))
        writer.settle()
    finally:
        writer.close()
    return [tmp_path / name for name in ("one.duckdb", "two.duckdb", "open.duckdb")]


def test_export_keeps_every_digit_a_double_column_sends(
    php_url: str, project: str, tmp_path: Any
) -> None:
    # fx_rate.rate is typed from the digits its values need: decimal(38,2) in
    # company 1, decimal(38,4) in company 2. The DuckDB column was made
    # from the first partition written and DuckDB rounded the other's
    # values into it without a word: 1.0825 became 1.08, 0.125 0.13.
    import duckdb

    for path in three_copies(php_url, project, tmp_path, "fx_rate"):
        with duckdb.connect(str(path)) as con:
            kind = con.execute(
                "SELECT data_type FROM information_schema.columns "
                "WHERE table_name = 'fx_rate' AND column_name = 'rate'"
            ).fetchone()
            rates = {
                c: [
                    r
                    for (r,) in con.execute(
                        "SELECT rate FROM fx_rate WHERE compid = ? ORDER BY id", [c]
                    ).fetchall()
                ]
                for c in (1, 2)
            }
            tables = [
                t
                for (t,) in con.execute(
                    "SELECT table_name FROM information_schema.tables"
                ).fetchall()
            ]
        assert kind == ("DECIMAL(38,4)",), path.name
        assert rates == RATES, path.name
        assert not [t for t in tables if t.startswith("_erpdata_staging")], path.name


def test_export_keeps_text_that_is_numbers_in_one_company(
    php_url: str, project: str, tmp_path: Any
) -> None:
    # voucher.ref is 1001, 1002 in company 1 (an int column) and A-17, 0042
    # in company 2 (text): the DuckDB column made from company 1's rows was
    # BIGINT, and company 2's insert failed with a ConversionException that
    # ended the export with a traceback.
    import duckdb

    for path in three_copies(php_url, project, tmp_path, "voucher"):
        with duckdb.connect(str(path)) as con:
            refs = con.execute(
                "SELECT compid, ref, typeof(ref) FROM voucher ORDER BY id"
            ).fetchall()
        assert refs == [
            (1, "1001", "VARCHAR"),
            (1, "1002", "VARCHAR"),
            (2, "A-17", "VARCHAR"),
            (2, "0042", "VARCHAR"),
        ], path.name


def test_a_parquet_dataset_has_one_schema_a_table(
    php_url: str, project: str, tmp_path: Any
) -> None:
    # Each partition's file had the types its company's rows were sent
    # with: fx_rate's rate decimal(38,2) in company 1 and (38,4) in 2,
    # voucher's ref int64 and text, credit_note's discount and settled_on
    # text (no value) and decimal and date. pyarrow.dataset took the first
    # file's schema and failed on the next ("Unable to merge" or a failed
    # cast); DuckDB's read_parquet cast into it: 1.0825 read as 1.08. In
    # one export, and over two in either order.
    import duckdb
    import pyarrow.dataset as ds

    from erpdata.export import export

    tables = ["fx_rate", "voucher", "credit_note"]
    runs = {"one": [[1, 2]], "two": [[1], [2]], "back": [[2], [1]]}
    with erpdata.Client(php_url, project=project, access_token=TOKEN, max_retries=0) as client:
        for name, companies in runs.items():
            for ids in companies:
                export(
                    client, tables, companies=ids, years=[2025], to=tmp_path / name, progress=False
                )
    for name in runs:
        read = {
            t: ds.dataset(tmp_path / name / f"table={t}", format="parquet", partitioning="hive")
            .to_table()
            .sort_by("id")
            for t in tables
        }
        assert str(read["fx_rate"].schema.field("rate").type) == "decimal128(38, 4)", name
        assert read["fx_rate"]["rate"].to_pylist() == RATES[1] + RATES[2], name
        assert read["voucher"]["ref"].to_pylist() == ["1001", "1002", "A-17", "0042"], name
        notes = read["credit_note"]
        assert str(notes.schema.field("discount").type) == "decimal128(38, 2)", name
        assert str(notes.schema.field("settled_on").type) == "date32[day]", name
        assert notes["discount"].to_pylist() == [None, None, Decimal("12.50"), Decimal("0.01")]
        with duckdb.connect() as con:
            rates = con.execute(
                "SELECT compid, rate FROM read_parquet(?, hive_partitioning = true) ORDER BY id",
                [str(tmp_path / name / "table=fx_rate" / "*" / "*" / "*.parquet")],
            ).fetchall()
        assert rates == [(1, r) for r in RATES[1]] + [(2, r) for r in RATES[2]], name
        assert not list((tmp_path / name).rglob("*.tmp")), name


def partition_entry(key: tuple[str, int, int], rows: int) -> Any:
    from erpdata.export import Partition

    return Partition(key[0], key[1], key[2], rows, 0, "", "test", "2025-01-01T00:00:00")


def test_mcp_answers_keep_money_text_at_scale_0(client: erpdata.Client) -> None:
    """The aging of a customer that owes nothing (C012) is of scale 0, whose
    rows hold ints: the MCP answer sends them as decimal text, like every
    other money value, and totals them."""
    from erpdata.mcp_server._answers import rows_answer

    aged = client.aging(accounts=["C012"], as_of="2025-04-30")
    assert aged.schema[-1] == ("total", "decimal(38,0)")
    answer = rows_answer("aging", aged.schema, aged, max_rows=10, narrow="")
    assert answer.structured["rows"] == [
        {
            "acid": "C012",
            "current": "0",
            "1-30": "0",
            "31-60": "0",
            "61-90": "0",
            "91+": "0",
            "undated": "0",
            "total": "0",
        }
    ]
    assert answer.structured["totals"]["total"] == "0"
