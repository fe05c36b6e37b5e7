"""Many ERP tables × companies × years into an analytical copy: a DuckDB
database file, or a hive-partitioned Parquet dataset.

    import erpdata
    from erpdata.export import export

    with erpdata.Client() as client:
        export(client, ["sales_invoice", "receipt"], companies=[1, 2],
               years=[2024, 2025], to="erp.duckdb")

Each (table, company, year) is a **partition**, streamed from the service
in batches (memory stays bounded by the batch size and the queue between
the readers and the writer) and written whole or not at all:

- DuckDB: one table per ERP table, with ``compid`` and ``yearid`` columns
  (the table's own, where it sends them); a partition's old rows are
  deleted and its batches appended in one transaction, committed at its
  end. A failure leaves the last good copy. A column the ERP's table
  gained since the last export is added to the copy's table.
- Parquet: ``table=…/compid=…/yearid=…/part-0.parquet``, written to a
  temporary file beside it and renamed over the old one; the ids are the
  folders' names, as hive partitioning has them (a table's own ``compid``
  and ``yearid`` columns are not repeated in the files). Once the export's
  partitions are written, every file of a table has the table's one schema
  (``_dataset_schema``).

A manifest records what was exported when: the DuckDB table
``_erpdata_manifest``, or ``_manifest.json`` at the dataset's root; one
entry per partition (rows, bytes received, a SHA-256 of the rows as an
Arrow IPC stream, the erpdata version, the time). A re-run replaces only
the partitions it fetched. An export that finishes no partition leaves
no new file or folder behind (one that existed is kept as it was).

When the service is failing (after :data:`STOP_AFTER_FAILURES`
partitions in a row failed with a transport error, 429 or a 5xx status),
the export starts no new partition: it keeps what it wrote and raises
:class:`ExportError`, saying how many partitions were written, failed and
not started. Where a manifest is, the partitions not written are listed
beside it (the DuckDB table ``_erpdata_pending``, or ``_pending.json``),
and ``resume=True`` (the CLI's ``--resume``) fetches only those and the
ones the manifest lacks.

Needs ``erpdata[export]`` (pyarrow, and duckdb for ``.duckdb`` targets);
tqdm shows progress on a terminal or in a notebook.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import importlib
import json
import os
import queue
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from . import _core, _drive, _errors
from ._checks import check_concurrency, check_flag, invalid
from ._dataset_schema import unify
from ._models import Id, _need
from ._progress import interactive

if TYPE_CHECKING:
    from ._client import Client

__all__ = [
    "export",
    "ExportError",
    "ExportResult",
    "Partition",
    "MANIFEST_TABLE",
    "MANIFEST_FILE",
    "PENDING_TABLE",
    "PENDING_FILE",
    "STOP_AFTER_FAILURES",
]

MANIFEST_TABLE = "_erpdata_manifest"
DUCKDB_MEMORY_LIMIT = "32MB"
"""DuckDB's memory during an export (it spills the rest to disk)."""
MANIFEST_FILE = "_manifest.json"
PENDING_TABLE = "_erpdata_pending"
STAGING_TABLE = "_erpdata_staging_"
"""The prefix of the tables a DuckDB export writes a partition to when its
table must be altered while another partition of it is being written."""
PENDING_FILE = "_pending.json"
STOP_AFTER_FAILURES = 3
"""Partitions failing in a row (a transport error, 429 or a 5xx status)
after which an export starts no new one: the service is failing, and
every further partition would only add to its load."""

Format = Literal["duckdb", "parquet"]


@dataclass(frozen=True)
class Partition:
    """One exported (table, company, year)."""

    table: str
    compid: Id
    yearid: Id
    rows: int
    bytes: int
    checksum: str
    erpdata_version: str
    exported_at: str


@dataclass(frozen=True)
class ExportResult:
    """What an :func:`export` wrote: where, and each partition."""

    to: str
    format: Format
    partitions: list[Partition]

    @property
    def rows(self) -> int:
        return sum(p.rows for p in self.partitions)

    def __repr__(self) -> str:
        return (
            f"ExportResult(to={self.to!r}, format={self.format!r}, "
            f"partitions={len(self.partitions)}, rows={self.rows})"
        )


Key = tuple[str, Id, Id]
"""A partition: (table, company id, year id)."""


class ExportError(_errors.ErpError):
    """Some partitions of an :func:`export` failed; the others were written
    (``result``). The first failure is the ``__cause__`` (and gives this
    error its ``kind`` and ``retryable``); ``failed`` and ``not_started`` list the partitions
    not written, ``stopped`` says whether the export stopped early because
    the service was failing."""

    def __init__(
        self,
        msg: str = "",
        /,
        *,
        result: ExportResult | None = None,
        failed: list[Key] | None = None,
        not_started: list[Key] | None = None,
        stopped: bool = False,
        **call: Any,
    ) -> None:
        super().__init__(msg, **call)
        self.result = result
        self.failed = failed or []
        self.not_started = not_started or []
        self.stopped = stopped


def _text_key(key: Key) -> tuple[str, str, str]:
    """A partition as the manifest holds it: ids as text."""
    return (key[0], str(key[1]), str(key[2]))


def _partitions_file(path: Path) -> list[dict[str, Any]]:
    """The entries of ``_manifest.json`` or ``_pending.json``; none if the
    file is not there. A file edited by hand, cut short or not erpdata's is
    said to be so (an ``OSError``, as a file that cannot be opened), not a
    ``JSONDecodeError`` or ``KeyError`` from deep in the export."""
    if not path.exists():
        return []
    where = repr(str(path))
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        why = "not JSON text" if isinstance(exc, UnicodeDecodeError) else f"not JSON ({exc})"
        raise OSError(_unreadable(where, why)) from None
    if not isinstance(entries, list):
        raise OSError(_unreadable(where, f"a JSON {type(entries).__name__}, not a list"))
    for at, entry in enumerate(entries):
        if not (
            isinstance(entry, dict)
            and all(isinstance(entry.get(k), (str, int)) for k in ("table", "compid", "yearid"))
        ):
            raise OSError(_unreadable(where, f"entry {at} has no table, compid and yearid"))
    return entries


def _unreadable(where: str, why: str, remedy: str = "delete it") -> str:
    return (
        f"cannot read {where}, erpdata's list of partitions: {why}; "
        f"{remedy} (and export without resume) to write every partition afresh"
    )


