"""`erpdata mcp` as an assistant meets it: the MCP SDK's own client starts
`python -m erpdata mcp` over stdio (and over streamable HTTP with
`--http`) against the sandbox, lists the tools, calls each one and checks
its answer against the Python API's; bad input, a failing service and
refused SQL come back as tool errors; HTTP without the bearer token is
refused; and the access token appears in nothing the client received
nor in anything the servers wrote to stderr.

Each server runs once a module (a conversation is a script of calls,
made in one go): the tests read its transcript."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types
import pyarrow as pa
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

import erpdata
from conftest import SECRET_TOKEN
from erpdata import _core, cli
from erpdata.mcp_server import Limits, build_server
from erpdata.mcp_server._answers import MAX_TEXT, function_answer, noted, rows_answer
from erpdata.mcp_server._sql import TableStore, repeated_ids
from fault_api import count, new_key, prefix
from leaks import assert_clean

ROOT = Path(__file__).resolve().parents[2]
MAX_ROWS = 25
"""The servers' row cap: below sales_invoice's 40 demo rows."""
AS_OF = "2025-12-31"
MCP_TOKEN = "mcp-client-token-not-the-erp-one"

FLOWS = ["aging", "credit_status", "dues_table"]
TABLE_TOOLS = ["describe_table", "query"]


def catalogue_tools() -> list[str]:
    """The tool of each operation of the catalogue, but the generic
    ``ajax`` (any function by name), in the catalogue's order."""
    operations = json.loads(_core.catalogue_json())["operations"]
    return [op["name"] for op in operations if op["name"] != "ajax"]


# -- a conversation ---------------------------------------------------------------

SAMPLE_OF_KIND: dict[str, Any] = {
    "account_id": "C001",
    "text": "Sundry Debtors",
    "table": "sales_invoice",
    "dues_kind": "receipt",
    "name": "avgPayDays",
}
SAMPLE_DATE = {"start": "2025-01-01", "end": "2025-06-30"}


def sample_arguments(op: dict[str, Any]) -> dict[str, Any]:
    """Arguments for an operation's tool, from its parameters' kinds (a
    new operation is called without a test change); optional ones are
    left out."""
    args: dict[str, Any] = {}
    for param in op["params"]:
        if not param["required"]:
            continue
        kind = param["kind"]
        args[param["name"]] = SAMPLE_DATE[param["name"]] if kind == "date" else SAMPLE_OF_KIND[kind]
    return args


def script() -> list[tuple[str, dict[str, Any]]]:
    """The calls of the stdio conversation: every tool at least once,
    then the questions the guide shows, then wrong ones."""
    operations = json.loads(_core.catalogue_json())["operations"]
    calls = [(op["name"], sample_arguments(op)) for op in operations if op["name"] != "ajax"]
    return calls + [
        # "What do we owe Delta Steel, by age?" (docs/assistants.md)
        ("query", {"sql": FIND_DELTA}),
        ("aging", {"kind": "payment", "accounts": ["S001"], "as_of": AS_OF}),
        ("aging", {"as_of": AS_OF}),
        ("aging", {"kind": "RECEIPT", "as_of": AS_OF, "buckets": [15, 45]}),
        # "Which customers are over their credit limit, and since when?"
        ("credit_status", {"as_of": AS_OF}),
        ("dues_table", {"accounts": ["C001", "C002"], "kind": "receipt"}),
        ("describe_table", {"name": "sales_invoice"}),
        ("query", {"sql": TOP_CUSTOMERS}),
        ("query", {"sql": FIRST_INVOICE}),
        ("query", {"sql": AVERAGES}),
        ("query", {"sql": "SELECT invoice_no, total FROM sales_invoice ORDER BY invoice_no"}),
        ("describe_table", {"name": "sales_invoice", "refresh": True}),
        # Wrong or refused.
        ("dues", {"acid": "C001", "kind": "sideways"}),
        ("dues", {"kind": "receipt"}),
        ("avg_pay_days", {"acid": "   "}),
        ("net_profit", {"start": "2025-06-30", "end": "2025-01-01"}),
        ("aging", {"as_of": "2025-02-30"}),
        ("aging", {"as_of": "31/12/2025"}),
        ("aging", {"asof": "2025-12-31"}),
        ("dues_table", {"accounts": "C001", "kind": "receipt"}),
        ("credit_status", {"accounts": [["C001"]], "pay_days": "maybe"}),
        ("net_profit", {"start": "2025-1-1"}),
        ("describe_table", {"name": "no_such_table"}),
        ("table", {"name": "sales invoice"}),
        ("describe_table", {"name": "1st_table"}),
        ("aging", {"accounts": ["C001", " "], "as_of": AS_OF}),
        ("dues_table", {"accounts": [" "], "kind": "receipt"}),
        ("query", {"sql": "DELETE FROM account"}),
        ("query", {"sql": "SELECT 1; SELECT 2"}),
        ("query", {"sql": "SELECT * FROM read_csv('/etc/passwd')"}),
        ("query", {"sql": "SELECT nonsense FROM account"}),
        ("query", {"sql": "SELECT count(*) FROM range(100000000) a, range(100000000) b"}),
        ("query", {"sql": SAME_NAMES}),
        ("query", {"sql": SAME_NAMES.replace("date", "total")}),
        (
            "query",
            {
                "sql": "SELECT array_agg(i) AS l, [[i] for i in range(200)] AS m FROM range(150) t(i)"
            },
        ),
        ("query", {"sql": TINY}),
        ("query", {"sql": "SELECT total FROM sales_invoice WHERE false"}),
        ("query", {"sql": HUGE}),
        ("dues", {"acid": True, "kind": "receipt"}),
        ("aging", {"accounts": ["C001", 1.5], "as_of": AS_OF}),
        # The token pasted into arguments: refused without repeating it.
        ("aging", {"as_of": SECRET_TOKEN}),
        ("aging", {"buckets": [SECRET_TOKEN]}),
        ("credit_status", {"accounts": [SECRET_TOKEN], "as_of": AS_OF}),
        ("dues", {"acid": "C001", "kind": SECRET_TOKEN}),
        ("dues", {SECRET_TOKEN: 1}),
    ]


SAME_NAMES = (
    "SELECT s.date, r.date FROM sales_invoice s JOIN sales_invoice r "
    "ON r.invoice_no = 'INV-2025-0002' WHERE s.invoice_no = 'INV-2025-0001'"
)
TINY = "SELECT 0.00000001::DECIMAL(18,8) AS rate_amount, 0.00000001::DECIMAL(18,8) AS amount"
HUGE = "SELECT 9999999999999999999999999999.99::DECIMAL(38,2) AS amount FROM range(2)"


FIND_DELTA = "SELECT acid, name FROM account WHERE name ILIKE '%delta steel%'"
FIRST_INVOICE = "SELECT * FROM sales_invoice WHERE invoice_no = 'INV-2025-0001'"
AVERAGES = (
    # As the query tool's description advises for an average of money.
    "SELECT customer, round(avg(total), 2)::DECIMAL(18,2) AS avg_total, max(total), "
    "min(total) AS min_total, sum(total) AS invoiced FROM sales_invoice GROUP BY customer"
)
TOP_CUSTOMERS = (
    "SELECT customer, customer_name, count(*) AS invoices, sum(total) AS invoiced "
    "FROM sales_invoice GROUP BY customer, customer_name ORDER BY invoiced DESC"
)


@dataclass
class Call:
    tool: str
    arguments: dict[str, Any]
    result: mcp_types.CallToolResult

    @property
    def text(self) -> str:
        return "\n".join(
            c.text for c in self.result.content if isinstance(c, mcp_types.TextContent)
        )

    @property
    def data(self) -> dict[str, Any]:
        assert not self.result.is_error, self.text
        content: dict[str, Any] = self.result.structured_content
        return content


