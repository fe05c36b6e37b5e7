"""ERP tables as a dlt source: one resource per table, loaded by any dlt
destination.

    import dlt
    from erpdata.dlt import erpdata_source

    pipeline = dlt.pipeline("erp", destination="duckdb", dataset_name="erp_data")
    pipeline.run(erpdata_source(["sales_invoice", "account"], companies=[1], years=[2025]))

Each resource reads its table for every (company, year) with erpdata's own
client (retries, redirects and typing as everywhere) and yields Arrow
batches with ``compid`` and ``yearid`` columns added where the table has
none of its own, so decimals, dates and timestamps reach the destination
typed.

Settings left out come from dlt's configuration (``sources.erpdata.*`` in
``.dlt/secrets.toml`` and ``config.toml``, or ``SOURCES__ERPDATA__ACCESS_TOKEN``
and the like), then from the ``ERPDATA_*`` variables. ``access_token`` is a
dlt secret: dlt keeps it out of its traces, and erpdata out of every error
and repr. ``schema_overrides`` declares column types for every partition.

The default ``write_disposition="replace"`` makes each table the last run's
copy. ``"merge"`` replaces only the companies and years loaded (a
delete-insert on ``compid``, ``yearid``), so other companies' rows stay; a
(company, year) that now has no rows keeps its old rows there.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Literal

from ._models import missing_extra

try:
    import dlt
    import pyarrow as pa
    from dlt.common.schema.typing import TColumnSchema
    from dlt.common.typing import TSecretStrValue
except ImportError as exc:
    raise missing_extra(exc, "erpdata.dlt", "dlt") from exc

from ._checks import check_batch_rows, invalid
from ._client import Client
from ._core import DEFAULT_BATCH_ROWS
from ._errors import DecodeError, InvalidInputError
from ._hidden import Settings
from ._models import Id
from ._typing import typing_options
from .export import IDS, default_id, partition_ids

__all__ = ["erpdata_source"]

_DISPOSITIONS = ("replace", "append", "merge")


@dlt.source(name="erpdata", max_table_nesting=0)
def erpdata_source(
    tables: str | Sequence[str],
    companies: Id | Iterable[Id] | None = None,
    years: Id | Iterable[Id] | None = None,
    base_url: str | None = None,
    project: str | None = None,
    project_folder: str | None = None,
    access_token: TSecretStrValue | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    write_disposition: Literal["replace", "append", "merge"] = "replace",
    schema_overrides: dict[str, str] | None = None,
    timeout: float | None = None,
    max_retries: int | None = None,
    max_retry_after: float | None = None,
) -> Any:
    """The ERP's ``tables`` for every company and year given (each defaults
    to ``ERPDATA_COMPANY_ID`` / ``ERPDATA_YEAR_ID``). ``schema_overrides``
    declares column types, as for :meth:`erpdata.Client.table`, in every
    table and partition; ``timeout`` (seconds), ``max_retries`` and
    ``max_retry_after`` (seconds) are the client's
    (:class:`erpdata.Client`), for every partition. Every request
    is checked when the source is made, before anything is sent."""
    names = [tables] if isinstance(tables, str) else list(dict.fromkeys(tables))
    if not names:
        invalid("tables", "must name at least one table")
    if write_disposition not in _DISPOSITIONS:
        invalid("write_disposition", f"must be one of {', '.join(_DISPOSITIONS)}")
    check_batch_rows(batch_rows)
    settings = Settings(
        {
            "base_url": base_url,
            "project": project,
            "project_folder": project_folder,
            "access_token": access_token,
            # Without them a service that stopped answering held each partition
            # for the default limits (30 s a read, three tries), and a dlt user
            # could not say otherwise.
            "timeout": timeout,
            "max_retries": max_retries,
            "max_retry_after": max_retry_after,
        }
    )
    # Held by `settings` alone from here, whose repr withholds it.
    del access_token
    try:
        with _client(settings) as client:
            # Redacted by the client's configuration: a type or column name
            # may be the token pasted in the wrong place.
            typing_options(schema_overrides, True, one_schema=True, config=client._config)
            company_ids = partition_ids(
                "companies",
                companies if companies is not None else default_id(client, "company_id"),
            )
            year_ids = partition_ids(
                "years", years if years is not None else default_id(client, "year_id")
            )
            for table in names:
                for compid in company_ids:
                    for yearid in year_ids:
                        client.check_table(table, company_id=compid, year_id=yearid)
    except InvalidInputError as exc:
        if exc.field not in settings:
            raise
        # erpdata's message names the argument and its ERPDATA_* variable;
        # a dlt user gives settings in dlt's configuration.
        place = "secrets" if exc.field == "access_token" else "config"
        invalid(
            exc.field,
            f"{exc.reason}; with dlt, sources.erpdata.{exc.field} in .dlt/{place}.toml "
            f"or SOURCES__ERPDATA__{exc.field.upper()}",
        )
    return [
        dlt.resource(
            _read(settings, table, company_ids, year_ids, batch_rows, schema_overrides),
            name=table,
            write_disposition=write_disposition,
            merge_key=list(IDS),
        )
        for table in names
    ]


def _client(settings: Settings) -> Client:
    limits = {
        name: settings[name]
        for name in ("timeout", "max_retries", "max_retry_after")
        if settings[name] is not None
    }
    return Client(
        settings["base_url"],
        project=settings["project"],
        project_folder=settings["project_folder"],
        access_token=settings["access_token"],
        **limits,
    )


def _read(
    settings: Settings,
    table: str,
    companies: list[Id],
    years: list[Id],
    batch_rows: int,
    schema_overrides: dict[str, str] | None,
) -> Iterator[pa.Table]:
    # The client is made where dlt runs the resource, not where the
    # source was made: dlt may extract on another thread.
    with _client(settings) as client:
        for compid in companies:
            for yearid in years:
                stream = client.stream_table(
                    table,
                    company_id=compid,
                    year_id=yearid,
                    batch_rows=batch_rows,
                    batch_format="arrow",
                    schema_overrides=schema_overrides,
                )
                with stream:
                    for batch in stream:
                        loaded = _fit_loaded(_with_partition(batch, compid, yearid), table)
                        naive = _naive_timestamps(loaded.schema)
                        if naive:
                            loaded = dlt.mark.with_hints(loaded, dlt.mark.make_hints(columns=naive))
                        yield loaded


def _fit_loaded(batch: pa.Table, table: str) -> pa.Table:
    """``batch``'s numbers in the types of the columns dlt has loaded
    before (in this run or an earlier one), where they differ by
    partition: dlt failed the run on the second type
    (IncompatibleArrowSchema) or, in a later run, loaded the values into
    the first type, rounded.

    - A partition's decimals have the digits after the point its values
      need (a DOUBLE's rates: two in one company, four in another): fewer
      than the column holds are made more.
    - Ids that are numbers in one company and text in another (``1001``,
      ``A-17``): numbers into a text column are made their text.

    A column that cannot hold the partition's values (more digits after
    the point, or text in a number column) is an error that says how to
    load them."""
    schema = dlt.current.source_schema()
    columns = schema.tables.get(schema.naming.normalize_table_identifier(table), {}).get(
        "columns", {}
    )
    for i, field in enumerate(batch.schema):
        known = columns.get(schema.naming.normalize_identifier(field.name), {})
        number = pa.types.is_decimal(field.type) or pa.types.is_integer(field.type)
        sent = field.type.scale if pa.types.is_decimal(field.type) else 0
        if known.get("data_type") == "text" and number:
            batch = batch.set_column(
                i, field.with_type(pa.string()), batch.column(i).cast(pa.string())
            )
            continue
        if known.get("data_type") not in ("decimal", "bigint"):
            continue
        if pa.types.is_string(field.type):
            need = "string"
        elif not number:
            continue
        else:
            holds = (known.get("scale") or 0) if known["data_type"] == "decimal" else 0
            if sent < holds:
                kind = pa.decimal128(known.get("precision") or 38, holds)
                batch = batch.set_column(i, field.with_type(kind), batch.column(i).cast(kind))
            if sent <= holds:
                continue
            need = f"decimal(38,{sent})"
        what = "text" if need == "string" else f"values with {sent} digits after the point"
        raise DecodeError(
            f"column {field.name!r} of {table} has {what}, and the column loaded before "
            f"({known['data_type']}) cannot hold them unchanged. Declare its type for every "
            f"company and year, erpdata_source(..., schema_overrides={{{field.name!r}: "
            f"'{need}'}}), and load the table anew (pipeline.run(source, "
            "refresh='drop_resources'))"
        )
    return batch


def _naive_timestamps(schema: pa.Schema) -> list[TColumnSchema]:
    """The ERP's timestamps are local times without a zone: dlt would load
    them as UTC (TIMESTAMP WITH TIME ZONE in DuckDB, shown shifted by a
    session in another zone), unless told they have none."""
    return [
        TColumnSchema(name=field.name, data_type="timestamp", timezone=False)
        for field in schema
        if pa.types.is_timestamp(field.type) and field.type.tz is None
    ]


def _with_partition(batch: pa.RecordBatch, compid: Id, yearid: Id) -> pa.Table:
    n = batch.num_rows
    fields, arrays = [], []
    for field, column in zip(batch.schema, batch.columns):
        # dlt loads dictionary-encoded text as its values.
        if pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)
        if field.name not in IDS and n and column.null_count == n:
            # No value, so no type: a stream types such a column as text,
            # and a column NULL in one company's rows but money or dates in
            # another's failed the run (dlt buffers the batches of a table
            # together and refuses differing types). As Arrow's null type,
            # dlt takes the column's type from the rows that have one.
            fields.append(pa.field(field.name, pa.null()))
            arrays.append(pa.nulls(n))
            continue
        # A merge key column of the table's own, not null, as dlt's merge
        # key says (else dlt warns that the hints differ).
        key = field.name in IDS and column.null_count == 0
        fields.append(pa.field(field.name, column.type, nullable=not key))
        arrays.append(column)
    for name, value in zip(IDS, (compid, yearid)):
        if name in batch.schema.names:
            # The table's own column (a PHP service's `SELECT *` has them):
            # a second one of that name made dlt load the columns shifted,
            # company 1's rows with compid 2025.
            continue
        kind = pa.int64() if isinstance(value, int) else pa.string()
        # Not nullable, as dlt's merge key says.
        fields.append(pa.field(name, kind, nullable=False))
        arrays.append(pa.array([value] * n, kind))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))
