"""The tools: one for each operation of the core's catalogue, the flows
over many accounts (aging, credit status, dues table), and the questions
about tables (describe_table, query). Each takes typed, described
arguments, answers with structured content and a text table, and turns
erpdata's errors into tool errors carrying their (redacted) message."""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any, Literal, Optional

import anyio.to_thread
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BeforeValidator, Field, create_model

from .. import (
    AjaxAnswer,
    Client,
    Dues,
    ErpError,
    HttpStatusError,
    InvalidInputError,
    ServiceError,
    Table,
    TransportError,
    _core,
)
from ._answers import Answer, function_answer, noted, rows_answer
from ._arguments import CheckedArguments, checked, lenient, published
from ._schemas import (
    ANSWER_SCHEMA,
    DESCRIBE_SCHEMA,
    IDENTIFIER,
    ISO_DATE,
    SERVER_SIDE_KINDS,
    IdValue,
    UnknownKind,
    field_of_kind,
    lower_text,
)
from ._sql import ID_COLUMNS, SqlError, TableStore, repeated_ids, said_once

__all__ = ["Limits", "catalogue_operations", "FLOW_TOOLS", "TABLE_TOOLS", "make_tools"]

logger = logging.getLogger("erpdata.mcp")

NOT_AS_TOOLS = {
    "ajax": "it calls any function of ajax.php by name, including ones that would change "
    "data; the tools are the named reads only",
}
"""Operations of the catalogue that are deliberately not tools, and why."""

FLOW_TOOLS = ("aging", "credit_status", "dues_table")
TABLE_TOOLS = ("describe_table", "query")

PROGRESS_SECONDS = 5.0
"""While the ERP is waited for, a client that asked for progress hears how
long it has been every this many seconds."""

_REQUEST: ContextVar[Context[Any, Any] | None] = ContextVar("erpdata_mcp_request", default=None)
"""The MCP request a tool call is answering (for its progress)."""

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)


@dataclass(frozen=True)
class Limits:
    """What the server shows and how long it waits: rows in an answer,
    seconds a fetched table is reused, seconds a SQL statement may run."""

    max_rows: int = 100
    cache_seconds: float = 300.0
    query_seconds: float = 10.0


def catalogue_operations() -> list[dict[str, Any]]:
    """The catalogue's operations that become tools, in its order."""
    operations: list[dict[str, Any]] = json.loads(_core.catalogue_json())["operations"]
    return [op for op in operations if op["name"] not in NOT_AS_TOOLS]


# -- errors ------------------------------------------------------------------


Renamed = Mapping[str, tuple[str, str]]
"""A field the core names in an error -> the tool argument it is, and what
of it (a part of it to name, or "")."""


def error_text(
    exc: ErpError, arguments: Collection[str] | None = None, renamed: Renamed | None = None
) -> str:
    """An erpdata error as the model reads it: what kind of failure, the
    field when an argument was wrong, and the core's message (the token
    already redacted by the core). Bad input gives the tool's argument
    (``renamed`` from the core's field) and its reason, not the message,
    which names the field again; a field that is no argument of the tool
    (``arguments``) is the server's setting, which the model cannot
    correct. Every other failure ends with whether calling again can
    help, and when: the core's ``retryable`` and ``retry_after``."""
    message = " ".join(str(exc).split())
    if isinstance(exc, InvalidInputError):
        reason = " ".join(exc.reason.split()) or message
        argument, part = (renamed or {}).get(exc.field, (exc.field, ""))
        if arguments is not None and argument and argument not in arguments:
            return (
                f"this server's setting `{exc.field}` {reason}; no argument of this tool sets "
                "it. Tell the user that whoever runs this server must set it (never ask for "
                "a token or password in the conversation)."
            )
        where = f" `{argument}`" if argument else ""
        said = f"{part} {reason}" if part else reason
        return f"invalid input{where}: {said}. Correct the argument and call again."
    if isinstance(exc, TransportError):
        said = f"the ERP could not be reached ({exc.transport_kind}): {message}"
    elif isinstance(exc, HttpStatusError):
        said = f"the ERP answered HTTP {exc.status_code}: {message}"
    elif isinstance(exc, ServiceError):
        said = f"the ERP refused the request: {message}"
    else:
        said = f"the ERP's answer could not be read ({exc.kind}): {message}"
    if _refused_access(exc):
        return f"{said.rstrip('.')}. {ACCESS_REFUSED}"
    return f"{said.rstrip('.')}. {_again(exc)}"


