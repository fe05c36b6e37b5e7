"""Bad input, thrown at every parameter of every public constructor and
method of ``Client`` and ``AsyncClient`` (and ``Timeout``): arbitrary
Unicode, huge strings, NUL and other control characters, lone
surrogates, and values of the wrong type.

Each value either is rejected with an ``InvalidInputError`` naming the
parameter, and then the sandbox saw no request at all (``/_faults/total``
unchanged), or is valid under the documented rules and goes on the wire
exactly as the rules say (text as given, an ``int`` id as its decimal
digits, a dues kind in capitals). What is valid is decided here from the
documented rules, independently of the code under test.
"""

from __future__ import annotations

import asyncio
import datetime
import re
import unicodedata
import urllib.parse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Callable, cast

import httpx
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import erpdata
import fault_api
from conftest import SANDBOX_TOKEN
from erpdata import AsyncClient, Client, DuesKind, Timeout, _core

MAX_LEN = 1024
"""Longest parameter value (characters)."""
MAX_BATCH_ROWS = _core.MAX_BATCH_ROWS
MAX_CONCURRENCY = _core.MAX_CONCURRENCY
MAX_RETRIES = _core.MAX_RETRIES
MAX_TIMEOUT = _core.MAX_TIMEOUT

PROPERTY = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# -- values ----------------------------------------------------------------------------


def joined(*parts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(*parts).map("".join)


control = st.characters(categories=["Cc"])
surrogate = st.characters(categories=["Cs"])
whitespace = st.text(st.sampled_from(" \t\r\n\u00a0\u2003\u2028\u3000"), max_size=6)
with_control = joined(st.text(max_size=20), control, st.text(max_size=20))
with_surrogate = joined(st.text(max_size=20), surrogate, st.text(max_size=20))
huge = st.builds(
    lambda unit, n: unit * (n // len(unit) + 1),
    st.text(min_size=1, max_size=3),
    st.integers(MAX_LEN, 200_000),
)
any_text = st.one_of(st.text(), with_control, with_surrogate, whitespace, huge)


class Opaque:
    """An object of no type erpdata knows."""

    def __repr__(self) -> str:
        return "Opaque()"


wrong_type = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(max_magnitude=1e6),
    st.lists(st.one_of(st.integers(), st.text(max_size=3)), max_size=3),
    st.tuples(st.text(max_size=3)),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.binary(max_size=20),
    st.builds(bytearray, st.binary(max_size=5)),
    st.builds(Opaque),
)
ints = st.one_of(
    st.integers(),
    st.integers(min_value=10 ** (MAX_LEN - 2), max_value=10 ** (MAX_LEN + 2)),
    st.just(10**5000),
)
concurrency_values = st.one_of(ints, st.integers(-2, 300), wrong_type)
numbers = st.one_of(st.integers(), st.floats(allow_nan=True, allow_infinity=True))
text_or_wrong = st.one_of(any_text, wrong_type)
id_values = st.one_of(any_text, ints, wrong_type)


# -- the documented rules ----------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """``field`` set: rejected, naming it. Else valid; ``wire`` is what
    the request carries (``None``: nothing to compare)."""

    field: str | None = None
    wire: Any = None
    loose: bool = False
    """The field named need only start with ``field`` (a column name the
    rules here do not quote exactly as the core does)."""


def bad(field: str) -> Verdict:
    return Verdict(field=field)


def good(wire: Any = None) -> Verdict:
    return Verdict(wire=wire)


def text_ok(value: object) -> bool:
    """A parameter value: a str of valid Unicode, not empty nor only
    whitespace, at most 1024 characters, no control characters."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return (
        bool(value.strip())
        and len(value) <= MAX_LEN
        and not any(unicodedata.category(c) == "Cc" for c in value)
    )


def text(field: str) -> Callable[[Any], Verdict]:
    return lambda v: good(v) if text_ok(v) else bad(field)


INVISIBLE = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]"
)
"""Characters that print as nothing, which an id, a setting or the token
may not hold."""


def id_ok(value: object) -> bool:
    """An id: a parameter value without a character that prints as nothing."""
    return text_ok(value) and INVISIBLE.search(cast(str, value)) is None


