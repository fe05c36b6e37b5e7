"""erpdata.dlt: a real dlt pipeline loads the sandbox into a real DuckDB
destination; the token stays out of everything dlt keeps."""

from __future__ import annotations

import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.compute as pc
import pytest

import erpdata
import fault_api
from conftest import SANDBOX_TOKEN
from leaks import package_frames

dlt = pytest.importorskip("dlt")  # a pinned dev requirement: present in make test
from erpdata.dlt import erpdata_source  # noqa: E402


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    # dlt sends anonymous usage telemetry unless told not to.
    monkeypatch.setenv("RUNTIME__DLTHUB_TELEMETRY", "false")
    monkeypatch.chdir(tmp_path)
    yield


def run(
    tmp_path: Path, source: Any, name: str = "erp", **kwargs: Any
) -> tuple[Any, duckdb.DuckDBPyConnection]:
    db = tmp_path / f"{name}-warehouse.duckdb"
    pipeline = dlt.pipeline(
        pipeline_name=name,
        pipelines_dir=str(tmp_path / "pipelines"),
        destination=dlt.destinations.duckdb(str(db)),
        dataset_name="erp",
    )
    info = pipeline.run(source, **kwargs)
    assert not info.has_failed_jobs
    return pipeline, duckdb.connect(str(db))


def source(sandbox_url: str, tables: Any, **kwargs: Any) -> Any:
    return erpdata_source(
        tables, base_url=sandbox_url, project="demo", access_token=SANDBOX_TOKEN, **kwargs
    )


def test_tables_load_typed_per_company_and_year(
    sandbox_url: str, client: erpdata.Client, tmp_path: Path
) -> None:
    tables = ["sales_invoice", "account"]
    _, con = run(tmp_path, source(sandbox_url, tables, companies=[1, 2], years=[2024, 2025]))
    for table in tables:
        for compid in (1, 2):
            for yearid in (2024, 2025):
                expected = client.table(table, company_id=compid, year_id=yearid)
                got = con.execute(
                    f"SELECT count(*) FROM erp.{table} WHERE compid = ? AND yearid = ?",
                    [compid, yearid],
                ).fetchone()
                assert got == (len(expected),), (table, compid, yearid)
    types = dict(
        con.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = 'erp' AND table_name = 'sales_invoice'"
        ).fetchall()
    )
    assert types["total"].startswith("DECIMAL(")
    assert types["date"] == "DATE"
    # The ERP's local times, without a zone, as sent: not taken for UTC
    # (TIMESTAMP WITH TIME ZONE), which a session elsewhere shows shifted.
    assert types["posted_at"] == "TIMESTAMP"
    con.execute("SET TimeZone = 'Asia/Kolkata'")
    sent = client.table("sales_invoice").to_arrow()["posted_at"].to_pylist()
    loaded = con.execute(
        "SELECT posted_at FROM erp.sales_invoice WHERE compid = 1 AND yearid = 2025"
    ).fetchall()
    assert sorted(v for (v,) in loaded if v) == sorted(v for v in sent if v)
    assert types["compid"] == "BIGINT"
    # The tables' own ids kept, not doubled (the sandbox sends them, as a
    # PHP service's SELECT * does); account's yearid added, as it has none.
    for table in tables:
        names = [
            n
            for (n,) in con.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_schema = 'erp' AND table_name = ?",
                [table],
            ).fetchall()
        ]
        assert names.count("compid") == names.count("yearid") == 1, (table, names)
    expected_total = pc.sum(client.table("sales_invoice").to_arrow()["total"]).as_py()
    assert isinstance(expected_total, Decimal)
    got_total = con.execute(
        "SELECT sum(total) FROM erp.sales_invoice WHERE compid = 1 AND yearid = 2025"
    ).fetchone()
    assert got_total == (expected_total,)


def test_merge_replaces_only_what_was_loaded(sandbox_url: str, tmp_path: Path) -> None:
    both = source(sandbox_url, "sales_invoice", companies=[1, 2], years=[2025])
    _, con = run(tmp_path, both, write_disposition="merge")
    counts = dict(
        con.execute(
            "SELECT compid, count(*) FROM erp.sales_invoice GROUP BY compid ORDER BY compid"
        ).fetchall()
    )
    con.close()
    assert set(counts) == {1, 2}
    one = source(
        sandbox_url, "sales_invoice", companies=[1], years=[2025], write_disposition="merge"
    )
    _, con = run(tmp_path, one)
    again = dict(
        con.execute("SELECT compid, count(*) FROM erp.sales_invoice GROUP BY compid").fetchall()
    )
    con.close()
    assert again == counts  # company 1 replaced, not doubled; company 2 kept
    replaced = source(sandbox_url, "sales_invoice", companies=[1], years=[2025])
    _, con = run(tmp_path, replaced)
    only = dict(
        con.execute("SELECT compid, count(*) FROM erp.sales_invoice GROUP BY compid").fetchall()
    )
    assert only == {1: counts[1]}  # the default: the table is the last run's copy


def test_token_from_dlt_config_stays_out_of_what_dlt_keeps(
    sandbox_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: Any
) -> None:
    monkeypatch.setenv("SOURCES__ERPDATA__ACCESS_TOKEN", SANDBOX_TOKEN)
    monkeypatch.setenv("SOURCES__ERPDATA__BASE_URL", sandbox_url)
    monkeypatch.setenv("SOURCES__ERPDATA__PROJECT", "demo")
    pipeline, con = run(
        tmp_path, erpdata_source("sales_invoice", companies=1, years=2025), name="secret"
    )
    assert con.execute("SELECT count(*) FROM erp.sales_invoice").fetchone() == (40,)
    con.close()
    kept = [str(pipeline.last_trace), repr(pipeline.last_trace.asdict())]
    for path in tmp_path.rglob("*"):
        if path.is_file():
            kept.append(path.read_bytes().decode("latin-1"))
    assert len(kept) > 10
    assert not [text[:80] for text in kept if SANDBOX_TOKEN in text]