@dataclass
class Transcript:
    """What a client sent and received, and what the server wrote."""

    tools: list[mcp_types.Tool] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    progress: list[tuple[str, float, str | None]] = field(default_factory=list)
    """Each progress notification: the tool, its progress and message."""
    received: list[str] = field(default_factory=list)
    """Every JSON-RPC message the client received, as JSON text."""
    stderr: str = ""
    stdout: str = ""
    """Every byte the server wrote to stdout (stdio)."""
    instructions: str = ""

    def call(self, tool: str, **arguments: Any) -> Call:
        for call in self.calls:
            if call.tool == tool and call.arguments == arguments:
                return call
        raise AssertionError(f"{tool}({arguments}) is not in the script")


async def _converse(
    read: Any, write: Any, transcript: Transcript, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    """Runs ``calls`` over a session on (read, write), recording every
    message received on the way to the session."""
    into, recorded = anyio.create_memory_object_stream[Any](0)

    async def record() -> None:
        async with into:
            async for message in read:
                if not isinstance(message, Exception):
                    transcript.received.append(message.message.model_dump_json(by_alias=True))
                await into.send(message)

    async with anyio.create_task_group() as group:
        group.start_soon(record)
        async with ClientSession(recorded, write) as session:
            initialized = await session.initialize()
            transcript.instructions = initialized.instructions or ""
            transcript.tools = (await session.list_tools()).tools
            for tool, arguments in calls:

                async def progressed(
                    progress: float, total: float | None, message: str | None, tool: str = tool
                ) -> None:
                    transcript.progress.append((tool, progress, message))

                result = await session.call_tool(
                    tool, arguments, read_timeout_seconds=60, progress_callback=progressed
                )
                transcript.calls.append(Call(tool, arguments, result))
        group.cancel_scope.cancel()


def server_env(base_url: str) -> dict[str, str]:
    """The server's settings: the sandbox, its token from the environment
    (as a desktop assistant's config gives it), nothing from the shell."""
    return {
        "PYTHONPATH": str(ROOT / "python"),
        "ERPDATA_BASE_URL": base_url,
        "ERPDATA_PROJECT": "demo",
        "ERPDATA_COMPANY_ID": "1",
        "ERPDATA_YEAR_ID": "2025",
        "ERPDATA_ACCESS_TOKEN": SECRET_TOKEN,
    }


SERVER_ARGS = [
    "-m",
    "erpdata",
    "mcp",
    "-v",
    "--max-rows",
    str(MAX_ROWS),
    "--query-seconds",
    "1",
]


TEE = """\
import subprocess, sys, threading
server = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def forward():
    for line in sys.stdin.buffer:
        server.stdin.write(line)
        server.stdin.flush()
    server.stdin.close()
threading.Thread(target=forward, daemon=True).start()
# Unbuffered, and written before it is passed on: if the client's shutdown
# ends this process early, the copy still holds all that the client read.
with open(sys.argv[1], "wb", buffering=0) as copy:
    for line in server.stdout:
        copy.write(line)
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
sys.exit(server.wait())
"""
"""Runs the server (argv[2:]) and passes its stdin and stdout through,
writing a copy of every byte it wrote to stdout to argv[1]."""


def stdio_conversation(
    base_url: str,
    calls: list[tuple[str, dict[str, Any]]],
    stdout_copy: Path,
    env: dict[str, str] | None = None,
    options: tuple[str, ...] = (),
) -> Transcript:
    """A conversation over stdio; the server's stdout is also copied, byte
    for byte, to ``stdout_copy``, and its stderr is the transcript's."""
    transcript = Transcript()
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", TEE, str(stdout_copy), sys.executable, *SERVER_ARGS, *options],
        env=server_env(base_url) if env is None else env,
        cwd=str(ROOT),
    )
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:

        async def main() -> None:
            with anyio.fail_after(120):
                async with stdio_client(params, errlog=errlog) as (read, write):
                    await _converse(read, write, transcript, calls)

        anyio.run(main)
        errlog.seek(0)
        transcript.stderr = errlog.read()
    transcript.stdout = stdout_copy.read_bytes().decode("utf-8")
    return transcript


def erp_client(base_url: str, **options: Any) -> erpdata.Client:
    """The Python API on the sandbox (or a fault prefix of it), as the
    server's client is set up."""
    return erpdata.Client(
        base_url, project="demo", access_token=SECRET_TOKEN, company_id=1, year_id=2025, **options
    )