def an_id_text(field: str) -> Callable[[Any], Verdict]:
    return lambda v: good(v) if id_ok(v) else bad(field)


def quoted(v: str) -> bool:
    """Wrapped in one quote mark, as a settings file writes a value."""
    return len(v) >= 2 and v[0] in "\"'" and v[-1] == v[0]


def commented(v: str) -> bool:
    """Whitespace then ``#``, as a settings file's comment after a value."""
    return any(c.isspace() and v[i:].lstrip().startswith("#") for i, c in enumerate(v))


def setting(field: str) -> Callable[[Any], Verdict]:
    """A text naming something of the ERP (project, company, year): no
    whitespace at either end either, nor wrapped in quotes, nor a comment
    after it."""

    def verdict(v: str) -> Verdict:
        ok = id_ok(v) and v == v.strip() and not quoted(v) and not commented(v)
        return good(v) if ok else bad(field)

    return verdict


def optional_setting(field: str, when_none: Verdict) -> Callable[[Any], Verdict]:
    return lambda v: when_none if v is None else setting(field)(v)


def an_id(
    field: str, when_none: Verdict | None = None, *, is_setting: bool = False
) -> Callable[[Any], Verdict]:
    """A str as given; an int as its decimal digits; never a bool. A
    company or year (``is_setting``) has no whitespace at either end."""
    check = setting(field) if is_setting else an_id_text(field)

    def verdict(v: Any) -> Verdict:
        if v is None and when_none is not None:
            return when_none
        if isinstance(v, int) and not isinstance(v, bool):
            if v.bit_length() > 12_000:  # far beyond 1024 digits
                return bad(field)
            return check(str(v))
        return check(v)

    return verdict


def token(v: Any) -> Verdict:
    if v is None:
        return bad("access_token")  # required by the table fetch
    ok = id_ok(v) and not any(c.isspace() for c in v) and not quoted(v)
    return good(v) if ok else bad("access_token")


TABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def table_name_of(field: str) -> Callable[[Any], Verdict]:
    """A table's name, given as the argument ``field``."""

    def verdict(v: Any) -> Verdict:
        ok = isinstance(v, str) and len(v) <= 64 and TABLE_NAME.fullmatch(v) is not None
        return good(v) if ok else bad(field)

    return verdict


table_name = table_name_of("table")
# The account table of aging and credit_status is named as the argument
# it is given by (it was "table", the table call's own parameter).
accounts_table_name = table_name_of("accounts_table")


def one_of_words(
    field: str, words: tuple[str, ...], when_none: str | None = None
) -> Callable[[Any], Verdict]:
    """One of ``words`` in any ASCII case."""

    def verdict(v: Any) -> Verdict:
        if v is None and when_none is not None:
            return good(when_none)
        if isinstance(v, DuesKind):
            return good(v.value)
        if isinstance(v, str) and v.isascii() and v.upper() in words:
            return good(v.upper())
        return bad(field)

    return verdict


def int_in(field: str, low: int, high: int) -> Callable[[Any], Verdict]:
    def verdict(v: Any) -> Verdict:
        ok = isinstance(v, int) and not isinstance(v, bool) and low <= v <= high
        return good() if ok else bad(field)

    return verdict


def as_seconds(v: Any) -> float | None:
    """``v`` as a float if it is a number of seconds at all (an ``int`` or
    a ``float``, not a ``bool``, within a float's range)."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return None
    try:
        return float(v)
    except OverflowError:
        return None


def wait_seconds(v: Any) -> Verdict:
    """A number of seconds from 0 to the core's MAX_TIMEOUT (``None`` is
    no number: the default is given by leaving the argument out)."""
    secs = as_seconds(v)
    ok = secs is not None and 0 <= secs <= MAX_TIMEOUT
    return good() if ok else bad("max_retry_after")


def seconds(v: Any) -> Verdict:
    """A number of seconds above 0 and at most the core's MAX_TIMEOUT."""
    if v is None or isinstance(v, Timeout):
        return good()
    secs = as_seconds(v)
    return good() if secs is not None and 0 < secs <= MAX_TIMEOUT else bad("timeout")


