"""What ``Client`` and ``AsyncClient`` share besides their loops: settings
from arguments and the environment, the calls they make, ``repr``."""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Iterable
from typing import Any, TypeVar

from ._checks import check_acids, check_concurrency, check_flag, check_max_retries
from ._core import DEFAULT_BATCH_ROWS as _DEFAULT_BATCH_ROWS
from ._core import Call, Config, Request, Typing
from ._errors import InvalidInputError
from ._kinds import DuesKind
from ._log import watch
from ._models import Id
from ._timeouts import DEFAULT_TIMEOUT, Timeout, TimeoutTypes, resolve_timeout

__all__ = ["ClientBase", "DEFAULT_BATCH_ROWS"]

DEFAULT_BATCH_ROWS = _DEFAULT_BATCH_ROWS
"""Rows per batch of a streamed table (and of a table's Arrow batches):
the core's default, 65,536."""

_C = TypeVar("_C", bound="ClientBase")


def _setting(value: Id | None, env: str) -> Id | None:
    """An explicit argument wins; else the environment variable, if set."""
    return value if value is not None else os.environ.get(env)


class ClientBase:
    """Settings and request building shared by both clients."""

    def __init__(
        self,
        base_url: str | None,
        *,
        project: str | None,
        access_token: str | None,
        project_folder: str | None,
        company_id: Id | None,
        year_id: Id | None,
        timeout: TimeoutTypes,
        max_retries: int,
        allow_insecure_http: bool,
        ajax_token: bool = False,
    ) -> None:
        base_url = base_url if base_url is not None else os.environ.get("ERPDATA_BASE_URL")
        if base_url is None:
            reason = "not given; pass base_url or set ERPDATA_BASE_URL"
            raise InvalidInputError(f"invalid base_url: {reason}", field="base_url", reason=reason)
        check_max_retries(max_retries)
        check_flag("allow_insecure_http", allow_insecure_http)
        check_flag("ajax_token", ajax_token)
        # The core validates everything; it runs before an httpx client is
        # made so an invalid setting leaks no connection pool.
        self._config = Config(
            base_url,
            project=os.environ.get("ERPDATA_PROJECT") if project is None else project,
            access_token=(
                os.environ.get("ERPDATA_ACCESS_TOKEN") if access_token is None else access_token
            ),
            project_folder=(
                os.environ.get("ERPDATA_PROJECT_FOLDER")
                if project_folder is None
                else project_folder
            ),
            company_id=_setting(company_id, "ERPDATA_COMPANY_ID"),
            year_id=_setting(year_id, "ERPDATA_YEAR_ID"),
            allow_insecure_http=allow_insecure_http,
            ajax_token=ajax_token,
        )
        watch(self._config)
        self._timeout = resolve_timeout(timeout, DEFAULT_TIMEOUT)
        self._max_retries = max_retries
        self._owns_http = False

    # -- settings --------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The service's base URL, normalised to end with ``/``."""
        return self._config.base_url

    @property
    def project(self) -> str | None:
        """The ERP project name."""
        return self._config.project

    @property
    def timeout(self) -> Timeout:
        """The limits each call gets unless it passes its own."""
        return self._timeout

    @property
    def max_retries(self) -> int:
        """How many times a failed attempt may be retried."""
        return self._max_retries

    def with_options(
        self: _C, *, timeout: TimeoutTypes = None, max_retries: int | None = None
    ) -> _C:
        """This client with other settings for the calls made through it
        (``client.with_options(timeout=5).table("x")``): it shares the
        configuration and the httpx client (closing it leaves that open).
        ``timeout`` and ``max_retries`` as for the constructor (the core
        checks them: ``max_retries`` from 0 to 10); ``None`` keeps this
        client's."""
        clone = copy.copy(self)
        if timeout is not None:
            clone._timeout = resolve_timeout(timeout, self._timeout)
        if max_retries is not None:
            clone._max_retries = check_max_retries(max_retries)
        clone._owns_http = False
        return clone

    # -- calls -------------------------------------------------------------------

    def _limits(self, timeout: TimeoutTypes) -> dict[str, Any]:
        """The keyword arguments of a ``Call``: its limits, checked by the
        core, and the monotonic clock's reading at its start."""
        t = resolve_timeout(timeout, self._timeout)
        return {
            "total": t.total,
            "connect": t.connect,
            "read": t.read,
            "max_retries": self._max_retries,
            "now": time.monotonic(),
        }

    def _dues_call(
        self, request: Request, acid: Id, kind_name: str, typing: Typing, timeout: TimeoutTypes
    ) -> Call:
        return Call.dues(self._config, request, acid, kind_name, typing, **self._limits(timeout))

    def _table_call(self, request: Request, typing: Typing, timeout: TimeoutTypes) -> Call:
        return Call.table(
            self._config, request, typing, batch_rows=DEFAULT_BATCH_ROWS, **self._limits(timeout)
        )

    def _stream_call(
        self, request: Request, typing: Typing, batch_rows: int, timeout: TimeoutTypes
    ) -> Call:
        return Call.stream(
            self._config, request, typing, batch_rows=batch_rows, **self._limits(timeout)
        )

    def _dues_request(
        self,
        acid: Id,
        kind: DuesKind | str,
        send_token: bool | None = None,
        method: str | None = None,
    ) -> tuple[Request, str]:
        kind_name = kind.value if isinstance(kind, DuesKind) else kind
        if send_token is not None:
            check_flag("send_token", send_token)
        request = self._config.dues_request(acid, kind_name, send_token, method)
        return request, kind_name

    def _function_call(
        self,
        function: str,
        args: dict[str, Any],
        send_token: bool | None,
        method: str | None,
        typing: Typing,
        timeout: TimeoutTypes,
    ) -> Call:
        """The call of a function of ajax.php: every argument checked by the
        core (dates, names, the token's presence) before anything is sent."""
        if send_token is not None:
            check_flag("send_token", send_token)
        request = self._config.ajax_request(function, args, send_token, method)
        return Call.ajax(self._config, request, function, args, typing, **self._limits(timeout))

    def _dues_many_accounts(
        self, acids: Iterable[Id], kind: DuesKind | str, concurrency: int
    ) -> list[Id]:
        """The distinct accounts of a ``dues_many`` call, in order, once
        every input is checked and before anything is sent (the kind too
        when no account is asked about: checked on a request never sent)."""
        check_concurrency(concurrency)
        given = check_acids(acids)
        for acid in given or ["0"]:
            self._dues_request(acid, kind)
        return list(dict.fromkeys(given))

    def _finance_accounts(
        self,
        kind: DuesKind | str,
        accounts: Iterable[Id] | None,
        concurrency: int,
        accounts_table: str,
        company_id: Id | None,
        year_id: Id | None,
        always_table: bool,
    ) -> list[Id] | None:
        """The accounts an aging or credit-status call asks about (``None``:
        every one of ``accounts_table``), once every input of the call is
        checked: it may send the account table's request (always, with
        ``always_table``) and then the dues', and bad input must stop it
        before the first."""
        given = None if accounts is None else check_acids(accounts, "accounts")
        self._dues_many_accounts(given or [], kind, concurrency)
        if given is None or always_table:
            self._table_request(accounts_table, company_id, year_id, "POST")
        return given

    def _table_request(
        self, name: str, company_id: Id | None, year_id: Id | None, method: str
    ) -> Request:
        return self._config.table_request(name, company_id, year_id, method)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self._config.base_url!r}, project={self._config.project!r})"
