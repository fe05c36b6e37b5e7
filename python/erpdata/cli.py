"""The ``erpdata`` command (also ``python -m erpdata``).

Settings come from the same ``ERPDATA_*`` variables as the clients; the
access token only from ``ERPDATA_ACCESS_TOKEN`` or ``--access-token-file``
(never from the command line, where other users and the shell history
would see it: ``--access-token`` and ``--token`` are refused by name), and
it is never printed. No option may be abbreviated.

Exit codes: 0 success, 1 an unexpected failure, 2 a usage error (bad
arguments, invalid input, a missing optional dependency), 3 the service
answered with an error (a service error, an HTTP error status, an answer
that is not the documented shape), 4 the service could not be reached
(connection failure, timeout).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import datetime
import importlib
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import IO, Any, Callable, NoReturn, cast

from . import _core, _errors
from ._checks import counted
from ._client import Client
from ._core import __version__
from ._kinds import DuesKind
from ._models import AjaxAnswer, Row, Table, missing_extra
from ._text import decimal_text
from ._token_file import read_token_file

__all__ = ["main", "EXIT_OK", "EXIT_USAGE", "EXIT_SERVICE", "EXIT_TRANSPORT"]

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_SERVICE = 3
EXIT_TRANSPORT = 4

FORMATS = ("csv", "jsonl", "json", "parquet", "xlsx")


class _Usage(Exception):
    """A usage error found after argument parsing."""


# -- output --------------------------------------------------------------------


def _temporal_text(value: Any) -> str | None:
    """A date as ``YYYY-MM-DD``, a timestamp as ``YYYY-MM-DD HH:MM:SS``
    (with ``.ffffff`` unless whole seconds), as MySQL sends them."""
    if isinstance(value, datetime.datetime):
        return value.isoformat(" ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    return None


# json.dumps(text, ensure_ascii=False) without its call's setup: the C
# encoder of a string, what dumps itself ends in.
_json_text: Callable[[str], str] = json.encoder.encode_basestring


def json_value(value: Any) -> str:
    """``value`` as JSON text, numbers exactly as received (a ``Decimal``
    is written as its digits, never through a float), dates and
    timestamps as the strings MySQL sends.

    The types a row holds are told apart by ``type(...) is``, most common
    first, before the general checks: a million rows are 13 million
    values (``erpdata table --format json`` took 27 s for a million
    invoices through ``json.dumps`` each, 6 s so, the fetch included)."""
    kind = type(value)
    if kind is str:
        return _json_text(value)
    if value is None:
        return "null"
    if kind is int:
        return int.__repr__(value)
    if kind is Decimal:
        return decimal_text(value) if value.is_finite() else _json_text(str(value))
    if kind is datetime.date:
        return f'"{value.isoformat()}"'
    if kind is datetime.datetime:
        return f'"{value.isoformat(" ")}"'
    if isinstance(value, Decimal):
        return decimal_text(value) if value.is_finite() else json.dumps(str(value))
    temporal = _temporal_text(value)
    if temporal is not None:
        return json.dumps(temporal)
    if isinstance(value, dict):
        return (
            "{" + ",".join(f"{_json_text(str(k))}:{json_value(v)}" for k, v in value.items()) + "}"
        )
    if isinstance(value, list):
        return "[" + ",".join(json_value(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def csv_value(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return cast(str, value)
    if value is None:
        return ""
    if kind is int:
        return str(value)
    if kind is Decimal:
        return decimal_text(value)
    if kind is datetime.date:
        return cast(datetime.date, value).isoformat()
    if kind is datetime.datetime:
        return cast(datetime.datetime, value).isoformat(" ")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json_value(value)
    temporal = _temporal_text(value)
    if temporal is not None:
        return temporal
    return str(value)


def write_rows(table: Table, fmt: str, out: IO[str]) -> None:
    columns = table.columns
    if fmt == "csv":
        if not columns:
            # No rows, and the answer named no columns (a service sends
            # none with an empty list): nothing to write. A blank line
            # would read as a header of one column named "".
            return
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        for chunk in table.row_chunks():
            writer.writerows([csv_value(row.get(c)) for c in columns] for row in chunk)
    elif fmt == "jsonl":
        for chunk in table.row_chunks():
            out.writelines(json_value(row) + "\n" for row in chunk)
    else:
        out.write("[")
        first = True
        for chunk in table.row_chunks():
            for row in chunk:
                out.write(("\n" if first else ",\n") + json_value(row))
                first = False
        out.write("\n]\n" if not first else "]\n")


PARQUET_NEEDS = "--format parquet needs pyarrow: pip install 'erpdata[arrow]'"


def write_parquet(rows: Table | list[Row], path: str) -> None:
    """A table, or the one row a function's record is, as a Parquet file."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise _Usage(PARQUET_NEEDS) from exc
    arrow = rows.to_arrow() if isinstance(rows, Table) else pa.Table.from_pylist(rows)
    with _whole(path) as partial:
        pq.write_table(arrow, partial)


def _check_output(args: argparse.Namespace) -> None:
    """``-o FILE`` can be written (its folder exists, it is not a folder),
    ``--format parquet`` and ``xlsx`` have one, parquet has pyarrow and
    xlsx has xlsxwriter:
    said before anything is fetched, not after a large table has
    arrived."""
    if args.output in (None, "-") and sys.stdout is None:
        # Started with stdout closed (`erpdata table t >&-`): there is
        # nowhere to write; it failed with a traceback after the fetch.
        raise _Usage("stdout is closed: pass -o FILE, or give the command a stdout")
    if args.output not in (None, "-"):
        path = Path(args.output)
        if path.is_dir():
            raise _Usage(f"-o {args.output}: is a folder; name a file in it")
        if not path.parent.is_dir():
            raise _Usage(f"-o {args.output}: folder {str(path.parent)!r} does not exist")
    if args.format == "parquet":
        if args.output in (None, "-"):
            raise _Usage("--format parquet needs -o FILE")
        try:
            importlib.import_module("pyarrow.parquet")
        except ImportError as exc:
            raise _Usage(PARQUET_NEEDS) from exc
    if args.format != "xlsx":
        return
    if args.output in (None, "-"):
        raise _Usage("--format xlsx needs -o FILE (a workbook is not written to a terminal)")
    try:
        importlib.import_module("xlsxwriter")
    except ImportError as exc:
        raise missing_extra(exc, "--format xlsx", "excel") from exc


def _sheet_names(sheets: dict[str, Any]) -> dict[str, Any]:
    """``sheets`` under names Excel takes, each its own: a sheet is named
    after a table or a function, and a table may be named ``history``
    (Excel's own sheet), be longer than a sheet name, or share its name
    with another sheet but for case."""
    from .excel import _made_name

    named: dict[str, Any] = {}
    for name, sheet in sheets.items():
        named[_made_name(name, named)] = sheet
    return named


def _secret_name(name: str) -> bool:
    return any(word in name.lower() for word in ("token", "secret", "password", "passwd", "key"))