def flag(field: str) -> Callable[[Any], Verdict]:
    return lambda v: good() if isinstance(v, bool) else bad(field)


# Column typing (docs/types.md, DeclaredType in the core): type names,
# matched after trimming Unicode white space and in any ASCII case.
TYPE_NAMES = {
    "string",
    "str",
    "utf8",
    "text",
    "int",
    "int64",
    "integer",
    "bigint",
    "decimal",
    "numeric",
    "date",
    "date32",
    "timestamp",
    "datetime",
    "timestamp[us]",
    "bool",
    "boolean",
    "json",
}
# Rust's char::is_whitespace (Unicode White_Space), which str.strip()
# exceeds by \x1c-\x1f.
RUST_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000"
)
# The pyarrow types a declared type can be given as, and others.
ARROW_TYPES = {
    pa.string(): True,
    pa.large_string(): True,
    pa.int8(): True,
    pa.int32(): True,
    pa.uint16(): True,
    pa.int64(): True,
    pa.decimal128(14, 2): True,
    pa.decimal128(38, 0): True,
    pa.date32(): True,
    pa.date64(): True,
    pa.timestamp("s"): True,
    pa.timestamp("us"): True,
    pa.bool_(): True,
    pa.float64(): False,
    pa.binary(): False,
    pa.null(): False,
    pa.timestamp("us", tz="UTC"): False,
    pa.list_(pa.int64()): False,
    pa.decimal128(5, -2): False,
    pa.time64("us"): False,
}


def ascii_lower(text: str) -> str:
    return text.translate({c: c + 32 for c in range(ord("A"), ord("Z") + 1)})


def rust_u8(text: str) -> int | None:
    """``str::parse::<u8>``: ASCII digits after an optional ``+``."""
    digits = text[1:] if text.startswith("+") else text
    if not digits or not all("0" <= c <= "9" for c in digits):
        return None
    value = int(digits)
    return value if value <= 255 else None


def type_name_ok(text: str) -> bool:
    """A declared type's name: one of TYPE_NAMES, or decimal(P) /
    decimal(P,S) (also numeric) with P 1-38 and S at most P."""
    name = ascii_lower(text.strip(RUST_SPACE))
    if name in TYPE_NAMES:
        return True
    for prefix in ("decimal", "numeric"):
        if name.startswith(prefix):
            inner = name[len(prefix) :].lstrip(RUST_SPACE)
            if not (inner.startswith("(") and inner.endswith(")") and len(inner) >= 2):
                return False
            parts = [p.strip(RUST_SPACE) for p in inner[1:-1].split(",")]
            if len(parts) > 2:
                return False
            numbers = [rust_u8(p) for p in parts]
            if any(n is None for n in numbers):
                return False
            precision, scale = numbers[0], numbers[1] if len(numbers) == 2 else 0
            assert precision is not None and scale is not None
            return 1 <= precision <= 38 and scale <= precision
    return False


def rust_debug(text: str) -> str | None:
    """A column name as the core quotes it (Rust's Debug of a str), or
    ``None`` for a name with characters whose quoting depends on Unicode
    tables (non-ASCII ones other than those the strategy below draws)."""
    escapes = {
        "\t": "\\t",
        "\n": "\\n",
        "\r": "\\r",
        "\x00": "\\0",
        '"': '\\"',
        "\\": "\\\\",
        "\u3000": "\\u{3000}",
    }
    out = []
    for c in text:
        if c in escapes:
            out.append(escapes[c])
        elif " " <= c <= "~" or c == "é":
            out.append(c)
        elif c < " " or c == "\x7f":
            out.append(f"\\u{{{ord(c):x}}}")
        else:
            return None
    return '"' + "".join(out) + '"'


def bad_column(name: str) -> Verdict:
    """Refused, naming ``schema_overrides["name"]``."""
    quoted = rust_debug(name)
    if quoted is None:
        return Verdict(field="schema_overrides[", loose=True)
    return bad(f"schema_overrides[{quoted}]")