def _service_failing(error: BaseException) -> bool:
    """A failure saying the service (not the partition) is in trouble: a
    transport error, 429 or any 5xx. Wider than what a call retries
    (``ErpError.retryable``): a 500 or a refused certificate on three
    partitions in a row points at the service, not at the partitions."""
    if isinstance(error, _errors.TransportError):
        return True
    return isinstance(error, _errors.HttpStatusError) and (
        error.status_code == 429 or error.status_code >= 500
    )


def _format_of(to: Path, format: Format | None) -> Format:
    if format is not None:
        if format not in ("duckdb", "parquet"):
            invalid("format", f"must be 'duckdb' or 'parquet', got {format!r}")
        return format
    return "duckdb" if to.suffix in (".duckdb", ".db") else "parquet"


def _check_target(to: Path, fmt: Format) -> None:
    """``to`` can hold ``fmt``: said before anything is fetched."""
    if fmt == "duckdb":
        if to.is_dir():
            invalid(
                "to",
                f"{str(to)!r} is a folder: a DuckDB copy is a file (a folder takes a "
                "Parquet dataset, format='parquet')",
            )
        if not to.parent.is_dir():
            invalid("to", f"{str(to)!r}: folder {str(to.parent)!r} does not exist")
    elif to.exists() and not to.is_dir():
        invalid(
            "to",
            f"{str(to)!r} exists and is not a folder: a Parquet dataset is a folder (a "
            "DuckDB file's name ends in .duckdb or .db)",
        )


def _hive(value: Id) -> str:
    """A partition directory's value, escaped as Hive does: nothing in it
    can leave the dataset's folder."""
    text = str(value)
    if text in (".", ".."):
        return "".join(f"%{ord(c):02X}" for c in text)
    return "".join(
        c if c.isascii() and (c.isalnum() or c in "_-.") else f"%{ord(c):02X}" for c in text
    )


def partition_ids(field: str, values: Id | Iterable[Id]) -> list[Id]:
    """The companies or years to read (an id, or several, each once, at
    least one); ``field`` names them in an error. For erpdata.dlt too."""
    if isinstance(values, (str, int)):
        return [values]
    out = list(dict.fromkeys(values))
    if not out:
        invalid(field, "must name at least one")
    return out


class _Progress:
    """Partitions done and rows so far, through tqdm.auto when it is
    installed and wanted."""

    def __init__(self, total: int, enabled: bool | None) -> None:
        self._bar: Any = None
        if enabled is False or (enabled is None and not interactive()):
            return
        try:
            tqdm = importlib.import_module("tqdm.auto").tqdm
        except ImportError:
            return
        self._bar = tqdm(total=total, unit="partition", desc="erpdata export")
        self._rows = 0

    def rows(self, n: int) -> None:
        if self._bar is not None:
            self._rows += n
            self._bar.set_postfix(rows=f"{self._rows:,}", refresh=False)

    def done(self) -> None:
        if self._bar is not None:
            self._bar.update(1)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


class _Writer:
    """Writes partitions one batch at a time; commits or discards each."""

    def begin(self, key: tuple[str, Id, Id], schema: Any, first: Any = None) -> None:
        """A partition begins; ``first`` is its first batch, when known."""
        raise NotImplementedError

    def write(self, key: tuple[str, Id, Id], batch: Any) -> None:
        raise NotImplementedError

    def commit(self, key: tuple[str, Id, Id], entry: Partition) -> None:
        raise NotImplementedError

    def discard(self, key: tuple[str, Id, Id]) -> None:
        raise NotImplementedError

    def empty(self, key: tuple[str, Id, Id], entry: Partition) -> None:
        """The partition came back with no rows: its previous copy goes."""
        raise NotImplementedError

    def manifest_keys(self) -> set[tuple[str, str, str]]:
        """The partitions the manifest lists (ids as text)."""
        raise NotImplementedError

    def pending_keys(self) -> set[tuple[str, str, str]]:
        """The partitions an earlier export did not write."""
        raise NotImplementedError

    def record_pending(
        self, asked: Iterable[Key], pending: dict[tuple[str, str, str], tuple[str, str | None]]
    ) -> None:
        """After a run: the partitions it was asked for leave the pending
        list, and those it did not write (``pending``: state and error)
        join it; only where a manifest is kept (a target this export
        finished nothing in stays as it was)."""
        raise NotImplementedError

    def settle(self) -> None:
        """After a run's partitions are all written or discarded: what the
        copy's tables can only be told once none is open."""

    def close(self) -> None:
        raise NotImplementedError


QUERY_INTERRUPTED = "Query interrupted"
"""What DuckDB raises, as a plain ``RuntimeError``, when a Ctrl-C arrives
while a query scans a Python Arrow object."""


@contextlib.contextmanager
def _ctrl_c_stays_ctrl_c() -> Iterator[None]:
    """A Ctrl-C that arrives while DuckDB scans a batch: DuckDB catches its
    KeyboardInterrupt and raises ``RuntimeError('Query interrupted')``
    instead, which reached the caller as a failure (``erpdata export``:
    a traceback and exit 1, not 130). It is raised again as the
    KeyboardInterrupt it was."""
    try:
        yield
    except RuntimeError as exc:
        if type(exc) is RuntimeError and str(exc) == QUERY_INTERRUPTED:
            raise KeyboardInterrupt from exc
        raise