ACCESS_REFUSED = (
    "The ERP refused this server's own access, which no argument of any tool sets: tell the "
    "user that whoever runs this server must check its access token and settings (never ask "
    "for a token or password in the conversation)."
)
"""What the model is told when the ERP refused the server's credentials: a
model told only "Invalid access token" was left free to ask the user for
one."""

# Whole words: "Unknown table: login_history" or "tokens" is no refusal.
_ACCESS_WORDS = re.compile(
    r"\b(?:token|unauthori[sz]ed|forbidden|credentials?|password|log ?in)\b", re.I
)


def _refused_access(exc: ErpError) -> bool:
    """Whether the ERP refused the server's credentials: HTTP 401 or 403,
    or a service error whose message speaks of them (the service's words
    for it are not published; the sandbox and the PHP service say
    "Invalid access token")."""
    if isinstance(exc, HttpStatusError):
        return exc.status_code in (401, 403)
    if isinstance(exc, ServiceError):
        return bool(_ACCESS_WORDS.search(exc.message))
    return False


def _again(exc: ErpError) -> str:
    """Whether the same call can pass if made again, and after how long."""
    if not exc.retryable:
        return "Calling again with the same arguments will fail the same way."
    wait = getattr(exc, "retry_after", None)
    if wait:
        return f"Calling again can work after {math.ceil(wait)} s, the wait the ERP asked for."
    return "Calling again in a little while can work."


Redact = Callable[[str], str]
"""The client's redaction of the token (``client._config.redact``)."""


def _result(answer: Answer, redact: Redact) -> CallToolResult:
    """The tool's result, the token redacted from every text in it: the
    core redacts what it says itself, not the values of an answer, and an
    ERP that echoes the token in one (a function's ``accesstoken`` field)
    would hand it to the model."""
    return CallToolResult(
        content=[TextContent(type="text", text=redact(answer.text))],
        structured_content=_redacted(answer.structured, redact),
    )