@pytest.fixture(scope="module")
def erp(secret_sandbox_url: str) -> Iterator[erpdata.Client]:
    """The Python API on the same sandbox, for the expected answers."""
    with erp_client(secret_sandbox_url, timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def stdio(secret_sandbox_url: str, tmp_path_factory: pytest.TempPathFactory) -> Transcript:
    copy = tmp_path_factory.mktemp("stdio") / "stdout"
    return stdio_conversation(secret_sandbox_url, script(), copy)


@pytest.fixture(scope="module")
def failing(secret_sandbox_url: str, tmp_path_factory: pytest.TempPathFactory) -> Transcript:
    """A server whose ERP answers every request with a service error."""
    base = prefix(secret_sandbox_url, "service-error", new_key("mcp"))
    copy = tmp_path_factory.mktemp("failing") / "stdout"
    return stdio_conversation(base, [("dues", {"acid": "C001", "kind": "receipt"})], copy)


@pytest.fixture(scope="module")
def busy(secret_sandbox_url: str, tmp_path_factory: pytest.TempPathFactory) -> Transcript:
    """A server whose ERP answers its first request 503 with Retry-After:
    120, longer than the client waits, then answers."""
    base = prefix(secret_sandbox_url, "status-503x1-ra120", new_key("mcp"))
    copy = tmp_path_factory.mktemp("busy") / "stdout"
    calls: list[tuple[str, dict[str, Any]]] = [
        ("dues", {"acid": "C001", "kind": "receipt"}),
        ("dues", {"acid": "C002", "kind": "receipt"}),
    ]
    return stdio_conversation(base, calls, copy)


@pytest.fixture(scope="module")
def slow(secret_sandbox_url: str, tmp_path_factory: pytest.TempPathFactory) -> Transcript:
    """A server whose ERP takes 7 s to answer."""
    base = prefix(secret_sandbox_url, "latency-7000", new_key("mcp"))
    copy = tmp_path_factory.mktemp("slow") / "stdout"
    return stdio_conversation(base, [("dues", {"acid": "C001", "kind": "receipt"})], copy)


@pytest.fixture(scope="module")
def few_rows(secret_sandbox_url: str, tmp_path_factory: pytest.TempPathFactory) -> Transcript:
    """A server that shows 3 rows of an answer."""
    copy = tmp_path_factory.mktemp("few_rows") / "stdout"
    calls: list[tuple[str, dict[str, Any]]] = [
        ("aging", {"as_of": AS_OF}),
        ("credit_status", {"as_of": AS_OF, "pay_days": False}),
        ("dues_summary", {}),
        ("schedule_accounts", {"schedule": "Sundry Debtors", **SAMPLE_DATE}),
    ]
    return stdio_conversation(secret_sandbox_url, calls, copy, options=("--max-rows", "3"))


@pytest.fixture(scope="module")
def noticing(secret_sandbox_url: str, tmp_path_factory: pytest.TempPathFactory) -> Transcript:
    """A server whose ERP prints a PHP notice before every answer."""
    base = prefix(secret_sandbox_url, "notice", new_key("mcp"))
    copy = tmp_path_factory.mktemp("noticing") / "stdout"
    calls: list[tuple[str, dict[str, Any]]] = [
        ("dues", {"acid": "C001", "kind": "receipt"}),
        ("dues_table", {"accounts": ["C001", "C002"], "kind": "receipt"}),
        ("aging", {"accounts": ["C001"], "as_of": AS_OF}),
        # The table is fetched (with its notice) for the first, and the
        # second answers from the copy held: both say what PHP printed.
        ("describe_table", {"name": "sales_invoice"}),
        ("query", {"sql": "SELECT count(*) AS n FROM sales_invoice"}),
    ]
    return stdio_conversation(base, calls, copy)


# -- what the Python API answers -----------------------------------------------------


def as_json(value: Any) -> Any:
    """A value as the tools send it: decimals and dates as their text."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_json(v) for v in value]
    return value


def rows_json(rows: Any) -> list[dict[str, Any]]:
    return [{k: as_json(v) for k, v in row.items()} for row in rows]


# -- the tool list -----------------------------------------------------------------


def test_the_tools_are_the_catalogue_plus_the_flows(stdio: Transcript) -> None:
    names = [tool.name for tool in stdio.tools]
    assert names == catalogue_tools() + FLOWS + TABLE_TOOLS
    assert "ajax" not in names  # any function by name: not for a model


def test_each_tool_is_typed_described_and_read_only(stdio: Transcript) -> None:
    operations = {op["name"]: op for op in json.loads(_core.catalogue_json())["operations"]}
    for tool in stdio.tools:
        assert tool.description and len(tool.description) > 60, tool.name
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert tool.annotations is not None and tool.annotations.read_only_hint, tool.name
        properties = tool.input_schema.get("properties", {})
        for name, schema in properties.items():
            assert schema.get("description"), f"{tool.name}.{name} has no description"
        op = operations.get(tool.name)
        if op is None:
            continue
        # The catalogue's parameters, but how the server talks to the ERP
        # (GET or POST, sending the token), which stays the server's.
        wanted = [p["name"] for p in op["params"] if p["kind"] not in ("method", "flag")]
        assert list(properties) == wanted, tool.name
        required = [p["name"] for p in op["params"] if p["required"]]
        assert tool.input_schema.get("required", []) == required, tool.name
        for param in op["params"]:
            if param["kind"] == "date":
                assert properties[param["name"]]["format"] == "date"
            if param["kind"] == "dues_kind":
                assert properties[param["name"]]["enum"] == ["receipt", "payment"]


def test_the_descriptions_say_what_the_model_can_rely_on(stdio: Transcript) -> None:
    published = {tool.name: json.dumps(tool.model_dump(mode="json")) for tool in stdio.tools}
    for name, text in published.items():
        # To a finance model a client is a customer: the defaults are the
        # server's (the erpdata client's, which the server is).
        assert "the client's" not in text, name
    tools = {tool.name: tool for tool in stdio.tools}
    accounts = tools["credit_status"].input_schema["properties"]["accounts"]["description"]
    assert "customer" in accounts and "supplier" not in accounts


def test_the_table_tools_describe_their_company_and_year(stdio: Transcript) -> None:
    """describe_table and query read any table: not "of the account table"."""
    for tool in stdio.tools:
        if tool.name in ("describe_table", "query"):
            properties = tool.input_schema["properties"]
            for name in ("company_id", "year_id"):
                assert "tables are read" in properties[name]["description"], tool.name


def test_a_total_in_the_first_column_is_marked() -> None:
    columns = [("total", "decimal(38,2)"), ("customer", "string")]
    rows = [
        {"total": Decimal("1.50"), "customer": "C1"},
        {"total": Decimal("2.25"), "customer": "C2"},
    ]
    text = rows_answer("query", columns, rows, max_rows=10, narrow="").text
    assert text.splitlines()[-1] == "| **total** 3.75 |  |"


def test_long_text_is_cut_in_the_structured_rows_too() -> None:
    columns = [("blob", "string"), ("n", "int")]
    rows = [{"blob": "x" * 200_000, "n": i} for i in range(3)] + [{"blob": "short", "n": 3}]
    answer = rows_answer("query", columns, rows, max_rows=2, narrow="add a LIMIT.")
    kept = answer.structured["rows"]
    assert [len(r["blob"]) for r in kept] == [MAX_TEXT, MAX_TEXT]
    assert all(r["blob"].endswith("…") for r in kept)
    note = answer.structured["note"]
    assert note.startswith("2 of 4 rows left out") and "2 text values longer than" in note
    assert len(json.dumps(answer.structured)) < 3 * MAX_TEXT
    assert "substr(" in answer.text
    one = rows_answer("query", columns, rows[2:], max_rows=10, narrow="")
    assert one.structured["note"].startswith("1 text value longer than 2,000 characters")


def test_ids_are_left_out_only_where_every_row_repeats_the_one_asked_for() -> None:
    asked = {"compid": "1", "yearid": "2025"}
    one = pa.table({"compid": [1, 1], "yearid": ["2025", "2025"], "x": [1, 2]})
    assert repeated_ids(one, asked) == asked
    # Another company's rows, a null, another year, no such column: kept.
    assert repeated_ids(pa.table({"compid": [1, 2]}), asked) == {}
    assert repeated_ids(pa.table({"compid": [1, None]}), asked) == {}
    assert repeated_ids(pa.table({"yearid": [2024, 2024]}), asked) == {}
    assert repeated_ids(pa.table({"x": [1]}), asked) == {}
    assert repeated_ids(one, {"compid": None, "yearid": "2025"}) == {"yearid": "2025"}


def test_decimals_of_many_places_are_text_at_their_scale() -> None:
    # A quantity of scale 8: str() of the Decimal wrote
    # 0E-8 and 1.2E-7, in the rows, the totals and the text table.
    columns = [("qty", "decimal(38,8)")]
    rows = [{"qty": Decimal("0E-8")}, {"qty": Decimal("1.2E-7")}]
    answer = rows_answer("query", columns, rows, max_rows=10, narrow="")
    assert [r["qty"] for r in answer.structured["rows"]] == ["0.00000000", "0.00000012"]
    assert answer.structured["totals"] == {"qty": "0.00000012"}
    assert "E-" not in answer.text and "0.00000012" in answer.text


def test_decimals_of_scale_0_are_text_and_totalled() -> None:
    """Rows hold a decimal of scale 0 as an int (docs/types.md): the aging
    of whole-number balances (an ERP that keeps amounts as INT or
    DECIMAL(14,0)), or of accounts that owe nothing. Its money is still
    decimal text, and totalled: the totals were 0 and the rows JSON
    numbers."""
    dues = pa.table(
        {
            "acid": ["C001", "C002"],
            "due_date": [datetime.date(2025, 1, 1), datetime.date(2025, 4, 20)],
            "balance": pa.array([1500, 250], pa.int64()),
        }
    )
    aged = erpdata.aging(dues, as_of="2025-04-30")
    assert aged.schema[-1] == ("total", "decimal(38,0)")
    answer = rows_answer("aging", aged.schema, aged, max_rows=10, narrow="")
    rows = answer.structured["rows"]
    assert [r["total"] for r in rows] == ["1500", "250"]
    assert (rows[0]["91+"], rows[1]["1-30"], rows[0]["current"]) == ("1500", "250", "0")
    assert answer.structured["totals"] == {
        "current": "0",
        "1-30": "250",
        "31-60": "0",
        "61-90": "0",
        "91+": "1500",
        "undated": "0",
        "total": "1750",
    }
    assert answer.text.splitlines()[-1] == "| **total** | 0 | 250 | 0 | 0 | 1500 | 0 | 1750 |"
    # One record and one value of a function, typed decimal(38,0).
    record = function_answer(
        "f",
        "object",
        [("n", "int"), ("big", "decimal(38,0)")],
        {"n": 4, "big": 2**70},
        max_rows=10,
        narrow="",
    )
    assert record.structured["fields"] == {"n": 4, "big": str(2**70)}
    value = function_answer("f", "value", [("value", "decimal(38,0)")], 7, max_rows=10, narrow="")
    assert value.structured["value"] == "7"


def test_a_new_catalogue_operation_becomes_a_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tools follow the catalogue: an operation added to it (here a
    made-up one) is listed with its typed parameters, no other change."""
    before = catalogue_tools()
    catalogue = json.loads(_core.catalogue_json())
    added = {
        "name": "payment_terms",
        "js_name": "paymentTerms",
        "cli_name": "payment-terms",
        "func": "payTerms",
        "endpoint": "apis/ajax.php",
        "answer": "function",
        "token": "on_request",
        "doc": "The payment terms of customer `acid` (`payTerms`).",
        "params": [
            {
                "name": "acid",
                "js_name": "acid",
                "wire": "acid",
                "kind": "account_id",
                "required": True,
                "doc": "The account id.",
            },
            {
                "name": "on",
                "js_name": "on",
                "wire": "date",
                "kind": "date",
                "required": False,
                "doc": "The day, YYYY-MM-DD.",
            },
        ],
    }
    catalogue["operations"].append(added)
    monkeypatch.setattr(_core, "catalogue_json", lambda: json.dumps(catalogue))
    with erpdata.Client("http://127.0.0.1:9/", project="demo") as client:
        server = build_server(client, Limits())
        tools = {t.name: t for t in anyio.run(server.list_tools)}
    assert list(tools) == [*before, "payment_terms", *FLOWS, *TABLE_TOOLS]
    schema = tools["payment_terms"].input_schema
    assert schema["required"] == ["acid"]
    assert schema["properties"]["on"]["format"] == "date"
    assert "payment terms" in (tools["payment_terms"].description or "")


def test_a_parameter_kind_without_a_schema_stops_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from erpdata.mcp_server._schemas import UnknownKind

    catalogue = json.loads(_core.catalogue_json())
    catalogue["operations"][0]["params"][0]["kind"] = "colour"
    monkeypatch.setattr(_core, "catalogue_json", lambda: json.dumps(catalogue))
    with erpdata.Client("http://127.0.0.1:9/", project="demo") as client:
        with pytest.raises(UnknownKind, match="colour"):
            build_server(client, Limits())


# -- each tool's answer, against the Python API's -----------------------------------


def test_each_catalogue_tool_answers_as_the_python_api(
    stdio: Transcript, erp: erpdata.Client
) -> None:
    operations = json.loads(_core.catalogue_json())["operations"]
    called = 0
    for op in operations:
        if op["name"] == "ajax":
            continue
        arguments = sample_arguments(op)
        call = stdio.call(op["name"], **arguments)
        data = call.data
        answer = getattr(erp, op["name"])(**arguments)
        if op["answer"] == "dues":
            assert data["shape"] == "rows"
            assert data["rows"] == rows_json(answer.rows)[:MAX_ROWS]
        elif op["answer"] == "table":
            assert data["row_count"] == len(answer) > MAX_ROWS
            # Every row's compid and yearid are the company and year asked
            # for: said once, not in every row.
            assert all((row["compid"], row["yearid"]) == (1, 2025) for row in answer)
            assert data["left_out_columns"] == IDS
            assert "compid 1 and yearid 2025 on every row" in call.text
            assert data["rows"] == without_ids(rows_json(answer[:MAX_ROWS]))
            assert data["rows_left_out"] == len(answer) - MAX_ROWS
            assert f"{len(answer) - MAX_ROWS} of {len(answer)} rows left out" in data["note"]
            assert "query" in data["note"]  # how to narrow
            assert data["columns"] == [
                {"name": n, "type": t} for n, t in answer.schema if n not in IDS
            ]
        else:
            assert data["shape"] == answer.shape
            assert data["columns"] == [{"name": n, "type": t} for n, t in answer.schema]
            if answer.shape == "rows":
                assert data["rows"] == rows_json(answer.rows)[:MAX_ROWS]
            elif answer.shape == "object":
                assert data["fields"] == as_json(answer.fields)
            else:
                assert data["value"] == as_json(answer.value)
        called += 1
    assert called == len(catalogue_tools())


def test_aging_answers_as_the_python_api(stdio: Transcript, erp: erpdata.Client) -> None:
    for arguments in (
        {"kind": "payment", "accounts": ["S001"], "as_of": AS_OF},
        {"as_of": AS_OF},
    ):
        data = stdio.call("aging", **arguments).data
        table = erp.aging(**arguments)
        assert data["rows"] == largest_total_first(rows_json(table))
        assert data["columns"] == [{"name": n, "type": t} for n, t in table.schema]
        assert data["rows_left_out"] == 0 and "note" not in data
        # The totals are the exact sums of the money columns.
        for name, kind in table.schema:
            if kind.startswith("decimal"):
                assert data["totals"][name] == str(sum((r[name] for r in table), Decimal(0)))
    found = stdio.call("query", sql=FIND_DELTA).data
    assert found["rows"] == [{"acid": "S001", "name": "Delta Steel Works"}]
    delta = stdio.call("aging", kind="payment", accounts=["S001"], as_of=AS_OF)
    assert delta.data["rows"][0]["acid"] == "S001"
    assert "| acid |" in delta.text and "**total**" in delta.text
    other = stdio.call("aging", kind="RECEIPT", as_of=AS_OF, buckets=[15, 45]).data
    assert [c["name"] for c in other["columns"]][-5:] == [
        "1-15",
        "16-45",
        "46+",
        "undated",
        "total",
    ]


def test_a_capped_function_answer_says_what_can_be_done(few_rows: Transcript) -> None:
    # A function's answer has no paging, and dues_summary takes no
    # argument at all: the note must not send the model for a shorter date
    # range (schedule_accounts lists the same accounts over any range).
    for call in (
        few_rows.call("dues_summary"),
        few_rows.call("schedule_accounts", schedule="Sundry Debtors", **SAMPLE_DATE),
    ):
        data = call.data
        assert data["rows_left_out"] > 0, call.tool
        assert "date range" not in data["note"] and "`query`" in data["note"], data["note"]


def largest_total_first(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: (-Decimal(r["total"]), r["acid"]))


def over_limit_first(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: (not r["over_limit"], -Decimal(r["outstanding"]), r["acid"]))


def test_who_owes_most_and_who_is_over_the_limit_come_first(
    few_rows: Transcript, erp: erpdata.Client
) -> None:
    # "Who owes us most, by age?" over more accounts than an answer shows:
    # the rows shown are the largest totals, not the first account ids.
    aging = few_rows.call("aging", as_of=AS_OF)
    table = erp.aging(as_of=AS_OF)
    assert aging.data["rows"] == largest_total_first(rows_json(table))[:3]
    assert [r["acid"] for r in aging.data["rows"]] == ["C005", "C006", "C011"]
    assert aging.data["row_count"] == len(table) and aging.data["rows_left_out"] == len(table) - 3
    assert "largest total first" in aging.text
    # "Which customers are over their credit limit?": those over it first,
    # the most outstanding first.
    credit = few_rows.call("credit_status", as_of=AS_OF, pay_days=False).data
    expected = over_limit_first(rows_json(erp.credit_status(as_of=AS_OF, pay_days=False)))
    assert all(r["over_limit"] for r in expected[:4]) and credit["rows"] == expected[:3]


def test_credit_status_and_dues_table_answer_as_the_python_api(
    stdio: Transcript, erp: erpdata.Client
) -> None:
    credit = stdio.call("credit_status", as_of=AS_OF).data
    assert credit["rows"] == over_limit_first(rows_json(erp.credit_status(as_of=AS_OF)))
    assert any(row["over_limit"] for row in credit["rows"])
    dues = stdio.call("dues_table", accounts=["C001", "C002"], kind="receipt").data
    assert dues["rows"] == rows_json(erp.dues_table(["C001", "C002"], "receipt"))[:MAX_ROWS]


IDS = {"compid": "1", "yearid": "2025"}
"""The columns that repeat the company and year asked for on every row."""


def without_ids(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k not in IDS} for row in rows]


