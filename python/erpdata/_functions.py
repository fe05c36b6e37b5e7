# Generated from the core's catalogue (crates/erpdata/src/catalogue/entries.rs)
# by crates/erpdata/tests/facades.rs: do not edit. After changing the
# catalogue, run `make generate`; `make test` fails while this file is stale.
"""The functions of ``ajax.php`` as methods of ``Client`` and
``AsyncClient``: each one's signature, docstring and the work it asks for
(see :mod:`erpdata._work`), from the core's catalogue."""

from __future__ import annotations

import datetime
from typing import Any

from ._base import ClientBase
from ._models import AjaxAnswer, Id
from ._timeouts import TimeoutTypes
from ._typing import SchemaOverrides
from ._work import Work, awaiting, blocking

__all__ = ["AwaitingFunctions", "BlockingFunctions", "Functions"]


class Functions:
    """The functions' specifications (static: ``self`` is the client)."""

    @staticmethod
    def dues_summary(
        self: ClientBase[Any, Any, Any],
        *,
        send_token: bool | None = None,
        method: str | None = None,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Work[AjaxAnswer]:
        """The outstanding receivables summary (``getduesSumm``).

        Like every function of ``ajax.php``: ``send_token`` sends the access
        token with this call (default: the client's ``ajax_token``), by POST
        unless ``method="GET"``; the answer is an :class:`AjaxAnswer` (rows,
        one object or one value, typed as a table's values are); ``timeout``,
        ``schema_overrides`` and ``infer_strings`` as for :meth:`table`. Every
        argument is checked before anything is sent."""
        args = {
            "send_token": send_token,
            "method": method,
        }
        return self._one("dues_summary", args, timeout, schema_overrides, infer_strings)

    @staticmethod
    def avg_pay_days(
        self: ClientBase[Any, Any, Any],
        acid: Id,
        *,
        send_token: bool | None = None,
        method: str | None = None,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Work[AjaxAnswer]:
        """The average payment days of customer or supplier ``acid``
        (``avgPayDays``).

        Like every function of ``ajax.php``: ``send_token`` sends the access
        token with this call (default: the client's ``ajax_token``), by POST
        unless ``method="GET"``; the answer is an :class:`AjaxAnswer` (rows,
        one object or one value, typed as a table's values are); ``timeout``,
        ``schema_overrides`` and ``infer_strings`` as for :meth:`table`. Every
        argument is checked before anything is sent.

        Args:
            acid: The account id (customer or supplier), sent exactly as
                given."""
        args = {
            "acid": acid,
            "send_token": send_token,
            "method": method,
        }
        return self._one("avg_pay_days", args, timeout, schema_overrides, infer_strings)

    @staticmethod
    def net_profit(
        self: ClientBase[Any, Any, Any],
        start: datetime.date | str,
        end: datetime.date | str,
        *,
        send_token: bool | None = None,
        method: str | None = None,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Work[AjaxAnswer]:
        """The net profit from ``start`` to ``end`` inclusive (``netProfit``).

        Like every function of ``ajax.php``: ``send_token`` sends the access
        token with this call (default: the client's ``ajax_token``), by POST
        unless ``method="GET"``; the answer is an :class:`AjaxAnswer` (rows,
        one object or one value, typed as a table's values are); ``timeout``,
        ``schema_overrides`` and ``infer_strings`` as for :meth:`table`. Every
        argument is checked before anything is sent.

        Args:
            start: The first day of the range, ``YYYY-MM-DD`` (inclusive). Or
                a ``datetime.date``.
            end: The last day of the range, ``YYYY-MM-DD`` (inclusive; not
                before ``start``). Or a ``datetime.date``."""
        args = {
            "start": start,
            "end": end,
            "send_token": send_token,
            "method": method,
        }
        return self._one("net_profit", args, timeout, schema_overrides, infer_strings)

    @staticmethod
    def gross_profit(
        self: ClientBase[Any, Any, Any],
        start: datetime.date | str,
        end: datetime.date | str,
        *,
        send_token: bool | None = None,
        method: str | None = None,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Work[AjaxAnswer]:
        """The gross profit from ``start`` to ``end`` inclusive
        (``grossProfit``).

        Like every function of ``ajax.php``: ``send_token`` sends the access
        token with this call (default: the client's ``ajax_token``), by POST
        unless ``method="GET"``; the answer is an :class:`AjaxAnswer` (rows,
        one object or one value, typed as a table's values are); ``timeout``,
        ``schema_overrides`` and ``infer_strings`` as for :meth:`table`. Every
        argument is checked before anything is sent.

        Args:
            start: The first day of the range, ``YYYY-MM-DD`` (inclusive). Or
                a ``datetime.date``.
            end: The last day of the range, ``YYYY-MM-DD`` (inclusive; not
                before ``start``). Or a ``datetime.date``."""
        args = {
            "start": start,
            "end": end,
            "send_token": send_token,
            "method": method,
        }
        return self._one("gross_profit", args, timeout, schema_overrides, infer_strings)

    @staticmethod
    def schedule_accounts(
        self: ClientBase[Any, Any, Any],
        schedule: str,
        start: datetime.date | str,
        end: datetime.date | str,
        *,
        send_token: bool | None = None,
        method: str | None = None,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Work[AjaxAnswer]:
        """The accounts under ``schedule``, with their figures from ``start``
        to ``end`` (``scheduleDet``).

        Like every function of ``ajax.php``: ``send_token`` sends the access
        token with this call (default: the client's ``ajax_token``), by POST
        unless ``method="GET"``; the answer is an :class:`AjaxAnswer` (rows,
        one object or one value, typed as a table's values are); ``timeout``,
        ``schema_overrides`` and ``infer_strings`` as for :meth:`table`. Every
        argument is checked before anything is sent.

        Args:
            schedule: The schedule's name, e.g. ``Sundry Debtors``.
            start: The first day of the range, ``YYYY-MM-DD`` (inclusive). Or
                a ``datetime.date``.
            end: The last day of the range, ``YYYY-MM-DD`` (inclusive; not
                before ``start``). Or a ``datetime.date``."""
        args = {
            "schedule": schedule,
            "start": start,
            "end": end,
            "send_token": send_token,
            "method": method,
        }
        return self._one("schedule_accounts", args, timeout, schema_overrides, infer_strings)


class BlockingFunctions:
    """``Client``'s methods."""

    dues_summary = blocking(Functions.dues_summary)
    avg_pay_days = blocking(Functions.avg_pay_days)
    net_profit = blocking(Functions.net_profit)
    gross_profit = blocking(Functions.gross_profit)
    schedule_accounts = blocking(Functions.schedule_accounts)


class AwaitingFunctions:
    """``AsyncClient``'s methods."""

    dues_summary = awaiting(Functions.dues_summary)
    avg_pay_days = awaiting(Functions.avg_pay_days)
    net_profit = awaiting(Functions.net_profit)
    gross_profit = awaiting(Functions.gross_profit)
    schedule_accounts = awaiting(Functions.schedule_accounts)
