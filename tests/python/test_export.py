"""erpdata.export against the sandbox, into a real DuckDB file and a real
Parquet dataset; DuckDB and polars reading a Table through the Arrow
PyCapsule; a stream written to Parquet batch by batch."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

import erpdata
import fault_api
from conftest import SANDBOX_TOKEN, SECRET_TOKEN
from erpdata.export import (
    MANIFEST_FILE,
    MANIFEST_TABLE,
    PENDING_FILE,
    PENDING_TABLE,
    STOP_AFTER_FAILURES,
    ExportError,
    _hive,
    export,
)
from test_cli import PY, cli, env_for, one_line_error, plain_cli

TABLES = ["sales_invoice", "receipt", "account"]


def faulty(sandbox_url: str, fault: str, key: str) -> erpdata.Client:
    return erpdata.Client(
        f"{sandbox_url}/_faults/{fault}/{key}/",
        project="demo",
        access_token=SANDBOX_TOKEN,
        company_id=1,
        year_id=2025,
        max_retries=0,
    )


def test_duckdb_holds_every_partition(client: erpdata.Client, tmp_path: Path) -> None:
    target = tmp_path / "erp.duckdb"
    result = export(client, TABLES, companies=[1, 2], years=[2024, 2025], to=target)
    assert result.format == "duckdb"
    assert len(result.partitions) == 12
    con = duckdb.connect(str(target))
    for table in TABLES:
        for compid in (1, 2):
            for yearid in (2024, 2025):
                expected = len(client.table(table, company_id=compid, year_id=yearid))
                got = con.execute(
                    f"SELECT count(*) FROM {table} WHERE compid = ? AND yearid = ?",
                    [compid, yearid],
                ).fetchone()
                assert got == (expected,), (table, compid, yearid)
    types = dict(
        con.execute("SELECT column_name, column_type FROM (DESCRIBE sales_invoice)").fetchall()
    )
    assert types["total"].startswith("DECIMAL(")
    assert types["date"] == "DATE"
    assert types["posted_at"] == "TIMESTAMP"
    assert types["compid"] == "BIGINT"
    # The tables' own ids kept, not doubled (the sandbox sends them, as a
    # PHP service's SELECT * does); account's yearid added, as it has none.
    for table in TABLES:
        names = [
            n for (n,) in con.execute(f"SELECT column_name FROM (DESCRIBE {table})").fetchall()
        ]
        assert names.count("compid") == names.count("yearid") == 1, (table, names)
    manifest = con.execute(
        f"SELECT table_name, compid, yearid, rows, checksum FROM {MANIFEST_TABLE}"
    ).fetchall()
    assert len(manifest) == 12
    assert all(len(m[4]) == 64 and m[3] > 0 for m in manifest)
    # Receivables aging by customer, in SQL over the copy.
    aged = con.execute(
        """SELECT customer, sum(total) FROM sales_invoice
           WHERE compid = 1 AND yearid = 2025 AND cleared_on IS NULL
           GROUP BY customer ORDER BY 2 DESC"""
    ).fetchall()
    assert aged and all(a[1] > 0 for a in aged)


def test_a_rerun_replaces_only_what_it_fetched(client: erpdata.Client, tmp_path: Path) -> None:
    target = tmp_path / "erp.duckdb"
    export(client, ["sales_invoice"], companies=[1, 2], years=[2025], to=target)
    con = duckdb.connect(str(target))
    before = dict(
        ((c, y), t)
        for c, y, t in con.execute(
            f"SELECT compid, yearid, exported_at FROM {MANIFEST_TABLE}"
        ).fetchall()
    )
    con.close()
    export(client, ["sales_invoice"], companies=[1], years=[2025], to=target)
    con = duckdb.connect(str(target))
    counts = con.execute(
        "SELECT compid, count(*) FROM sales_invoice GROUP BY 1 ORDER BY 1"
    ).fetchall()
    assert counts == [(1, 40), (2, 28)], "no rows doubled"
    after = dict(
        ((c, y), t)
        for c, y, t in con.execute(
            f"SELECT compid, yearid, exported_at FROM {MANIFEST_TABLE}"
        ).fetchall()
    )
    assert after.keys() == before.keys()
    assert after[("2", "2025")] == before[("2", "2025")], "company 2 was not fetched again"


def test_a_column_the_erp_added_since_the_last_export_is_added(
    client: erpdata.Client, tmp_path: Path
) -> None:
    # A copy made before the ERP's sales_invoice had remarks and currency:
    # the next export failed every insert ("does not have a column with
    # name") and ended with a traceback, the copy never refreshed again.
    target = tmp_path / "erp.duckdb"
    export(client, ["sales_invoice"], companies=[1], years=[2025], to=target, progress=False)
    with duckdb.connect(str(target)) as con:
        con.execute("ALTER TABLE sales_invoice DROP COLUMN remarks")
        con.execute('ALTER TABLE sales_invoice DROP COLUMN "currency"')
    result = export(
        client, ["sales_invoice"], companies=[1, 2], years=[2025], to=target, progress=False
    )
    assert len(result.partitions) == 2
    with duckdb.connect(str(target)) as con:
        types = dict(
            con.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_name = 'sales_invoice'"
            ).fetchall()
        )
        for compid in (1, 2):
            got = con.execute(
                "SELECT invoice_no, remarks, currency FROM sales_invoice "
                "WHERE compid = ? ORDER BY invoice_no",
                [compid],
            ).fetchall()
            sent = client.table("sales_invoice", company_id=compid, year_id=2025)
            assert got == sorted((r["invoice_no"], r["remarks"], r["currency"]) for r in sent)
    assert types["remarks"] == types["currency"] == "VARCHAR"


def written_to_duckdb(path: Path, partitions: dict[tuple[str, Any, Any], list[Any]]) -> None:
    """``partitions``' batches written by the DuckDB writer as an export
    writes a stream's (its first batch's schema is the stream's), one
    partition after another, then settled."""
    from erpdata.export import Partition, _DuckDB

    writer = _DuckDB(path)
    try:
        for key, batches in partitions.items():
            writer.begin(key, batches[0].schema, batches[0])
            for batch in batches:
                writer.write(key, batch)
            rows = sum(b.num_rows for b in batches)
            writer.commit(key, Partition(*key, rows, 0, "", "test", "2025-01-01T00:00:00"))
        writer.settle()
    finally:
        writer.close()


def types_and_rows(path: Path, table: str) -> tuple[dict[str, str], list[tuple[Any, ...]]]:
    with duckdb.connect(str(path)) as con:
        types = dict(
            con.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_name = ?",
                [table],
            ).fetchall()
        )
        rows = con.execute(f"SELECT * EXCLUDE (yearid) FROM {table} ORDER BY id").fetchall()
    return types, rows


def test_values_after_a_first_batch_without_any_keep_every_digit(tmp_path: Path) -> None:
    # A stream types a column with no value in its first batch as text; a
    # later batch's values (text) the insert cast into the copy's type:
    # 1.0825 into a DECIMAL(38,2) column became 1.08 without a word, and
    # "A-17" into a BIGINT failed the export with a DuckDB traceback.
    # The second partition adds a column too (the copy altered for it).
    from decimal import Decimal

    def batch(ids: list[int], rate: Any, ref: Any, **more: Any) -> pa.RecordBatch:
        return pa.record_batch({"id": ids, "rate": rate, "ref": ref, **more})

    none = pa.array([None], pa.string())
    partitions = {
        ("fx", 1, 2025): [batch([1], pa.array([Decimal("1.08")], pa.decimal128(38, 2)), [7])],
        ("fx", 2, 2025): [
            batch([2], none, none, note=["n"]),
            batch([3], ["1.0825"], ["A-17"], note=["m"]),
        ],
    }
    path = tmp_path / "erp.duckdb"
    written_to_duckdb(path, partitions)
    types, rows = types_and_rows(path, "fx")
    assert (types["rate"], types["ref"]) == ("DECIMAL(38,4)", "VARCHAR")
    assert rows == [
        (1, Decimal("1.0800"), "7", 1, None),
        (2, None, None, 2, "n"),
        (3, Decimal("1.0825"), "A-17", 2, "m"),
    ]


def test_a_money_column_null_in_the_first_company_takes_the_widest_decimal(
    tmp_path: Path,
) -> None:
    # NULL in company 1's rows (text), 2 digits after the point in company
    # 2's and 4 in company 3's: the copy kept it text (sum() refused it),
    # where company 2 first made it DECIMAL(38,4).
    from decimal import Decimal

    def batch(i: int, rate: Any) -> pa.RecordBatch:
        return pa.record_batch({"id": [i], "rate": rate})

    partitions = {
        ("fx", 1, 2025): [batch(1, pa.array([None], pa.string()))],
        ("fx", 2, 2025): [batch(2, pa.array([Decimal("83.25")], pa.decimal128(38, 2)))],
        ("fx", 3, 2025): [batch(3, pa.array([Decimal("1.0825")], pa.decimal128(38, 4)))],
    }
    path = tmp_path / "erp.duckdb"
    written_to_duckdb(path, partitions)
    types, rows = types_and_rows(path, "fx")
    assert types["rate"] == "DECIMAL(38,4)"
    assert rows == [(1, None, 1), (2, Decimal("83.2500"), 2), (3, Decimal("1.0825"), 3)]
    # An id sent as a number by one company and as "007" by another stays
    # text: a number's type would drop its zeros.
    ids = {
        ("refs", 1, 2025): [pa.record_batch({"id": [1], "ref": [7]})],
        ("refs", 2, 2025): [pa.record_batch({"id": [2], "ref": ["007"]})],
    }
    written_to_duckdb(tmp_path / "refs.duckdb", ids)
    types, rows = types_and_rows(tmp_path / "refs.duckdb", "refs")
    assert types["ref"] == "VARCHAR" and rows == [(1, "7", 1), (2, "007", 2)]


def test_each_file_of_a_table_in_a_parquet_dataset_gets_its_one_schema(tmp_path: Path) -> None:
    # What partitions' files are given by the rules of the DuckDB copy
    # (the PHP suite exports real ones): a column a file lacks is null in
    # it; integers and decimals become the decimal with the most digits
    # after the point; text becomes the type the others have only when
    # every value reads back as sent (a MySQL DATETIME without a fraction
    # included); any other mix is text.
    from decimal import Decimal

    from erpdata._dataset_schema import unify

    def day(text: str) -> object:
        return pa.scalar(text).cast(pa.timestamp("us")).as_py()

    files = {
        "a": {
            "n": pa.array([1, 2]),
            "at": pa.array(["2025-01-02 03:04:05", None]),
            "ref": pa.array([7, 8]),
            "flag": pa.array([True, False]),
            "note": pa.array(["x", "y"]),
        },
        "b": {
            "n": pa.array([Decimal("1.25"), None], pa.decimal128(38, 2)),
            "at": pa.array([day("2025-01-01 00:00:00"), None], pa.timestamp("us")),
            "ref": pa.array(["A-1", "0042"]),
            "flag": pa.array([1, 0]),
        },
    }
    paths = []
    for name, columns in files.items():
        path = tmp_path / name / "part-0.parquet"
        path.parent.mkdir()
        pq.write_table(pa.table(columns), path)
        paths.append(path)
    assert unify(paths) == 2
    a, b = (pq.read_table(p) for p in paths)
    assert a.schema == b.schema
    assert [str(f.type) for f in a.schema] == [
        "decimal128(38, 2)",
        "timestamp[us]",
        "string",
        "string",
        "string",
    ]
    assert a["n"].to_pylist() == [Decimal("1.00"), Decimal("2.00")]
    assert a["at"].to_pylist() == [day("2025-01-02 03:04:05"), None]
    assert a["ref"].to_pylist() == ["7", "8"] and b["ref"].to_pylist() == ["A-1", "0042"]
    assert a["flag"].to_pylist() == ["true", "false"] and b["flag"].to_pylist() == ["1", "0"]
    assert b["note"].to_pylist() == [None, None]
    # Text that would not read back as sent (a second's fraction of fewer
    # digits) keeps the column text, as sent.
    c = tmp_path / "c" / "part-0.parquet"
    c.parent.mkdir()
    pq.write_table(pa.table({"at": pa.array(["2025-01-02 03:04:05.5"])}), c)
    assert unify([*paths, c]) == 3
    assert pq.read_table(c)["at"].to_pylist() == ["2025-01-02 03:04:05.5"]
    assert pq.read_table(paths[1])["at"].to_pylist() == ["2025-01-01 00:00:00.000000", None]
    assert unify([*paths, c]) == 0
    assert not list(tmp_path.rglob("*.tmp"))


def test_parquet_dataset_is_hive_partitioned(client: erpdata.Client, tmp_path: Path) -> None:
    root = tmp_path / "erp"
    result = export(
        client, ["sales_invoice", "receipt"], companies=[1], years=[2024, 2025], to=root
    )
    assert result.format == "parquet"
    part = root / "table=sales_invoice" / "compid=1" / "yearid=2025" / "part-0.parquet"
    assert part.exists()
    assert not list(root.rglob("*.tmp"))
    dataset = pads.dataset(root / "table=sales_invoice", format="parquet", partitioning="hive")
    assert dataset.count_rows() == 34 + 40
    written = pq.read_table(part)
    fetched = client.table("sales_invoice").to_arrow()
    # A stream's decimals and a whole table's have one type, decimal(38, S).
    assert written.schema.field("amount").type == fetched.schema.field("amount").type
    # The table's own compid and yearid (the sandbox sends them, as a PHP
    # service's SELECT * does) are the folders' names, not repeated in the
    # file: a reader then has each once, and reads the dataset at all.
    assert fetched.column_names[:2] == ["compid", "yearid"]
    assert written.to_pylist() == fetched.drop_columns(["compid", "yearid"]).to_pylist()
    read = dataset.to_table()
    assert read.column_names.count("compid") == read.column_names.count("yearid") == 1
    assert sorted(set(zip(read["compid"].to_pylist(), read["yearid"].to_pylist()))) == [
        (1, 2024),
        (1, 2025),
    ]
    manifest = json.loads((root / MANIFEST_FILE).read_text(encoding="utf-8"))
    assert {(m["table"], m["yearid"]) for m in manifest} == {
        ("sales_invoice", 2024),
        ("sales_invoice", 2025),
        ("receipt", 2024),
        ("receipt", 2025),
    }
    # The checksum is of the rows, not of the file: the DuckDB export of the
    # same partition has the same one.
    entry = next(m for m in manifest if (m["table"], m["yearid"]) == ("sales_invoice", 2025))
    copy = export(client, ["sales_invoice"], to=tmp_path / "same.duckdb")
    assert copy.partitions[0].checksum == entry["checksum"]


def test_a_failed_partition_keeps_the_last_good_copy(
    client: erpdata.Client, sandbox_url: str, tmp_path: Path
) -> None:
    db = tmp_path / "erp.duckdb"
    root = tmp_path / "erp"
    export(client, ["sales_invoice"], to=db)
    export(client, ["sales_invoice"], to=root)
    part = root / "table=sales_invoice" / "compid=1" / "yearid=2025" / "part-0.parquet"
    good = hashlib.sha256(part.read_bytes()).hexdigest()
    for target in (db, root):
        # Cut after some rows, with batches of 5 so several were already
        # written: a decode error, never a shorter table.
        with faulty(sandbox_url, "truncate-3000", f"export-{target.name}") as broken:
            with pytest.raises(ExportError) as err:
                export(broken, ["sales_invoice"], to=target, batch_rows=5)
            assert isinstance(err.value.__cause__, erpdata.DecodeError)
            assert err.value.kind == "decode" and err.value.failed == [("sales_invoice", 1, 2025)]
    con = duckdb.connect(str(db))
    assert con.execute("SELECT count(*) FROM sales_invoice").fetchone() == (40,)
    assert con.execute(f"SELECT count(*) FROM {MANIFEST_TABLE}").fetchone() == (1,)
    assert sorted(t for (t,) in con.execute("SHOW TABLES").fetchall()) == [
        MANIFEST_TABLE,
        PENDING_TABLE,
        "sales_invoice",
    ]
    con.close()
    # The failed partition is listed as not written, for a resume.
    for target in (db, root):
        assert list(pending_of(target)) == [("sales_invoice", "1", "2025")]
    assert hashlib.sha256(part.read_bytes()).hexdigest() == good
    assert not list(root.rglob("*.tmp"))
    # A first copy that fails after rows were written leaves nothing behind:
    # no file, no folder.
    for fresh in (tmp_path / "fresh.duckdb", tmp_path / "fresh" / "dataset"):
        with faulty(sandbox_url, "truncate-3000", f"export-{fresh.name}") as broken:
            with pytest.raises(ExportError):
                export(broken, ["sales_invoice"], to=fresh, batch_rows=5)
        assert not fresh.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["erp", "erp.duckdb"]


def test_a_failed_export_leaves_no_new_file(secret_sandbox_url: str, tmp_path: Path) -> None:
    env = env_for(secret_sandbox_url, ERPDATA_ACCESS_TOKEN=SECRET_TOKEN)
    for to in ("bad.duckdb", "bad-dataset/sub"):
        target = tmp_path / to
        done = cli(["export", "sales_invoices", "--to", str(target)], env)
        assert done.returncode == 3
        # One line: the error, and nothing else on the way out.
        assert "Unknown table: sales_invoices" in one_line_error(done)
        assert sorted(tmp_path.iterdir()) == [], to
    # A target that existed is kept as it was, to the byte.
    db = tmp_path / "mine.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE notes AS SELECT 1 AS n")
    con.close()
    folder = tmp_path / "dataset"
    folder.mkdir()
    (folder / "README").write_text("mine\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    for target in (db, folder):
        done = cli(["export", "sales_invoices", "--to", str(target)], env)
        assert done.returncode == 3, done.stderr
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == [
        Path("dataset"),
        Path("dataset/README"),
        Path("mine.duckdb"),
    ]
    # A failed export that finished a partition keeps it.
    done = cli(["export", "account", "sales_invoices", "--to", str(db)], env)
    assert done.returncode == 3
    con = duckdb.connect(str(db))
    try:
        assert sorted(t for (t,) in con.execute("SHOW TABLES").fetchall()) == [
            MANIFEST_TABLE,
            PENDING_TABLE,
            "account",
            "notes",
        ]
        assert con.execute(f"SELECT table_name FROM {MANIFEST_TABLE}").fetchall() == [("account",)]
    finally:
        con.close()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_an_interrupted_export_leaves_no_new_file(
    sandbox_url: str, tmp_path: Path, sig: signal.Signals
) -> None:
    # Ctrl-C or SIGTERM while the service has not answered: the new
    # DuckDB file (12 KB, no table) was left behind; SIGTERM's default
    # action ended the process before any cleaning up.
    mine = tmp_path / "mine.duckdb"
    con = duckdb.connect(str(mine))
    con.execute("CREATE TABLE notes AS SELECT 1 AS n")
    con.close()
    before = mine.read_bytes()
    for target in (tmp_path / "new.duckdb", mine):
        key = fault_api.new_key("export-interrupted", sig.name, target.stem)
        env = env_for(
            fault_api.prefix(sandbox_url, "hang", key), ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN
        )
        args = ["export", "sales_invoice", "--no-progress", "--to", str(target)]
        with subprocess.Popen(
            PY + args,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        ) as proc:  # its end closes the pipes and waits for the process
            fault_api.wait_for(sandbox_url, key)
            assert target.exists(), "the export opened its file before asking the service"
            # As `timeout -s SIG` sends it: to the process, then to its
            # group, the second arriving while the first is handled.
            os.kill(proc.pid, sig)
            os.killpg(proc.pid, sig)
            try:
                _, stderr = proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                pytest.fail(f"the export still ran 30 s after {sig.name}")
        assert proc.returncode == 128 + sig, stderr
        assert "Traceback" not in stderr, stderr
    # The new file is gone; the one that was there is kept, to the byte.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.duckdb"]
    assert mine.read_bytes() == before


def test_a_failed_partition_adds_nothing_to_an_existing_file(
    sandbox_url: str, tmp_path: Path
) -> None:
    # Rows were written before the failure; the file is left with the
    # tables it had (no manifest table of an export that finished nothing).
    db = tmp_path / "mine.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE notes AS SELECT 1 AS n")
    con.close()
    with faulty(sandbox_url, "truncate-3000", "export-existing") as broken:
        with pytest.raises(ExportError):
            export(broken, ["sales_invoice"], to=db, batch_rows=5)
    con = duckdb.connect(str(db))
    try:
        assert [t for (t,) in con.execute("SHOW TABLES").fetchall()] == ["notes"]
    finally:
        con.close()


def test_export_on_a_plain_install_names_its_extra(secret_sandbox_url: str, tmp_path: Path) -> None:
    env = env_for(secret_sandbox_url, ERPDATA_ACCESS_TOKEN=SECRET_TOKEN)
    for to in ("erp.duckdb", "dataset"):
        done = plain_cli(["export", "account", "--to", str(tmp_path / to)], env, tmp_path)
        assert done.returncode == 2
        assert done.stderr == (
            "erpdata: error: exporting needs pyarrow: pip install 'erpdata[export]'\n"
        )
    assert [p.name for p in tmp_path.iterdir()] == ["plain_install.py"]


def test_duckdb_missing_names_the_extra(
    client: erpdata.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pyarrow installed (erpdata[arrow]), duckdb not.
    monkeypatch.setitem(sys.modules, "duckdb", None)
    with pytest.raises(ImportError) as err:
        export(client, "account", to=tmp_path / "erp.duckdb")
    assert str(err.value) == "exporting to DuckDB needs duckdb: pip install 'erpdata[export]'"
    assert list(tmp_path.iterdir()) == []


def test_bad_input_sends_nothing(client: erpdata.Client, tmp_path: Path) -> None:
    with pytest.raises(erpdata.InvalidInputError) as err:
        export(client, ["sales_invoice", "no such"], to=tmp_path / "x.duckdb")
    assert err.value.field == "table"
    assert not (tmp_path / "x.duckdb").exists()
    for kwargs, field in (
        ({"tables": []}, "tables"),
        ({"tables": ["account"], "concurrency": 0}, "concurrency"),
        ({"tables": ["account"], "companies": []}, "companies"),
        ({"tables": ["account"], "format": "csv"}, "format"),
    ):
        with pytest.raises(erpdata.InvalidInputError) as err:
            export(client, to=tmp_path / "y", **kwargs)
        assert err.value.field == field


def test_a_target_that_cannot_hold_the_copy_is_refused_first(
    sandbox_url: str, tmp_path: Path
) -> None:
    key = fault_api.new_key("export-target")
    settings = dict(project="demo", access_token=SANDBOX_TOKEN, company_id=1, year_id=2025)
    base = fault_api.prefix(sandbox_url, "pass", key)
    (tmp_path / "notes.txt").write_text("notes", encoding="utf-8")
    (tmp_path / "text.duckdb").write_text("not a database", encoding="utf-8")
    held = tmp_path / "held.duckdb"
    duckdb.connect(str(held)).close()
    with erpdata.Client(base, **settings) as client:  # type: ignore[arg-type]
        for to, fmt, words in (
            (tmp_path / "no" / "such" / "x.duckdb", None, "does not exist"),
            (tmp_path, "duckdb", "is a folder"),
            (tmp_path / "notes.txt", None, "is not a folder"),
        ):
            with pytest.raises(erpdata.InvalidInputError, match=words) as err:
                export(client, "account", to=to, format=fmt)  # type: ignore[arg-type]
            assert err.value.field == "to"
        # Files DuckDB cannot open: said as open() says a file it cannot
        # open, and by the command line in one line (exit code 1).
        with pytest.raises(OSError, match="not a valid DuckDB"):
            export(client, "account", to=tmp_path / "text.duckdb")
        holding = f"import duckdb, sys\nc = duckdb.connect({str(held)!r})\nprint('held', flush=True)\nsys.stdin.read()"
        with subprocess.Popen(
            [sys.executable, "-c", holding],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        ) as holder:
            assert holder.stdout is not None and holder.stdin is not None
            assert holder.stdout.readline() == "held\n"
            with pytest.raises(OSError, match="lock"):
                export(client, "account", to=held)
            done = cli(
                ["export", "account", "--to", str(held)],
                env_for(base, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN),
            )
            holder.stdin.close()
        assert done.returncode == 1
        line = one_line_error(done)
        assert "cannot open" in line and "lock" in line, line
    assert fault_api.count(sandbox_url, key) == 0, "a request was sent"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["held.duckdb", "notes.txt", "text.duckdb"]


def test_a_dataset_list_that_is_not_erpdatas_is_said_so(sandbox_url: str, tmp_path: Path) -> None:
    # A _manifest.json cut short or edited by hand was a JSONDecodeError's
    # traceback, or a KeyError from deep in the export.
    key = fault_api.new_key("export-lists")
    settings = dict(project="demo", access_token=SANDBOX_TOKEN, company_id=1, year_id=2025)
    base = fault_api.prefix(sandbox_url, "pass", key)
    to = tmp_path / "dataset"
    to.mkdir()
    with erpdata.Client(base, **settings) as client:  # type: ignore[arg-type]
        for name, text, why in (
            (MANIFEST_FILE, '[{"table": "account", "compid"', "not JSON"),
            (MANIFEST_FILE, '{"table": "account"}', "a JSON dict, not a list"),
            (MANIFEST_FILE, '[{"table": "account"}]', "entry 0 has no table, compid and yearid"),
            (PENDING_FILE, "\udcff", "not JSON"),
        ):
            for other in (MANIFEST_FILE, PENDING_FILE):
                (to / other).unlink(missing_ok=True)
            (to / name).write_text(text, encoding="utf-8", errors="surrogateescape")
            if name == PENDING_FILE:
                (to / MANIFEST_FILE).write_text("[]", encoding="utf-8")
            with pytest.raises(OSError) as err:
                export(client, "account", to=to, format="parquet", resume=True, progress=False)
            said = str(err.value)
            assert said.startswith(
                f"cannot read {str(to / name)!r}, erpdata's list of partitions: {why}"
            )
            assert said.endswith(
                "delete it (and export without resume) to write every partition afresh"
            )
        done = cli(
            ["export", "account", "--to", str(to), "--resume"],
            env_for(base, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN),
        )
        assert done.returncode == 1, done.stderr
        assert "erpdata's list of partitions: not JSON" in one_line_error(done)
        # In DuckDB: a table of the manifest's name that another made.
        held = tmp_path / "erp.duckdb"
        con = duckdb.connect(str(held))
        con.execute(f"CREATE TABLE {MANIFEST_TABLE} (note TEXT)")
        con.close()
        with pytest.raises(OSError) as err:
            export(client, "account", to=held, resume=True, progress=False)
        assert str(err.value).startswith(
            f"cannot read table {MANIFEST_TABLE} of {str(held)!r}, erpdata's list of partitions: "
            "Binder Error"
        ), err.value
        assert str(err.value).endswith(
            "drop it (and export without resume) to write every partition afresh"
        )
        # The file was closed: another process may open it.
        opened = f"import duckdb; duckdb.connect({str(held)!r}).close()"
        subprocess.run([sys.executable, "-c", opened], check=True, timeout=60)
    assert fault_api.count(sandbox_url, key) == 0, "a request was sent"


def test_partition_values_cannot_leave_the_dataset() -> None:
    assert _hive(1) == "1"
    assert _hive("A-1_b.c") == "A-1_b.c"
    assert _hive("../x") == "..%2Fx"
    assert _hive("..") == "%2E%2E"
    assert _hive("a b/ü") == "a%20b%2F%FC"


def test_duckdb_and_polars_read_a_table_through_the_capsule(client: erpdata.Client) -> None:
    invoices = client.table("sales_invoice")
    relation = duckdb.sql("SELECT count(*), sum(total) FROM invoices")
    assert relation is not None
    got = relation.fetchall()[0]
    assert got is not None and got[0] == 40
    assert got[1] == sum(row["total"] for row in invoices)
    frame = pl.DataFrame(invoices)
    assert frame.height == 40
    assert isinstance(frame.schema["total"], pl.Decimal)
    assert frame["total"].sum() == got[1]


def test_a_stream_goes_to_parquet_batch_by_batch(client: erpdata.Client, tmp_path: Path) -> None:
    path = tmp_path / "stream.parquet"
    writer = None
    batches = 0
    with client.stream_table("sales_invoice", batch_rows=7, batch_format="arrow") as stream:
        for batch in stream:
            if writer is None:
                writer = pq.ParquetWriter(str(path), batch.schema)
            writer.write_batch(batch)  # one schema for every batch, or this raises
            batches += 1
    assert writer is not None
    writer.close()
    assert batches == 6
    table = pq.read_table(path)
    assert table.num_rows == 40
    assert pa.types.is_decimal(table.schema.field("total").type)


@pytest.mark.parametrize("suffix", ["erp.duckdb", "dataset"])
def test_a_partition_now_empty_empties_its_old_copy(tmp_path: Path, suffix: str) -> None:
    from conftest import _sandbox

    to = tmp_path / suffix
    full = _sandbox([])
    url = next(full)
    with erpdata.Client(url, project="demo", access_token=SANDBOX_TOKEN) as c:
        first = export(c, "sales_invoice", companies=1, years=2025, to=to, progress=False)
    full.close()
    assert first.partitions[0].rows > 0
    none = _sandbox(["--rows", "0"])
    url = next(none)
    with erpdata.Client(url, project="demo", access_token=SANDBOX_TOKEN) as c:
        again = export(c, "sales_invoice", companies=1, years=2025, to=to, progress=False)
    none.close()
    assert [(p.rows, p.checksum) for p in again.partitions] == [(0, hashlib.sha256().hexdigest())]
    if suffix.endswith(".duckdb"):
        con = duckdb.connect(str(to))
        try:
            assert con.execute("SELECT count(*) FROM sales_invoice").fetchone() == (0,)
            assert con.execute(f"SELECT rows FROM {MANIFEST_TABLE}").fetchall() == [(0,)]
        finally:
            con.close()
    else:
        assert not list(to.rglob("*.parquet"))
        manifest = json.loads((to / MANIFEST_FILE).read_text(encoding="utf-8"))
        assert [m["rows"] for m in manifest] == [0]


def test_client_and_async_client_export_methods(
    client: erpdata.Client, sandbox_url: str, tmp_path: Path
) -> None:
    import asyncio

    result = client.export(["account", "receipt"], years=[2024, 2025], to=tmp_path / "a.duckdb")
    assert len(result.partitions) == 4 and result.format == "duckdb"

    async def run() -> erpdata.export.ExportResult:
        async with erpdata.AsyncClient(
            sandbox_url, project="demo", access_token=SANDBOX_TOKEN, company_id=1, year_id=2025
        ) as aclient:
            return await aclient.export("account", to=tmp_path / "dataset", progress=False)

    dataset = asyncio.run(run())
    assert dataset.format == "parquet" and dataset.rows == result.partitions[0].rows
    assert (tmp_path / "dataset" / MANIFEST_FILE).exists()


def test_a_failing_service_stops_the_export(sandbox_url: str, tmp_path: Path) -> None:
    # 3 tables x 20 companies x 11 years against a service answering 503
    # to everything: the export stops after a few partitions, and with the
    # client's retry budget their calls stop retrying too.
    key = fault_api.new_key("export-down")
    with faulty(sandbox_url, "status-503x1000000-ra0", key) as down:
        down_retrying = erpdata.Client(
            f"{sandbox_url}/_faults/status-503x1000000-ra0/{key}/",
            project="demo",
            access_token=SANDBOX_TOKEN,
        )
        with down_retrying, pytest.raises(ExportError) as err:
            export(
                down_retrying,
                TABLES,
                companies=range(1, 21),
                years=range(2015, 2026),
                to=tmp_path / "erp.duckdb",
                progress=False,
            )
    sent = fault_api.count(sandbox_url, key)
    assert sent <= 12, f"{sent} requests"
    e = err.value
    assert e.stopped and e.kind == "http_status"
    assert isinstance(e.__cause__, erpdata.HttpStatusError)
    assert len(e.failed) >= STOP_AFTER_FAILURES
    assert len(e.failed) + len(e.not_started) == 660 and e.result is not None
    assert e.result.partitions == []
    message = str(e)
    assert message.startswith(
        f"the export stopped after {STOP_AFTER_FAILURES} partitions in a row failed"
    )
    # The first three failed are named, the others counted.
    named = "; ".join(f"{t} of company {c}, year {y}" for t, c, y in e.failed[:3])
    more = f"; {len(e.failed) - 3} more" if len(e.failed) > 3 else ""
    assert (
        f"0 written, {len(e.failed)} failed ({named}{more}), {len(e.not_started)} not started"
    ) in message
    assert "resume=True" in message and "HTTP status 503" in message
    # A library's caller is told Python's way to resume, not the CLI's.
    assert "--resume" not in message
    # Nothing was written: no file.
    assert not (tmp_path / "erp.duckdb").exists()
    del down


@pytest.mark.parametrize("target", ["erp.duckdb", "dataset"])
def test_resume_fetches_only_what_was_not_written(
    sandbox_url: str, tmp_path: Path, target: str
) -> None:
    to = tmp_path / target
    years = [2024, 2025]
    with faulty(sandbox_url, "pass", fault_api.new_key("export-first")) as ok:
        export(ok, ["account"], companies=[2], years=years, to=to, progress=False)
    # The service fails from the start: the export stops.
    with faulty(sandbox_url, "status-503x1000000-ra0", fault_api.new_key("export-down")) as down:
        with pytest.raises(ExportError) as err:
            export(down, TABLES, years=years, to=to, concurrency=1, progress=False)
    # (The reader may have taken the next partition before the third
    # failure was counted.)
    assert err.value.stopped and len(err.value.failed) >= STOP_AFTER_FAILURES
    assert len(err.value.failed) + len(err.value.not_started) == 6
    pending = pending_of(to)
    assert sorted(pending) == sorted((t, "1", str(y)) for t in TABLES for y in years), (
        "every partition asked for and not written is pending"
    )
    assert {state for state, _ in pending.values()} == {"failed", "not started"}
    assert all(
        "HTTP status 503" in (error or "") for state, error in pending.values() if state == "failed"
    )
    # Resumed over company 2 too: the six pending partitions and the four
    # the manifest lacks (sales_invoice and receipt of company 2) are
    # fetched, not account of company 2, written first; nothing is pending
    # after.
    key = fault_api.new_key("export-resume")
    with faulty(sandbox_url, "pass", key) as ok:
        result = export(ok, TABLES, companies=[1, 2], years=years, to=to, resume=True)
    assert sorted((p.table, p.compid, p.yearid) for p in result.partitions) == sorted(
        (t, c, y) for t in TABLES for c in (1, 2) for y in years if (t, c) != ("account", 2)
    )
    assert fault_api.count(sandbox_url, key) == 10
    assert pending_of(to) == {}
    with faulty(sandbox_url, "pass", key) as ok:
        again = export(ok, TABLES, companies=[1, 2], years=years, to=to, resume=True)
    assert again.partitions == [] and fault_api.count(sandbox_url, key) == 10


def pending_of(to: Path) -> dict[tuple[str, str, str], tuple[str, str | None]]:
    """The partitions the target lists as not written: state and error."""
    if to.suffix == ".duckdb":
        con = duckdb.connect(str(to))
        try:
            tables = {t for (t,) in con.execute("SHOW TABLES").fetchall()}
            if PENDING_TABLE not in tables:
                return {}
            rows = con.execute(f"SELECT * FROM {PENDING_TABLE}").fetchall()
        finally:
            con.close()
        return {(t, c, y): (state, error) for t, c, y, state, error in rows}
    path = to / PENDING_FILE
    if not path.exists():
        return {}
    return {
        (p["table"], p["compid"], p["yearid"]): (p["state"], p["error"])
        for p in json.loads(path.read_text(encoding="utf-8"))
    }


def test_the_cli_says_how_to_resume(sandbox_url: str, tmp_path: Path) -> None:
    env = env_for(
        f"{sandbox_url}/_faults/status-503x1000000-ra0/{fault_api.new_key('cli')}/",
        ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN,
    )
    done = cli(
        ["export", *TABLES, "--years", "2024", "2025", "--to", str(tmp_path / "x.duckdb")], env
    )
    assert done.returncode == 3
    line = one_line_error(done)
    assert "the export stopped after" in line and "--resume" in line, line
    # The command line's way to resume, not a Python caller's.
    assert "resume=True" not in line, line


def test_a_failed_export_names_its_partitions_and_what_to_do(
    sandbox_url: str, tmp_path: Path
) -> None:
    # Company 3 and table sales_invoices do not exist: the service refuses
    # them, and would again. A resume is not offered; what to fix is.
    with pytest.raises(ExportError) as err:
        with faulty(sandbox_url, "pass", fault_api.new_key("export-refused")) as ok:
            export(
                ok,
                ["account", "sales_invoices"],
                companies=[1, 3],
                to=tmp_path / "x.duckdb",
                concurrency=1,
                progress=False,
            )
    message = str(err.value)
    assert message.startswith(
        "3 of 4 partitions failed: 1 written, 3 failed (account of company 3, year 2025; "
        "sales_invoices of company 1, year 2025; sales_invoices of company 3, year 2025), "
        "0 not started; they were refused by the service, which another try would not mend: "
        "fix what the failure says, or leave that table, company or year out. The first "
        "failure: service error"
    ), message
    assert "resume" not in message
    # One that may pass on another try (a 503 on the first request) beside
    # one refused: a resume for that one, and the refusal shown.
    with pytest.raises(ExportError) as err:
        with faulty(sandbox_url, "status-503x1-ra0", fault_api.new_key("export-mixed")) as once:
            export(
                once, ["account", "nope"], to=tmp_path / "y.duckdb", concurrency=1, progress=False
            )
    message = str(err.value)
    assert (
        "; nope of company 1, year 2025 was refused by the service, which another try would "
        "not mend: fix what the failure says, or leave that table, company or year out; "
        "another try may pass for the others: run the same export with resume=True to fetch "
        "only the 2 not written. The first refusal: service error"
    ) in message, message
    assert isinstance(err.value.__cause__, erpdata.HttpStatusError)
    # Many failed: the first three are named.
    env = env_for(sandbox_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN)
    args = ["export", "nope", "--companies", "1", "2", "--years", "2024", "2025"]
    done = cli([*args, "--concurrency", "1", "--to", str(tmp_path / "z.duckdb")], env)
    assert done.returncode == 3
    line = one_line_error(done)
    assert (
        "4 failed (nope of company 1, year 2024; nope of company 1, year 2025; nope of "
        "company 2, year 2024; 1 more), 0 not started; they were refused by the service"
    ) in line, line
    assert "resume" not in line, line


def test_the_cli_resumes_and_says_when_nothing_is_left(sandbox_url: str, tmp_path: Path) -> None:
    env = env_for(sandbox_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN)
    args = ["export", "account", "--years", "2025", "--to", str(tmp_path / "x.duckdb")]
    first = cli(args, env)
    assert first.returncode == 0, first.stderr
    assert first.stderr.strip().endswith("in 1 partition written to " + str(tmp_path / "x.duckdb"))
    again = cli([*args, "--resume"], env)
    assert again.returncode == 0, again.stderr
    assert again.stderr.strip() == (
        f"nothing to fetch: every partition asked for is in {tmp_path / 'x.duckdb'}"
    )


def test_nothing_is_printed_at_exit_after_a_failed_export(sandbox_url: str, tmp_path: Path) -> None:
    # A fresh interpreter that keeps the error (and so its traceback's
    # frames) until it exits: DuckDB's binding, left holding an object,
    # would print its leak report on the way out; in Python's development
    # mode, so is a file or socket left open.
    script = f"""