def test_describe_table_and_a_sql_question(stdio: Transcript, erp: erpdata.Client) -> None:
    invoices = erp.table("sales_invoice")
    described = stdio.call("describe_table", name="sales_invoice").data
    assert described["row_count"] == len(invoices)
    # The copy SQL reads is of one company and year: its compid and yearid
    # are said once, not columns.
    assert described["columns"] == [
        {"name": n, "type": t} for n, t in invoices.schema if n not in IDS
    ]
    assert described["left_out_columns"] == IDS
    assert (described["company_id"], described["year_id"]) == ("1", "2025")
    one = stdio.call("query", sql=FIRST_INVOICE)
    assert one.data["rows"] == without_ids(rows_json(invoices[:1]))
    refreshed = stdio.call("describe_table", name="sales_invoice", refresh=True).data
    assert refreshed["row_count"] == len(invoices)

    top = stdio.call("query", sql=TOP_CUSTOMERS).data
    by_customer: dict[tuple[str, str], list[Decimal]] = {}
    for row in invoices:
        by_customer.setdefault((row["customer"], row["customer_name"]), []).append(row["total"])
    expected = sorted(
        (
            {"customer": c, "customer_name": n, "invoices": len(t), "invoiced": str(sum(t))}
            for (c, n), t in by_customer.items()
        ),
        key=lambda row: -Decimal(str(row["invoiced"])),
    )
    assert top["rows"] == expected
    assert top["totals"]["invoiced"] == str(sum((r["total"] for r in invoices), Decimal(0)))
    assert top["tables"] == ["sales_invoice"]

    # Averages, maxima and minima are decimals, but their sum is no figure:
    # only the sum is totalled.
    averages = stdio.call("query", sql=AVERAGES)
    assert averages.data["totals"] == {"invoiced": top["totals"]["invoiced"]}
    assert averages.text.splitlines()[-1] == f"| **total** |  |  |  | {top['totals']['invoiced']} |"

    capped = stdio.call(
        "query", sql="SELECT invoice_no, total FROM sales_invoice ORDER BY invoice_no"
    ).data
    assert capped["row_count"] == len(invoices)
    assert len(capped["rows"]) == MAX_ROWS
    assert capped["rows_left_out"] == len(invoices) - MAX_ROWS
    assert "LIMIT" in capped["note"] and "WHERE" in capped["note"]
    # Totals over every row of the result, not only those shown.
    assert capped["totals"]["total"] == top["totals"]["invoiced"]