def schema_overrides(v: Any) -> Verdict:
    """None, or a mapping of column names to type names or pyarrow types.
    First every name and value must be a str of valid Unicode (or a
    pyarrow type), in order; then, in order, a name must not be blank
    (-> ``schema_overrides``) nor hold a control character, and each type
    must be one the core knows (-> ``schema_overrides["name"]``)."""
    field = "schema_overrides"
    if v is None:
        return good()
    if not isinstance(v, dict):
        return bad(field)
    items = list(v.items())
    for name, spec in items:
        if not isinstance(name, str) or has_surrogate(name):
            return bad(field)
        if isinstance(spec, pa.DataType):
            continue
        if not isinstance(spec, str) or has_surrogate(spec):
            return bad_column(name)
    for name, spec in items:
        if not name.strip(RUST_SPACE):
            return bad(field)
        if any(unicodedata.category(c) == "Cc" for c in name):
            return bad_column(name)
        ok = ARROW_TYPES[spec] if isinstance(spec, pa.DataType) else type_name_ok(spec)
        if not ok:
            return bad_column(name)
    return good()


def has_surrogate(text: str) -> bool:
    return any(unicodedata.category(c) == "Cs" for c in text)


column_names = st.text(st.sampled_from(list('ab_Z9 "\\é\t\n\x00\u3000') + ["\ud800"]), max_size=5)
type_texts = st.one_of(
    st.sampled_from(sorted(TYPE_NAMES)),
    st.sampled_from(
        [
            "money",
            "float",
            "int32",
            "",
            " ",
            "decimal(39,2)",
            "decimal(2,3)",
            "decimal(0,0)",
            "decimal(14,2",
            "decimal(a,b)",
            "decimal(1,1,1)",
            "decimal(+5,2)",
            "DECIMAL( 38 , 0 )",
            "numeric(5)",
            "Timestamp[US]",
            " int\u3000",
            "\x1cint",
            "decimal(5,)",
            "decimal()",
            "decimal (7, 3)",
            "ıNT",
        ]
    ),
    st.builds(lambda p, s: f"decimal({p},{s})", st.integers(-1, 300), st.integers(-1, 40)),
    st.text(max_size=8),
    with_surrogate,
)
overrides_values = st.one_of(
    st.none(),
    # Mostly well-formed: known names, valid and invalid types.
    st.dictionaries(
        st.sampled_from(["amount", "acid", "credit limit", "n", "é"]),
        st.one_of(
            st.sampled_from(sorted(TYPE_NAMES)), type_texts, st.sampled_from(list(ARROW_TYPES))
        ),
        max_size=3,
    ),
    st.dictionaries(
        column_names,
        st.one_of(type_texts, st.sampled_from(list(ARROW_TYPES)), wrong_type),
        max_size=3,
    ),
    wrong_type,
    any_text,
)


def acids(v: Any) -> Verdict:
    if isinstance(v, (str, bytes, bytearray)) or not isinstance(
        v, (list, tuple, set, frozenset, dict)
    ):
        return bad("acids")
    wire = set()
    for acid in v:
        verdict = an_id("acid")(acid)
        if verdict.field:
            return bad("acids")  # the list is named, and the item in the message
        wire.add(verdict.wire)
    return good(wire)


def accounts_verdict(v: Any) -> Verdict:
    """``None``: every account of the account table; else an iterable (not
    a single string) of ids, each checked as an ``acid`` is."""
    if v is None:
        return good()
    if isinstance(v, (str, bytes, bytearray)) or not isinstance(v, Iterable):
        return bad("accounts")
    for acid in v:
        if an_id("acid")(acid).field:
            return bad("accounts")  # the list is named, and the item in the message
    return good()


DATE_TEXT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def as_of_verdict(v: Any) -> Verdict:
    """``None`` (today), a ``datetime.date`` (not a ``datetime``), or its
    ``YYYY-MM-DD`` text naming a real calendar day."""
    if v is None or (isinstance(v, datetime.date) and not isinstance(v, datetime.datetime)):
        return good()
    if isinstance(v, str) and DATE_TEXT.fullmatch(v):
        try:
            datetime.date.fromisoformat(v)
        except ValueError:
            return bad("as_of")
        return good()
    return bad("as_of")


