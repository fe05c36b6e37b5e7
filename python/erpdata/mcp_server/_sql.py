"""Questions about ERP tables in SQL: the tables a question names are
fetched through the client on first use into an in-process DuckDB (one
database a company and year), kept for a configurable time, and queried
read-only: one SELECT statement, no files, no network, no extensions, a
row cap and a time limit."""

from __future__ import annotations

import datetime
import json
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from .. import Client, _core
from .._text import decimal_text
from ._answers import EXACT, MAX_ITEMS, summed_columns, zero_of

__all__ = [
    "SqlError",
    "SqlResult",
    "TableStore",
    "Described",
    "ID_COLUMNS",
    "repeated_ids",
    "said_once",
]

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")

LOCKED_DOWN = {
    # No files, no network, no ATTACH, COPY or read_csv: only the tables
    # this module loads.
    "enable_external_access": False,
    # Extensions neither installed nor loaded on demand (httpfs, ...).
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    # A query cannot name a Python variable of this process as a table
    # (DuckDB's replacement scans look through the caller's frames).
    "python_enable_replacements": False,
    # And none of the above can be SET back by a statement.
    "lock_configuration": True,
}
"""The configuration of every database this module opens."""

INCOMING = "__erpdata_incoming"
"""The name a fetched table is registered under while it is copied in."""

BATCH_ROWS = 2048


def _id_columns() -> dict[str, str]:
    """The columns a table's rows name their company and year by, as the
    PHP service's ``SELECT *`` sends them: the wire names of the catalogue
    ``table`` operation's ids, each with its argument (``compid`` and
    ``company_id``)."""
    operations = json.loads(_core.catalogue_json())["operations"]
    table = next(op for op in operations if op["name"] == "table")
    return {p["wire"]: p["name"] for p in table["params"] if p["kind"] == "id" and p["wire"]}


ID_COLUMNS = _id_columns()


def repeated_ids(table: pa.Table, asked: Mapping[str, str | None]) -> dict[str, str]:
    """The :data:`ID_COLUMNS` of ``table`` whose every row holds the id
    asked for (``asked``: column to id), each with that id: they repeat
    what the answer says once, and are left out of it. A column with a
    null, or with another company's or year's rows, is kept."""
    repeated: dict[str, str] = {}
    for name, wanted in asked.items():
        if wanted is None or name not in table.column_names:
            continue
        column = table.column(name)
        if column.null_count:
            continue
        values = pc.unique(column).to_pylist()
        if len(values) == 1 and str(values[0]) == wanted:
            repeated[name] = wanted
    return repeated


def said_once(repeated: dict[str, str]) -> str:
    """``compid 1 and yearid 2025 on every row (not shown)``."""
    ids = " and ".join(f"{name} {value}" for name, value in repeated.items())
    return f"{ids} on every row (not shown)"


class SqlError(Exception):
    """A statement that was refused, is wrong, or ran too long; the
    message is DuckDB's or says what is allowed."""


@dataclass(frozen=True)
class Described:
    """A fetched table: its columns and types (as erpdata names them),
    rows, when it was fetched, and the notices PHP printed before it (the
    copy may be incomplete or use defaults: every answer from it says so)."""

    name: str
    company_id: str | None
    year_id: str | None
    columns: list[tuple[str, str]]
    row_count: int
    fetched_at: datetime.datetime
    notices: tuple[str, ...] = ()
    left_out_columns: dict[str, str] = field(default_factory=dict)
    """The id columns left out of the copy, each with the value every row
    held (:func:`repeated_ids`)."""


@dataclass(frozen=True)
class SqlResult:
    """The first rows of a result (up to the cap), how many it had, the
    exact sums of its decimal columns over all of them, and the notices
    of the tables it read (each as ``table: notice``)."""

    columns: list[tuple[str, str]]
    rows: list[dict[str, Any]]
    row_count: int
    totals: dict[str, str]
    tables: list[str]
    notices: list[str] = field(default_factory=list)


@dataclass
class _Loaded:
    described: Described
    at: float


@dataclass
class _Database:
    connection: duckdb.DuckDBPyConnection
    loaded: dict[str, _Loaded] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # One per table, held while it is fetched: an assistant's tool calls
    # at once over one table (a model asks several questions in parallel)
    # wait for one fetch rather than each asking the ERP for it.
    fetching: dict[str, threading.Lock] = field(default_factory=dict)