def test_tables_are_fetched_once_until_stale_or_refreshed(secret_sandbox_url: str) -> None:
    key = new_key("mcp-cache")
    now = [0.0]
    with erp_client(prefix(secret_sandbox_url, "pass", key)) as client:
        store = TableStore(
            client, cache_seconds=60, query_seconds=5, max_rows=10, clock=lambda: now[0]
        )
        assert store.describe("account").row_count == 20
        assert store.query("SELECT count(*) AS n FROM account").rows == [{"n": 20}]
        assert count(secret_sandbox_url, key) == 1
        store.query("SELECT count(*) AS n FROM account", refresh=True)
        assert count(secret_sandbox_url, key) == 2
        now[0] = 59.0
        store.describe("account")
        assert count(secret_sandbox_url, key) == 2
        now[0] = 61.0
        store.describe("account")
        assert count(secret_sandbox_url, key) == 3
        # Tool calls run on worker threads: queries at once, each on a
        # cursor of its own, all answered.
        sql = "SELECT kind, count(*) AS n FROM account GROUP BY kind ORDER BY kind"
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(lambda _: store.query(sql).rows, range(8)))
        assert answers == [[{"kind": "customer", "n": 12}, {"kind": "supplier", "n": 8}]] * 8


def test_uses_of_a_table_at_once_wait_for_one_fetch(secret_sandbox_url: str) -> None:
    key = new_key("mcp-one-fetch")
    with erp_client(prefix(secret_sandbox_url, "latency-300", key)) as client:
        store = TableStore(client, cache_seconds=60, query_seconds=5, max_rows=10)
        sql = "SELECT count(*) AS n FROM account"
        # Tool calls at once, as a model asking in parallel makes them.
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(lambda _: store.query(sql).rows, range(4)))
        assert answers == [[{"n": 20}]] * 4
        assert count(secret_sandbox_url, key) == 1
        # A refresh asked for during a fetch fetches again once it ends:
        # that fetch may have read the table before the refresh was asked.
        with ThreadPoolExecutor(2) as pool:
            first = pool.submit(store.describe, "account", refresh=True)
            time.sleep(0.1)
            second = pool.submit(store.describe, "account", refresh=True)
            assert first.result().row_count == second.result().row_count == 20
        assert count(secret_sandbox_url, key) == 3


# -- errors ------------------------------------------------------------------------


def error_of(transcript: Transcript, tool: str, **arguments: Any) -> str:
    call = transcript.call(tool, **arguments)
    assert call.result.is_error, f"{tool}({arguments}) answered {call.text[:200]}"
    assert call.result.structured_content is None
    return call.text


def test_an_id_is_text_or_a_whole_number_and_items_count_from_1(stdio: Transcript) -> None:
    # true went out to the ERP as acid=1.
    assert error_of(stdio, "dues", acid=True, kind="receipt") == (
        "Error executing tool dues: invalid input `acid`: must be a text or a whole number, "
        "got true. Correct the argument and call again."
    )
    # As the core counts the items of a list (item 2 must not be empty).
    assert error_of(stdio, "aging", accounts=["C001", 1.5], as_of=AS_OF) == (
        "Error executing tool aging: invalid input `accounts`: item 2 must be a text or a "
        "whole number, got 1.5. Correct the argument and call again."
    )


def test_a_token_pasted_into_an_argument_is_not_repeated(stdio: Transcript) -> None:
    calls: list[tuple[str, dict[str, Any], str]] = [
        ("aging", {"as_of": SECRET_TOKEN}, "`as_of`"),
        ("aging", {"buckets": [SECRET_TOKEN]}, "`buckets`"),
        ("credit_status", {"accounts": [SECRET_TOKEN], "as_of": AS_OF}, "is not a customer"),
        ("dues", {"acid": "C001", "kind": SECRET_TOKEN}, "`kind`"),
        ("dues", {SECRET_TOKEN: 1}, "is not an argument"),
    ]
    for tool, arguments, named in calls:
        said = error_of(stdio, tool, **arguments)
        assert named in said and "[REDACTED]" in said, said
        assert_clean(said, SECRET_TOKEN)


def test_bad_input_is_named_by_the_tools_own_argument(stdio: Transcript) -> None:
    # The core names what it checks (`table`, a dues table's `acids`); the
    # model is told the argument it sent, which is what it can correct.
    identifier = (
        "must be a plain identifier: ASCII letters, digits and '_', not starting with a digit"
    )
    assert error_of(stdio, "table", name="sales invoice") == (
        f"Error executing tool table: invalid input `name`: {identifier}. "
        "Correct the argument and call again."
    )
    assert error_of(stdio, "describe_table", name="1st_table") == (
        f"Error executing tool describe_table: invalid input `name`: {identifier}. "
        "Correct the argument and call again."
    )
    assert error_of(stdio, "aging", accounts=["C001", " "], as_of=AS_OF) == (
        "Error executing tool aging: invalid input `accounts`: item 2 must not be "
        "only whitespace. Correct the argument and call again."
    )
    assert error_of(stdio, "dues_table", accounts=[" "], kind="receipt") == (
        "Error executing tool dues_table: invalid input `accounts`: item 1 must not be "
        "only whitespace. Correct the argument and call again."
    )


