"""A tool's arguments as the model sent them, checked, and refused in the
words of erpdata's own errors.

Each tool publishes its argument model's JSON schema, patterns included
(a date as YYYY-MM-DD, a table name as an identifier), for the model to
write to. The arguments are checked against the same model without its
patterns: what a pattern describes is the core's check (``erpdata``
refuses a date or a table name with its own message, naming the field),
and only the core's. The rest (a wrong type, a missing or unknown
argument, a list too long) is pydantic's; its errors, which name pydantic
and link to its site, are said the way erpdata's are: ``invalid input
`field`: reason. Correct the argument and call again.``
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from pydantic import ConfigDict, ValidationError, create_model
from pydantic.fields import FieldInfo

__all__ = ["CheckedArguments", "checked", "invalid_arguments", "lenient", "published"]

_INVALID = "__erpdata_invalid_arguments__"
"""The one key of what `CheckedArguments.validate_arguments` returns for
arguments it refuses: the SDK turns an exception raised while it checks
arguments into a bare "Error executing tool" (a crash), so the refusal is
handed on to the tool, which raises it as a tool error (`checked`)."""


class _Refusing(ArgModelBase):
    """An argument model that refuses an argument it does not have (a
    misspelt ``asof`` would otherwise be dropped, and the answer be
    today's)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")


def lenient(model: type[ArgModelBase]) -> type[ArgModelBase]:
    """``model`` without its fields' patterns, refusing unknown arguments."""
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        kept = FieldInfo.merge_field_infos(info)
        kept.metadata = [m for m in info.metadata if getattr(m, "pattern", None) is None]
        fields[name] = (info.annotation, kept)
    checked_model: type[ArgModelBase] = create_model(
        f"{model.__name__}_checked", __base__=_Refusing, **fields
    )
    return checked_model


def published(model: type[ArgModelBase]) -> dict[str, Any]:
    """The JSON schema the model is shown: every field, its pattern and
    description, and no argument besides."""
    schema = model.model_json_schema(by_alias=True)
    schema["additionalProperties"] = False
    return schema


class CheckedArguments(FuncMetadata):
    """The SDK's argument checking, a refusal handed to the tool as
    ``{_INVALID: text}`` (see `checked`) instead of pydantic's error."""

    def validate_arguments(self, arguments_to_validate: dict[str, Any]) -> dict[str, Any]:
        try:
            return super().validate_arguments(arguments_to_validate)
        except ValidationError as exc:
            names = list(self.arg_model.model_fields)
            return {_INVALID: invalid_arguments(exc, names)}


def checked(
    run: Callable[..., Awaitable[Any]], redact: Callable[[str], str]
) -> Callable[..., Awaitable[Any]]:
    """``run``, or the tool error of the arguments `CheckedArguments` refused;
    every tool error with the token redacted (``redact``). A refusal
    repeats what was sent (``got "..."``, ``"..." is not a customer``),
    which may be the token pasted into an argument; the SDK logs the
    error's text too."""

    async def tool(**args: Any) -> Any:
        refused = args.pop(_INVALID, None)
        try:
            if refused is not None:
                raise ToolError(refused)
            return await run(**args)
        except ToolError as exc:
            raise ToolError(redact(str(exc))) from None

    return tool


def invalid_arguments(exc: ValidationError, names: list[str]) -> str:
    """Each problem of ``exc`` as erpdata says one: the field, the item of
    it (``accounts``: ``item 2 must be ...``), what it must be, what it got."""
    problems: dict[tuple[str, str], str] = {}
    for error in exc.errors(include_url=False):
        where, item, union = _where(error["loc"])
        if (where, item) in problems:
            continue  # a union's members each refuse the value: said once
        problems[where, item] = item + _reason(error, union, names)
    said = "; ".join(f"`{where}`: {reason}" for (where, _), reason in problems.items())
    return f"invalid input {said}. Correct the argument and call again."


def _where(loc: tuple[int | str, ...]) -> tuple[str, str, bool]:
    """The argument a location names, the item of it (``item 2 ``, counted
    from 1 as the core counts them, or ""), and whether the location ends
    in a union member's tag (``('acid', 'str')``), which is not a place."""
    where = ""
    items: list[str] = []
    union = False
    for part in loc:
        if isinstance(part, int):
            items.append(f"item {part + 1}")
        elif not where:
            where = part
        else:
            union = True
            break
    return where, "".join(f"{item} " for item in items), union


def _reason(error: Any, union: bool, names: list[str]) -> str:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    got = _got(error.get("input"))
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return f"is not an argument of this tool; it takes {', '.join(names)}"
    if union:
        return f"must be a text or a whole number, got {got}"
    if kind in ("string_type", "string_sub_type"):
        return f"must be a text, got {got}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"must be a whole number, got {got}"
    if kind in ("bool_type", "bool_parsing"):
        return f"must be true or false, got {got}"
    if kind == "list_type":
        return f'must be a list, e.g. ["C001"], got {got}'
    if kind == "dict_type":
        return f"must be an object of names to values, got {got}"
    if kind == "literal_error":
        return f"must be {ctx.get('expected', 'one of the values listed')}, got {got}"
    if kind == "too_short":
        least = ctx.get("min_length")
        return f"must have at least {least} item{'' if least == 1 else 's'}"
    if kind == "too_long":
        return f"must have at most {ctx.get('max_length')} items"
    if kind == "string_too_short":
        return "must not be empty"
    if kind == "string_too_long":
        return f"is longer than {ctx.get('max_length')} characters"
    message = str(error.get("msg", "is not valid"))
    if message.startswith("Input should be"):
        message = "must be" + message[len("Input should be") :]
    return f"{message[:1].lower()}{message[1:]}, got {got}"


def _got(value: Any) -> str:
    """What was sent, short: a text or number as JSON, anything else by kind."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, (str, int, float)):
        text = json.dumps(value, ensure_ascii=False)
        return text if len(text) <= 60 else text[:57] + '..."'
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"