def _redacted(value: Any, redact: Redact) -> Any:
    """``value`` (JSON-shaped) with the token redacted from every string."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(k): _redacted(v, redact) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(v, redact) for v in value]
    return value


async def _waited_for(work: Callable[[], Answer], started: float) -> Answer:
    """``work``'s answer, run on a worker thread; meanwhile, every
    :data:`PROGRESS_SECONDS`, a progress notification saying how long it
    has run (sent only where the client asked for progress): a client may
    keep waiting on each, and a person sees why nothing has come yet."""
    request = _REQUEST.get()
    if request is None:
        return await anyio.to_thread.run_sync(work)

    async def beat() -> None:
        while True:
            await anyio.sleep(PROGRESS_SECONDS)
            waited = time.perf_counter() - started
            try:
                await request.report_progress(waited, None, f"waiting for the ERP: {waited:.0f} s")
            except Exception:  # the client gone: the answer will find no one either
                return

    outcome: list[Answer | Exception] = []
    async with anyio.create_task_group() as group:
        group.start_soon(beat)
        try:
            outcome.append(await anyio.to_thread.run_sync(work))
        except Exception as exc:  # raised below, outside the group (not wrapped)
            outcome.append(exc)
        group.cancel_scope.cancel()
    if isinstance(outcome[0], Exception):
        raise outcome[0]
    return outcome[0]


async def _carry_out(
    name: str,
    work: Callable[[], Answer],
    arguments: Collection[str],
    renamed: Renamed | None = None,
    *,
    redact: Redact,
) -> CallToolResult:
    """Runs ``work`` on a worker thread (the client and DuckDB block),
    saying how long it takes when it is slow, and turns its failures into
    tool errors the model can act on, naming the tool's ``arguments`` (see
    :func:`error_text`)."""
    started = time.perf_counter()
    try:
        answer = await _waited_for(work, started)
    except ErpError as exc:
        logger.info("tool %s failed: %s", name, exc.kind)
        raise ToolError(error_text(exc, arguments, renamed)) from None
    except SqlError as exc:
        logger.info("tool %s refused or failed a statement", name)
        # DuckDB's message may quote a value of the tables: redacted with
        # every tool error (`checked`).
        raise ToolError(f"SQL error: {exc}") from None
    logger.info("tool %s answered in %.2f s", name, time.perf_counter() - started)
    return _result(answer, redact)


def _tool(
    name: str,
    description: str,
    arguments: type[ArgModelBase],
    run: Callable[..., Awaitable[CallToolResult]],
    output_schema: dict[str, Any],
    title: str,
    redact: Redact,
) -> Tool:
    """A tool with a hand-made argument model (the catalogue's, not a
    Python signature's), checked as `_arguments` says, and a published
    output schema."""

    async def answering(ctx: Context[Any, Any], **args: Any) -> CallToolResult:
        token = _REQUEST.set(ctx)
        try:
            return await run(**args)
        finally:
            _REQUEST.reset(token)

    return Tool(
        fn=checked(answering, redact),
        name=name,
        title=title,
        description=description,
        parameters=published(arguments),
        fn_metadata=CheckedArguments(arg_model=lenient(arguments), output_schema=output_schema),
        is_async=True,
        context_kwarg="ctx",
        annotations=READ_ONLY,
    )


def _shown_args(args: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in args.items() if v is not None)


# -- the catalogue's operations ------------------------------------------------

ANSWERS = {
    "dues": "the account's open documents as rows (the columns the ERP sends)",
    "function": "the ERP's answer: rows, one record (`fields`) or one value (`value`)",
    "table": "the table's rows; for a question over a whole table, `query` with SQL "
    "answers in the rows it asks for",
}
"""What each answer kind of the catalogue gives, in a tool's description."""

NARROW = {
    "dues": "use `query` over the ERP tables with a WHERE clause, or `aging` for totals by age.",
    # A function has no paging, and a shorter range need not mean fewer rows
    # (schedule_accounts lists the same accounts over any range).
    "function": "ask `query` over the ERP's tables for the rows wanted, or `aging` for "
    "balances by account (this tool cannot page; the totals are over every row).",
    "table": "use `query` with SQL over this table (WHERE, GROUP BY, ORDER BY ... LIMIT).",
}


def _described(doc: str, answer: str, params: list[dict[str, Any]]) -> str:
    lines = [doc, "", f"Answers with {answer}. Money is exact decimal text, dates ISO text."]
    ids = [p["name"] for p in params if p["kind"] == "id"]
    if ids:
        lines.append(f"{' and '.join(ids)} default to the server's configured company and year.")
    lines.append("Read-only: it asks the ERP and changes nothing.")
    return "\n".join(lines)


def _to_answer(
    op: dict[str, Any], args: dict[str, Any], result: Any, limits: Limits, client: Client
) -> Answer:
    answer = _answer(op, args, result, limits, client)
    return noted(answer, getattr(result, "notices", ()))


def _answer(
    op: dict[str, Any], args: dict[str, Any], result: Any, limits: Limits, client: Client
) -> Answer:
    title = f"{op['name']}({_shown_args(args)})"
    narrow = NARROW[op["answer"]]
    if isinstance(result, Dues):
        table = result.to_table()
        return rows_answer(
            title, table.schema, result.rows, max_rows=limits.max_rows, narrow=narrow
        )
    if isinstance(result, AjaxAnswer):
        return function_answer(
            title,
            result.shape,
            result.schema,
            result.value,
            max_rows=limits.max_rows,
            narrow=narrow,
        )
    if isinstance(result, Table):
        # A table of one company and year: ids that repeat them on every
        # row are said once, in the title, not in each row.
        asked = {
            column: _id_text(args.get(argument), getattr(client, argument, None))
            for column, argument in ID_COLUMNS.items()
        }
        repeated = repeated_ids(result.to_arrow(), asked)
        columns = [(n, t) for n, t in result.schema if n not in repeated]
        if repeated:
            title = f"{title}, {said_once(repeated)}"
        return rows_answer(
            title,
            columns,
            result,
            max_rows=limits.max_rows,
            narrow=narrow,
            extra={"left_out_columns": repeated} if repeated else None,
        )
    raise UnknownKind(f"{op['name']} answered a {type(result).__name__}")


def _for_model(doc: str) -> str:
    """A catalogue parameter's doc as the model reads it: the defaults the
    catalogue calls the client's (erpdata's client, here the server) are
    the server's; to a finance model a client is a customer."""
    return doc.replace("the client's", "the server's")


def _id_text(given: Any, default: Any) -> str | None:
    """The id a call asked for: the argument, else the server's default."""
    chosen = default if given is None else given
    return None if chosen is None else str(chosen)


def operation_tool(op: dict[str, Any], client: Client, limits: Limits) -> Tool:
    """The tool of one catalogue operation: its parameters (but the
    server-side ones) as typed fields, the client's method of its name."""
    if op["answer"] not in ANSWERS:
        raise UnknownKind(f"no tool answer for the catalogue's answer kind {op['answer']!r}")
    params = [p for p in op["params"] if p["kind"] not in SERVER_SIDE_KINDS]
    fields = {
        p["name"]: field_of_kind(p["kind"], _for_model(p["doc"]), p["required"]) for p in params
    }
    arguments: type[ArgModelBase] = create_model(  # type: ignore[call-overload]
        f"{op['name']}_arguments", __base__=ArgModelBase, **fields
    )
    name: str = op["name"]
    # The core names a parameter in its errors as the service does (`table`
    # for the argument `name`).
    renamed = {p["wire"]: (p["name"], "") for p in params if p["wire"] not in (None, p["name"])}

    async def run(**args: Any) -> CallToolResult:
        given = {k: v for k, v in args.items() if v is not None}

        def work() -> Answer:
            # The client's method of the operation's name (the generated
            # facade's, erpdata._functions), looked up when called.
            method = getattr(client, name)
            return _to_answer(op, args, method(**given), limits, client)

        return await _carry_out(name, work, args, renamed, redact=client._config.redact)

    description = _described(op["doc"], ANSWERS[op["answer"]], params)
    title = op["doc"].split(" (`")[0].rstrip(".").replace("`", "")
    return _tool(name, description, arguments, run, ANSWER_SCHEMA, title, client._config.redact)


# -- the flows ---------------------------------------------------------------

Kind = Annotated[
    Literal["receipt", "payment"],
    BeforeValidator(lower_text),
    Field(
        description="receipt: receivables (what customers owe); payment: payables "
        "(what is owed to suppliers)."
    ),
]
AccountId = IdValue
AsOf = Annotated[
    Optional[str],
    Field(
        description="The day the ages are counted to, YYYY-MM-DD (default: today).",
        pattern=ISO_DATE,
        json_schema_extra={"format": "date"},
    ),
]
CompanyId = Annotated[
    Optional[IdValue],
    Field(description="The company of the account table (default: the server's)."),
]
YearId = Annotated[
    Optional[IdValue],
    Field(description="The financial year of the account table (default: the server's)."),
]
TablesCompanyId = Annotated[
    Optional[IdValue],
    Field(description="The company whose tables are read (default: the server's)."),
]
TablesYearId = Annotated[
    Optional[IdValue],
    Field(description="The financial year whose tables are read (default: the server's)."),
]
SomeAccounts = Annotated[
    Optional[list[AccountId]],
    Field(
        description='These account ids only, e.g. ["C001", "C003"]; '
        "leave out for every customer (or supplier) of the account table.",
        min_length=1,
        max_length=500,
    ),
]
SomeCustomers = Annotated[
    Optional[list[AccountId]],
    Field(
        description='These customers\' account ids only, e.g. ["C001", "C003"]; '
        "leave out for every customer of the account table.",
        min_length=1,
        max_length=500,
    ),
]


ACCOUNTS: Renamed = {"acids": ("accounts", "")}
"""The core names the list of accounts ``accounts`` (aging, credit status)
or, for a dues table, ``acids``: to the model it is ``accounts``."""


def _money(value: Any) -> Decimal:
    """A money cell as a ``Decimal`` to order by (an empty one as 0)."""
    return Decimal(value) if isinstance(value, (int, Decimal)) else Decimal(0)


def _largest_total_first(row: Mapping[str, Any]) -> tuple[Any, ...]:
    return (-_money(row.get("total")), str(row.get("acid")))


def _over_limit_first(row: Mapping[str, Any]) -> tuple[Any, ...]:
    return (not row.get("over_limit"), -_money(row.get("outstanding")), str(row.get("acid")))


def _flow_tools(client: Client, limits: Limits) -> list[Tool]:
    redact = client._config.redact

    def table_answer(
        title: str, table: Table, order: Callable[[Mapping[str, Any]], Any] | None = None
    ) -> Answer:
        """``table`` as an answer; ``order``: the rows it shows first when
        they are more than an answer holds (the largest debtors, say), not
        the first account ids."""
        rows: Sequence[Mapping[str, Any]] = table if order is None else sorted(table, key=order)
        narrow = (
            "name fewer accounts in `accounts`."
            if order is None
            else ("name the accounts wanted in `accounts`.")
        )
        answer = rows_answer(title, table.schema, rows, max_rows=limits.max_rows, narrow=narrow)
        return noted(answer, table.notices)

    class AgingArguments(ArgModelBase):
        kind: Kind = "receipt"
        accounts: SomeAccounts = None
        as_of: AsOf = None
        buckets: Annotated[
            list[int] | None,
            Field(
                description="Upper bounds of the past-due buckets in days, ascending "
                "(default [30, 60, 90]: current, 1-30, 31-60, 61-90, 91+).",
                min_length=1,
                max_length=12,
            ),
        ] = None
        company_id: CompanyId = None
        year_id: YearId = None

    async def aging(**args: Any) -> CallToolResult:
        def work() -> Answer:
            table = client.aging(
                args["kind"],
                accounts=args["accounts"],
                as_of=args["as_of"],
                buckets=args["buckets"] or (30, 60, 90),
                company_id=args["company_id"],
                year_id=args["year_id"],
            )
            title = f"aging({_shown_args(args)}), largest total first"
            return table_answer(title, table, _largest_total_first)

        return await _carry_out("aging", work, args, ACCOUNTS, redact=redact)

    class CreditArguments(ArgModelBase):
        accounts: SomeCustomers = None
        as_of: AsOf = None
        pay_days: Annotated[
            bool,
            Field(description="Also ask the ERP each customer's average payment days."),
        ] = True
        company_id: CompanyId = None
        year_id: YearId = None

    async def credit_status(**args: Any) -> CallToolResult:
        def work() -> Answer:
            table = client.credit_status(
                accounts=args["accounts"],
                as_of=args["as_of"],
                pay_days=args["pay_days"],
                company_id=args["company_id"],
                year_id=args["year_id"],
            )
            title = (
                f"credit_status({_shown_args(args)}), over the limit first, then most outstanding"
            )
            return table_answer(title, table, _over_limit_first)

        return await _carry_out("credit_status", work, args, ACCOUNTS, redact=redact)

    class DuesTableArguments(ArgModelBase):
        accounts: Annotated[
            list[AccountId],
            Field(
                description='The account ids, e.g. ["C001", "C002"].',
                min_length=1,
                max_length=500,
            ),
        ]
        kind: Kind

    async def dues_table(**args: Any) -> CallToolResult:
        def work() -> Answer:
            table = client.dues_table(args["accounts"], args["kind"])
            return table_answer(f"dues_table({_shown_args(args)})", table)

        return await _carry_out("dues_table", work, args, ACCOUNTS, redact=redact)

    return [
        _tool(
            "aging",
            "Receivables (kind receipt) or payables (kind payment) by age as of a day: one "
            "row per account with its outstanding balance split into current (not yet due), "
            "the past-due buckets (1-30, 31-60, 61-90, 91+ days by default) and undated, and "
            "the total; for the accounts named, or every customer (or supplier) of the "
            "account table, the largest total first. Answers 'who owes us most, and how "
            "late?' and 'what do we owe "
            "supplier X, by age?'. Money is exact decimal text. Read-only.",
            AgingArguments,
            aging,
            ANSWER_SCHEMA,
            "Receivables or payables by age",
            redact,
        ),
        _tool(
            "credit_status",
            "Each customer's outstanding receivables against their credit limit as of a "
            "day: credit_limit, outstanding, available, over_limit, overdue, the oldest "
            "overdue due date and its days, and average payment days; those over their "
            "limit first, the most outstanding first. Answers 'which "
            "customers are over their credit limit, and since when?'. Read-only.",
            CreditArguments,
            credit_status,
            ANSWER_SCHEMA,
            "Customers' credit status",
            redact,
        ),
        _tool(
            "dues_table",
            "The open documents of many accounts as one table (an acid column first, then "
            "the dues columns), receivables or payables. Read-only.",
            DuesTableArguments,
            dues_table,
            ANSWER_SCHEMA,
            "Dues of many accounts",
            redact,
        ),
    ]


# -- questions about tables ---------------------------------------------------------

TableName = Annotated[
    str,
    Field(
        description="The ERP table, e.g. sales_invoice, purchase_bill, receipt, payment, account.",
        pattern=IDENTIFIER,
        max_length=64,
    ),
]
Refresh = Annotated[
    bool,
    Field(description="Fetch the table(s) from the ERP again instead of using the copy held."),
]


def _table_tools(store: TableStore, limits: Limits, redact: Redact) -> list[Tool]:
    class DescribeArguments(ArgModelBase):
        name: TableName
        company_id: TablesCompanyId = None
        year_id: TablesYearId = None
        refresh: Refresh = False

    async def describe_table(**args: Any) -> CallToolResult:
        def work() -> Answer:
            found = store.describe(
                args["name"],
                company_id=args["company_id"],
                year_id=args["year_id"],
                refresh=args["refresh"],
            )
            structured: dict[str, Any] = {
                "table": found.name,
                "company_id": found.company_id,
                "year_id": found.year_id,
                "row_count": found.row_count,
                "columns": [{"name": n, "type": t} for n, t in found.columns],
                "fetched_at": found.fetched_at.isoformat(),
            }
            repeated = ""
            if found.left_out_columns:
                structured["left_out_columns"] = found.left_out_columns
                repeated = f"; {said_once(found.left_out_columns)}"
            lines = [
                f"Table {found.name} (company {found.company_id}, year {found.year_id}): "
                f"{found.row_count:,} rows, fetched {found.fetched_at.isoformat()}{repeated}.",
                "",
                "| column | type |",
                "|---|---|",
                *(f"| {n} | {t} |" for n, t in found.columns),
            ]
            return noted(Answer(structured, "\n".join(lines)), found.notices)

        return await _carry_out(
            "describe_table", work, args, {"table": ("name", "")}, redact=redact
        )

    class QueryArguments(ArgModelBase):
        sql: Annotated[
            str,
            Field(
                description="One SELECT statement (WITH, joins, GROUP BY, window functions: "
                "DuckDB's SQL). Tables are named as in the ERP, e.g. "
                "SELECT customer, sum(amount) FROM sales_invoice GROUP BY customer. "
                "sum keeps money exact; avg and division give floats: round them and "
                "cast back, e.g. round(avg(total), 2)::DECIMAL(18,2) AS avg_total.",
                min_length=1,
                max_length=20_000,
            ),
        ]
        company_id: TablesCompanyId = None
        year_id: TablesYearId = None
        refresh: Refresh = False

    async def query(**args: Any) -> CallToolResult:
        def work() -> Answer:
            result = store.query(
                args["sql"],
                company_id=args["company_id"],
                year_id=args["year_id"],
                refresh=args["refresh"],
            )
            answer = rows_answer(
                "query",
                result.columns,
                result.rows,
                max_rows=limits.max_rows,
                row_count=result.row_count,
                totals=result.totals,
                narrow="add a WHERE clause, aggregate with GROUP BY, or page with "
                "ORDER BY ... LIMIT ... OFFSET.",
                extra={"tables": result.tables},
            )
            return noted(answer, result.notices)

        return await _carry_out(
            "query", work, args, {"table": ("sql", "a table named")}, redact=redact
        )

    return [
        _tool(
            "describe_table",
            "The columns, their types and the row count of an ERP table for a company and "
            "financial year (fetched from the ERP on first use and kept for "
            f"{limits.cache_seconds:g} s). Call it before writing SQL over a table. Read-only.",
            DescribeArguments,
            describe_table,
            DESCRIBE_SCHEMA,
            "Describe an ERP table",
            redact,
        ),
        _tool(
            "query",
            "Answer a question with SQL: one read-only SELECT over the ERP tables of a "
            "company and financial year, in an in-process DuckDB (the tables named are "
            f"fetched on first use and kept for {limits.cache_seconds:g} s; their compid "
            "and yearid columns, the same on every row, are left out). At most "
            f"{limits.max_rows} rows are shown (the rest counted), decimal columns are "
            "totalled, except those named as an average, min, max, days or rate "
            f"(avg_total), and a statement may run {limits.query_seconds:g} s. "
            "Anything but a "
            "SELECT, and any file, network or extension access, is refused; the error "
            "says why. Read-only.",
            QueryArguments,
            query,
            ANSWER_SCHEMA,
            "Query ERP tables with SQL",
            redact,
        ),
    ]


def make_tools(client: Client, limits: Limits, store: TableStore) -> list[Tool]:
    """Every tool: the catalogue's operations, then the flows, then the
    questions about tables."""
    tools = [operation_tool(op, client, limits) for op in catalogue_operations()]
    redact = client._config.redact
    return tools + _flow_tools(client, limits) + _table_tools(store, limits, redact)