@pytest.fixture(scope="module")
def tokenless(secret_sandbox_url: str, tmp_path_factory: pytest.TempPathFactory) -> Transcript:
    """A server started without the ERP's access token."""
    env = server_env(secret_sandbox_url)
    del env["ERPDATA_ACCESS_TOKEN"]
    copy = tmp_path_factory.mktemp("tokenless") / "stdout"
    calls: list[tuple[str, dict[str, Any]]] = [
        ("query", {"sql": "SELECT count(*) FROM account"}),
        ("dues", {"acid": "C001", "kind": "receipt"}),
    ]
    return stdio_conversation(secret_sandbox_url, calls, copy, env)


def test_a_setting_the_server_lacks_is_not_asked_of_the_model(tokenless: Transcript) -> None:
    # No argument carries the token, and the model must not ask the user
    # for it: the error says the server's setting is missing, and whose
    # it is to fix.
    error = error_of(tokenless, "query", sql="SELECT count(*) FROM account")
    assert error.startswith("Error executing tool query: this server's setting `access_token` ")
    assert "Correct the argument" not in error
    assert "no argument of this tool sets it" in error
    # Calls that need no token are answered.
    assert tokenless.call("dues", acid="C001", kind="receipt").data["row_count"] == 6


def test_a_refused_token_is_not_asked_of_the_model(secret_sandbox_url: str, tmp_path: Path) -> None:
    # The ERP answers "Invalid access token": told only that, a model asked
    # the user for a token. It is told whose setting it is, and not to.
    env = server_env(secret_sandbox_url)
    env["ERPDATA_ACCESS_TOKEN"] = "wrong-fake-token-for-tests"
    calls: list[tuple[str, dict[str, Any]]] = [("table", {"name": "account"})]
    refused = stdio_conversation(secret_sandbox_url, calls, tmp_path / "stdout", env)
    error = error_of(refused, "table", name="account")
    assert error.startswith("Error executing tool table: the ERP refused the request: "), error
    assert "Invalid access token" in error and "never ask for a token" in error, error
    assert "Calling again" not in error and "wrong-fake-token-for-tests" not in error


def test_only_a_refusal_of_access_is_told_as_one() -> None:
    from erpdata import HttpStatusError, ServiceError
    from erpdata.mcp_server._tools import _refused_access

    for message, refused in (
        ("Invalid access token", True),
        ("Please log in", True),
        ("Bad credentials", True),
        ("Unknown table: login_history", False),
        ("Unknown table: tokens", False),
        ("Unknown account: C001", False),
    ):
        assert _refused_access(ServiceError(message, message=message)) is refused, message
    assert _refused_access(HttpStatusError("x", status_code=403))
    assert not _refused_access(HttpStatusError("x", status_code=404))


def test_bad_input_is_a_tool_error_naming_the_field(stdio: Transcript) -> None:
    assert "kind" in error_of(stdio, "dues", acid="C001", kind="sideways")
    assert "acid" in error_of(stdio, "dues", kind="receipt")
    blank = error_of(stdio, "avg_pay_days", acid="   ")
    assert "invalid input `acid`" in blank
    reversed_range = error_of(stdio, "net_profit", start="2025-06-30", end="2025-01-01")
    assert "invalid input" in reversed_range and "end" in reversed_range
    # The field is named once, before the reason.
    assert error_of(stdio, "aging", as_of="2025-02-30") == (
        "Error executing tool aging: invalid input `as_of`: must be a calendar date as "
        'YYYY-MM-DD, got "2025-02-30". Correct the argument and call again.'
    )


def test_arguments_the_schema_refuses_are_refused_as_erpdata_refuses_them(
    stdio: Transcript,
) -> None:
    # What a pattern describes is the core's check, in the core's words.
    assert error_of(stdio, "aging", as_of="31/12/2025") == (
        "Error executing tool aging: invalid input `as_of`: must be a calendar date as "
        'YYYY-MM-DD, got "31/12/2025". Correct the argument and call again.'
    )
    # A misspelt argument is refused, not dropped (the answer would be today's).
    assert error_of(stdio, "aging", asof="2025-12-31") == (
        "Error executing tool aging: invalid input `asof`: is not an argument of this tool; "
        "it takes kind, accounts, as_of, buckets, company_id, year_id. "
        "Correct the argument and call again."
    )
    assert error_of(stdio, "dues_table", accounts="C001", kind="receipt") == (
        "Error executing tool dues_table: invalid input `accounts`: must be a list, "
        'e.g. ["C001"], got "C001". Correct the argument and call again.'
    )
    # Every problem, each named once (a union's members do not each say it).
    assert error_of(stdio, "credit_status", accounts=[["C001"]], pay_days="maybe") == (
        "Error executing tool credit_status: invalid input `accounts`: item 1 must be a "
        'text or a whole number, got a list; `pay_days`: must be true or false, got "maybe". '
        "Correct the argument and call again."
    )
    both = error_of(stdio, "net_profit", start="2025-1-1")
    assert "`end`: is required" in both and "pydantic" not in both
    tools = {tool.name: tool for tool in stdio.tools}
    for tool in tools.values():
        assert tool.input_schema.get("additionalProperties") is False, tool.name
    assert tools["aging"].input_schema["properties"]["as_of"]["anyOf"][0]["pattern"]


def test_a_failing_service_is_a_tool_error(stdio: Transcript, failing: Transcript) -> None:
    error = error_of(failing, "dues", acid="C001", kind="receipt")
    assert "the ERP refused the request" in error
    missing = error_of(stdio, "describe_table", name="no_such_table")
    assert "no_such_table" in missing
    # Neither passes if called again: the model is told so.
    for refused in (error, missing):
        assert refused.endswith("Calling again with the same arguments will fail the same way.")


def test_a_slow_service_is_waited_for_aloud(slow: Transcript, stdio: Transcript) -> None:
    # A client that asked for progress hears, every 5 s, how long the ERP
    # has been waited for (a client may keep waiting on each; a person
    # sees why nothing has come yet); then the answer comes.
    assert slow.call("dues", acid="C001", kind="receipt").data["row_count"] == 6
    assert len(slow.progress) == 1, slow.progress
    tool, waited, message = slow.progress[0]
    assert tool == "dues" and 5 <= waited < 7
    assert message == "waiting for the ERP: 5 s"
    # Answers within 5 s send none.
    assert stdio.progress == []


def test_a_busy_service_says_when_trying_again_helps(busy: Transcript) -> None:
    # The service asked for a wait longer than the client's: the model is
    # told that trying again helps, and after how long (the core's
    # retryable and retry_after), to tell the user or call again later.
    error = error_of(busy, "dues", acid="C001", kind="receipt")
    assert "the ERP answered HTTP 503" in error
    assert error.endswith("Calling again can work after 120 s, the wait the ERP asked for.")
    # And it does: the next call is answered.
    assert busy.call("dues", acid="C002", kind="receipt").data["row_count"] == 1


def test_what_php_printed_before_an_answer_is_in_the_answer(
    stdio: Transcript, noticing: Transcript
) -> None:
    # The service answered, but warned: the model is told, to tell the user;
    # also when the answer is SQL over the copy of a table it printed them
    # for, each named by its table.
    notice = "Notice: Undefined index: x in /var/www/html/apis/dataapi.php on line 12"
    for call in noticing.calls:
        data = call.data
        assert data["notice_count"] == 1, call.tool
        named = f"sales_invoice: {notice}" if call.tool == "query" else notice
        assert data["notices"] == [named], call.tool
        assert "The service printed 1 notice before its answer" in call.text
        assert "Undefined index: x" in call.text
    assert all("notices" not in call.data for call in stdio.calls if not call.result.is_error)


