"""One schema for every file of a table in a Parquet dataset.

Each partition of an export is streamed into its own file, typed from
what the service sent for that company and year: a decimal column with
two digits after the point in one company's rows and four in another's,
an account reference that is numbers in one and text in another, a
money column with no value in one company's rows (a stream types it as
text). Readers of the dataset take one schema: ``pyarrow.dataset`` the
first file's, refusing the others ("Unable to merge" or a failed cast),
and DuckDB's ``read_parquet`` casts into the first file's types, rounding
1.0825 to 1.08. So once an export's partitions are written, every file of
a table it wrote is given the table's one schema, by the rules the
DuckDB copy follows:

- a column missing from a file is added to it, null;
- integers and decimals become a decimal with the most digits after the
  point any file has;
- a text column where other files have one type is given that type when
  each of its values reads back as the same text (no value, or the values
  a stream's first batch had none of); otherwise the column is text in
  every file;
- any other mix (dates and timestamps, numbers and booleans) is text.

Only the files whose schema differs from the table's are rewritten, each
to a temporary file renamed over it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

MAX_PRECISION = 38
"""Every decimal's precision (the core's)."""


def unify(files: Iterable[Path]) -> int:
    """Gives every file in ``files`` (one table's) one schema, rewriting
    the ones that differ; the number rewritten."""
    import pyarrow.parquet as pq

    schemas = {path: pq.read_schema(path) for path in sorted(files)}
    target = _table_schema(schemas)
    changed = [path for path, schema in schemas.items() if not schema.equals(target)]
    for path in changed:
        _rewrite(path, target)
    return len(changed)


def _table_schema(schemas: dict[Path, Any]) -> Any:
    """The schema every file of the table gets: each column in the order
    first seen, of the type that holds every file's values."""
    import pyarrow as pa

    types: dict[str, dict[Path, Any]] = {}
    for path, schema in schemas.items():
        for field in schema:
            types.setdefault(field.name, {})[path] = field.type
    return pa.schema([pa.field(name, _column_type(name, kinds)) for name, kinds in types.items()])


def _column_type(name: str, kinds: dict[Path, Any]) -> Any:
    """The type of column ``name`` that holds its values in every file
    (``kinds``: each file's type of it)."""
    import pyarrow as pa

    distinct = set(kinds.values())
    if len(distinct) == 1:
        return next(iter(distinct))
    typed = {t for t in distinct if not _is_text(t)}
    if not typed:
        return pa.string()
    if all(pa.types.is_integer(t) or pa.types.is_decimal(t) for t in typed):
        scale = max((t.scale for t in typed if pa.types.is_decimal(t)), default=0)
        target = pa.decimal128(MAX_PRECISION, scale) if len(typed) > 1 else next(iter(typed))
    elif len(typed) == 1:
        target = next(iter(typed))
    else:
        return pa.string()
    for path, kind in kinds.items():
        if kind != target and not _fits(path, name, target, exact_text=_is_text(kind)):
            return pa.string()
    return target


def _fits(path: Path, name: str, target: Any, *, exact_text: bool) -> bool:
    """Whether column ``name`` of the file at ``path`` casts to
    ``target`` without losing a digit (a decimal too large for the scale
    fails the cast), and, for text, every value reads back as sent."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    column = pq.read_table(path, columns=[name]).column(name)
    if column.null_count == len(column):
        return True
    try:
        cast = column.cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return False
    if not exact_text:
        return True
    sent = column
    if pa.types.is_timestamp(target):
        # pyarrow writes every timestamp with six digits of a second; a
        # MySQL DATETIME is sent with none.
        import pyarrow.compute as pc

        whole = pc.match_substring_regex(column, r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")
        sent = pc.if_else(whole, pc.binary_join_element_wise(column, ".000000", ""), column)
    return bool(cast.cast(column.type).equals(sent))


def _is_text(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))


def _rewrite(path: Path, target: Any) -> None:
    """The file at ``path`` with schema ``target``: its columns cast, the
    ones it lacks null; written beside it and renamed over it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    columns = [
        table.column(field.name).cast(field.type)
        if field.name in table.column_names
        else pa.nulls(table.num_rows, field.type)
        for field in target
    ]
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        pq.write_table(pa.table(columns, schema=target), temp, compression="zstd")
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)