class _DuckDB(_Writer):
    """Each partition is one transaction on its own cursor: its old rows
    deleted, its batches appended to the table itself, its manifest row
    replaced, then committed. DuckDB writes a large transaction's rows
    straight to the file, so memory stays bounded, and until the commit
    every reader sees the last good copy."""

    def __init__(self, path: Path) -> None:
        duckdb = _need("duckdb", "export", "exporting to DuckDB")
        # The file (and its write-ahead log) when this export creates it:
        # removed again if it finishes no partition.
        wal = Path(f"{path}.wal")
        self._new = [] if path.exists() else [p for p in (path, wal) if not p.exists()]
        self._duckdb, self._path = duckdb, path
        try:
            self._con = duckdb.connect(str(path))
        except duckdb.IOException as exc:
            # Held by another process, or a file that is not DuckDB's: a
            # file that cannot be opened, as open() would say it.
            raise OSError(f"cannot open {str(path)!r} as a DuckDB file: {exc}") from exc
        # Bounded memory whatever the table's size: DuckDB spills what does
        # not fit to disk (next to the file) instead of caching it all.
        self._con.execute(f"SET memory_limit = '{DUCKDB_MEMORY_LIMIT}'")
        # The manifest table is made when the first partition begins
        # (before its transaction: each transaction sees the catalogue as
        # it was when it began), so a file no partition reached is as it was.
        self._manifest = False
        self._committed = 0
        self._open: dict[tuple[str, Id, Id], Any] = {}
        # Tables this export created (the manifest's too), and those a
        # partition was committed to: one created but never filled is
        # dropped at the end, so a failed first copy leaves no empty table.
        self._created: set[str] = set()
        self._filled: set[str] = set()
        # DuckDB's types of each (table, column) as the partitions sent it
        # with values (typed, not text): see settle().
        self._typed: dict[tuple[str, str], set[str]] = {}
        # Partitions written to a table of their own (see begin()): those
        # open, and those committed there, moved in by settle().
        self._staging: dict[tuple[str, Id, Id], str] = {}
        self._deferred: list[tuple[tuple[str, Id, Id], str, Partition]] = []
        self._staged = 0

    def begin(self, key: tuple[str, Id, Id], schema: Any, first: Any = None) -> None:
        import pyarrow as pa

        table = key[0]
        empty = pa.Table.from_batches([], schema=schema)  # noqa: F841 - read by DuckDB below
        # DuckDB's own type of each column, as it reads it from Arrow.
        described = self._con.execute("DESCRIBE SELECT * FROM empty").fetchall()
        # Text columns with values (not text for want of a value).
        texts = {
            field.name
            for field, column in zip(schema, first.columns if first is not None else [])
            if column.null_count < len(column)
        }
        for name, kind, *_ in described:
            if kind != "VARCHAR":
                self._typed.setdefault((table, name), set()).add(kind)
        # Outside the partition's transaction: two partitions of a new
        # table would otherwise both create it and one would fail.
        if not self._exists(self._con, table):
            self._con.execute(
                f'CREATE TABLE "{table}" AS SELECT {_columns_sql(key, schema.names)} FROM empty'
            )
            self._created.add(table)
        else:
            have = self._column_types(table)
            changes = _changes(table, have, described, texts)
            later = _typed_later(have, described, texts)
            if later or (changes and any(open_key[0] == table for open_key in self._open)):
                # Another partition of the table is open, and one open
                # while the table is altered cannot commit; or a column the
                # copy has typed is text here for want of a value, and the
                # values a later batch may bring (as text) the insert would
                # cast into that type: 1.0825 into a DECIMAL(38,2) column
                # rounded to 1.08 without a word, "A-17" into a BIGINT
                # failed the export with a traceback. This one goes to a
                # table of its own, moved in by settle(), which makes the
                # copy's column hold what it brought.
                staging = f"{STAGING_TABLE}{self._staged}"
                self._staged += 1
                self._con.execute(
                    f'CREATE OR REPLACE TABLE "{staging}" AS '
                    f"SELECT {_columns_sql(key, schema.names)} FROM empty"
                )
                self._staging[key] = staging
                self._begin(key)
                return
            for statement in changes:
                self._con.execute(statement)
        self._delete(self._begin(key), key)

    def _column_types(self, table: str) -> dict[str, tuple[str, str]]:
        """``table``'s columns, by lower-case name: their names and types."""
        return {
            name.lower(): (name, kind)
            for name, kind in self._con.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_name = ?",
                [table],
            ).fetchall()
        }

    def _begin(self, key: tuple[str, Id, Id]) -> Any:
        """The partition's transaction, open on its own cursor until
        ``commit`` or ``discard`` (``close`` discards what is left open)."""
        if not self._manifest:
            if not self._exists(self._con, MANIFEST_TABLE):
                self._con.execute(
                    f"CREATE TABLE {MANIFEST_TABLE} (table_name VARCHAR, compid VARCHAR, "
                    "yearid VARCHAR, rows BIGINT, bytes BIGINT, checksum VARCHAR, "
                    "erpdata_version VARCHAR, exported_at TIMESTAMP)"
                )
                self._created.add(MANIFEST_TABLE)
            self._manifest = True
        cursor = self._con.cursor()
        cursor.execute("BEGIN TRANSACTION")
        self._open[key] = cursor
        return cursor

    def write(self, key: tuple[str, Id, Id], batch: Any) -> None:
        with _ctrl_c_stays_ctrl_c():
            target = self._staging.get(key, key[0])
            self._open[key].execute(
                f'INSERT INTO "{target}" BY NAME SELECT {_columns_sql(key, batch.schema.names)} '
                "FROM batch"
            )

    def commit(self, key: tuple[str, Id, Id], entry: Partition) -> None:
        cursor = self._open.pop(key)
        staging = self._staging.pop(key, None)
        try:
            if staging is None:
                self._record(cursor, entry)
            cursor.execute("COMMIT")
            if staging is None:
                self._filled.update((key[0], MANIFEST_TABLE))
                self._committed += 1
            else:
                self._deferred.append((key, staging, entry))
        except BaseException:
            cursor.execute("ROLLBACK")
            raise
        finally:
            cursor.close()

    def discard(self, key: tuple[str, Id, Id]) -> None:
        cursor = self._open.pop(key, None)
        if cursor is not None:
            cursor.execute("ROLLBACK")
            cursor.close()
        staging = self._staging.pop(key, None)
        if staging is not None:
            self._con.execute(f'DROP TABLE IF EXISTS "{staging}"')

    @staticmethod
    def _exists(cursor: Any, table: str) -> bool:
        found = cursor.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [table]
        ).fetchone()
        return bool(found and found[0])

    @staticmethod
    def _delete(cursor: Any, key: tuple[str, Id, Id]) -> None:
        table, compid, yearid = key
        cursor.execute(
            f'DELETE FROM "{table}" WHERE compid::VARCHAR = ? AND yearid::VARCHAR = ?',
            [str(compid), str(yearid)],
        )

    @staticmethod
    def _record(cursor: Any, entry: Partition) -> None:
        key = [entry.table, str(entry.compid), str(entry.yearid)]
        cursor.execute(
            f"DELETE FROM {MANIFEST_TABLE} WHERE table_name = ? AND compid = ? AND yearid = ?", key
        )
        cursor.execute(
            f"INSERT INTO {MANIFEST_TABLE} VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                *key,
                entry.rows,
                entry.bytes,
                entry.checksum,
                entry.erpdata_version,
                entry.exported_at,
            ],
        )

    def empty(self, key: tuple[str, Id, Id], entry: Partition) -> None:
        cursor = self._begin(key)
        if self._exists(cursor, key[0]):
            self._delete(cursor, key)
        self.commit(key, entry)

    def _keys(self, table: str) -> set[tuple[str, str, str]]:
        if not self._exists(self._con, table):
            return set()
        try:
            rows = self._con.execute(f"SELECT table_name, compid, yearid FROM {table}").fetchall()
        except self._duckdb.Error as exc:
            # A table of that name made by someone else: its columns differ.
            why = str(exc).splitlines()[0]
            raise OSError(
                _unreadable(f"table {table} of {str(self._path)!r}", why, "drop it")
            ) from None
        return {(t, c, y) for t, c, y in rows}

    def manifest_keys(self) -> set[tuple[str, str, str]]:
        return self._keys(MANIFEST_TABLE)

    def pending_keys(self) -> set[tuple[str, str, str]]:
        return self._keys(PENDING_TABLE)

    def record_pending(
        self, asked: Iterable[Key], pending: dict[tuple[str, str, str], tuple[str, str | None]]
    ) -> None:
        kept = self._exists(self._con, MANIFEST_TABLE) and (
            MANIFEST_TABLE not in self._created or MANIFEST_TABLE in self._filled
        )
        if not kept:
            return
        con = self._con
        con.execute(
            f"CREATE TABLE IF NOT EXISTS {PENDING_TABLE} (table_name VARCHAR, compid VARCHAR, "
            "yearid VARCHAR, state VARCHAR, error VARCHAR)"
        )
        con.execute("BEGIN TRANSACTION")
        try:
            for key in asked:
                con.execute(
                    f"DELETE FROM {PENDING_TABLE} WHERE table_name = ? AND compid = ? "
                    "AND yearid = ?",
                    list(_text_key(key)),
                )
            for (table, compid, yearid), (state, error) in pending.items():
                con.execute(
                    f"INSERT INTO {PENDING_TABLE} VALUES (?, ?, ?, ?, ?)",
                    [table, compid, yearid, state, error],
                )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        left = con.execute(f"SELECT count(*) FROM {PENDING_TABLE}").fetchone()
        if not left or not left[0]:
            con.execute(f"DROP TABLE {PENDING_TABLE}")

    def settle(self) -> None:
        """A column of text in the copy where a partition sent it typed,
        and every value it holds reads back as that type exactly, gets that
        type. A stream types a column with no value as text, so the first
        partition of a column NULL in one company's rows (a discount it
        never gives) made it a VARCHAR column, and the money or dates of
        the other companies were kept as text: the copy's types depended
        on which company came first.

        First, the partitions written to a table of their own: the table
        altered to hold them, then their rows moved in, each in one
        transaction with its manifest entry."""
        deferred, self._deferred = self._deferred, []
        for key, staging, entry in deferred:
            described = self._con.execute(f'DESCRIBE SELECT * FROM "{staging}"').fetchall()
            texts = {
                name
                for name, kind, *_ in described
                if kind == "VARCHAR"
                and self._con.execute(f'SELECT count({_quoted(name)}) FROM "{staging}"').fetchone()
                != (0,)
            }
            for statement in _changes(key[0], self._column_types(key[0]), described, texts):
                self._con.execute(statement)
            cursor = self._begin(key)
            self._delete(cursor, key)
            cursor.execute(f'INSERT INTO "{key[0]}" BY NAME SELECT * FROM "{staging}"')
            self.commit(key, entry)
            self._con.execute(f'DROP TABLE "{staging}"')
        for (table, name), kinds in self._typed.items():
            if table not in self._filled:
                continue
            found = self._con.execute(
                "SELECT data_type FROM information_schema.columns "
                "WHERE table_name = ? AND column_name = ?",
                [table, name],
            ).fetchone()
            if not found or found[0] != "VARCHAR":
                continue
            column = _quoted(name)
            number = _number_kind(kinds)
            if number is not None:
                # Integers and decimals (2 digits after the point in one
                # company's rates, 4 in another's, and text where a
                # partition's first rows had none): the decimal that holds
                # every value, when each is a plain number.
                places, digits = self._con.execute(
                    f"SELECT max(length(split_part({column}, '.', 2))), "
                    f"max(length(split_part(ltrim({column}, '-'), '.', 1))) "
                    f'FROM "{table}" WHERE regexp_full_match({column}, {PLAIN_NUMBER})'
                ).fetchone() or (None, None)
                kind = number
                if places:
                    wider = _number_kind({number, f"DECIMAL({(digits or 0) + places},{places})"})
                    kind = wider or number
                inexact = self._con.execute(
                    f'SELECT count(*) FROM "{table}" WHERE {column} IS NOT NULL AND '
                    f"(NOT regexp_full_match({column}, {PLAIN_NUMBER}) "
                    f"OR TRY_CAST({column} AS {kind}) IS NULL)"
                ).fetchone()
            elif len(kinds) == 1:
                (kind,) = kinds
                inexact = self._con.execute(
                    f'SELECT count(*) FROM "{table}" WHERE {column} IS NOT NULL AND '
                    f"(TRY_CAST({column} AS {kind}) IS NULL "
                    f"OR TRY_CAST({column} AS {kind})::VARCHAR <> {column})"
                ).fetchone()
            else:
                continue  # dates in one partition, numbers in another: text
            if inexact == (0,):
                self._con.execute(f'ALTER TABLE "{table}" ALTER {column} TYPE {kind}')

    def close(self) -> None:
        # The file is closed, and removed if this export made it and wrote
        # no partition, even when a second interrupt cuts the closing short:
        # `timeout -s INT` signals the process and then its group, and the
        # second Ctrl-C left the new file behind, holding no table.
        try:
            for key in list(self._open):
                self.discard(key)
            # Not moved in (the export was interrupted): not in the manifest
            # either, so a resumed export fetches them again.
            for _, staging, _ in self._deferred:
                self._con.execute(f'DROP TABLE IF EXISTS "{staging}"')
            for table in self._created - self._filled:
                self._con.execute(f'DROP TABLE IF EXISTS "{table}"')
        finally:
            # The connection is let go of as well as closed: an error raised
            # from export() holds its frame, and with it this writer.
            con, self._con = self._con, None
            try:
                con.close()
            finally:
                if not self._committed:
                    for path in self._new:
                        path.unlink(missing_ok=True)


