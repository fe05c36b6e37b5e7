"""ERP tables as a Spark DataFrame: a PySpark Python data source (Spark 4).

    from erpdata.spark import ErpDataSource

    spark.dataSource.register(ErpDataSource)
    df = (spark.read.format("erpdata")
          .option("tables", "sales_invoice")
          .option("companies", "1,2")
          .option("years", "2024,2025")
          .load())

One partition per (table, company, year): each is read on an executor by
erpdata's own client (retries, redirects and typing as everywhere), and
handed to Spark as Arrow batches. The DataFrame has the tables' columns
(a column one table lacks is null in its rows), then ``table``, ``compid``
and ``yearid`` (text, as given) where no table has a column of that name
(a PHP service's tables often carry their own ``compid`` and ``yearid``,
which are kept).

The schema is the one given to ``spark.read.schema(...)``, or else the
typing rule's on the first rows of each table's first partition that has
any (a column with no value there typed from the next partitions'; a
column two tables type differently: a decimal that holds both numbers,
else text); every partition is read with those types declared,
so all of them agree (a value that does not fit is a ``DecodeError``
naming the column and the row, and the ``spark.read.schema(...)`` that
reads it as text).

Options (settings left out come from the ``ERPDATA_*`` variables, on the
driver and on the executors): ``baseUrl``, ``project``, ``projectFolder``,
``accessToken``, ``tables``, ``companies``, ``years`` (comma-separated;
``companies``/``years`` default to ``ERPDATA_COMPANY_ID``/``ERPDATA_YEAR_ID``),
``batchRows``, ``method``, ``timeout`` (seconds), ``maxRetries``,
``maxRetryAfter`` (seconds: the longest ``Retry-After`` waited out). Spark
redacts option values whose name says ``token`` from plans and logs; the
token is never in a partition, an error or this source's repr.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ._models import missing_extra

try:
    import pyarrow as pa
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
    from pyspark.sql.types import (
        BooleanType,
        DataType,
        DateType,
        DecimalType,
        LongType,
        StringType,
        StructField,
        StructType,
        TimestampNTZType,
    )
except ImportError as exc:
    # Python data sources came with Spark 4: an older pyspark fails here too.
    raise missing_extra(exc, "erpdata.spark (Spark 4 or later)", "spark") from exc

from ._checks import check_batch_rows, invalid
from ._client import Client
from ._core import DEFAULT_BATCH_ROWS
from ._errors import DecodeError
from ._hidden import Settings

__all__ = ["ErpDataSource"]

PARTITION_COLUMNS = ("table", "compid", "yearid")
SCHEMA_PARTITIONS = 8
"""Partitions with rows of a table, after its first, whose first rows the
schema reads to type a column the first has no value in, at most."""


def _option(options: Mapping[str, str], name: str) -> str | None:
    # Spark hands options over with their names as given or lower-cased.
    for key in (name, name.lower()):
        value = options.get(key)
        if value is not None and value.strip():
            return value.strip()
    return None


def _list(options: Mapping[str, str], name: str, env: str | None) -> list[str]:
    text = _option(options, name) or (os.environ.get(env) if env else None)
    if not text:
        invalid(name, f"is required: a comma-separated list (option {name!r})")
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        invalid(name, "names nothing")
    return list(dict.fromkeys(items))


def _number(options: Mapping[str, str], name: str, kind: type[float] | type[int]) -> Any:
    """Option ``name``'s text as a number (the client checks its range), or
    ``None``; text that is none is an error naming the option."""
    text = _option(options, name)
    if text is None:
        return None
    try:
        return kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number of seconds"
        invalid(name, f"must be {what}, got {text!r} (option {name!r})")


def _batch_rows(options: Mapping[str, str]) -> int:
    rows = _number(options, "batchRows", int)
    return check_batch_rows(DEFAULT_BATCH_ROWS if rows is None else rows)


def _method(options: Mapping[str, str]) -> str:
    return _option(options, "method") or "POST"


def _client(options: Mapping[str, str]) -> Client:
    timeout = _number(options, "timeout", float)
    retries = _number(options, "maxRetries", int)
    retry_after = _number(options, "maxRetryAfter", float)
    kwargs: dict[str, Any] = {}
    if timeout is not None:
        kwargs["timeout"] = timeout
    if retries is not None:
        kwargs["max_retries"] = retries
    if retry_after is not None:
        kwargs["max_retry_after"] = retry_after
    return Client(
        _option(options, "baseUrl"),
        project=_option(options, "project"),
        project_folder=_option(options, "projectFolder"),
        access_token=_option(options, "accessToken"),
        **kwargs,
    )


def _spark_type(arrow: pa.DataType) -> DataType:
    if pa.types.is_decimal(arrow):
        return DecimalType(arrow.precision, arrow.scale)
    if pa.types.is_int64(arrow) or pa.types.is_integer(arrow):
        return LongType()
    if pa.types.is_date(arrow):
        return DateType()
    if pa.types.is_timestamp(arrow):
        return TimestampNTZType()
    if pa.types.is_boolean(arrow):
        return BooleanType()
    return StringType()


def _wider(a: DataType, b: DataType) -> DataType:
    """The type of a column two tables both have: theirs where they agree,
    a decimal that holds both where both are numbers, else text (a
    declared string column takes any value as the text sent)."""
    if a == b:
        return a
    numbers = (DecimalType, LongType)
    if isinstance(a, numbers) and isinstance(b, numbers):
        scale = max(t.scale if isinstance(t, DecimalType) else 0 for t in (a, b))
        return DecimalType(38, scale)
    return StringType()


def _declared(spark: DataType) -> str:
    """The erpdata type name a Spark column type declares."""
    if isinstance(spark, DecimalType):
        return f"decimal({spark.precision},{spark.scale})"
    if isinstance(spark, LongType):
        return "int"
    if isinstance(spark, DateType):
        return "date"
    if isinstance(spark, TimestampNTZType):
        return "timestamp"
    if isinstance(spark, BooleanType):
        return "bool"
    return "string"


class ErpDataSource(DataSource):
    """``spark.read.format("erpdata")``: see the module's documentation."""

    def __init__(self, options: dict[str, str]) -> None:
        # Held as Settings, whose repr withholds the token: the options
        # are a local of every frame that reads them.
        super().__init__(Settings(options))

    @classmethod
    def name(cls) -> str:
        return "erpdata"

    def _keys(self) -> list[tuple[str, str, str]]:
        tables = _list(self.options, "tables", None)
        companies = _list(self.options, "companies", "ERPDATA_COMPANY_ID")
        years = _list(self.options, "years", "ERPDATA_YEAR_ID")
        return [(t, c, y) for t in tables for c in companies for y in years]

    def _checked(self, client: Client) -> list[tuple[str, str, str]]:
        """The partitions' keys, every option and request checked on the
        driver before the first request is sent (not on an executor, after
        the schema was read)."""
        keys = self._keys()
        _batch_rows(self.options)
        for table, compid, yearid in keys:
            client.check_table(
                table, company_id=compid, year_id=yearid, method=_method(self.options)
            )
        return keys

    def schema(self) -> StructType:
        # Every table's columns, each from the table's first partition with
        # rows: a company or year with none yet (a year just begun) gave a
        # schema of no columns but the partition's, and the columns of a
        # table after the first were dropped from its rows.
        columns: dict[str, DataType] = {}
        with _client(self.options) as client:
            keys = self._checked(client)
            for name in dict.fromkeys(table for table, _, _ in keys):
                typed = self._table_schema(client, [k for k in keys if k[0] == name])
                for column, kind in typed.items():
                    known = columns.get(column)
                    columns[column] = kind if known is None else _wider(known, kind)
        fields = [StructField(name, kind, True) for name, kind in columns.items()]
        # Those no table has a column of: a PHP service's `SELECT *` sends
        # compid and yearid, and a second column of a name made every use
        # of it ambiguous (AMBIGUOUS_REFERENCE).
        fields += [
            StructField(name, StringType(), False)
            for name in PARTITION_COLUMNS
            if name not in columns
        ]
        return StructType(fields)

    def _table_schema(
        self, client: Client, keys: list[tuple[str, str, str]]
    ) -> dict[str, DataType]:
        """One table's columns, typed from the first rows of its first
        partition that has any. A column with no value there (a stream
        types it as text) takes its type from the next partitions' (up to
        :data:`SCHEMA_PARTITIONS` more): a discount NULL on every row of
        company 1 was a string column, and company 2's money text."""
        columns: dict[str, DataType] = {}
        untyped: set[str] = set()
        looked = 0  # partitions read after the first that has rows
        for table, compid, yearid in keys:
            if columns and (not untyped or looked >= SCHEMA_PARTITIONS):
                break
            stream = client.stream_table(
                table,
                company_id=compid,
                year_id=yearid,
                # As the partitions are read: a service reached only with
                # the GET form was sent a POST for the schema.
                method=_method(self.options),
                batch_rows=1024,
                batch_format="arrow",
            )
            with stream:
                first = next(iter(stream), None)
            if first is None:
                continue
            if columns:
                looked += 1
            for field, column in zip(first.schema, first.columns):
                if column.null_count == len(column):
                    if field.name not in columns:
                        columns[field.name] = _spark_type(field.type)
                        untyped.add(field.name)
                elif field.name not in columns or field.name in untyped:
                    columns[field.name] = _spark_type(field.type)
                    untyped.discard(field.name)
        return columns

    def reader(self, schema: StructType) -> DataSourceReader:
        with _client(self.options) as client:
            keys = self._checked(client)
        return ErpReader(Settings(self.options), schema, keys)

    def __repr__(self) -> str:
        return "ErpDataSource()"