def buckets_verdict(v: Any) -> Verdict:
    """An iterable (not a string) of at least one whole number of days,
    positive, strictly increasing, each at most 2**32 - 1."""
    if isinstance(v, (str, bytes, bytearray)) or not isinstance(v, Iterable):
        return bad("buckets")
    bounds = list(v)
    if not bounds or any(
        isinstance(b, bool) or not isinstance(b, int) or not 1 <= b < 2**32 for b in bounds
    ):
        return bad("buckets")
    return good() if all(a < b for a, b in zip(bounds, bounds[1:])) else bad("buckets")


dates = st.one_of(
    st.dates(),
    st.datetimes(),
    st.dates().map(str),
    st.sampled_from(["2025-12-31", "2024-02-29", "2025-02-29", "2025-13-01", "31/12/2025"]),
    st.sampled_from(
        ["2025-1-5", "2025-12-31 ", "２０２５-12-31", "0000-00-00", "2025-12-31T00:00"]
    ),
    any_text,
    wrong_type,
)
bucket_values = st.one_of(
    st.lists(st.integers(-2, 120), max_size=4),
    st.lists(st.integers(), max_size=2),
    st.lists(st.sampled_from([15, 30, True, 1.5, "30", 2**32, 2**32 - 1]), max_size=3),
    st.sampled_from([(30, 60, 90), [7], range(10, 40, 10), {5: "a", 9: "b"}]),
    any_text,
    wrong_type,
)
# A customer or an invalid id: a valid id of no customer is refused by
# credit_status only once the account table says so.
customer_lists = st.one_of(
    st.lists(st.sampled_from(["C001", "C002", "", " ", "C\x00", True, 1.5, 10**2000]), max_size=3),
    any_text,
    st.sampled_from([None, 7, 1.5, Opaque(), b"C001"]),
)