def write_workbook(
    args: argparse.Namespace,
    sheets: dict[str, Any],
    about: dict[str, Any],
    client: Client,
    *,
    say: bool = False,
) -> int:
    """``sheets`` as a workbook at ``-o FILE``, its About sheet saying
    what was asked (never the token). ``say``: tell stderr where it went
    even when stderr is not a terminal."""
    from .excel import write_excel

    asked: dict[str, Any] = {"Command": f"erpdata {args.command}", **about}
    asked["Project"] = client.project
    if args.command in ("aging", "credit-status"):
        # Only the account table is the company's and year's: the dues are
        # the project folder's ("Company 1" read as company 1's dues).
        asked["Accounts of company"] = client.company_id
        asked["Accounts of year"] = client.year_id
    else:
        asked.update(Company=client.company_id, Year=client.year_id)
    written = write_excel(
        args.output, _sheet_names(sheets), about={k: v for k, v in asked.items() if v is not None}
    )
    if say or sys.stderr.isatty():
        print(f"{counted(written.rows, 'row')} written to {args.output}", file=sys.stderr)
    return EXIT_OK


# -- commands --------------------------------------------------------------------


def _token(args: argparse.Namespace) -> str | None:
    if args.access_token_file is None:
        return None
    token = read_token_file(args.access_token_file, "--access-token-file")
    if len(token.split()) > 1:
        # Said here, not by the core, whose advice for a settings file (a
        # comment on a line of its own) would make the token two lines.
        raise _Usage(
            f"--access-token-file {args.access_token_file}: holds more than the token "
            "(a comment, a second line, words around it); leave only the token in the file"
        )
    return token


def _client(args: argparse.Namespace) -> Client:
    return Client(
        args.base_url,
        project=args.project,
        project_folder=args.project_folder,
        access_token=_token(args),
        company_id=args.company_id,
        year_id=args.year_id,
        timeout=args.timeout,
        max_retries=args.max_retries,
        max_retry_after=args.max_retry_after,
        allow_insecure_http=args.allow_insecure_http,
        ajax_token=args.ajax_token,
    )


def _write_answer(answer: AjaxAnswer, args: argparse.Namespace, client: Client) -> int:
    """A function's answer: rows in the table formats; one object as one
    row of CSV or as JSON, one value under a ``value`` header or as JSON;
    or the JSON the service sent (``raw``)."""
    if args.format == "xlsx":
        given = {name: getattr(args, name) for name in getattr(args, "positional", [])}
        params = dict(item.partition("=")[::2] for item in getattr(args, "params", []))
        # A parameter that may hold a credential is named, not shown.
        params = {k: "(not shown)" if _secret_name(k) else v for k, v in params.items()}
        about = {"Function": answer.func, **given, **params}
        # The sheet is named as the command is (dues_summary), or as the
        # function an `ajax` call named.
        name = args.func if args.operation == "ajax" else args.operation
        sheet = answer if answer.shape == "rows" else [_record(answer)]
        return write_workbook(args, {name: sheet}, about, client)
    if args.format == "parquet":
        write_parquet(
            answer.to_table() if answer.shape == "rows" else [_record(answer)], args.output
        )
        return EXIT_OK
    with _output(args.output) as out:
        if args.format == "raw":
            out.write(answer.raw.rstrip("\n") + "\n")
        elif answer.shape == "rows":
            write_rows(answer.to_table(), args.format, out)
        elif args.format == "csv":
            record = _record(answer)
            if record:  # an object of no fields has no header to write
                writer = csv.writer(out, lineterminator="\n")
                writer.writerow(record)
                writer.writerow([csv_value(v) for v in record.values()])
        else:
            out.write(json_value(answer.value) + "\n")
    return EXIT_OK


def _record(answer: AjaxAnswer) -> Row:
    """An answer of one object or one value as the one row a table format
    takes (a value under a ``value`` header): its shape is known only once
    it has arrived, so a command that writes rows writes it too, rather
    than refusing, after the call, a format it was given."""
    return dict(answer.fields) if answer.shape == "object" else {"value": answer.value}


def _ajax_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "send_token": True if args.send_token else None,
        "method": args.method,
        **_typing_args(args),
    }


def cmd_function(args: argparse.Namespace) -> int:
    options = _ajax_options(args)
    with _client(args) as client:
        if args.operation != "ajax":
            # A function of the catalogue: the client's method of its name,
            # with its required arguments as given on the command line.
            given = {name: getattr(args, name) for name in args.positional}
            answer = getattr(client, args.operation)(**given, **options)
        else:
            params: dict[str, str] = {}
            for item in args.params:
                key, sep, value = item.partition("=")
                if not sep or not key:
                    # Not repeated: a stray word may be the token.
                    raise _Usage(f"ajax parameters are NAME=VALUE, got {HIDDEN} ({NOT_SHOWN})")
                params[key] = value
            answer = client.ajax(args.func, params, **options)
    return _write_answer(answer, args, client)


COMMAND_NAMES = {"schedule-accounts": "schedule"}
"""Commands named otherwise than the catalogue's ``cli_name`` (kept as
they were before the catalogue)."""


def _functions() -> list[dict[str, Any]]:
    """The functions of ``ajax.php`` that the core's catalogue names, but
    the generic ``ajax``, which has a command of its own."""
    operations: list[dict[str, Any]] = json.loads(_core.catalogue_json())["operations"]
    return [op for op in operations if op["answer"] == "function" and op["name"] != "ajax"]


def _help(doc: str) -> str:
    """A catalogue doc line as a command's help: "The net profit from
    `start` ..." → "net profit from start ..." (argparse's style: plain
    text, lower case, no full stop)."""
    doc = _plain(doc).rstrip(".")
    first, _, rest = doc.partition(" ")
    return rest if first == "The" else doc[:1].lower() + doc[1:]


def _plain(doc: str) -> str:
    """A catalogue doc (markdown: code in backticks) as plain text."""
    return doc.replace("`", "")


def cmd_dues_table(args: argparse.Namespace) -> int:
    with _client(args) as client:
        table = client.dues_table(
            args.acids,
            DuesKind(args.kind.upper()),
            concurrency=args.concurrency,
            **_typing_args(args),
        )
    if args.format == "xlsx":
        side = "Receivables" if args.kind == "receipt" else "Payables"
        about = {"Accounts": args.acids, "Kind": args.kind}
        return write_workbook(args, {side: table}, about, client)
    if args.format == "parquet":
        write_parquet(table, args.output)
        return EXIT_OK
    with _output(args.output) as out:
        write_rows(table, args.format, out)
    return EXIT_OK


def _write_report(
    table: Table, args: argparse.Namespace, title: str, html: Callable[..., str]
) -> int:
    """A finance view as a terminal table, csv, json or an HTML report."""
    if args.format == "html":
        page = html(table, as_of=args.as_of, title=title)
        with _output(args.output) as out:
            out.write(page)
        if args.output not in (None, "-"):
            print(f"report written to {args.output}", file=sys.stderr)
        return EXIT_OK
    with _output(args.output) as out:
        if args.format == "table":
            from .report import print_table

            print_table(table, title=title, file=out)
        else:
            write_rows(table, args.format, out)
    return EXIT_OK