class ErpReader(DataSourceReader):
    def __init__(
        self, options: Settings, schema: StructType, keys: list[tuple[str, str, str]]
    ) -> None:
        self._options = options
        self._schema = schema
        self._keys = keys

    def partitions(self) -> list[InputPartition]:
        # (table, company, year): all an executor needs but the settings,
        # which travel with the reader (never in a partition).
        return [InputPartition(key) for key in self._keys]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        table, compid, yearid = partition.value
        # Nullability as the schema says: Spark compares it too.
        target = pa.schema(
            [pa.field(f.name, _arrow_type(f.dataType), f.nullable) for f in self._schema.fields]
        )
        with _client(self._options) as client:
            stream = client.stream_table(
                table,
                company_id=compid,
                year_id=yearid,
                method=_method(self._options),
                batch_rows=_batch_rows(self._options),
                batch_format="arrow",
                # The table's columns declared; not the partition's (a
                # stream gives a declared column the table lacks, as nulls).
                schema_overrides={
                    f.name: _declared(f.dataType)
                    for f in self._schema.fields
                    if f.name not in PARTITION_COLUMNS
                },
            )
            with stream:
                try:
                    for batch in stream:
                        yield _conform(
                            batch, target, {"table": table, "compid": compid, "yearid": yearid}
                        )
                except DecodeError as exc:
                    raise _in_spark(exc, self._schema) from exc

    def __repr__(self) -> str:
        return f"ErpReader(partitions={len(self._keys)})"