IDS = ("compid", "yearid")
"""The partition's columns a copy adds where the table has none of its own
(here and in the dlt source)."""


def _changes(
    table: str,
    have: dict[str, tuple[str, str]],
    described: list[tuple[Any, ...]],
    texts: set[str],
) -> list[str]:
    """What ``table`` (whose columns are ``have``, by lower-case name) needs
    to hold a partition whose columns DuckDB describes as ``described``
    without losing a digit: the columns it
    lacks (a column the ERP's table gained since the last export failed
    the insert, "does not have a column with name", and ended the export
    with a traceback), and a decimal or integer column widened to the
    digits after the point the partition sends (DuckDB rounded 1.0825
    into a DECIMAL(38,2) column to 1.08, and 1.5 into a BIGINT to 2,
    without a word: a DOUBLE column's values have the digits they need,
    so one company's rates may have two and another's four), and a
    typed column made text where the partition sends it text with values
    (``texts``): ids that are numbers in one company and ``"A-17"`` in
    another failed the insert, and the export ended with a traceback."""
    out = []
    for name, kind, *_ in described:
        known = have.get(name.lower())
        if known is None:
            out.append(f'ALTER TABLE "{table}" ADD COLUMN {_quoted(name)} {kind}')
        elif wider := _wider_decimal(known[1], kind):
            out.append(f'ALTER TABLE "{table}" ALTER {_quoted(known[0])} TYPE {wider}')
        elif kind == "VARCHAR" and known[1] != "VARCHAR" and name in texts:
            out.append(f'ALTER TABLE "{table}" ALTER {_quoted(known[0])} TYPE VARCHAR')
    return out