def _type_name(arrow_type: Any) -> str:
    """An Arrow type as erpdata names column types."""
    if pa.types.is_integer(arrow_type):
        return "int"
    if pa.types.is_decimal(arrow_type):
        return f"decimal({arrow_type.precision},{arrow_type.scale})"
    if pa.types.is_floating(arrow_type):
        return "float"
    if pa.types.is_date(arrow_type):
        return "date"
    if pa.types.is_timestamp(arrow_type):
        return "timestamp"
    if pa.types.is_boolean(arrow_type):
        return "bool"
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "string"
    if pa.types.is_null(arrow_type):
        return "null"
    return str(arrow_type)


class TableStore:
    """The tables fetched so far and the SQL over them.

    ``cache_seconds``: how long a fetched table is used before it is
    fetched again; ``query_seconds``: how long one statement may run;
    ``max_rows``: rows of a result kept (the rest are counted)."""

    def __init__(
        self,
        client: Client,
        *,
        cache_seconds: float,
        query_seconds: float,
        max_rows: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._cache_seconds = cache_seconds
        self._query_seconds = query_seconds
        self._max_rows = max_rows
        self._clock = clock
        self._databases: dict[tuple[str | None, str | None], _Database] = {}
        self._lock = threading.Lock()

    # -- the databases ---------------------------------------------------------

    def _ids(
        self, company_id: str | int | None, year_id: str | int | None
    ) -> tuple[str | None, str | None]:
        company = self._client.company_id if company_id is None else str(company_id)
        year = self._client.year_id if year_id is None else str(year_id)
        return company, year

    def _database(self, key: tuple[str | None, str | None]) -> _Database:
        with self._lock:
            database = self._databases.get(key)
            if database is None:
                connection = duckdb.connect(":memory:", config=dict(LOCKED_DOWN))
                database = self._databases[key] = _Database(connection)
            return database

    def _fresh(self, loaded: _Loaded | None) -> bool:
        return loaded is not None and self._clock() - loaded.at < self._cache_seconds

    def _load(
        self, database: _Database, key: tuple[str | None, str | None], name: str, refresh: bool
    ) -> Described:
        """Table ``name`` of the database, fetched unless a fresh copy is
        held. The fetch runs outside the database's lock (it is the slow
        part), under the table's own: uses of the table meanwhile wait for
        it and take what it fetched; a refresh takes it only if that fetch
        began after the refresh was asked for."""
        asked = self._clock()
        with database.lock:
            fetching = database.fetching.setdefault(name, threading.Lock())
        with fetching:
            with database.lock:
                loaded = database.loaded.get(name)
            if loaded is not None and self._fresh(loaded) and (not refresh or loaded.at > asked):
                return loaded.described
            return self._fetch(database, key, name)

    def _fetch(
        self, database: _Database, key: tuple[str | None, str | None], name: str
    ) -> Described:
        """Fetches table ``name`` into the database."""
        fetched = self._clock()
        company, year = key
        table = self._client.table(name, company_id=company, year_id=year, progress=False)
        arrow = table.to_arrow()
        # The database is one company's and year's: ids that only repeat
        # them would fill every `SELECT *` answer.
        given = {"company_id": company, "year_id": year}
        ids = {column: given.get(argument) for column, argument in ID_COLUMNS.items()}
        repeated = repeated_ids(arrow, ids)
        arrow = arrow.drop_columns(list(repeated))
        described = Described(
            name=name,
            company_id=company,
            year_id=year,
            columns=[(n, t) for n, t in table.schema if n not in repeated],
            row_count=len(table),
            fetched_at=datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0),
            notices=tuple(table.notices),
            left_out_columns=repeated,
        )
        with database.lock:
            connection = database.connection
            connection.register(INCOMING, arrow)
            try:
                # `name` is an identifier (checked by the client and by the
                # caller), so quoting it is enough.
                connection.execute(f'CREATE OR REPLACE TABLE "{name}" AS SELECT * FROM {INCOMING}')
            finally:
                connection.unregister(INCOMING)
            database.loaded[name] = _Loaded(described, fetched)
        return described

    # -- the tools -------------------------------------------------------------

    def describe(
        self,
        name: str,
        *,
        company_id: str | int | None = None,
        year_id: str | int | None = None,
        refresh: bool = False,
    ) -> Described:
        """Table ``name`` of a company and year, fetched if need be."""
        key = self._ids(company_id, year_id)
        return self._load(self._database(key), key, name, refresh)

    def query(
        self,
        sql: str,
        *,
        company_id: str | int | None = None,
        year_id: str | int | None = None,
        refresh: bool = False,
    ) -> SqlResult:
        """Runs one read-only statement over the tables of a company and
        year, fetching those it names first."""
        statement = _one_select(sql)
        key = self._ids(company_id, year_id)
        database = self._database(key)
        try:
            # A connection is used by one thread at a time (each query
            # then runs on a cursor of its own).
            with database.lock:
                named = sorted(database.connection.get_table_names(statement))
        except duckdb.Error as exc:
            raise SqlError(str(exc)) from None
        # What is not an identifier (a quoted path, say) is left for DuckDB
        # to refuse; every identifier is an ERP table to fetch.
        tables = [n for n in named if IDENTIFIER.fullmatch(n)]
        notices = [
            f"{name}: {notice}"
            for name in tables
            for notice in self._load(database, key, name, refresh).notices
        ]
        result = self._run(database, statement, tables)
        result.notices.extend(notices)
        return result

    def _run(self, database: _Database, statement: str, tables: list[str]) -> SqlResult:
        with database.lock:
            cursor = database.connection.cursor()

        def interrupt() -> None:
            # The statement may have ended (and the cursor closed) just as
            # the time ran out: nothing then to interrupt.
            try:
                cursor.interrupt()
            except duckdb.Error:
                pass

        # DuckDB has no statement timeout: a timer interrupts the cursor.
        timer = threading.Timer(self._query_seconds, interrupt)
        timer.daemon = True
        timer.start()
        try:
            reader = cursor.sql(statement).to_arrow_reader(BATCH_ROWS)
            columns = [(f.name, _type_name(f.type)) for f in reader.schema]
            _named_apart(reader.schema.names)
            money = set(summed_columns(columns))
            sums = {name: zero_of(kind) for name, kind in columns if name in money}
            rows: list[dict[str, Any]] = []
            count = 0
            for batch in reader:
                count += batch.num_rows
                room = self._max_rows - len(rows)
                if room > 0:
                    rows.extend(_lists_cut(batch.slice(0, room)).to_pylist())
                for name in sums:
                    sums[name] = _decimal_sum(batch.column(name), sums[name])
        except duckdb.InterruptException:
            raise SqlError(
                f"the query ran longer than {self._query_seconds:g} s and was stopped; "
                "ask for less (WHERE, GROUP BY, LIMIT) or avoid joins without a condition"
            ) from None
        except duckdb.Error as exc:
            raise SqlError(str(exc)) from None
        finally:
            timer.cancel()
            cursor.close()
        totals = {k: decimal_text(v) for k, v in sums.items()}
        return SqlResult(columns, rows, count, totals, tables)


