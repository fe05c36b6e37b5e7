"""Column typing options of the calls: ``schema_overrides`` (declared
column types, as names or pyarrow types) and ``infer_strings``.

Only Python's side is here: a pyarrow type becomes the core's name for
it. The names themselves are parsed and checked by the core
(``erpdata._core.Typing``), before anything is sent.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, Optional, Union

from ._checks import check_flag, invalid
from ._core import Config, Typing

__all__ = ["SchemaOverrides", "TypeSpec", "typing_options", "arrow_type_name"]

TypeSpec = Union[str, Any]
"""A declared column type: a name (``"string"``, ``"int"``, ``"decimal"``,
``"decimal(14,2)"``, ``"date"``, ``"timestamp"``, ``"bool"``, ``"json"``)
or a ``pyarrow.DataType``."""

SchemaOverrides = Optional[Mapping[str, TypeSpec]]
"""Column name to declared type, for the columns whose type you know."""


def arrow_type_name(data_type: Any) -> str | None:
    """The core's name for a pyarrow type, or ``None`` if erpdata has no
    column type for it: strings ``"string"``; integers of any width, signed
    or not, ``"int"``; ``decimal128(p, s)`` (and ``decimal256``)
    ``"decimal(p,s)"``; ``date32``/``date64`` ``"date"``; a timestamp of
    any unit without a time zone ``"timestamp"``; ``bool`` ``"bool"``."""
    pa = sys.modules.get("pyarrow")
    if pa is None or not isinstance(data_type, pa.DataType):
        return None
    types = pa.types
    if types.is_string(data_type) or types.is_large_string(data_type):
        return "string"
    if getattr(types, "is_string_view", lambda _: False)(data_type):
        return "string"
    if types.is_integer(data_type):
        return "int"
    if types.is_decimal(data_type):
        return f"decimal({data_type.precision},{data_type.scale})"
    if types.is_date(data_type):
        return "date"
    if types.is_timestamp(data_type) and data_type.tz is None:
        return "timestamp"
    if types.is_boolean(data_type):
        return "bool"
    return None


def _is_arrow_type(value: object) -> bool:
    pa = sys.modules.get("pyarrow")
    return pa is not None and isinstance(value, pa.DataType)


def typing_options(
    schema_overrides: SchemaOverrides,
    infer_strings: bool,
    *,
    one_schema: bool = False,
    config: Config | None = None,
) -> Typing:
    """The core's typing options for one call; raises
    ``InvalidInputError`` naming ``schema_overrides`` (or
    ``schema_overrides["column"]``) or ``infer_strings``, redacted by
    ``config`` (the client's: a type or column name may be the token)."""
    check_flag("infer_strings", infer_strings)
    pairs: list[tuple[Any, Any]] | None = None
    if schema_overrides is not None:
        if not isinstance(schema_overrides, Mapping):
            invalid(
                "schema_overrides",
                "must be a mapping of column names to type names or pyarrow types, "
                f"got {type(schema_overrides).__name__}",
            )
        pairs = []
        # Column names and type names are checked by the core, in order.
        for name, spec in schema_overrides.items():
            if _is_arrow_type(spec):
                # An unsupported pyarrow type goes to the core as a name it
                # refuses, so the error names the column as for any other.
                spec = (
                    arrow_type_name(spec)
                    or f"{spec} (a pyarrow type without an erpdata column type)"
                )
            pairs.append((name, spec))
    return Typing(pairs, infer_strings=infer_strings, one_schema=one_schema, config=config)