def _typed_later(
    have: dict[str, tuple[str, str]], described: list[tuple[Any, ...]], texts: set[str]
) -> bool:
    """Whether a column the partition sends as text with no value yet
    (``described`` VARCHAR, not in ``texts``) is typed in the table (its
    columns ``have``)."""
    return any(
        kind == "VARCHAR"
        and name not in texts
        and have.get(name.lower(), (name, "VARCHAR"))[1] != "VARCHAR"
        for name, kind, *_ in described
    )


def _columns_sql(key: tuple[str, Id, Id], names: list[str]) -> str:
    """Every column of the rows, then the partition's ids the rows lack: a
    PHP service's `SELECT *` sends its tables' own compid and yearid, and a
    second column of the name failed the insert ("Duplicate column name")."""
    ids = [f"{_literal(value)} AS {name}" for name, value in zip(IDS, key[1:]) if name not in names]
    return ", ".join(["*", *ids])


def _digits(kind: str) -> tuple[int, int] | None:
    """The digits before and after the point a DuckDB integer or decimal
    type holds (``BIGINT``: 19 and 0); ``None`` for any other type."""
    if kind == "BIGINT":
        return 19, 0
    if kind.startswith("DECIMAL(") and kind.endswith(")"):
        precision, scale = (int(n) for n in kind[len("DECIMAL(") : -1].split(","))
        return precision - scale, scale
    return None


def _wider_decimal(have: str, sent: str) -> str | None:
    """The DECIMAL type that holds a column of type ``have`` and values of
    type ``sent`` (DuckDB's names), where ``have`` would round them;
    ``None`` where it holds them already or neither is a number."""
    a, b = _digits(have), _digits(sent)
    if a is None or b is None or b[1] <= a[1]:
        return None
    return f"DECIMAL({min(38, max(a[0], b[0]) + b[1])},{b[1]})"


PLAIN_NUMBER = r"'-?(0|[1-9][0-9]*)(\.[0-9]+)?'"
"""A number as the decoder writes a decimal or an integer as text (SQL):
no leading zero, so that an id sent as `"007"` stays text."""


def _number_kind(kinds: Iterable[str]) -> str | None:
    """The DuckDB type that holds every one of ``kinds`` exactly when each
    is an integer or a decimal (``BIGINT``, ``DECIMAL(38,2)``): a decimal
    with the most digits after the point, and before it, any has (at most
    38 in all: a value that needs more stays text); ``None`` otherwise."""
    before, after, decimal = 0, 0, False
    for kind in kinds:
        digits = _digits(kind)
        if digits is None:
            return None
        before, after = max(before, digits[0]), max(after, digits[1])
        decimal = decimal or kind != "BIGINT"
    if not decimal:
        return "BIGINT" if before else None
    return f"DECIMAL({min(38, max(before + after, 1))},{after})"


def _quoted(name: str) -> str:
    """A column's name as a DuckDB identifier, whatever it holds."""
    return '"' + name.replace('"', '""') + '"'