def _as_of(args: argparse.Namespace) -> None:
    if args.as_of is None:
        args.as_of = datetime.date.today().isoformat()


def _check_format(args: argparse.Namespace) -> None:
    """What a command is to write can be written: checked for every
    command here, before it sends anything, not by each command after its
    answer has arrived (a large table's included). An HTML report needs
    matplotlib."""
    if getattr(args, "format", None) is None:
        return  # a command that writes no rows (export, mcp, sandbox)
    _check_output(args)
    if args.format == "html":
        from .report import _check_html

        _check_html()


def _asked_accounts(args: argparse.Namespace, who: str) -> Any:
    return args.accounts or f"every {who} of the {args.accounts_table} table"


def cmd_aging(args: argparse.Namespace) -> int:
    from .report import aging_html

    _as_of(args)
    with _client(args) as client:
        table = client.aging(
            args.kind,
            accounts=args.accounts,
            as_of=args.as_of,
            buckets=args.buckets or (30, 60, 90),
            accounts_table=args.accounts_table,
            concurrency=args.concurrency,
        )
    side = "Receivables" if args.kind == "receipt" else "Payables"
    if args.format == "xlsx":
        from .excel import Sheet

        about = {
            "Report": f"{side} aging",
            "Kind": args.kind,
            "Accounts": _asked_accounts(args, "customer" if args.kind == "receipt" else "supplier"),
            "As of": datetime.date.fromisoformat(args.as_of),
            "Buckets (days)": args.buckets or (30, 60, 90),
        }
        sheets = {f"{side} aging": Sheet(table, totals=True)}
        return write_workbook(args, sheets, about, client, say=True)
    return _write_report(table, args, f"{side} aging as of {args.as_of}", aging_html)


def cmd_credit_status(args: argparse.Namespace) -> int:
    from .report import credit_status_html

    _as_of(args)
    with _client(args) as client:
        table = client.credit_status(
            accounts=args.accounts,
            as_of=args.as_of,
            pay_days=not args.no_pay_days,
            accounts_table=args.accounts_table,
            concurrency=args.concurrency,
        )
    if args.format == "xlsx":
        from .excel import Sheet

        about = {
            "Report": "Customer credit status",
            "Accounts": _asked_accounts(args, "customer"),
            "As of": datetime.date.fromisoformat(args.as_of),
            "Average payment days": "not asked" if args.no_pay_days else "asked (avgPayDays)",
        }
        sheets = {"Credit status": Sheet(table, totals=True, highlight="over_limit")}
        return write_workbook(args, sheets, about, client, say=True)
    return _write_report(
        table, args, f"Customer credit status as of {args.as_of}", credit_status_html
    )


def cmd_export(args: argparse.Namespace) -> int:
    from .export import ExportError, _export, id_of

    companies = None if args.companies is None else [id_of(c) for c in args.companies]
    years = None if args.years is None else [id_of(y) for y in args.years]
    with _client(args) as client:
        try:
            # export() itself, but for the advice of its failure, which
            # names --resume here, not Python's resume=True.
            result = _export(
                client,
                args.tables,
                companies=companies,
                years=years,
                to=args.to,
                format=None,
                concurrency=args.concurrency,
                batch_rows=_core.DEFAULT_BATCH_ROWS,
                progress=None if not args.no_progress else False,
                resume=args.resume,
                cancel=None,
                resume_as="--resume",
            )
        except ExportError as exc:
            # The exit code of the first failure, as for any other command.
            transport = isinstance(exc.__cause__, _errors.TransportError)
            return _fail(EXIT_TRANSPORT if transport else EXIT_SERVICE, _service_error(exc, args))
    if args.resume and not result.partitions:
        # Every partition asked for was in the manifest, written.
        print(f"nothing to fetch: every partition asked for is in {result.to}", file=sys.stderr)
        return EXIT_OK
    print(
        f"{counted(result.rows, 'row')} in {counted(len(result.partitions), 'partition')}"
        f" written to {result.to}",
        file=sys.stderr,
    )
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace) -> int:
    from .mcp_server import _options

    # The client holds the ERP's token, and no frame of the server does
    # (a traceback printed with its locals would show it): --mcp-token-file
    # is told apart from it by the client.
    with _client(args) as client:
        return _options.run(args, client)


def _replaced(path: str) -> Path | None:
    """The file that writing ``path`` replaces whole, through a partial
    file beside it; ``None`` for what is written as it is (a device or a
    pipe: ``-o /dev/stdout``, ``/dev/null``). A symbolic link stays a
    link: the file it names is replaced."""
    target = Path(path)
    if target.exists() and not target.is_file():
        return None
    return target.resolve() if target.is_symlink() else target


@contextlib.contextmanager
def _whole(path: str) -> Iterator[str]:
    """A partial file's path beside ``path``, renamed over it when the
    block ends without an error and removed when it ends with one (Ctrl-C
    included): ``-o FILE`` appears whole or not at all, and a file already
    there stays as it was until then. A device or pipe is given as it is."""
    target = _replaced(path)
    if target is None:
        yield path
        return
    partial = target.with_name(f".{target.name}.{uuid.uuid4().hex[:12]}.partial")
    try:
        yield str(partial)
        os.replace(partial, target)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        # Said of the file asked for: "-o /proc/t.csv" failed naming
        # "/proc/.t.csv.1a2b3c4d5e6f.partial", a file the user never named.
        if exc.filename == str(partial):
            exc.filename, exc.filename2 = path, None
            raise
        if str(partial) in str(exc):  # pyarrow's, in its message
            raise OSError(str(exc).replace(str(partial), path)) from None
        raise
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def _output(path: str | None) -> Iterator[IO[str]]:
    """Where a command writes text: stdout, or ``-o FILE`` whole or not at
    all (a Ctrl-C or a failure part-way leaves no truncated file that reads
    as the whole table, and any earlier file as it was)."""
    if path is None or path == "-":
        _stdout_for_text()
        yield sys.stdout
        return
    with _whole(path) as partial, open(partial, "w", encoding="utf-8", newline="") as out:
        yield out