def _named_apart(names: list[str]) -> None:
    """Refuses a result two of whose columns have one name (``SELECT s.date,
    r.date``): its rows, read by name, would show one value twice."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise SqlError(
                f"the result has {names.count(name)} columns named {name!r}; give each its "
                f"own name with AS (e.g. SELECT s.{name} AS sale_{name}, r.{name} AS receipt_{name})"
            )
        seen.add(name)


def _lists_cut(batch: pa.RecordBatch) -> pa.RecordBatch:
    """``batch`` with each list value cut to one item more than an answer
    shows (the answer cuts it and says so): a list of a million items
    (``array_agg`` over a table) made into Python objects whole took a
    minute and a gigabyte, to show a hundred of them."""
    columns = [
        pc.list_slice(column, 0, MAX_ITEMS + 1)
        if pa.types.is_list(column.type) or pa.types.is_large_list(column.type)
        else column
        for column in batch.columns
    ]
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


def _decimal_sum(column: Any, start: Decimal) -> Decimal:
    """``start`` plus the exact sum of a decimal Arrow column's values
    (nulls skipped)."""
    total = start
    for value in column.to_pylist():
        if value is not None:
            total = EXACT.add(total, value)
    return total


def _one_select(sql: str) -> str:
    """``sql`` if it is exactly one read-only query (SELECT, WITH ...
    SELECT, FROM ..., VALUES, a UNION of those), as DuckDB's parser sees
    it; anything else is refused with what was found."""
    if not isinstance(sql, str) or not sql.strip():
        raise SqlError("sql is empty: send one SELECT statement")
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise SqlError(str(exc)) from None
    if len(statements) != 1:
        raise SqlError(
            f"sql holds {len(statements)} statements; send one SELECT statement at a time"
        )
    kind = statements[0].type
    if kind != duckdb.StatementType.SELECT:
        raise SqlError(
            f"only a SELECT statement is run (read-only); this one is {kind.name}: "
            "the server never changes data, reads files or loads extensions"
        )
    return statements[0].query