def _literal(value: Id) -> str:
    """An id as SQL: an integer as a BIGINT, text as a quoted VARCHAR."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value}::BIGINT"
    return "'" + str(value).replace("'", "''") + "'"


class _Parquet(_Writer):
    def __init__(self, root: Path) -> None:
        import pyarrow.parquet as pq

        self._pq = pq
        self._root = root
        # Folders this export creates: each removed again at the end if
        # nothing is in it (a failed partition's, or the dataset's own
        # when no partition finished).
        self._made: list[Path] = []
        self._mkdir(root)
        self._writers: dict[tuple[str, Id, Id], tuple[Any, Path, Path]] = {}
        # Tables a partition of which this export wrote or emptied.
        self._tables: set[str] = set()
        self._manifest = _partitions_file(root / MANIFEST_FILE)

    def _mkdir(self, folder: Path) -> None:
        missing = [p for p in (folder, *folder.parents) if not p.exists()]
        folder.mkdir(parents=True, exist_ok=True)
        self._made += missing

    def begin(self, key: tuple[str, Id, Id], schema: Any, first: Any = None) -> None:
        folder = self._folder(key)
        self._mkdir(folder)
        final = folder / "part-0.parquet"
        temp = folder / f".part-0.parquet.{os.getpid()}.{threading.get_ident()}.tmp"
        for name in IDS:
            if name in schema.names:
                schema = schema.remove(schema.get_field_index(name))
        writer = self._pq.ParquetWriter(str(temp), schema, compression="zstd")
        self._writers[key] = (writer, temp, final)

    def write(self, key: tuple[str, Id, Id], batch: Any) -> None:
        # The partition's ids are its folders' names (compid=…/yearid=…),
        # as hive partitioning has them; a table's own columns of those
        # names in the file too made readers fail to merge the two
        # (pyarrow: "Field compid has incompatible types: int64 vs int32").
        writer = self._writers[key][0]
        keep = [i for i, name in enumerate(batch.schema.names) if name not in IDS]
        if len(keep) < batch.num_columns:
            batch = type(batch).from_arrays([batch.column(i) for i in keep], schema=writer.schema)
        writer.write_batch(batch)

    def commit(self, key: tuple[str, Id, Id], entry: Partition) -> None:
        writer, temp, final = self._writers.pop(key)
        writer.close()
        os.replace(temp, final)
        self._record(entry)

    def _folder(self, key: tuple[str, Id, Id]) -> Path:
        table, compid, yearid = key
        return self._root / f"table={table}" / f"compid={_hive(compid)}" / f"yearid={_hive(yearid)}"

    def empty(self, key: tuple[str, Id, Id], entry: Partition) -> None:
        (self._folder(key) / "part-0.parquet").unlink(missing_ok=True)
        self._record(entry)

    def settle(self) -> None:
        """Every file of each table this export wrote has the table's one
        schema (see ``_dataset_schema``): each partition's file had the
        types its own rows were sent with, and readers of the dataset
        refused the mix or rounded into the first file's types."""
        for table in sorted(self._tables):
            unify((self._root / f"table={table}").glob("compid=*/yearid=*/part-0.parquet"))

    def _record(self, entry: Partition) -> None:
        self._tables.add(entry.table)
        key = (entry.table, str(entry.compid), str(entry.yearid))
        self._manifest = [
            m for m in self._manifest if (m["table"], str(m["compid"]), str(m["yearid"])) != key
        ]
        self._manifest.append(asdict(entry))
        manifest = self._root / MANIFEST_FILE
        temp_manifest = manifest.with_suffix(".json.tmp")
        temp_manifest.write_text(json.dumps(self._manifest, indent=1), encoding="utf-8")
        os.replace(temp_manifest, manifest)

    def manifest_keys(self) -> set[tuple[str, str, str]]:
        return {(m["table"], str(m["compid"]), str(m["yearid"])) for m in self._manifest}

    def _pending(self) -> list[dict[str, Any]]:
        return _partitions_file(self._root / PENDING_FILE)

    def pending_keys(self) -> set[tuple[str, str, str]]:
        return {(p["table"], str(p["compid"]), str(p["yearid"])) for p in self._pending()}

    def record_pending(
        self, asked: Iterable[Key], pending: dict[tuple[str, str, str], tuple[str, str | None]]
    ) -> None:
        if not (self._root / MANIFEST_FILE).exists():
            return
        gone = {_text_key(k) for k in asked}
        entries = [
            p
            for p in self._pending()
            if (p["table"], str(p["compid"]), str(p["yearid"])) not in gone
        ]
        entries += [
            {"table": t, "compid": c, "yearid": y, "state": state, "error": error}
            for (t, c, y), (state, error) in pending.items()
        ]
        path = self._root / PENDING_FILE
        if not entries:
            path.unlink(missing_ok=True)
            return
        temp = path.with_suffix(".json.tmp")
        temp.write_text(json.dumps(entries, indent=1), encoding="utf-8")
        os.replace(temp, path)

    def discard(self, key: tuple[str, Id, Id]) -> None:
        if key in self._writers:
            writer, temp, _ = self._writers.pop(key)
            try:
                writer.close()
            finally:
                temp.unlink(missing_ok=True)

    def close(self) -> None:
        for key in list(self._writers):
            self.discard(key)
        # Deepest first, so a folder emptied of its own is removed too.
        for folder in sorted(set(self._made), key=lambda p: len(p.parts), reverse=True):
            try:
                folder.rmdir()
            except OSError:
                pass  # not empty (or already gone): kept


_DONE = object()


def export(
    client: Client,
    tables: str | Sequence[str],
    *,
    companies: Id | Iterable[Id] | None = None,
    years: Id | Iterable[Id] | None = None,
    to: str | os.PathLike[str],
    format: Format | None = None,
    concurrency: int = 2,
    batch_rows: int = _core.DEFAULT_BATCH_ROWS,
    progress: bool | None = None,
    resume: bool = False,
) -> ExportResult:
    """Exports every (table, company, year) into ``to``: a DuckDB file
    (``.duckdb``/``.db``, or ``format="duckdb"``) or a Parquet dataset
    folder. ``companies`` and ``years`` default to the client's. At most
    ``concurrency`` partitions (of one table or several) are read at a
    time. Every argument is checked
    before anything is sent. Each finished partition is kept, a failed one
    leaves its last good copy; if any failed, :class:`ExportError` is raised
    once the others are done, or as soon as :data:`STOP_AFTER_FAILURES`
    failed in a row with the service failing (no new partition is
    started then). With ``resume``, only the partitions that ``to``'s
    manifest lacks or lists as not written are fetched."""
    return _export(
        client,
        tables,
        companies,
        years,
        to,
        format,
        concurrency,
        batch_rows,
        progress,
        resume,
        cancel=None,
    )


class _Cancelled(Exception):
    """The export stopped because its caller was cancelled (the awaiting
    side raises the cancellation instead: this never reaches a user)."""