import erpdata
from erpdata.export import ExportError, export
client = erpdata.Client({sandbox_url + "/_faults/truncate-3000/exit/"!r}, project="demo",
    access_token="{SANDBOX_TOKEN}", company_id=1, year_id=2025, max_retries=0)
try:
    export(client, ["account", "sales_invoice"], to={str(tmp_path / "x.duckdb")!r},
        batch_rows=5, progress=False)
except ExportError as e:
    kept = e
print(type(kept.__cause__).__name__, len(kept.result.partitions))
client.close()
"""
    done = subprocess.run(
        [sys.executable, "-X", "dev", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("DecodeError "), done.stdout
    assert done.stderr == ""


CTRL_C_IN_A_BATCH = """
import os, signal, sys, threading
from pathlib import Path

import pyarrow as pa

import erpdata
from erpdata.export import _DuckDB

url, target = sys.argv[1], Path(sys.argv[2])
with erpdata.Client(url, project="demo", company_id=1, year_id=2025) as client:
    invoices = client.table("sales_invoice").to_arrow()
# A batch DuckDB takes a while to scan: Ctrl-C arrives during the INSERT.
batch = pa.concat_tables([invoices] * 20_000).combine_chunks().to_batches()[0]
writer = _DuckDB(target)
key = ("sales_invoice", 1, 2025)
writer.begin(key, batch.schema)
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    for _ in range(200):
        writer.write(key, batch)