# -- the parameters ----------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """A parameter of a constructor (``target="init"``, then ``then`` is
    called) or of a method, its values, its rule, and the request field
    that carries it (``None``: not on the wire)."""

    target: str
    name: str
    values: st.SearchStrategy[Any]
    verdict: Callable[[Any], Verdict]
    wire: str | None = None
    then: str = "dues"

    @property
    def id(self) -> str:
        return f"{self.target}-{self.name}"


PARAMS = [
    Param(
        "init",
        "base_url",
        st.one_of(
            wrong_type,
            whitespace,
            with_surrogate,
            st.text().filter(lambda s: ":" not in s),  # no scheme: relative
            st.builds(lambda s: "ftp://" + s, st.text(max_size=10)),
            st.builds(lambda s: "http://" + s, st.text("[]@:/ ", max_size=5)),
            # A URL parser would drop or percent-encode these: refused instead.
            st.builds(lambda c: f"http://127.0.0.1:1/a{c}b/", control),
        ),
        lambda v: bad("base_url"),
    ),
    Param(
        "init",
        "project",
        text_or_wrong,
        optional_setting("project", bad("project")),
        "project",
        then="table",
    ),
    Param(
        "init",
        "project_folder",
        text_or_wrong,
        optional_setting("project_folder", good("demo")),  # the project's name
        "sys_projectfolder",
    ),
    Param("init", "access_token", text_or_wrong, token, "accesstoken", then="table"),
    Param(
        "init",
        "company_id",
        id_values,
        an_id("company_id", bad("company_id"), is_setting=True),
        "compid",
        then="table",
    ),
    Param(
        "init",
        "year_id",
        id_values,
        an_id("year_id", bad("year_id"), is_setting=True),
        "yearid",
        then="table",
    ),
    Param("init", "timeout", st.one_of(numbers, wrong_type, st.builds(Timeout)), seconds),
    Param(
        "init", "max_retries", st.one_of(ints, wrong_type), int_in("max_retries", 0, MAX_RETRIES)
    ),
    Param(
        "init",
        "max_retry_after",
        st.one_of(numbers, ints, st.floats(-1.0, MAX_TIMEOUT + 1.0), wrong_type),
        wait_seconds,
    ),
    Param(
        "init",
        "allow_insecure_http",
        st.one_of(wrong_type, st.integers()),
        flag("allow_insecure_http"),
    ),
    Param(
        "init",
        "http_client",
        st.one_of(wrong_type, st.sampled_from(["own", "other"])),
        lambda v: good() if v in (None, "own") else bad("http_client"),
    ),
    Param("dues", "acid", id_values, an_id("acid"), "acid"),
    Param(
        "dues",
        "kind",
        st.one_of(
            any_text,
            st.sampled_from(list(DuesKind)),
            st.sampled_from(["receipt", "Payment"]),
            wrong_type,
        ),
        one_of_words("kind", ("RECEIPT", "PAYMENT")),
        "type",
    ),
    Param("dues", "timeout", st.one_of(numbers, wrong_type), seconds),
    Param("receivables", "acid", id_values, an_id("acid"), "acid"),
    Param("receivables", "timeout", st.one_of(numbers, wrong_type), seconds),
    Param("payables", "acid", id_values, an_id("acid"), "acid"),
    Param("payables", "timeout", st.one_of(numbers, wrong_type), seconds),
    Param(
        "dues_many",
        "acids",
        st.one_of(
            st.lists(id_values, max_size=4),
            st.lists(st.sampled_from(["C001", "C002", 7]), max_size=3),
            any_text,
            ints,
            wrong_type,
        ),
        acids,
        "acid",
    ),
    Param(
        "dues_many",
        "kind",
        st.one_of(any_text, st.sampled_from(list(DuesKind)), wrong_type),
        one_of_words("kind", ("RECEIPT", "PAYMENT")),
        "type",
    ),
    *(
        Param(method, "concurrency", concurrency_values, int_in("concurrency", 1, MAX_CONCURRENCY))
        for method in ("dues_many", "aging", "credit_status")
    ),
    Param(
        "aging",
        "accounts",
        st.one_of(st.none(), st.lists(id_values, max_size=3), any_text, ints, wrong_type),
        accounts_verdict,
    ),
    Param(
        "aging",
        "kind",
        st.one_of(any_text, st.sampled_from(list(DuesKind)), wrong_type),
        one_of_words("kind", ("RECEIPT", "PAYMENT")),
    ),
    Param("aging", "as_of", dates, as_of_verdict),
    Param("aging", "buckets", bucket_values, buckets_verdict),
    Param("aging_all", "accounts_table", text_or_wrong, accounts_table_name),
    Param("credit_status", "accounts", customer_lists, accounts_verdict),
    Param("credit_status", "as_of", dates, as_of_verdict),
    Param("credit_status", "pay_days", st.one_of(wrong_type, st.integers()), flag("pay_days")),
    Param("credit_status", "accounts_table", text_or_wrong, accounts_table_name),
    Param("dues_many", "timeout", st.one_of(numbers, wrong_type), seconds),
    *(
        p
        for method in ("table", "stream_table")
        for p in (
            Param(
                method,
                "name",
                st.one_of(
                    any_text, st.sampled_from(["account", "sales_invoice", "x_1"]), wrong_type
                ),
                table_name,
                "table",
            ),
            Param(
                method,
                "company_id",
                id_values,
                an_id("company_id", good("1"), is_setting=True),
                "compid",
            ),
            Param(
                method,
                "year_id",
                id_values,
                an_id("year_id", good("2025"), is_setting=True),
                "yearid",
            ),
            Param(
                method,
                "method",
                st.one_of(any_text, st.sampled_from(["get", "Post"]), wrong_type),
                one_of_words("method", ("POST", "GET"), "POST"),
                "method",
            ),
            Param(method, "timeout", st.one_of(numbers, wrong_type), seconds),
        )
    ),
    Param(
        "table",
        "progress",
        st.one_of(wrong_type, st.just(lambda b, r: None)),
        lambda v: good() if v is None or isinstance(v, bool) or callable(v) else bad("progress"),
    ),
    Param(
        "stream_table",
        "batch_rows",
        st.one_of(ints, wrong_type),
        # None: the default for the batch format.
        lambda v: good() if v is None else int_in("batch_rows", 1, MAX_BATCH_ROWS)(v),
    ),
    *(
        p
        for method in ("table", "stream_table", "dues", "receivables", "payables", "dues_many")
        for p in (
            Param(method, "schema_overrides", overrides_values, schema_overrides),
            Param(
                method, "infer_strings", st.one_of(wrong_type, st.integers()), flag("infer_strings")
            ),
        )
    ),
    Param(
        "stream_table",
        "batch_format",
        st.one_of(any_text, st.sampled_from(["rows", "arrow", "ROWS"]), wrong_type),
        lambda v: good() if v in ("rows", "arrow") and isinstance(v, str) else bad("batch_format"),
    ),
]

DEFAULT_ARGS: dict[str, dict[str, Any]] = {
    "dues": {"acid": "C001", "kind": "receipt"},
    "receivables": {"acid": "C001"},
    "payables": {"acid": "S001"},
    "dues_many": {"acids": ["C001", "C002"], "kind": "receipt", "concurrency": 2},
    "table": {"name": "account"},
    "stream_table": {"name": "account"},
    "aging": {"kind": "receipt", "accounts": ["C001", "C002"], "as_of": "2025-12-31"},
    "credit_status": {"accounts": ["C002"], "pay_days": False, "as_of": "2025-12-31"},
    # The account table is read only when no account is given.
    "aging_all": {"kind": "receipt", "as_of": "2025-12-31"},
}
METHOD_OF = {"aging_all": "aging"}


# -- calling either client ---------------------------------------------------------------


class Runner:
    """Makes a client of one kind and calls it to the end (a stream is
    read through), over one shared httpx client."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.loop = asyncio.new_event_loop() if kind == "async" else None
        self.own: Any = httpx.AsyncClient() if kind == "async" else httpx.Client()
        self.other: Any = httpx.Client() if kind == "async" else httpx.AsyncClient()

    def client(self, base: Any, **kw: Any) -> Any:
        if kw.get("http_client") == "own":
            kw["http_client"] = self.own
        elif kw.get("http_client") == "other":
            kw["http_client"] = self.other
        cls = AsyncClient if self.kind == "async" else Client
        return cls(base, **kw)

    def call(self, client: Any, method: str, /, **kw: Any) -> Any:
        if self.loop is None:
            result = getattr(client, method)(**kw)
            return list(result) if method == "stream_table" else result

        async def run() -> Any:
            if method == "stream_table":
                return [batch async for batch in client.stream_table(**kw)]
            return await getattr(client, method)(**kw)

        return self.loop.run_until_complete(run())

    def close_client(self, client: Any) -> None:
        """Closes a client made by :meth:`client` (its own httpx client,
        when it made one)."""
        if self.loop is None:
            client.close()
        else:
            self.loop.run_until_complete(client.aclose())

    def close(self) -> None:
        if self.loop is not None:
            self.loop.run_until_complete(self.own.aclose())
            self.other.close()
            self.loop.close()
        else:
            self.own.close()
            asyncio.run(self.other.aclose())