def _stdout_for_text() -> None:
    """stdout redirected to a file or a pipe is written in UTF-8, as ``-o
    FILE`` is, whatever the locale's encoding. On Windows that is a code
    page (cp1252, cp1251, ...): ``> report.html`` wrote a page that
    declares UTF-8 in the code page's bytes ("Müller GmbH" unreadable),
    and a name the code page lacks ended a CSV part-way with a traceback.
    A terminal keeps its own encoding, and a character it lacks is shown
    as its escape, as control characters are."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is None:  # replaced by a caller with another kind of stream
        return
    if sys.stdout.isatty():
        reconfigure(errors="backslashreplace")
    else:
        reconfigure(encoding="utf-8")


def _schema(args: argparse.Namespace) -> dict[str, str] | None:
    """``--schema COLUMN=TYPE`` options as ``schema_overrides`` (the core
    checks the type names)."""
    given: list[str] = args.schema or []
    if not given:
        return None
    schema: dict[str, str] = {}
    for item in given:
        # Type names never hold "=", a column name might.
        column, sep, type_name = item.rpartition("=")
        if not sep or not column:
            raise _Usage(f"--schema expects COLUMN=TYPE, got {HIDDEN} ({NOT_SHOWN})")
        if column in schema:
            raise _Usage(f"--schema gives column {column!r} twice")
        schema[column] = type_name
    return schema


def _typing_args(args: argparse.Namespace) -> dict[str, Any]:
    return {"schema_overrides": _schema(args), "infer_strings": not args.no_infer_strings}


def cmd_dues(args: argparse.Namespace) -> int:
    typing = _typing_args(args)
    with _client(args) as client:
        dues = client.dues(args.acid, DuesKind(args.kind.upper()), **typing)
    if args.format == "xlsx":
        side = "Receivables" if args.kind == "receipt" else "Payables"
        about = {"Account": args.acid, "Kind": args.kind}
        return write_workbook(args, {side: dues}, about, client)
    if args.format == "parquet":
        write_parquet(dues.to_table(), args.output)
        return EXIT_OK
    with _output(args.output) as out:
        if args.format == "raw":
            out.write(dues.raw.rstrip("\n") + "\n")
        else:
            write_rows(dues.to_table(), args.format, out)
    return EXIT_OK


def cmd_table(args: argparse.Namespace) -> int:
    typing = _typing_args(args)
    with _client(args) as client:
        # tqdm's bar on a terminal, past the first second or 16 MB.
        table = client.table(
            args.name,
            company_id=args.company_id,
            year_id=args.year_id,
            method=args.method,
            progress=False if args.no_progress else None,
            **typing,
        )
    if args.format == "xlsx":
        # The sheet is named after the table as far as Excel allows (cut to
        # 31 characters, "history" is Excel's own); the About sheet names it whole.
        return write_workbook(args, {args.name: table}, {"Table": args.name}, client)
    if args.format == "parquet":
        write_parquet(table, args.output)
    else:
        with _output(args.output) as out:
            write_rows(table, args.format, out)
    if args.output not in (None, "-") and sys.stderr.isatty():
        print(f"{counted(len(table), 'row')} written to {args.output}", file=sys.stderr)
    return EXIT_OK


def _sandbox_binary() -> str | None:
    configured = os.environ.get("ERPDATA_SANDBOX_BIN")
    if configured:
        return configured
    # The wheels ship the sandbox built for their platform (make dist adds
    # it as erpdata/_bin/erpdata-sandbox); an install built from the sdist
    # has none.
    shipped = Path(__file__).resolve().parent / "_bin" / "erpdata-sandbox"
    if shipped.is_file() and os.access(shipped, os.X_OK):
        return str(shipped)
    found = shutil.which("erpdata-sandbox")
    if found:
        return found
    # A checkout: `make sandbox` builds it here.
    here = Path(__file__).resolve().parents[2] / "target" / "debug" / "erpdata-sandbox"
    return str(here) if here.exists() else None


def cmd_sandbox(args: argparse.Namespace) -> int:
    binary = _sandbox_binary()
    if binary is None:
        raise _Usage(
            "the sandbox binary was not found (an erpdata built from source ships none; the "
            "manylinux wheels do): set ERPDATA_SANDBOX_BIN, put erpdata-sandbox on PATH, or run "
            "`cargo build -p erpdata-sandbox` in a checkout of erpdata"
        )
    command = [binary, "--port", str(args.port)]
    if args.rows is not None:
        command += ["--rows", str(args.rows)]
    for option, kind, _meta, _text in SANDBOX_OPTIONS:
        value = getattr(args, option[2:].replace("-", "_"))
        if kind is None and value:
            command.append(option)
        elif kind is not None and value is not None:
            command += [option, str(value)]
    try:
        if os.name == "posix":
            # Become the sandbox, so signals (Ctrl-C, a supervisor's
            # SIGTERM) reach it and no child is left behind.
            sys.stdout.flush()
            os.execv(binary, command)
        return subprocess.call(command)
    except KeyboardInterrupt:
        return EXIT_OK
    except OSError as exc:
        # "No such file or directory" named neither the file nor where its
        # path came from.
        source = " (ERPDATA_SANDBOX_BIN)" if os.environ.get("ERPDATA_SANDBOX_BIN") else ""
        raise _Usage(
            f"cannot start the sandbox {binary}{source}: {exc.strerror}; "
            + (
                "set ERPDATA_SANDBOX_BIN to the erpdata-sandbox binary, or unset it"
                if source
                else "name the erpdata-sandbox binary in ERPDATA_SANDBOX_BIN"
            )
        ) from None


def cmd_help(top: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.topic is None:
        top.print_help()
        return EXIT_OK
    commands = _commands(top)
    if args.topic not in commands:
        near = _near(args.topic, list(commands))
        # As for a mistyped command: the word is repeated only when it is
        # near a command, as it may be anything pasted there.
        hint = f"did you mean {near!r}?; " if near is not None else ""
        shown = repr(args.topic) if near is not None else HIDDEN
        raise _Usage(f"no command {shown} ({hint}`erpdata help` lists the commands)")
    commands[args.topic].print_help()
    return EXIT_OK


# -- parsing ---------------------------------------------------------------------


TOP_EPILOG = """\
Run `erpdata COMMAND --help` (or `erpdata help COMMAND`) for a command's options.

settings: the ERPDATA_* variables (ERPDATA_BASE_URL, ERPDATA_PROJECT,
  ERPDATA_COMPANY_ID, ERPDATA_YEAR_ID), or each command's options; the access
  token from ERPDATA_ACCESS_TOKEN or --access-token-file FILE, never from the
  command line itself
exit codes: 0 ok, 1 unexpected failure, 2 usage, 3 service error,
  4 transport error"""

KINDS = ("receipt", "payment")
KIND_HELP = (
    "receipt: receivables (what customers owe); payment: payables (what is owed to suppliers)"
)

TOKEN_OPTIONS = ("--access-token", "--token")
"""Options a token might be given with; each is refused by name."""

TOKEN_ON_COMMAND_LINE = (
    "the access token is not taken on the command line, where the shell history and "
    "process lists would show it; pass --access-token-file PATH (a file holding only the "
    "token) or set the ERPDATA_ACCESS_TOKEN environment variable"
)

SANDBOX_TOKEN_REFUSED = (
    "the sandbox's token is set by the ERPDATA_SANDBOX_TOKEN environment variable "
    "[default: sandbox-token-not-secret], not on the command line"
)
"""The refusal of ``erpdata sandbox --token``: the advice for a client's
token (``--access-token-file``, ``ERPDATA_ACCESS_TOKEN``) does not change
the sandbox's."""