except KeyboardInterrupt:
    print("KeyboardInterrupt")
except BaseException as exc:
    print(type(exc).__name__, exc)
else:
    print("not interrupted")
finally:
    writer.discard(key)
    writer.close()
"""


def test_ctrl_c_while_duckdb_writes_a_batch_is_a_keyboard_interrupt(
    sandbox_url: str, tmp_path: Path
) -> None:
    # DuckDB catches the KeyboardInterrupt of a Ctrl-C that arrives while
    # it scans an Arrow batch and raises RuntimeError('Query interrupted'):
    # erpdata export ended with that traceback and exit 1, not 130.
    script = tmp_path / "ctrl_c.py"
    script.write_text(CTRL_C_IN_A_BATCH, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), sandbox_url, str(tmp_path / "erp.duckdb")],
        env=env_for(sandbox_url, ERPDATA_ACCESS_TOKEN=SANDBOX_TOKEN),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout == "KeyboardInterrupt\n", done.stdout + done.stderr


@pytest.mark.parametrize("name", ["erp.duckdb", "erp"])
def test_a_ctrl_c_lists_what_was_not_written_for_resume(
    client: erpdata.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    # Ctrl-C (and SIGTERM, which the CLI turns into one) ended the export
    # before it listed the partitions not written, as a cancellation does:
    # a re-export so stopped left every earlier copy in the manifest, and
    # --resume fetched nothing again.
    to = tmp_path / name
    export(client, TABLES, years=[2025], to=to)
    writer = erpdata.export._DuckDB if to.suffix else erpdata.export._Parquet
    begin = writer.begin
    written: list[str] = []

    def ctrl_c_at_the_second(self: Any, key: tuple[str, Any, Any], *args: Any) -> None:
        if written:
            raise KeyboardInterrupt
        begin(self, key, *args)
        written.append(key[0])

    monkeypatch.setattr(writer, "begin", ctrl_c_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        export(client, TABLES, years=[2025], to=to, concurrency=1)
    monkeypatch.undo()
    left = sorted(t for t in TABLES if t not in written)
    assert len(written) == 1 and len(left) == 2
    assert pending_of(to) == {(t, "1", "2025"): ("not started", None) for t in left}
    again = export(client, TABLES, years=[2025], to=to, resume=True)
    assert sorted(p.table for p in again.partitions) == left
    assert pending_of(to) == {}


def test_a_ctrl_c_while_the_readers_start_stops_those_started(
    huge_sandbox_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Thread.start waits for the thread to run: a Ctrl-C there left the
    # readers already started reading, not stopped and not waited for, and
    # one in the core as the interpreter exited aborted the process
    # ("FATAL: exception not rethrown", erpdata export's exit -6).
    import threading
    import time

    start = threading.Thread.start

    def interrupted_after_the_first(thread: threading.Thread) -> None:
        start(thread)
        if thread.name == "erpdata-export-0":
            raise KeyboardInterrupt

    monkeypatch.setattr(threading.Thread, "start", interrupted_after_the_first)
    before = set(threading.enumerate())
    with erpdata.Client(
        huge_sandbox_url, project="demo", access_token=SECRET_TOKEN, company_id=1
    ) as client:
        with pytest.raises(KeyboardInterrupt):
            client.export("sales_invoice", years=[2024, 2025], to=tmp_path / "erp.duckdb")
        # Checked with the client open: closing it would end a reader too.
        readers = [
            t for t in set(threading.enumerate()) - before if t.name.startswith("erpdata-export")
        ]
        deadline = time.monotonic() + 5
        while any(t.is_alive() for t in readers) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not any(t.is_alive() for t in readers), "a reader went on after the interrupt"