@pytest.fixture(scope="module", params=["sync", "async"])
def runner(request: pytest.FixtureRequest) -> Iterator[Runner]:
    made = Runner(request.param)
    yield made
    made.close()


def carried(sent: list[dict[str, Any]], field: str) -> list[str]:
    """The values of ``field`` in the recorded requests (query or form)."""
    found = []
    for req in sent:
        if field == "method":
            found.append(req["method"])
            continue
        pairs = urllib.parse.parse_qsl(req.get("query") or "", keep_blank_values=True)
        if req["method"] == "POST":
            pairs += urllib.parse.parse_qsl(req.get("body") or "", keep_blank_values=True)
        found += [v for k, v in pairs if k == field]
    return found


@pytest.mark.parametrize("param", [pytest.param(p, id=p.id) for p in PARAMS])
def test_bad_input_is_refused_before_sending(
    param: Param,
    runner: Runner,
    sandbox_url: str,
    clean_env: pytest.MonkeyPatch,
) -> None:
    # Requests the sandbox has seen, read after each example: an invalid
    # value must leave the count unchanged.
    seen = [fault_api.total(sandbox_url)]

    @PROPERTY
    @given(value=param.values)
    def check(value: Any) -> None:
        key = fault_api.new_key("input", runner.kind, param.id)
        base: Any = fault_api.prefix(sandbox_url, "pass", key)
        settings_: dict[str, Any] = dict(
            project="demo",
            access_token=SANDBOX_TOKEN,
            company_id=1,
            year_id=2025,
            timeout=5.0,
            max_retries=0,
            http_client="own",
        )
        method = METHOD_OF.get(param.target, param.target)
        args = dict(DEFAULT_ARGS.get(param.target, {}))
        if param.target == "init":
            method, args = param.then, dict(DEFAULT_ARGS[param.then])
            if param.name == "base_url":
                base = value
            else:
                settings_[param.name] = value
        else:
            args[param.name] = value
        verdict = param.verdict(value)
        outcome: erpdata.ErpError | None = None
        try:
            client = runner.client(base, **settings_)
            try:
                runner.call(client, method, **args)
            finally:
                runner.close_client(client)
        except erpdata.ErpError as err:
            outcome = err
        now = fault_api.total(sandbox_url)
        sent_any, seen[0] = now != seen[0], now
        if isinstance(outcome, erpdata.InvalidInputError):
            assert verdict.field is not None, f"{value!r} is valid, yet: {outcome}"
            named = outcome.field == verdict.field or (
                verdict.loose and outcome.field.startswith(verdict.field)
            )
            assert named, f"{value!r}: {outcome.field!r} named, not {verdict.field!r}"
            assert outcome.field in str(outcome)
            assert not sent_any, "a request was sent"
            return
        # Else valid input, sent; the sandbox may have refused it (an
        # unknown account, ...), and dues_many stops at its first failure.
        refused = outcome
        assert verdict.field is None, (
            f"{value!r} was accepted; expected an error naming {verdict.field!r}"
        )
        if param.wire is not None:
            sent = fault_api.log(sandbox_url, key)
            wire = carried(sent, param.wire)
            if isinstance(verdict.wire, set):
                if refused is None:
                    assert set(wire) == verdict.wire, f"{value!r} went out as {wire!r}"
                else:
                    assert wire and set(wire) <= verdict.wire, f"{value!r} went out as {wire!r}"
            else:
                assert sent, "nothing was sent"
                assert set(wire) == {verdict.wire}, f"{value!r} went out as {wire!r}"

    check()