SANDBOX_OPTIONS: tuple[tuple[str, Any, str | None, str], ...] = (
    ("--host", str, "HOST", "address to listen on [127.0.0.1]"),
    ("--project", str, "NAME", "project of the table data fetch [demo]"),
    ("--project-folder", str, "NAME", "sys_projectfolder of the dues query [the project]"),
    ("--seed", int, "N", "seed of the demo data [42]"),
    ("--style", str.lower, "STYLE", "how values are typed: native, mysqlnd or strings [mysqlnd]"),
    ("--ajax-token", None, None, "require the access token on every ajax.php call too"),
    ("--chunk-bytes", int, "N", "HTTP chunks of a large table answer of at most N bytes"),
    ("--cache-answers", None, None, "send each table answer again from memory (benchmarks)"),
    ("--quiet", None, None, "do not log requests to stderr"),
    ("--latency", int, "MS", "delay every answer by MS milliseconds"),
    ("--fail-rate", float, "PERCENT", "answer that share of requests with 503 and an HTML page"),
    ("--fault", str, "FAULT", "meet FAULT on every request (status-503x2, hang, notice, ...)"),
    ("--tls", None, None, "serve https with a self-signed certificate made at start"),
    ("--tls-cert", str, "FILE", "write that certificate (PEM) to FILE; implies --tls"),
)
"""The sandbox binary's options other than ``--port`` and ``--rows``:
(option, type, metavar, help), a flag's type ``None``. Each is passed to
the binary as given, which checks it; numbers are read here, so that a
value given out of place is not repeated by the binary's error. Its
``--token`` is refused (:data:`SANDBOX_TOKEN_REFUSED`)."""