def _export(
    client: Client,
    tables: str | Sequence[str],
    companies: Id | Iterable[Id] | None,
    years: Id | Iterable[Id] | None,
    to: str | os.PathLike[str],
    format: Format | None,
    concurrency: int,
    batch_rows: int,
    progress: bool | None,
    resume: bool,
    *,
    cancel: threading.Event | None,
    resume_as: str = "resume=True",
) -> ExportResult:
    """:func:`export`, which stops when ``cancel`` is set (from another
    thread: ``AsyncClient.export`` cancelled): no new partition is
    started, those being read stop at once (one waiting on the service
    ends when that wait does, unwaited for) and are not written (each
    keeps its last good copy), and :class:`_Cancelled` is raised once the
    files are closed and the manifest lists what was not written.
    ``resume_as``: how the caller asks for a resume, which a failure's
    message advises (``erpdata export``'s ``--resume``)."""
    names = [tables] if isinstance(tables, str) else list(dict.fromkeys(tables))
    if not names:
        invalid("tables", "must name at least one table")
    company_ids = partition_ids(
        "companies", companies if companies is not None else default_id(client, "company_id")
    )
    year_ids = partition_ids("years", years if years is not None else default_id(client, "year_id"))
    check_concurrency(concurrency)
    check_flag("resume", resume)
    path = Path(to)
    fmt = _format_of(path, format)
    _check_target(path, fmt)
    _need("pyarrow", "export", "exporting")
    keys = [(t, c, y) for t in names for c in company_ids for y in year_ids]
    # Every request is built (and so checked) before any is sent.
    for table, compid, yearid in keys:
        client.check_table(table, company_id=compid, year_id=yearid)

    writer: _Writer = _DuckDB(path) if fmt == "duckdb" else _Parquet(path)
    asked = keys
    try:
        # Inside: a list it cannot read still closes the file.
        if resume:
            have, pending = writer.manifest_keys(), writer.pending_keys()
            keys = [k for k in keys if _text_key(k) in pending or _text_key(k) not in have]
        return _run(
            client,
            writer,
            path,
            fmt,
            asked,
            keys,
            concurrency,
            batch_rows,
            progress,
            cancel,
            resume_as,
        )
    finally:
        writer.close()


def _run(
    client: Client,
    writer: _Writer,
    path: Path,
    fmt: Format,
    asked: list[Key],
    keys: list[Key],
    concurrency: int,
    batch_rows: int,
    progress: bool | None,
    cancel: threading.Event | None = None,
    resume_as: str = "resume=True",
) -> ExportResult:
    """Fetches ``keys`` (of the ``asked`` partitions) into ``writer``, until
    ``cancel`` is set."""
    bar = _Progress(len(keys), progress)
    events: queue.Queue[tuple[Any, ...]] = queue.Queue(maxsize=2 * concurrency)
    todo: queue.Queue[tuple[str, Id, Id]] = queue.Queue()
    for key in keys:
        todo.put(key)
    stop = threading.Event()
    # Set when the service is failing: no new partition is started, those
    # being read finish.
    no_more = threading.Event()

    # Each reader's stream (the last one it read), by thread: whether it
    # waits on the service (see the end of the export).
    streams: dict[int, _drive.State] = {}

    def reader() -> None:
        while not stop.is_set() and not no_more.is_set():
            try:
                key = todo.get_nowait()
            except queue.Empty:
                break
            table, compid, yearid = key
            try:
                stream = client.stream_table(
                    table,
                    company_id=compid,
                    year_id=yearid,
                    batch_rows=batch_rows,
                    batch_format="arrow",
                    # Only written: decoding may trail the service's pauses.
                    use_threads=True,
                )
                # Once the export stops, the stream ends as soon as its
                # wait on the service returns (_drive.Halted).
                stream._state.halt = stop
                streams[threading.get_ident()] = stream._state
                with stream:
                    for batch in stream:
                        hand(("batch", key, batch))
                        if stop.is_set():
                            return
                hand(("end", key, stream.bytes_received))
            except BaseException as exc:  # handed to the writer, which raises it
                hand(("error", key, exc))
        hand((_DONE,))

    def hand(event: tuple[Any, ...]) -> None:
        # Once the writer has stopped, nobody takes events any more: a
        # reader whose answer ends after that drops its event rather than
        # wait on a full queue for good.
        while not stop.is_set():
            try:
                events.put(event, timeout=0.05)
                return
            except queue.Full:
                pass

    threads = [
        threading.Thread(target=reader, name=f"erpdata-export-{i}", daemon=True)
        for i in range(min(concurrency, len(keys)))
    ]
    running = len(threads)
    digests: dict[tuple[str, Id, Id], Any] = {}
    counts: dict[tuple[str, Id, Id], int] = {}
    done: list[Partition] = []
    errors: dict[Key, BaseException] = {}
    in_a_row = 0
    version = _core.__version__
    cancelled = False
    # Ctrl-C (or SIGTERM, which the CLI turns into one): raised again once
    # the partitions not written are listed, as a cancellation's are; it
    # left none listed, and `--resume` then fetched nothing again where an
    # earlier copy was complete.
    interrupt: KeyboardInterrupt | None = None
    try:
        # Started within the try: a Ctrl-C while they start (Thread.start
        # waits for each) must stop and wait for those already reading, as
        # one later does, or the process aborts at exit (see finally).
        for t in threads:
            t.start()
        while running:
            event = _next_event(events, cancel)
            if event is None:
                cancelled = True
                break
            if event[0] is _DONE:
                running -= 1
                continue
            kind, key = event[0], event[1]
            if kind == "batch":
                batch = event[2]
                if key not in digests:
                    writer.begin(key, batch.schema, batch)
                    digests[key] = _Digest(batch.schema)
                    counts[key] = 0
                writer.write(key, batch)
                digests[key].update(batch)
                counts[key] += batch.num_rows
                bar.rows(batch.num_rows)
            elif kind == "end":
                empty = key not in digests
                entry = Partition(
                    table=key[0],
                    compid=key[1],
                    yearid=key[2],
                    rows=0 if empty else counts[key],
                    bytes=event[2],
                    checksum=hashlib.sha256().hexdigest() if empty else digests[key].hexdigest(),
                    erpdata_version=version,
                    exported_at=datetime.datetime.now(datetime.timezone.utc)
                    .replace(tzinfo=None)
                    .isoformat(timespec="seconds"),
                )
                if empty:
                    # No rows now: the previous copy goes, the manifest says 0.
                    writer.empty(key, entry)
                else:
                    writer.commit(key, entry)
                done.append(entry)
                in_a_row = 0
                bar.done()
            else:
                writer.discard(key)
                errors[key] = event[2]
                if _service_failing(event[2]):
                    in_a_row += 1
                    if in_a_row >= STOP_AFTER_FAILURES:
                        no_more.set()
                bar.done()
    except KeyboardInterrupt as exc:
        interrupt = exc
    except BaseException:
        stop.set()
        raise
    finally:
        stop.set()
        interrupted = interrupt is not None
        if interrupted or cancelled:
            # Ctrl-C, or the caller cancelled (AsyncClient.export; asyncio.run
            # turns Ctrl-C into that cancellation): not waiting for a reader
            # that waits on the service, which ends once that wait does,
            # handing and writing nothing. A service that answers nothing
            # would hold the interrupt up to the call's time limits: minutes
            # with the default retries. The others end at once; waited for,
            # so that none is in the core when the interpreter exits.
            _drive.out_of_the_core(threads, streams)
        # Readers blocked on a full queue: let them finish.
        while not (interrupted or cancelled) and any(t.is_alive() for t in threads):
            try:
                events.get(timeout=0.05)
            except queue.Empty:
                pass
        for key in list(digests):
            if not any((d.table, d.compid, d.yearid) == key for d in done):
                writer.discard(key)
        bar.close()
    result = ExportResult(to=str(path), format=fmt, partitions=done)
    written = {(d.table, d.compid, d.yearid) for d in done}
    not_started = [k for k in keys if k not in written and k not in errors]
    pending: dict[tuple[str, str, str], tuple[str, str | None]] = {
        _text_key(k): ("failed", str(e)[:1000]) for k, e in errors.items()
    }
    pending.update((_text_key(k), ("not started", None)) for k in not_started)
    if not (cancelled or interrupt):
        writer.settle()
    writer.record_pending(asked, pending)
    if interrupt is not None:
        raise interrupt
    if cancelled:
        raise _Cancelled()
    if errors:
        first = next(iter(errors.values()))
        if not isinstance(first, _errors.ErpError):
            raise first
        raise _export_error(result, errors, not_started, no_more.is_set(), first, resume_as)
    return result