def test_notices_are_capped_and_cut() -> None:
    answer = rows_answer("t", [("a", "int")], [{"a": 1}], max_rows=10, narrow="")
    many = noted(answer, ["x" * 600] + [f"n{i}" for i in range(9)])
    assert many.structured["notice_count"] == 10
    assert len(many.structured["notices"]) == 5
    assert many.structured["notices"][0] == "x" * 499 + "…"
    assert "… and 5 more" in many.text
    assert noted(answer, []) is answer


def test_sql_that_is_refused_or_wrong_is_a_tool_error(stdio: Transcript) -> None:
    deleted = error_of(stdio, "query", sql="DELETE FROM account")
    assert "SQL error" in deleted and "only a SELECT" in deleted and "DELETE" in deleted
    assert "one SELECT statement at a time" in error_of(stdio, "query", sql="SELECT 1; SELECT 2")
    files = error_of(stdio, "query", sql="SELECT * FROM read_csv('/etc/passwd')")
    assert "disabled by configuration" in files
    wrong = error_of(stdio, "query", sql="SELECT nonsense FROM account")
    assert "nonsense" in wrong and "Binder Error" in wrong
    slow = error_of(
        stdio, "query", sql="SELECT count(*) FROM range(100000000) a, range(100000000) b"
    )
    assert "longer than 1 s" in slow


def test_columns_of_one_name_are_refused_not_shown_as_one(stdio: Transcript) -> None:
    # Read by name, the rows showed the second date twice (and a second
    # decimal column of one name crashed the tool).
    for column in ("date", "total"):
        said = error_of(stdio, "query", sql=SAME_NAMES.replace("date", column))
        assert f"the result has 2 columns named '{column}'" in said, said
        assert "with AS" in said


def test_long_lists_are_cut_and_said_to_be() -> None:
    # array_agg over a table is one row holding every value: made into
    # Python objects whole it took a minute and a gigabyte.
    columns = [("l", "list<item: int64>")]
    rows: list[dict[str, Any]] = [
        {"l": list(range(1_000))},
        {"l": [{"t": "x" * 5_000, "n": [[1] * 300]}]},
    ]
    answer = rows_answer("query", columns, rows, max_rows=10, narrow="")
    first, second = answer.structured["rows"]
    assert first["l"] == list(range(100))
    assert len(second["l"][0]["t"]) == MAX_TEXT and len(second["l"][0]["n"][0]) == 100
    note = answer.structured["note"]
    assert "1 text value longer than 2,000" in note
    assert "2 lists longer than 100 items cut to their first 100" in note
    assert "list_slice(column, 101, 200)" in note
    nested = [{"l": [["y" * 1_500] * 100] * 100}]  # every list and text within bounds
    cut = rows_answer("query", columns, nested, max_rows=10, narrow="").structured
    assert len(cut["rows"][0]["l"]) == MAX_TEXT and cut["rows"][0]["l"].endswith("…")


def test_a_list_column_of_a_query_is_cut_in_arrow_first(stdio: Transcript) -> None:
    data = stdio.call(
        "query",
        sql="SELECT array_agg(i) AS l, [[i] for i in range(200)] AS m FROM range(150) t(i)",
    ).data
    (row,) = data["rows"]
    assert row["l"] == list(range(100)) and len(row["m"]) == 100
    assert "2 lists longer than 100 items" in data["note"]


def test_totals_are_exact_at_the_columns_scale(stdio: Transcript) -> None:
    assert stdio.call("query", sql=TINY).data["totals"] == {"amount": "0.00000001"}
    empty = stdio.call("query", sql="SELECT total FROM sales_invoice WHERE false").data
    assert empty["totals"] == {"total": "0.00"}
    # Beyond the 28 digits Python's default context keeps.
    huge = stdio.call("query", sql=HUGE).data
    assert huge["totals"] == {"amount": "19999999999999999999999999999.98"}
    columns = [("amount", "decimal(38,2)")]
    rows = [{"amount": Decimal("9999999999999999999999999999.99")}] * 2
    text = rows_answer("t", columns, rows, max_rows=10, narrow="").structured["totals"]
    assert text == {"amount": "19999999999999999999999999999.98"}
    assert rows_answer("t", columns, [], max_rows=10, narrow="").structured["totals"] == {
        "amount": "0.00"
    }


# -- the token ----------------------------------------------------------------------


def test_the_token_is_in_nothing_the_client_received_nor_in_the_logs(
    stdio: Transcript, failing: Transcript
) -> None:
    for transcript in (stdio, failing):
        assert transcript.received and transcript.stderr
        # The copy of stdout is what the client read: each message a line.
        assert len(transcript.stdout.splitlines()) == len(transcript.received)
        # -v: the server logged its requests and tool calls; none carries it.
        assert "HTTP Request: " in transcript.stderr
        assert_clean(transcript.stdout, SECRET_TOKEN)
        assert_clean("\n".join(transcript.received), SECRET_TOKEN)
        assert_clean(transcript.stderr, SECRET_TOKEN)
    assert "tool dues failed" in failing.stderr
    assert "HTTP Request: POST" in stdio.stderr  # the table fetches, token in the body