class _RefuseToken(argparse.Action):
    """``--access-token`` and ``--token``: a usage error naming the option
    and the ways a token is given, never showing the value. (Unknown to
    argparse, they would be echoed back, value and all, as unrecognized
    arguments.)"""

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str,
        why: str = TOKEN_ON_COMMAND_LINE,
        **kwargs: Any,
    ) -> None:
        kwargs.update(nargs="?", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        super().__init__(option_strings, dest, **kwargs)
        self.why = why

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        parser.exit(EXIT_USAGE, f"erpdata: error: {option_string}: {self.why}\n")


ECHOED = re.compile(
    r"""(invalid (?:choice|[\w.]+ value):|ignored explicit argument) """
    r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
)
"""argparse's repetition of a value it could not take (``invalid int
value: '...'``, ``invalid choice: '...'``, and ``ignored explicit
argument '...'`` for a flag given one: ``--send-token=...``)."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors do not repeat a value it could not
    take: the token pasted after the wrong option (``--max-retries
    "$TOKEN"``) was printed back on stderr."""

    def error(self, message: str) -> NoReturn:
        super().error(ECHOED.sub(rf"\1 {HIDDEN}", message))

    def error_as_given(self, message: str) -> NoReturn:
        """An error that repeats what it names on purpose (a mistyped
        command, said with the one it most likely meant)."""
        super().error(message)


def _parser(**kwargs: Any) -> argparse.ArgumentParser:
    """A parser that takes options only by their full names: argparse
    would otherwise take a prefix (``--access-token``) for the one option
    it starts (``--access-token-file``)."""
    return _Parser(allow_abbrev=False, **kwargs)


def parser() -> argparse.ArgumentParser:
    """The command line."""
    connection = _parser(add_help=False)
    group = connection.add_argument_group("connection (default: the ERPDATA_* variables)")
    group.add_argument("--base-url", help="the service's base URL [ERPDATA_BASE_URL]")
    group.add_argument("--project", help="ERP project [ERPDATA_PROJECT]")
    group.add_argument(
        "--project-folder", help="sys_projectfolder of the dues query [ERPDATA_PROJECT_FOLDER]"
    )
    group.add_argument(
        "--access-token-file",
        metavar="FILE",
        help="a file holding the access token [default: ERPDATA_ACCESS_TOKEN]; "
        "the token itself is never taken on the command line",
    )
    group.add_argument(
        "--allow-insecure-http",
        action="store_true",
        help="allow a plain http URL to a host that is not loopback "
        "(the token would travel unencrypted)",
    )
    group.add_argument(
        "--ajax-token",
        action="store_true",
        help="send the access token with every ajax.php call too (in a POST body), "
        "for a service that requires it there",
    )
    # The seconds of --timeout and --max-retry-after are checked by the
    # core, as the clients' are: argparse only reads a number.
    group.add_argument(
        "--timeout", type=float, metavar="SECONDS", help="limit of the whole call [300]"
    )
    group.add_argument(
        "--max-retries",
        type=int,
        default=2,
        metavar="N",
        help="retries of 429/502/503/504 and connection failures [2]",
    )
    group.add_argument(
        "--max-retry-after",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="the longest Retry-After a call waits out; a longer one ends it [30]",
    )
    group.add_argument(
        "-v", "--verbose", action="count", default=0, help="log requests (-vv: debug)"
    )

    typing = _parser(add_help=False)
    types = typing.add_argument_group(
        "column types (default: typed from the values, strings included)"
    )
    types.add_argument(
        "--schema",
        action="append",
        metavar="COLUMN=TYPE",
        help="declare a column's type: string, int, decimal, decimal(P,S), date, timestamp, bool "
        "or json (repeatable)",
    )
    types.add_argument(
        "--no-infer-strings",
        action="store_true",
        help='keep every JSON string a string ("1500.00" stays text)',
    )

    top = _parser(
        prog="erpdata",
        description="Query the cloud ERP data interface.",
        epilog=TOP_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    top.add_argument(
        "--version",
        action="version",
        version=f"erpdata {__version__}",
        help="print erpdata's version and exit",
    )
    top.add_argument(*TOKEN_OPTIONS, action=_RefuseToken)
    # Before the command too (`erpdata -v table ...`), where it was refused
    # as an argument the command does not take. Its own dest: a command's
    # default of 0 would overwrite the top parser's count.
    top.add_argument(
        "-v",
        "--verbose",
        dest="verbose_before",
        action="count",
        default=0,
        help="log requests (-vv: debug); also after the command",
    )
    commands = top.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(
        name: str, token_refused: str = TOKEN_ON_COMMAND_LINE, **kwargs: Any
    ) -> argparse.ArgumentParser:
        # The line of the command list heads its own --help too.
        line = kwargs["help"]
        kwargs.setdefault("description", f"{line[:1].upper()}{line[1:]}.")
        made: argparse.ArgumentParser = commands.add_parser(name, allow_abbrev=False, **kwargs)
        # Every command, those without the connection options too (`sandbox`):
        # unknown to a command's parser, the option would be echoed back,
        # value and all, as an unrecognized argument.
        made.add_argument(*TOKEN_OPTIONS, action=_RefuseToken, why=token_refused)
        return made

    dues = command("dues", parents=[connection, typing], help="outstanding dues of an account")
    dues.add_argument("acid", metavar="ACID", help="account id, sent as given")
    dues.add_argument("--kind", required=True, choices=KINDS, type=str.lower, help=KIND_HELP)
    dues.add_argument(
        "--format",
        choices=(*FORMATS, "raw"),
        type=str.lower,
        default="csv",
        help="raw: the JSON the service sent; parquet and xlsx need -o FILE [csv]",
    )
    dues.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    dues.set_defaults(run=cmd_dues, company_id=None, year_id=None)

    table = command("table", parents=[connection, typing], help="every row of an ERP table")
    table.add_argument("name", metavar="NAME", help="table name, e.g. sales_invoice")
    table.add_argument("--company-id", metavar="ID", help="company [ERPDATA_COMPANY_ID]")
    table.add_argument("--year-id", metavar="ID", help="financial year [ERPDATA_YEAR_ID]")
    table.add_argument(
        "--format",
        choices=FORMATS,
        default="csv",
        type=str.lower,
        help="parquet and xlsx need -o FILE [csv]",
    )
    table.add_argument(
        "--method",
        choices=("POST", "GET"),
        default="POST",
        type=str.upper,
        help="POST sends the token in the request body; GET puts it in the URL [POST]",
    )
    table.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    table.add_argument("--no-progress", action="store_true", help="no progress bar")
    table.set_defaults(run=cmd_table)

    ajax_options = _parser(add_help=False)
    sending = ajax_options.add_argument_group("sending")
    sending.add_argument(
        "--send-token",
        action="store_true",
        help="send the access token with this ajax.php call (in a POST body)",
    )
    sending.add_argument(
        "--method", choices=("GET", "POST"), type=str.upper, help="GET puts the token in the URL"
    )
    sending.add_argument(
        "--format",
        choices=(*FORMATS, "raw"),
        type=str.lower,
        default="json",
        help="raw: the JSON the service sent; parquet and xlsx need -o FILE (one object or "
        "value is one row, as in csv) [json]",
    )
    sending.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    parents = [connection, typing, ajax_options]
    for op in _functions():
        name = COMMAND_NAMES.get(op["cli_name"], op["cli_name"])
        sub = command(name, parents=parents, help=_help(op["doc"]))
        # The required arguments are positional, in the catalogue's order;
        # sending a token and the method are the options above.
        positional = [p for p in op["params"] if p["required"]]
        for param in positional:
            meta = "YYYY-MM-DD" if param["kind"] == "date" else param["name"].upper()
            sub.add_argument(param["name"], metavar=meta, help=_plain(param["doc"]))
        sub.set_defaults(
            run=cmd_function,
            operation=op["name"],
            positional=[p["name"] for p in positional],
            company_id=None,
            year_id=None,
        )
    ajax = command("ajax", parents=parents, help="any other function of ajax.php, by name")
    ajax.add_argument("func", metavar="FUNC", help="the function's name (func)")
    ajax.add_argument("params", nargs="*", metavar="NAME=VALUE", help="its parameters, in order")
    ajax.set_defaults(run=cmd_function, operation="ajax", company_id=None, year_id=None)

    dues_table = command(
        "dues-table", parents=[connection, typing], help="the dues of many accounts as one table"
    )
    dues_table.add_argument("acids", nargs="+", metavar="ACID", help="account ids, sent as given")
    dues_table.add_argument("--kind", required=True, choices=KINDS, type=str.lower, help=KIND_HELP)
    dues_table.add_argument(
        "--concurrency", type=int, default=8, metavar="N", help="accounts asked at a time [8]"
    )
    dues_table.add_argument(
        "--format",
        choices=FORMATS,
        default="csv",
        type=str.lower,
        help="parquet and xlsx need -o FILE [csv]",
    )
    dues_table.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    dues_table.set_defaults(run=cmd_dues_table, company_id=None, year_id=None)

    finance = _parser(add_help=False)
    views = finance.add_argument_group("report")
    # Both given, the last one won: `--accounts C001 --all` reported every
    # customer without a word about C001.
    which = views.add_mutually_exclusive_group()
    which.add_argument(
        "--accounts", nargs="+", metavar="ACID", help="these accounts [default: --all]"
    )
    which.add_argument(
        "--all",
        action="store_const",
        const=None,
        dest="accounts",
        help="every customer (or supplier) of the account table",
    )
    views.add_argument("--as-of", metavar="YYYY-MM-DD", help="[default: today]")
    # The dues query (getduesDet) takes no company: the amounts are the
    # project folder's, whichever company's account table lists the accounts.
    views.add_argument(
        "--company-id",
        metavar="ID",
        help="whose account table lists the accounts; the dues come from the project "
        "folder whatever the company [ERPDATA_COMPANY_ID]",
    )
    views.add_argument(
        "--year-id",
        metavar="ID",
        help="of the account table that lists the accounts [ERPDATA_YEAR_ID]",
    )
    views.add_argument(
        "--accounts-table", default="account", metavar="NAME", help="the account table [account]"
    )
    views.add_argument(
        "--concurrency", type=int, default=8, metavar="N", help="accounts asked at a time [8]"
    )
    views.add_argument(
        "--format",
        choices=("table", "csv", "json", "jsonl", "html", "xlsx"),
        default="table",
        type=str.lower,
        help="table: aligned text with totals [default]; html: a report with a chart "
        "(needs erpdata[report]); xlsx: a workbook with totals (needs -o FILE and "
        "erpdata[excel])",
    )
    views.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    aging = command(
        "aging",
        parents=[connection, finance],
        help="receivables or payables by age: current, 1-30, 31-60, 61-90, 91+ days past due",
    )
    aging.add_argument(
        "--kind", choices=KINDS, default="receipt", type=str.lower, help=f"{KIND_HELP} [receipt]"
    )
    aging.add_argument(
        "--buckets", nargs="+", type=int, metavar="DAYS", help="bucket bounds [30 60 90]"
    )
    aging.set_defaults(run=cmd_aging)
    credit = command(
        "credit-status",
        parents=[connection, finance],
        help="customers' outstanding against their credit limit, overdue, payment days",
    )
    credit.add_argument(
        "--no-pay-days", action="store_true", help="do not ask avgPayDays of each customer"
    )
    credit.set_defaults(run=cmd_credit_status)

    export = command(
        "export",
        parents=[connection],
        help="tables x companies x years into a DuckDB file or a Parquet dataset",
    )
    export.add_argument("tables", nargs="+", metavar="TABLE", help="ERP tables, e.g. sales_invoice")
    export.add_argument(
        "--to",
        required=True,
        metavar="PATH",
        help="a .duckdb file, or a Parquet dataset folder (needs erpdata[export])",
    )
    export.add_argument(
        "--companies", nargs="+", metavar="ID", help="companies [ERPDATA_COMPANY_ID]"
    )
    export.add_argument(
        "--years", nargs="+", metavar="ID", help="financial years [ERPDATA_YEAR_ID]"
    )
    export.add_argument(
        "--concurrency",
        type=int,
        default=2,
        metavar="N",
        help="partitions (table, company, year) read at a time [2]",
    )
    export.add_argument("--no-progress", action="store_true", help="no progress bar")
    export.add_argument(
        "--resume",
        action="store_true",
        help="fetch only the partitions the target's manifest lacks or lists as not written",
    )
    export.set_defaults(run=cmd_export, company_id=None, year_id=None)

    from .mcp_server._options import add_options as add_mcp_options

    mcp = command(
        "mcp",
        parents=[connection],
        help="serve the ERP to AI assistants over the Model Context Protocol, "
        "stdio or --http (needs erpdata[mcp])",
    )
    add_mcp_options(mcp)
    mcp.set_defaults(run=cmd_mcp)

    # Its --token is refused, not passed on: one rule for every command (no
    # token on the command line), and a real token given by mistake to a
    # local fake would still be shown in the process list.
    sandbox = command(
        "sandbox",
        token_refused=SANDBOX_TOKEN_REFUSED,
        help="run the local sandbox ERP (prints its URL first)",
        epilog="The options are the erpdata-sandbox binary's, passed to it as given "
        "(`erpdata-sandbox --help` says more). The sandbox's access token is set by "
        "ERPDATA_SANDBOX_TOKEN [default: sandbox-token-not-secret].",
    )
    sandbox.add_argument("--port", type=int, default=8787, help="0 picks a free port [8787]")
    sandbox.add_argument(
        "--rows", type=int, metavar="N", help="rows of the large sales_invoice table [40]"
    )
    for option, kind, meta, text in SANDBOX_OPTIONS:
        if kind is None:
            sandbox.add_argument(option, action="store_true", help=text)
        else:
            sandbox.add_argument(option, type=kind, metavar=meta, help=text)
    sandbox.set_defaults(run=cmd_sandbox)

    # `erpdata help` was refused as an invalid choice: the word many
    # command lines (git, pip) take for their help.
    helps = command("help", help="print the help of erpdata, or of a command")
    helps.add_argument("topic", nargs="?", metavar="COMMAND", help="a command [every command]")
    helps.set_defaults(run=lambda args: cmd_help(top, args))
    return top


def _log_setup(verbose: int) -> None:
    if verbose:
        import logging

        logging.basicConfig(
            stream=sys.stderr,
            level=logging.DEBUG if verbose > 1 else logging.INFO,
            format="erpdata: %(message)s",
        )


INSECURE_HTTP = "set allow_insecure_http to allow it"
"""How the core ends its refusal of plain http to a host that is not
loopback; on the command line that is an option."""


OPTION_OF = {
    "base_url": "--base-url",
    "project": "--project",
    "project_folder": "--project-folder",
    "access_token": "--access-token-file",
    "company_id": "--company-id",
    "year_id": "--year-id",
}
"""The option that gives each setting the core may find missing."""

OPTION_NAMED = {
    **OPTION_OF,
    "as_of": "--as-of",
    "buckets": "--buckets",
    "accounts": "--accounts",
    "accounts_table": "--accounts-table",
    "acid": "ACID",
    "acids": "ACID",
    "companies": "--companies",
    "concurrency": "--concurrency",
    "max_retries": "--max-retries",
    "max_retry_after": "--max-retry-after",
    "timeout": "--timeout",
    "to": "--to",
    "years": "--years",
}
"""The option each argument the core may refuse came from: on the command
line, "invalid as_of" is "invalid --as-of". (A setting read from its
variable is named by the variable: ``access_token`` is the token read
from ``--access-token-file``.)"""


EXPORT_IDS = {
    "companies": ("--companies", "ERPDATA_COMPANY_ID"),
    "years": ("--years", "ERPDATA_YEAR_ID"),
}
"""The option and the variable that give ``erpdata export`` its companies
and years."""


def _invalid_input(exc: _errors.InvalidInputError) -> str:
    """The error's message, in the command line's terms: the refusal of a
    plain http URL names ``--allow-insecure-http``, a missing setting the
    option that gives it, and a refused argument its option."""
    message = str(exc)
    if exc.field in ("base_url", "ERPDATA_BASE_URL") and "allow_insecure_http" in message:
        if INSECURE_HTTP in message:
            message = message.replace(INSECURE_HTTP, "pass --allow-insecure-http")
        else:
            message = f"{message} (--allow-insecure-http allows it)"
    option = OPTION_OF.get(exc.field or "")
    if option is not None and "is required" in message:
        # The core's advice is a Python caller's ("pass one with the call,
        # give the client a default"); here it is the option or variable.
        variable = re.search(r"\bERPDATA_[A-Z_]+\b", message)
        if variable is None:
            return f"{message} (on the command line: {option})"
        return f"invalid {option}: is required: pass {option} or set {variable.group()}"
    ids = EXPORT_IDS.get(exc.field or "")
    if ids is not None and "must be given" in message:
        # The export's advice is a Python caller's ("the client has no
        # default company_id"); here it is the option or variable.
        return f"invalid {ids[0]}: must be given: pass {ids[0]} or set {ids[1]}"
    named = OPTION_NAMED.get(exc.field or "")
    column = re.fullmatch(r'schema_overrides\["(.*)"\]', exc.field or "")
    if column is not None:
        named = f"--schema {column.group(1)}=..."
    prefix = f"invalid {exc.field}: "
    if named is not None and message.startswith(prefix):
        return f"invalid {named}: {message[len(prefix) :]}"
    return message


LONGER_WAIT = "try again once it has passed"
"""How the core ends its refusal to wait out a ``Retry-After`` longer than
the client's limit; on the command line that limit is an option."""


def _service_error(exc: _errors.ErpError, args: argparse.Namespace) -> str:
    """The error's message, in the command line's terms: a wait the
    service asked for, longer than ``--max-retry-after``, names the option
    that waits it out (the core's words name no language's setting)."""
    message = str(exc)
    status = exc.__cause__ if isinstance(exc.__cause__, _errors.HttpStatusError) else exc
    asked = getattr(status, "retry_after", None)
    limit = getattr(args, "max_retry_after", None)
    # The core takes a max_retry_after up to a day, as it takes a timeout.
    if asked is None or limit is None or not limit < asked <= _core.MAX_TIMEOUT:
        return message
    wait = f"{LONGER_WAIT}, or pass --max-retry-after {math.ceil(asked)} to wait it out"
    return message.replace(LONGER_WAIT, wait, 1)


def _fail(code: int, message: str) -> int:
    # One line, whatever the error's text holds.
    print(f"erpdata: error: {' '.join(message.split())}", file=sys.stderr)
    return code


def _option_strings(top: argparse.ArgumentParser) -> set[str]:
    """Every option string of ``top`` and of each of its commands."""
    known: set[str] = set()
    for action in top._actions:
        known.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                known.update(_option_strings(sub))
    return known


def _token_like_option(argv: Sequence[str], known: set[str]) -> str | None:
    """The first option of ``argv`` that is none of the command line's and
    whose name says ``token`` (``--access_token``, ``--acess-token``,
    ``--api-token=...``): argparse would echo it back with the value that
    followed it, the token itself, as an unrecognized argument."""
    for arg in argv:
        if arg == "--":
            break
        if not arg.startswith("-"):
            continue
        name = arg.partition("=")[0]
        if name not in known and "token" in name.lower():
            return name
    return None


FORMAT_OF_SUFFIX = {
    ".csv": "csv",
    ".json": "json",
    ".jsonl": "jsonl",
    ".parquet": "parquet",
    ".xlsx": "xlsx",
    ".html": "html",
    ".htm": "html",
}
"""The format an ``-o FILE``'s extension names."""


def _format_from_output(
    top: argparse.ArgumentParser, args: argparse.Namespace, argv: Sequence[str]
) -> None:
    """Without ``--format``, the format ``-o FILE``'s extension names:
    ``erpdata aging -o aging.xlsx`` wrote the terminal table's text into a
    file Excel refuses to open, and ``table ... -o t.parquet`` a CSV that
    no Parquet reader takes. A format the command does not write is
    refused (``aging -o a.parquet`` wrote the terminal table there); an
    extension that names no format keeps the command's default."""
    output = getattr(args, "output", None)
    if output in (None, "-"):
        return
    for arg in argv:
        if arg == "--":
            break
        if arg == "--format" or arg.startswith("--format="):
            return  # asked for by name: written as asked
    named = FORMAT_OF_SUFFIX.get(Path(output).suffix.lower())
    option = _commands(top)[args.command]._option_string_actions.get("--format")
    if named is None or option is None:
        return
    writes = list(option.choices or ())
    if named not in writes:
        raise _Usage(
            f"-o {output}: erpdata {args.command} does not write {named}; it writes "
            f"{', '.join(writes)} (pass --format FORMAT to write one of them to this file)"
        )
    args.format = named


def _commands(top: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    return cast("dict[str, argparse.ArgumentParser]", action.choices)


def _near(given: str, known: Sequence[str]) -> str | None:
    """The known name ``given`` most likely meant, if one is near: the
    core's rule, which the clients' "did you mean" of a keyword or an
    option follows too (``--max_retries`` finds ``--max-retries``)."""
    return _core.closest_name(given, list(known))


OPTION_NAME = re.compile(r"--?[A-Za-z][A-Za-z0-9_-]*")
"""What an option's name looks like; any other argument is a value."""

HIDDEN = "<value>"
"""What stands in an error for a value given out of place: a stray
argument may be the token pasted where it does not belong (``erpdata
table sales_invoice "$TOKEN"``), and argparse repeated it on stderr."""

NOT_SHOWN = "values are not repeated, as one may be a secret"


def _check_command(top: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    """A mistyped command (``erpdata tabel``) is refused with the command
    it most likely meant; argparse only lists them all."""
    command = None
    for arg in argv:
        if arg.partition("=")[0] in TOKEN_OPTIONS:
            return  # refused by name next; what follows it may be the token
        if not arg.startswith("-"):
            command = arg
            break
    commands = _commands(top)
    if command is None or command in commands:
        return
    near = _near(command, list(commands))
    if near is not None:
        cast("_Parser", top).error_as_given(
            f"argument COMMAND: invalid choice: {command!r} (did you mean {near!r}?; "
            f"`erpdata --help` lists the commands)"
        )
    # argparse would repeat the word given (`erpdata "$TOKEN"`); one near
    # no command is not repeated, as no value out of place is.
    top.error(
        f"argument COMMAND: invalid choice {HIDDEN} (choose from {', '.join(commands)}; "
        f"{NOT_SHOWN})"
    )


def _unknown_arguments(top: argparse.ArgumentParser, command: str, unknown: list[str]) -> None:
    """Arguments a command does not take, said by that command's parser
    with its own usage (argparse's top parser showed ``erpdata [-h]
    [--version] COMMAND ...``, which names none of the command's
    options), and the option a mistyped one most likely meant."""
    sub = _commands(top)[command]
    own = sorted(
        {o for a in sub._actions for o in a.option_strings if o.startswith("--")}
        - set(TOKEN_OPTIONS)
    )
    said, hints = [], []
    for arg in unknown:
        name, eq, _value = arg.partition("=")
        if not OPTION_NAME.fullmatch(name):
            said.append(HIDDEN)
            continue
        said.append(f"{name}={HIDDEN}" if eq else name)
        near = _near(name, own) if name.startswith("--") else None
        if near is not None:
            hints.append(f"{name}: did you mean {near}?")
    if any(HIDDEN in s for s in said):
        hints.append(NOT_SHOWN)
    hint = f" ({'; '.join(hints)})" if hints else ""
    sub.error(f"unrecognized arguments: {' '.join(said)}{hint}")


def _interruptible(run: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``run(args)``, where a Ctrl-C stays a Ctrl-C whatever a library made
    of it: DuckDB turns the KeyboardInterrupt it meets into its own error
    (``RuntimeError: Query interrupted``, an ``InvalidInputException``
    reading a table, a ROLLBACK's "no transaction is active" after an
    interrupted COMMIT), which ended ``erpdata export`` with a traceback
    and exit 1. Any error raised after a Ctrl-C was received is raised as
    the KeyboardInterrupt it follows from (exit 130).

    ``erpdata export`` takes a SIGTERM (a supervisor's, ``timeout``'s) as
    a Ctrl-C, and exits with 143: its default action ended the process
    at once, leaving the new DuckDB file it had made, holding no table."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        return run(args)  # Ctrl-C is someone else's to handle
    received: list[int] = []

    def noted(signum: int, frame: Any) -> None:
        received.append(signum)
        signal.default_int_handler(signum, frame)

    signal.signal(signal.SIGINT, noted)
    terminated = (
        getattr(args, "command", None) == "export"
        and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    )
    if terminated:
        signal.signal(signal.SIGTERM, noted)
    try:
        try:
            return run(args)
        except Exception as exc:
            if received:
                raise KeyboardInterrupt from exc
            raise
    except KeyboardInterrupt:
        if received and received[0] == signal.SIGTERM:
            return 128 + signal.SIGTERM
        raise
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if terminated:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit code."""
    top = parser()
    given = sys.argv[1:] if argv is None else list(argv)
    known = _option_strings(top)
    token_like = _token_like_option(given, known)
    if token_like is not None:
        near = _near(token_like, sorted(known - set(TOKEN_OPTIONS)))
        hint = f" (did you mean {near}?)" if near else ""
        # Named only if it reads as an option's name: "-v" run into the
        # token that followed it is not.
        shown = token_like if OPTION_NAME.fullmatch(token_like) else HIDDEN
        return _fail(EXIT_USAGE, f"{shown}: unrecognized option{hint}; {TOKEN_ON_COMMAND_LINE}")
    _check_command(top, given)
    args, unknown = top.parse_known_args(given)
    if unknown:
        _unknown_arguments(top, args.command, unknown)
    _log_setup(args.verbose_before + getattr(args, "verbose", 0))
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        _format_from_output(top, args, given)
        _check_format(args)
        return _interruptible(run, args)
    except _Usage as exc:
        return _fail(EXIT_USAGE, str(exc))
    except _errors.InvalidInputError as exc:
        return _fail(EXIT_USAGE, _invalid_input(exc))
    except _errors.TransportError as exc:
        return _fail(EXIT_TRANSPORT, str(exc))
    except _errors.ErpError as exc:
        return _fail(EXIT_SERVICE, _service_error(exc, args))
    except ImportError as exc:
        return _fail(EXIT_USAGE, str(exc))
    except BrokenPipeError:
        # `erpdata table ... | head`: the reader left; not an error.
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        if exc.strerror and exc.filename:
            return _fail(EXIT_FAILURE, f"{exc.strerror}: {exc.filename}")
        return _fail(EXIT_FAILURE, str(exc))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
