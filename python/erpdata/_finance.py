"""Aging and credit status: how old what is owed is, and which customers
are over their limit. Computed by the core over typed columns, in exact
decimals, the same in every language."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any, Union

from . import _core
from ._checks import invalid, iso_date, shown
from ._models import AjaxAnswer, Dues, Table

DEFAULT_BUCKETS = (30, 60, 90)
"""Upper bounds of the past-due buckets, in days: current, 1-30, 31-60,
61-90, 91+."""

PayDays = Union[AjaxAnswer, Decimal, int, str, None]
"""An account's average payment days: ``avg_pay_days``'s answer, or the
number itself."""


def today() -> datetime.date:
    """The local calendar day: ``as_of`` when none is given."""
    return datetime.date.today()


def _arrow(value: Any, field: str) -> Any:
    """What the core reads rows from: a :class:`Dues`'s table, else
    ``value`` itself (anything with ``__arrow_c_stream__``)."""
    if isinstance(value, Dues):
        return value.to_table()
    if isinstance(value, Mapping) and all(isinstance(d, Dues) for d in value.values()):
        invalid(field, "got a dict of Dues; join them first with client.dues_table(...)")
    return value


def _as_of(as_of: datetime.date | str | None) -> str:
    return iso_date("as_of", today() if as_of is None else as_of)


def aging(
    dues: Any,
    *,
    as_of: datetime.date | str | None = None,
    buckets: Iterable[int] = DEFAULT_BUCKETS,
    due_date_column: str | None = None,
    balance_column: str | None = None,
) -> Table:
    """The aging of ``dues`` as of ``as_of`` (default: today): one row per
    account of the table (``acid`` when the table has it; a :class:`Dues`
    gives its account's one row, named), in first-seen
    order, its outstanding balance split into ``current`` (not yet past
    due), one bucket per bound (``1-30``, ``31-60``, ``61-90``), the rest
    (``91+``) and ``undated``, and the ``total``, as exact ``Decimal``s (zeros
    for an account that owes nothing).

    ``dues`` is a :class:`Table` (``client.dues_table(...)``), a
    :class:`Dues`, or any Arrow table or DataFrame. Its balances may be
    decimals, integers or floats: a float converts through its shortest
    ``repr`` (``1500.1`` is ``Decimal("1500.1")``), and NaN, infinities and
    floats of more than 38 digits are refused. The due date is looked for
    in ``due_date``, ``duedate``, ``date``, ``doc_date`` and the balance in
    ``balance``, ``outstanding``, ``amount``, unless named; a missing or
    untyped column is an :class:`InvalidInputError` naming it, its type and
    what the table has. The result converts with ``to_pandas()``,
    ``to_polars()``, ``to_arrow()``."""
    result: Table = _core.aging(
        _arrow(dues, "dues"),
        _as_of(as_of),
        buckets,
        due_date_column,
        balance_column,
        # A Dues is one account's: its row is named for it.
        dues.acid if isinstance(dues, Dues) else None,
    )
    return result


def _pay_days_text(acid: str, value: PayDays) -> str | None:
    if value is None:
        return None
    if isinstance(value, AjaxAnswer):
        days: str | None = _core.pay_days(acid, value.raw)
        return days
    if isinstance(value, bool) or not isinstance(value, (int, Decimal, str)):
        invalid(
            "pay_days",
            f"{acid!r}: must be an avg_pay_days answer, a Decimal, an int or decimal text, "
            f"got {shown(value)}",
        )
    # The core refuses a text that is no number, naming the account.
    return str(value)


def credit_status(
    accounts: Any,
    dues: Any,
    *,
    pay_days: Mapping[str, PayDays] | None = None,
    as_of: datetime.date | str | None = None,
    acids: Iterable[str] | None = None,
) -> Table:
    """The credit status of the customers of ``accounts`` (the account
    table: ``acid``, ``credit_limit``, and ``name``, ``kind`` when present)
    as of ``as_of`` (default: today), from ``dues`` (their receivables as
    one table with ``acid``, as ``client.dues_table`` gives): ``acid``,
    ``name``, ``credit_limit``, ``outstanding``, ``available``,
    ``over_limit``, ``overdue``, ``oldest_overdue_due_date``,
    ``oldest_overdue_days``, ``avg_pay_days`` (from ``pay_days``: each
    account's ``avg_pay_days`` answer or number). ``acids`` keeps only
    those customers (each must be one), in that order. A customer that
    owes nothing has its row: ``outstanding`` and ``overdue`` zero, no
    oldest overdue item. Numbers convert as :func:`aging`'s balances do."""
    pairs = [
        (str(acid), _pay_days_text(str(acid), value)) for acid, value in (pay_days or {}).items()
    ]
    result: Table = _core.credit_status(
        _arrow(accounts, "accounts"),
        _arrow(dues, "dues"),
        pairs,
        _as_of(as_of),
        acids,
    )
    return result


def account_ids(accounts: Any, kind: str) -> list[str]:
    """The acids of the customers (``kind`` receipt) or suppliers
    (payment) of an account table, in order."""
    ids: list[str] = _core.account_ids(_arrow(accounts, "accounts"), str(kind))
    return ids