def test_no_frame_of_the_source_holds_the_token(
    sandbox_url: str, tmp_path: Path, clean_env: Any
) -> None:
    # A traceback printed with its locals (Sentry's default) showed the
    # token: the source's argument and settings, and the settings every
    # partition's reader holds for the whole extraction.
    token = "fake-token-4711-for-frames"
    with pytest.raises(Exception) as refused:
        erpdata_source(
            "sales invoice",
            companies=1,
            years=2025,
            base_url=sandbox_url,
            project="demo",
            access_token=token,
        )
    with pytest.raises(Exception) as failed:
        run(
            tmp_path,
            erpdata_source(
                "account",
                companies=1,
                years=2025,
                base_url=sandbox_url,
                project="demo",
                access_token=token,
                max_retries=0,
            ),
        )
    for caught in (refused, failed):
        shown = package_frames(caught.value)
        assert "erpdata" in shown and "settings" in shown, shown[-2000:]
        assert token not in shown, shown


def test_a_missing_setting_says_where_dlt_reads_it(
    sandbox_url: str, monkeypatch: pytest.MonkeyPatch, clean_env: Any
) -> None:
    monkeypatch.setenv("SOURCES__ERPDATA__BASE_URL", sandbox_url)
    monkeypatch.setenv("SOURCES__ERPDATA__PROJECT", "demo")
    with pytest.raises(Exception) as caught:
        erpdata_source("sales_invoice", companies=1, years=2025)
    error = caught.value
    while not isinstance(error, erpdata.InvalidInputError) and error.__cause__:
        error = error.__cause__  # type: ignore[assignment]
    assert isinstance(error, erpdata.InvalidInputError), repr(caught.value)
    assert error.field == "access_token"
    assert "ERPDATA_ACCESS_TOKEN" in str(error)
    assert "sources.erpdata.access_token in .dlt/secrets.toml" in str(error)
    assert "SOURCES__ERPDATA__ACCESS_TOKEN" in str(error)


def test_timeout_and_max_retries_are_the_clients(sandbox_url: str, tmp_path: Path) -> None:
    # A service that stops answering held the run for the default limits
    # (30 s a read, three tries): the source took neither.
    key = fault_api.new_key("dlt-hang")
    hung = fault_api.prefix(sandbox_url, "hang", key)
    started = time.monotonic()
    with pytest.raises(Exception) as caught:
        run(tmp_path, source(hung, "account", companies=1, years=2025, timeout=1, max_retries=0))
    assert time.monotonic() - started < 20
    error: BaseException | None = caught.value
    while error is not None and not isinstance(error, erpdata.TimeoutError):
        error = error.__cause__
    assert isinstance(error, erpdata.TimeoutError), repr(caught.value)
    assert fault_api.count(sandbox_url, key) == 1  # no retry


def test_max_retry_after_is_the_clients(sandbox_url: str, tmp_path: Path) -> None:
    # A 429 asking for 2 s, to a source that waits out at most 1 s: the run
    # ends at once with the service's answer, not retried.
    key = fault_api.new_key("dlt-retry-after")
    busy = fault_api.prefix(sandbox_url, "status-429x1-ra2", key)
    with pytest.raises(Exception) as caught:
        run(tmp_path, source(busy, "account", companies=1, years=2025, max_retry_after=1))
    error: BaseException | None = caught.value
    while error is not None and not isinstance(error, erpdata.HttpStatusError):
        error = error.__cause__
    assert isinstance(error, erpdata.HttpStatusError), repr(caught.value)
    assert (error.status_code, error.retry_after) == (429, 2.0)
    assert fault_api.count(sandbox_url, key) == 1


def test_bad_input_is_refused_before_anything_is_sent(refused_url: str) -> None:
    def make(tables: Any, **kwargs: Any) -> Any:
        return erpdata_source(
            tables,
            base_url=refused_url,
            project="demo",
            access_token=SANDBOX_TOKEN,
            **{"companies": 1, "years": 2025, **kwargs},
        )

    cases: list[tuple[Any, dict[str, Any], str]] = [
        ([], {}, "tables"),
        ("sales invoice; drop", {}, "table"),
        ("sales_invoice", {"companies": []}, "companies"),
        ("sales_invoice", {"batch_rows": 0}, "batch_rows"),
        ("sales_invoice", {"write_disposition": "upsert"}, "write_disposition"),
        ("sales_invoice", {"schema_overrides": {"total": "money"}}, "schema_overrides"),
        ("sales_invoice", {"timeout": 0}, "timeout"),
        ("sales_invoice", {"max_retries": 99}, "max_retries"),
        ("sales_invoice", {"max_retry_after": -1}, "max_retry_after"),
    ]
    for tables, kwargs, field in cases:
        with pytest.raises(Exception) as caught:
            make(tables, **kwargs)
        error = caught.value
        while not isinstance(error, erpdata.InvalidInputError) and error.__cause__:
            error = error.__cause__  # type: ignore[assignment]
        assert isinstance(error, erpdata.InvalidInputError), repr(caught.value)
        assert field in str(error), (field, str(error))
        assert SANDBOX_TOKEN not in str(caught.value)
    # The token pasted as a declared type: refused without repeating it.
    with pytest.raises(erpdata.InvalidInputError) as pasted:
        make("sales_invoice", schema_overrides={"total": SANDBOX_TOKEN})
    assert "[REDACTED]" in str(pasted.value) and SANDBOX_TOKEN not in str(pasted.value)
