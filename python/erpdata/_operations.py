"""Every public operation of ``Client`` and ``AsyncClient``, written once:
its signature, its docstring, and the work it asks for (see
:mod:`erpdata._work`). The core checks every argument that reaches it;
nothing here repeats its checks."""

from __future__ import annotations

import datetime
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from . import _finance
from ._base import ClientBase
from ._checks import check_progress
from ._core import DEFAULT_BATCH_ROWS, Plan
from ._kinds import DuesKind
from ._models import AjaxAnswer, Dues, Id, Table
from ._progress import ProgressArg
from ._timeouts import TimeoutTypes
from ._typing import SchemaOverrides, typing_options
from ._work import Blocking, Many, One, PlanSteps, Work

if TYPE_CHECKING:
    from .export import ExportResult

__all__ = ["Operations"]


def _listed(values: Any) -> Any:
    """An iterable argument's items as a list, read once (a generator
    too); text or anything else as given, for the core to refuse."""
    if isinstance(values, (str, bytes, bytearray)) or not isinstance(values, Iterable):
        return values
    return list(values)


class Operations:
    """The operations' specifications: functions of a client (``self``)
    returning the work that ``_work.blocking`` and ``_work.awaiting`` turn
    into each client's methods (static: ``self`` is the client, not an
    ``Operations``)."""

    @staticmethod
    def dues(
        self: ClientBase[Any, Any, Any],
        acid: Id,
        kind: DuesKind | str,
        *,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
        send_token: bool | None = None,
        method: str | None = None,
    ) -> Work[Dues]:
        """Outstanding dues of account ``acid``: ``kind`` is
        ``DuesKind.RECEIPT`` / ``DuesKind.PAYMENT`` or those names in any
        case. The rows are typed by column as a table's are (money as
        ``Decimal``, dates as ``datetime.date``); ``schema_overrides`` and
        ``infer_strings`` as for :meth:`table`. No token is sent unless
        ``send_token`` (or the client's ``ajax_token``) asks, then by POST
        unless ``method="GET"``."""
        args = {"acid": acid, "kind": kind, "send_token": send_token, "method": method}
        return self._one("dues", args, timeout, schema_overrides, infer_strings)

    @staticmethod
    def receivables(
        self: ClientBase[Any, Any, Any],
        acid: Id,
        *,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Work[Dues]:
        """What customer ``acid`` owes (``type=RECEIPT``); see :meth:`dues`."""
        args = {"acid": acid, "kind": DuesKind.RECEIPT}
        return self._one("dues", args, timeout, schema_overrides, infer_strings)

    @staticmethod
    def payables(
        self: ClientBase[Any, Any, Any],
        acid: Id,
        *,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Work[Dues]:
        """What is owed to supplier ``acid`` (``type=PAYMENT``); see :meth:`dues`."""
        args = {"acid": acid, "kind": DuesKind.PAYMENT}
        return self._one("dues", args, timeout, schema_overrides, infer_strings)

    @staticmethod
    def dues_many(
        self: ClientBase[Any, Any, Any],
        acids: Iterable[Id],
        kind: DuesKind | str,
        *,
        concurrency: int = 8,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Work[dict[str, Dues]]:
        """The dues of many accounts, at most ``concurrency`` queries at a
        time (on threads), keyed by account id as sent (``str``). The
        first failure is raised. Each account's rows are typed on their
        own; ``schema_overrides`` and ``infer_strings`` as for :meth:`dues`."""
        # The core's plan checks every account, the kind and the
        # concurrency before anything is sent, and asks once for each
        # distinct account (7 and "7" are one), in the order first given.
        typing = typing_options(schema_overrides, infer_strings, config=self._config)
        plan = Plan.dues_many(self._config, _listed(acids), kind, concurrency, typing)
        return Many(PlanSteps(plan), timeout, plan.concurrency)

    # -- the generic call of ajax.php (its named functions: erpdata._functions) --

    @staticmethod
    def ajax(
        self: ClientBase[Any, Any, Any],
        func: str,
        params: Mapping[str, str | int] | None = None,
        *,
        send_token: bool | None = None,
        method: str | None = None,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Work[AjaxAnswer]:
        """Any function of ``ajax.php`` by name, with its parameters in
        order (``client.ajax("avgPayDays", {"acid": "C001"})``): the same
        checks, encoding, retries, redirect rules and errors as the named
        methods. ``sys_projectfolder``, ``func`` and ``accesstoken`` are the
        client's to send (the token only with ``send_token``)."""
        args = {"func": func, "params": params, "send_token": send_token, "method": method}
        return self._one("ajax", args, timeout, schema_overrides, infer_strings)

    # -- flows over many calls: the core's plans --------------------------------

    @staticmethod
    def dues_table(
        self: ClientBase[Any, Any, Any],
        acids: Iterable[Id],
        kind: DuesKind | str,
        *,
        concurrency: int = 8,
        timeout: TimeoutTypes = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Work[Table]:
        """The dues of many accounts as one :class:`Table`: an ``acid``
        column first (text, the ids as given), then the dues columns, typed
        over all the accounts together. At most ``concurrency`` queries at
        a time; every account checked before anything is sent; the first
        failure is raised."""
        typing = typing_options(schema_overrides, infer_strings, config=self._config)
        plan = Plan.dues_table(self._config, acids, kind, concurrency, typing)
        return Many(PlanSteps(plan), timeout, plan.concurrency)

    @staticmethod
    def aging(
        self: ClientBase[Any, Any, Any],
        kind: DuesKind | str = DuesKind.RECEIPT,
        *,
        accounts: Iterable[Id] | None = None,
        as_of: datetime.date | str | None = None,
        buckets: Iterable[int] = _finance.DEFAULT_BUCKETS,
        accounts_table: str = "account",
        company_id: Id | None = None,
        year_id: Id | None = None,
        concurrency: int = 8,
        timeout: TimeoutTypes = None,
    ) -> Work[Table]:
        """The aging of the receivables (``kind`` receipt, the default) or
        payables (payment) of ``accounts``, or of every customer or
        supplier of ``accounts_table`` (of ``company_id`` and ``year_id``,
        default: the client's), as of ``as_of`` (default: today); see
        :func:`erpdata.aging`."""
        plan = Plan.aging(
            self._config,
            kind=kind,
            accounts=accounts,
            as_of=_finance.today() if as_of is None else as_of,
            buckets=buckets,
            accounts_table=accounts_table,
            company_id=company_id,
            year_id=year_id,
            concurrency=concurrency,
        )
        return Many(PlanSteps(plan), timeout, plan.concurrency)

    @staticmethod
    def credit_status(
        self: ClientBase[Any, Any, Any],
        *,
        accounts: Iterable[Id] | None = None,
        as_of: datetime.date | str | None = None,
        pay_days: bool = True,
        accounts_table: str = "account",
        company_id: Id | None = None,
        year_id: Id | None = None,
        concurrency: int = 8,
        timeout: TimeoutTypes = None,
    ) -> Work[Table]:
        """The credit status of ``accounts`` (default: every customer of
        ``accounts_table``, of ``company_id`` and ``year_id``, default: the
        client's) as of ``as_of`` (default: today): their
        receivables against ``credit_limit``, what is overdue and since
        when, and (unless ``pay_days=False``) ``avg_pay_days`` asked of the
        service for each; see :func:`erpdata.credit_status`."""
        plan = Plan.credit_status(
            self._config,
            accounts=accounts,
            as_of=_finance.today() if as_of is None else as_of,
            pay_days=pay_days,
            accounts_table=accounts_table,
            company_id=company_id,
            year_id=year_id,
            concurrency=concurrency,
        )
        return Many(PlanSteps(plan), timeout, plan.concurrency)

    # -- tables ----------------------------------------------------------------

    @staticmethod
    def table(
        self: ClientBase[Any, Any, Any],
        name: str,
        *,
        company_id: Id | None = None,
        year_id: Id | None = None,
        method: str = "POST",
        timeout: TimeoutTypes = None,
        progress: ProgressArg = None,
        schema_overrides: SchemaOverrides = None,
        infer_strings: bool = True,
    ) -> Work[Table]:
        """Every row of ERP table ``name``; company and year default to the
        client's. The answer is decoded into typed columns as it arrives
        (the body is never held whole); each column's type is decided over
        the whole table. ``method="GET"`` puts the token in the URL (the
        service allows it); the default POST keeps it in the body.
        ``progress``: by default a ``tqdm.auto`` bar (a widget in
        notebooks) appears once a download takes over a second, where
        output is interactive; ``True`` shows it
        from the start, ``False`` never, and a callable is called with
        (bytes received, rows decoded) instead.

        ``schema_overrides`` maps column names to declared types: a type
        name (``"string"``, ``"int"``, ``"decimal"``, ``"decimal(P,S)"``,
        ``"date"``, ``"timestamp"``, ``"bool"``, ``"json"``) or a pyarrow
        type (``pa.string()``, ``pa.int64()``, ``pa.decimal128(14, 2)``,
        ``pa.date32()``, ``pa.timestamp("us")``, ``pa.bool_()``). A
        declared column never falls back to string: ``"decimal(14,2)"``
        takes ``"1500.5"`` as ``1500.50``, ``"string"`` keeps ``"007"`` and
        ``42`` as text, and ``""`` is null in every type but string and
        json; a value it cannot take raises ``DecodeError`` naming the
        column and the row. ``infer_strings=False`` keeps every JSON string
        a string (JSON numbers are still typed). Invalid overrides raise
        ``InvalidInputError`` naming ``schema_overrides["column"]``, before
        anything is sent."""
        check_progress(progress)
        invocation = self._table_invocation(name, company_id, year_id, method)
        typing = typing_options(schema_overrides, infer_strings, config=self._config)
        return One(invocation, typing, timeout, Table, progress, name)

    @staticmethod
    def export(
        self: ClientBase[Any, Any, Any],
        tables: str | Sequence[str],
        *,
        to: str | os.PathLike[str],
        companies: Id | Iterable[Id] | None = None,
        years: Id | Iterable[Id] | None = None,
        format: Literal["duckdb", "parquet"] | None = None,
        concurrency: int = 2,
        batch_rows: int = DEFAULT_BATCH_ROWS,
        progress: bool | None = None,
        resume: bool = False,
    ) -> Work[ExportResult]:
        """Every (table, company, year) into ``to``: a DuckDB file
        (``.duckdb``) or a hive-partitioned Parquet dataset folder, each
        partition replaced whole, with a manifest; needs
        ``erpdata[export]``. ``resume``: only the partitions not written
        yet. See :func:`erpdata.export.export`."""
        from .export import _export

        def run(client: Any, stop: threading.Event | None) -> ExportResult:
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
                cancel=stop,
            )

        return Blocking(run)