def _next_event(
    events: queue.Queue[tuple[Any, ...]], cancel: threading.Event | None
) -> tuple[Any, ...] | None:
    """The readers' next event, or ``None`` once ``cancel`` is set.

    Waited for a little at a time, never for good: a signal the system
    hands to a reader's thread (Ctrl-C, SIGTERM) is run by Python in this
    one, which a wait without end never let run, and the export went on
    waiting for a service that did not answer."""
    while cancel is None or not cancel.is_set():
        try:
            return events.get(timeout=0.05)
        except queue.Empty:
            pass
    return None


def _export_error(
    result: ExportResult,
    errors: dict[Key, BaseException],
    not_started: list[Key],
    stopped: bool,
    first: _errors.ErpError,
    resume_as: str,
) -> ExportError:
    """What a user needs after a failed export: what became of each
    partition, which failed, the first failure, and how to carry on: a
    resume (``resume_as``) where another try may pass, else what to fix
    (a resume would only be refused again)."""
    failed = list(errors)
    total = len(result.partitions) + len(failed) + len(not_started)
    head = (
        f"the export stopped after {STOP_AFTER_FAILURES} partitions in a row failed "
        "(the service seems to be failing)"
        if stopped
        else f"{len(failed)} of {total} partitions failed"
    )
    refused = [k for k, e in errors.items() if not getattr(e, "retryable", False)]
    left = len(failed) + len(not_started)
    resume = f"run the same export with {resume_as} to fetch only the {left} not written"
    if stopped:
        then = f"once the service answers again, {resume}"
    elif not refused:
        then = f"another try may pass: {resume}"
    else:
        # Not retryable: a resume would fetch these again and fail the same
        # way; what to fix comes first.
        kind = getattr(errors[refused[0]], "kind", None)
        how = {
            "service": "refused by the service",
            "http_status": "refused by the service",
            "decode": "answered in a shape that could not be read",
        }.get(kind or "", "stopped by an error")
        one = len(refused) == 1
        named = _partitions(refused) if len(refused) < len(failed) else ("it" if one else "they")
        then = (
            f"{named} {'was' if one else 'were'} {how}, which another "
            "try would not mend: fix what the failure says, or leave that table, company or "
            "year out"
        )
        if len(refused) < len(failed):
            then += f"; another try may pass for the others: {resume}"
    # Where some failures would pass on another try and some not, the one
    # to fix is shown.
    shown: BaseException = first
    said = "The first failure"
    if refused and not stopped and errors[refused[0]] is not first:
        shown, said = errors[refused[0]], "The first refusal"
    message = (
        f"{head}: {len(result.partitions)} written, {len(failed)} failed "
        f"({_partitions(failed)}), {len(not_started)} not started; {then}. {said}: {shown}"
    )
    error = ExportError(
        message,
        kind=first.kind,
        retryable=first.retryable,
        attempts=first.attempts,
        url=first.url,
        result=result,
        failed=failed,
        not_started=not_started,
        stopped=stopped,
    )
    error.__cause__ = first
    return error


def _partitions(keys: list[Key], shown: int = 3) -> str:
    """The first ``shown`` of ``keys`` by name: "sales_invoice of company
    3, year 2025"; how many more."""
    named = "; ".join(f"{t} of company {c}, year {y}" for t, c, y in keys[:shown])
    more = len(keys) - shown
    return f"{named}; {more} more" if more > 0 else named


def default_id(client: Any, attribute: str) -> Id:
    """The client's default company or year (its ``company_id`` or
    ``year_id``) as :func:`id_of` gives it; an error when it has none."""
    value: str | None = getattr(client, attribute)
    if value is None:
        field = "companies" if attribute == "company_id" else "years"
        invalid(field, f"must be given: the client has no default {attribute}")
    return id_of(value)


def id_of(text: str) -> Id:
    """An id given as text (the client's default, a command line's): a
    canonical integer becomes an ``int``, so the copy's ``compid`` and
    ``yearid`` are integer columns, as for ids given as ints; anything else
    (``"007"``, ``"C1"``) stays text."""
    if text.isdigit() and (text == "0" or not text.startswith("0")):
        return int(text)
    return text


class _Digest:
    """SHA-256 of the rows as an Arrow IPC stream: the same rows give the
    same checksum whatever they were written to."""

    def __init__(self, schema: Any) -> None:
        import pyarrow as pa

        self._hash = hashlib.sha256()
        self._sink = _HashSink(self._hash)
        self._writer = pa.ipc.new_stream(self._sink, schema)

    def update(self, batch: Any) -> None:
        self._writer.write_batch(batch)

    def hexdigest(self) -> str:
        self._writer.close()
        return self._hash.hexdigest()


class _HashSink:
    """A file-like object that only hashes what is written to it."""

    def __init__(self, h: Any) -> None:
        self._h = h
        self.closed = False

    def write(self, data: Any) -> int:
        view = memoryview(data)
        self._h.update(view)
        return view.nbytes

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True