def _in_spark(exc: DecodeError, schema: StructType) -> DecodeError:
    """A value that does not fit its column's type, said as Spark's user
    can fix it: the core says "declare another type", and here the types
    are the DataFrame's schema (inferred from the first rows of the
    table's first partition with any, or given): ``spark.read.schema``
    with that column text, which holds any value as sent. Any other
    decoding error as it is."""
    found = re.search(r"column `([^`]*)`, row \d+: .* does not fit its type", str(exc))
    if found is None or found.group(1) not in schema.names:
        return exc
    name = found.group(1)
    ddl = ", ".join(
        f"{_ddl_name(f.name)} {'STRING' if f.name == name else f.dataType.simpleString().upper()}"
        for f in schema.fields
    )
    said = DecodeError(
        f"{exc}. In Spark a column's type is the DataFrame's schema (inferred from the first "
        f"rows the table has, unless given): read it with {name!r} as text, "
        f'spark.read.schema("{ddl}"), or give it a type that holds every company\'s values'
    )
    # Where the call stood, the excerpt: as the core said them.
    said.__dict__.update(exc.__dict__)
    return said


def _ddl_name(name: str) -> str:
    """A column's name in Spark's DDL."""
    return "`" + name.replace("`", "``") + "`"


def _arrow_type(spark: DataType) -> pa.DataType:
    if isinstance(spark, DecimalType):
        return pa.decimal128(spark.precision, spark.scale)
    if isinstance(spark, LongType):
        return pa.int64()
    if isinstance(spark, DateType):
        return pa.date32()
    if isinstance(spark, TimestampNTZType):
        return pa.timestamp("us")
    if isinstance(spark, BooleanType):
        return pa.bool_()
    return pa.string()


def _conform(batch: pa.RecordBatch, target: pa.Schema, partition: dict[str, str]) -> pa.RecordBatch:
    """``batch`` in the declared schema: each column cast (dictionaries to
    plain strings), the partition's own columns (table, compid, yearid)
    where the table has none of that name, and a column the partition
    lacks as nulls."""
    n = batch.num_rows
    arrays = []
    for field in target:
        if field.name in batch.schema.names:
            column = batch.column(field.name)
            if pa.types.is_dictionary(column.type):
                column = column.cast(column.type.value_type)
            arrays.append(column.cast(field.type))
        elif field.name in partition:
            value = partition[field.name]
            arrays.append(pa.array([value] * n, pa.string()).cast(field.type))
        else:
            arrays.append(pa.nulls(n, field.type))
    return pa.RecordBatch.from_arrays(arrays, schema=target)
