"""The JSON schemas of the tools: each catalogue parameter kind as a
typed, described input field, and the output schemas of the answers."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BeforeValidator, Field, StrictInt, StrictStr

__all__ = [
    "ANSWER_SCHEMA",
    "DESCRIBE_SCHEMA",
    "IDENTIFIER",
    "ISO_DATE",
    "SERVER_SIDE_KINDS",
    "UnknownKind",
    "field_of_kind",
    "lower_text",
]

IDENTIFIER = r"^[A-Za-z_][A-Za-z0-9_]*$"
"""A plain identifier, as the core checks function and table names."""

ISO_DATE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"

SERVER_SIDE_KINDS = frozenset({"method", "flag"})
"""Parameter kinds that say how the server talks to the ERP (GET or
POST; whether the access token goes with an ajax.php call), not what to
ask: they stay the server's configuration. A model choosing GET would put
the token in a URL."""


IdValue = Union[StrictStr, StrictInt]
"""An id as the model may send it: a text or a whole number. Strict:
pydantic's lax ``int`` takes ``true`` as 1 and ``1.0`` as 1, which went
out to the ERP as ids."""


class UnknownKind(Exception):
    """A catalogue parameter kind this module has no schema for: a new
    kind needs its schema here before its operation can become a tool."""


def lower_text(value: Any) -> Any:
    """``RECEIPT`` and ``receipt`` alike (the core takes any case)."""
    return value.lower() if isinstance(value, str) else value


DuesKindField = Annotated[Literal["receipt", "payment"], BeforeValidator(lower_text)]


def field_of_kind(kind: str, doc: str, required: bool) -> tuple[Any, Any]:
    """The pydantic type and field of a catalogue parameter of ``kind``:
    what the model must send, with the catalogue's doc line."""
    default: Any = ... if required else None
    if kind == "account_id":
        hint = " An id such as C001 (customers) or S001 (suppliers)."
        spec: tuple[Any, Any] = (
            IdValue,
            Field(default, description=doc + hint, examples=["C001"]),
        )
    elif kind == "id":
        spec = (Optional[IdValue], Field(default, description=doc))
    elif kind == "date":
        spec = (
            str,
            Field(
                default,
                description=doc,
                pattern=ISO_DATE,
                json_schema_extra={"format": "date"},
                examples=["2025-03-31"],
            ),
        )
    elif kind == "text":
        spec = (str, Field(default, description=doc, min_length=1, max_length=200))
    elif kind == "name":
        spec = (str, Field(default, description=doc, pattern=IDENTIFIER, max_length=64))
    elif kind == "table":
        spec = (
            str,
            Field(
                default,
                description=doc,
                pattern=IDENTIFIER,
                max_length=64,
                examples=["sales_invoice"],
            ),
        )
    elif kind == "dues_kind":
        spec = (
            DuesKindField,
            Field(
                default,
                description="receipt: what a customer owes (receivables); payment: what is "
                "owed to a supplier (payables).",
            ),
        )
    elif kind == "pairs":
        spec = (dict[str, IdValue], Field(default, description=doc))
    else:
        raise UnknownKind(f"no tool schema for parameter kind {kind!r}")
    if not required:
        # Optional[Optional[X]] is Optional[X]: an id's stays as it is.
        spec = (Optional[spec[0]], spec[1])
    return spec


_COLUMNS = {
    "type": "array",
    "description": "Each column (or field) and its type: int, decimal(p,s) (exact; values "
    "are its text), date (ISO text), timestamp (ISO text), bool, string, json.",
    "items": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "type": {"type": "string"}},
        "required": ["name", "type"],
    },
}

LEFT_OUT_COLUMNS: dict[str, Any] = {
    "left_out_columns": {
        "type": "object",
        "additionalProperties": {"type": "string"},
        "description": "Columns of the ERP's rows left out because every row holds the same "
        "id, the company (compid) or year (yearid) asked for: column to that id.",
    },
}

NOTICES: dict[str, Any] = {
    "notices": {
        "type": "array",
        "items": {"type": "string"},
        "description": "PHP notices or warnings the service printed before its answer "
        "(the first few; for SQL, before each table read, as `table: notice`): the answer "
        "may be incomplete or use defaults.",
    },
    "notice_count": {"type": "integer", "description": "All the notices printed."},
}

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "shape": {
            "type": "string",
            "enum": ["rows", "object", "value"],
            "description": "rows: a table in `rows`; object: one record in `fields`; "
            "value: one value in `value`.",
        },
        "columns": _COLUMNS,
        "rows": {
            "type": "array",
            "items": {"type": "object"},
            "description": "The first rows (at most the server's row cap), column to value.",
        },
        "row_count": {"type": "integer", "description": "Rows in the whole answer."},
        "rows_left_out": {
            "type": "integer",
            "description": "Rows of the answer not in `rows` (past the cap).",
        },
        "totals": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "The exact sum of each money (decimal) column over all rows, as text.",
        },
        "note": {"type": "string", "description": "What was left out and how to narrow."},
        "fields": {"type": "object"},
        "value": {"description": "The one value (decimals and dates as text)."},
        **LEFT_OUT_COLUMNS,
        **NOTICES,
    },
    "required": ["shape", "columns"],
}
"""The structured content of every tool that answers with data."""

DESCRIBE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "table": {"type": "string"},
        "company_id": {"type": ["string", "null"]},
        "year_id": {"type": ["string", "null"]},
        "row_count": {"type": "integer"},
        "columns": _COLUMNS,
        "fetched_at": {
            "type": "string",
            "description": "When the server fetched the table from the ERP (UTC, ISO).",
        },
        **LEFT_OUT_COLUMNS,
        **NOTICES,
    },
    "required": ["table", "row_count", "columns", "fetched_at"],
}
"""The structured content of ``describe_table``."""