@pytest.fixture(scope="module")
def small_table(sandbox_url: str) -> erpdata.Table:
    with Client(
        sandbox_url, project="demo", access_token=SANDBOX_TOKEN, company_id=1, year_id=2025
    ) as c:
        return c.table("account")


@PROPERTY
@given(value=st.one_of(any_text, wrong_type, st.sampled_from(["pyarrow", "numpy", "NUMPY"])))
def test_to_pandas_backend(small_table: erpdata.Table, value: Any) -> None:
    try:
        frame = small_table.to_pandas(dtype_backend=value)
    except erpdata.InvalidInputError as err:
        assert value not in ("pyarrow", "numpy") or not isinstance(value, str)
        assert err.field == "dtype_backend"
        return
    assert value in ("pyarrow", "numpy") and len(frame) == len(small_table)


@PROPERTY
@given(
    name=st.sampled_from(["total", "connect", "read"]),
    value=st.one_of(numbers, wrong_type, any_text),
)
def test_timeout_limits(name: str, value: Any) -> None:
    verdict = seconds(value) if value is not None else bad("timeout")
    try:
        made = Timeout(**{name: value})
    except erpdata.InvalidInputError as err:
        assert verdict.field == "timeout" and err.field == "timeout"
        assert name in err.reason
        return
    assert verdict.field is None, f"{name}={value!r} was accepted"
    assert getattr(made, name) == float(value)


def test_dues_many_checks_the_kind_without_accounts(sandbox_url: str) -> None:
    before = fault_api.total(sandbox_url)
    with Client(sandbox_url, project="demo") as c, pytest.raises(erpdata.InvalidInputError) as info:
        c.dues_many([], "nope")
    assert info.value.field == "kind"

    async def main() -> None:
        async with AsyncClient(sandbox_url, project="demo") as c:
            with pytest.raises(erpdata.InvalidInputError) as info:
                await c.dues_many([], "nope")
            assert info.value.field == "kind"
            assert await c.dues_many([], "receipt") == {}

    asyncio.run(main())
    assert fault_api.total(sandbox_url) == before