def test_a_token_the_erp_echoes_in_its_answer_is_not_handed_to_the_model(
    raw_server: Any, tmp_path: Path
) -> None:
    # The core redacts what it says itself, not the values of an answer:
    # an ERP that echoes the token in a row (or a note DuckDB then quotes
    # in an error) handed it to the model.
    body = json.dumps(
        {"status": "success", "data": [{"acid": "C001", "note": f"echo {SECRET_TOKEN}"}]}
    ).encode()
    server = raw_server(
        lambda send: send(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
    )
    calls: list[tuple[str, dict[str, Any]]] = [
        ("dues_summary", {}),
        ("query", {"sql": "SELECT note FROM account"}),
        ("query", {"sql": "SELECT CAST(note AS INTEGER) FROM account"}),
    ]
    transcript = stdio_conversation(server.url, calls, tmp_path / "stdout")
    assert server.requests >= 2
    received = "\n".join(transcript.received)
    assert received.count("echo [REDACTED]") >= 4, received[-3000:]
    assert "SQL error: " in received, received[-3000:]
    assert_clean(received, SECRET_TOKEN)
    assert_clean(transcript.stdout, SECRET_TOKEN)
    assert_clean(transcript.stderr, SECRET_TOKEN)


# -- streamable HTTP ------------------------------------------------------------------


@dataclass
class HttpServer:
    url: str
    process: subprocess.Popen[bytes]
    stderr: list[bytes]


@pytest.fixture(scope="module")
def http_server(
    secret_sandbox_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpServer]:
    token_file = tmp_path_factory.mktemp("mcp") / "mcp-token"
    token_file.write_text(MCP_TOKEN + "\n", encoding="utf-8")
    process = subprocess.Popen(
        [
            sys.executable,
            *SERVER_ARGS,
            "--http",
            "--port",
            "0",
            "--mcp-token-file",
            str(token_file),
        ],
        env={**os.environ, **server_env(secret_sandbox_url)},
        stdin=subprocess.DEVNULL,
        # Everything it writes, stdout and stderr, in one stream.
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=ROOT,
    )
    assert process.stdout is not None
    errors = process.stdout
    stderr: list[bytes] = []
    ready = threading.Event()

    def drain() -> None:
        for line in errors:
            stderr.append(line)
            if b"serving http://" in line:
                ready.set()

    draining = threading.Thread(target=drain, daemon=True)
    draining.start()
    try:
        if not ready.wait(30):
            pytest.fail(f"erpdata mcp --http did not start: {b''.join(stderr)[-2000:]!r}")
        line = next(line for line in stderr if b"serving http://" in line).decode()
        yield HttpServer(line.split("serving ")[1].strip(), process, stderr)
    finally:
        process.terminate()
        process.wait(timeout=10)
        # The pipe ends with the process; closed here, not by the collector.
        draining.join(timeout=10)
        errors.close()


def http_conversation(
    url: str, token: str, calls: list[tuple[str, dict[str, Any]]], scheme: str = "Bearer"
) -> Transcript:
    transcript = Transcript()

    async def main() -> None:
        client = create_mcp_http_client(headers={"Authorization": f"{scheme} {token}"})
        with anyio.fail_after(60):
            async with client, streamable_http_client(url, http_client=client) as streams:
                await _converse(*streams, transcript, calls)

    anyio.run(main)
    return transcript


def test_over_http_with_the_bearer_token(
    http_server: HttpServer, stdio: Transcript, erp: erpdata.Client
) -> None:
    arguments: dict[str, Any] = {"kind": "payment", "accounts": ["S001"], "as_of": AS_OF}
    http = http_conversation(http_server.url, MCP_TOKEN, [("aging", arguments)])
    assert [t.name for t in http.tools] == [t.name for t in stdio.tools]
    assert http.call("aging", **arguments).data["rows"] == rows_json(erp.aging(**arguments))
    assert_clean("\n".join(http.received), SECRET_TOKEN)


@pytest.mark.parametrize("scheme", ["bearer", "BEARER"])
def test_the_bearer_scheme_is_taken_in_any_case(http_server: HttpServer, scheme: str) -> None:
    # An authentication scheme's name is case-insensitive (RFC 9110, 11.1):
    # a client configured with "bearer <token>" is let in; the token is not.
    arguments = {"acid": "C001", "kind": "receipt"}
    http = http_conversation(http_server.url, MCP_TOKEN, [("dues", arguments)], scheme)
    assert http.call("dues", **arguments).data["row_count"] == 6
    with pytest.raises(Exception) as refused:  # noqa: B017 - a group, checked below
        http_conversation(http_server.url, MCP_TOKEN.upper(), [], scheme)
    assert [type(e).__name__ for e in leaves(refused.value)] == ["MCPError"]


@pytest.mark.parametrize("header", [None, "Bearer wrong-token", f"Basic {MCP_TOKEN}", MCP_TOKEN])
def test_over_http_without_the_bearer_token_is_refused(
    http_server: HttpServer, header: str | None
) -> None:
    headers = {"Accept": "application/json, text/event-stream"}
    if header is not None:
        headers["Authorization"] = header
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    }
    response = httpx.post(http_server.url, json=initialize, headers=headers, timeout=10)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert "Authorization: Bearer" in response.json()["error_description"]
    assert_clean(response.text, SECRET_TOKEN, MCP_TOKEN)


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions an exception group holds, however nested."""
    inner: list[BaseException] | None = getattr(error, "exceptions", None)
    if inner is None:
        return [error]
    return [leaf for one in inner for leaf in leaves(one)]


def test_the_sdk_client_with_a_wrong_token_gets_no_tools(http_server: HttpServer) -> None:
    with pytest.raises(Exception) as refused:  # noqa: B017 - a group, checked below
        http_conversation(http_server.url, "wrong-token", [])
    # The SDK's client reports the 401 as an error response to initialize.
    assert [type(e).__name__ for e in leaves(refused.value)] == ["MCPError"]


def test_the_http_server_logs_no_token(http_server: HttpServer) -> None:
    # After the HTTP tests above (the file runs in order): every byte the
    # server wrote so far, stdout and stderr.
    written = b"".join(http_server.stderr).decode("utf-8", "replace")
    assert "serving http://127.0.0.1:" in written
    assert_clean(written, SECRET_TOKEN, MCP_TOKEN)


# -- the command line ---------------------------------------------------------------


def test_another_address_needs_a_bearer_token(
    tmp_path: Path, clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, value in server_env("http://127.0.0.1:9/").items():
        clean_env.setenv(name, value)
    assert cli.main(["mcp", "--http", "--host", "0.0.0.0"]) == 2
    error = capsys.readouterr().err
    assert "--mcp-token-file" in error and "not loopback" in error
    # The token pasted after --host is not repeated.
    assert cli.main(["mcp", "--http", "--host", SECRET_TOKEN]) == 2
    error = capsys.readouterr().err
    assert "not loopback" in error
    assert_clean(error, SECRET_TOKEN)
    same = tmp_path / "same"
    same.write_text(SECRET_TOKEN, encoding="utf-8")
    assert cli.main(["mcp", "--http", "--mcp-token-file", str(same)]) == 2
    error = capsys.readouterr().err
    assert "holds the ERP's access token" in error
    assert_clean(error, SECRET_TOKEN)
    assert cli.main(["mcp", "--mcp-token-file", str(same)]) == 2
    assert "--mcp-token-file needs --http" in capsys.readouterr().err
    (tmp_path / "empty").write_text("\n", encoding="utf-8")
    assert cli.main(["mcp", "--http", "--mcp-token-file", str(tmp_path / "empty")]) == 2
    assert "--mcp-token-file is empty" in capsys.readouterr().err
    # Read as --access-token-file is (one helper): not text is said so.
    (tmp_path / "binary").write_bytes(b"\xff\xfe-not-text")
    assert cli.main(["mcp", "--http", "--mcp-token-file", str(tmp_path / "binary")]) == 2
    assert "cannot read --mcp-token-file: it is not UTF-8 text" in capsys.readouterr().err


def test_list_tools_prints_the_tools_without_asking_the_erp(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Nothing listens at this address: listing the tools sends nothing.
    for name, value in server_env("http://127.0.0.1:9/").items():
        clean_env.setenv(name, value)
    assert cli.main(["mcp", "--list-tools"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == catalogue_tools() + FLOWS + TABLE_TOOLS
    assert "aging: Receivables or payables by age" in lines


def test_the_serving_frames_hold_no_token(clean_env: pytest.MonkeyPatch) -> None:
    # While the server runs, a traceback printed with its locals (Sentry's
    # default, rich's) shows every frame below it: cmd_mcp kept the ERP's
    # token as a local, and run() as an argument, to compare the MCP
    # clients' token with it. Every frame is looked at when the server is
    # built, from the command line's own call (the caller's own frames,
    # this test's, are the caller's).
    for name, value in server_env("http://127.0.0.1:9/").items():
        clean_env.setenv(name, value)
    seen: list[tuple[str, str]] = []
    package = Path(erpdata.__file__).parent

    def look(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_name == "build_server":
            f = frame
            while f is not None:
                if Path(f.f_code.co_filename).is_relative_to(package):
                    seen.extend((f.f_code.co_name, repr(v)) for v in f.f_locals.values())
                f = f.f_back

    sys.setprofile(look)
    try:
        assert cli.main(["mcp", "--list-tools"]) == 0
    finally:
        sys.setprofile(None)
    names = {name for name, _ in seen}
    assert {"build_server", "run", "cmd_mcp", "main"} <= names, names
    assert [name for name, value in seen if SECRET_TOKEN in value] == []


def test_help_works_and_a_missing_extra_is_named(tmp_path: Path) -> None:
    # Without the SDK installed (hidden from the import system here).
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import sys\nsys.modules['mcp'] = None\nfrom erpdata.cli import main\n"
        "sys.exit(main(['mcp', '--help']) if sys.argv[1:] else main(['mcp']))\n",
        encoding="utf-8",
    )
    env = {**os.environ, **server_env("http://127.0.0.1:9/")}
    shown = subprocess.run(
        [sys.executable, str(probe), "help"], env=env, capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0 and "--mcp-token-file" in shown.stdout
    done = subprocess.run([sys.executable, str(probe)], env=env, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "erpdata: error: erpdata mcp needs mcp: pip install 'erpdata[mcp]'"
    ), done.stderr
