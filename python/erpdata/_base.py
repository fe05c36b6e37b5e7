"""What ``Client`` and ``AsyncClient`` share besides their flows: settings
from arguments and the environment, request building, ``repr``."""

from __future__ import annotations

import os
from collections.abc import Iterable

from ._checks import check_acids, check_concurrency, check_flag, check_max_retries
from ._core import Config, Request, RetryPolicy
from ._errors import InvalidInputError
from ._flow import Call
from ._kinds import DuesKind
from ._log import watch
from ._models import Id
from ._timeouts import DEFAULT_TIMEOUT, Timeout, TimeoutTypes, resolve_timeout

__all__ = ["ClientBase", "DEFAULT_BATCH_ROWS"]

DEFAULT_BATCH_ROWS = 65_536
"""Rows per batch of a streamed table (and of a table's Arrow batches)."""


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
    ) -> None:
        base_url = base_url if base_url is not None else os.environ.get("ERPDATA_BASE_URL")
        if base_url is None:
            reason = "not given; pass base_url or set ERPDATA_BASE_URL"
            raise InvalidInputError(f"invalid base_url: {reason}", field="base_url", reason=reason)
        check_max_retries(max_retries)
        check_flag("allow_insecure_http", allow_insecure_http)
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
        )
        watch(self._config)
        self._timeout = resolve_timeout(timeout, DEFAULT_TIMEOUT)
        self._retry = RetryPolicy(max_retries)

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
        return self._retry.max_retries

    # -- calls -------------------------------------------------------------------

    def _call(self, request: Request, timeout: TimeoutTypes, *, stream: bool = False) -> Call:
        return Call(
            self._config,
            self._retry,
            request,
            resolve_timeout(timeout, self._timeout),
            deadline_covers_body=not stream,
        )

    def _dues_request(self, acid: Id, kind: DuesKind | str) -> tuple[Request, str]:
        kind_name = kind.value if isinstance(kind, DuesKind) else kind
        return self._config.dues_request(acid, kind_name), kind_name

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

    def _table_request(
        self, name: str, company_id: Id | None, year_id: Id | None, method: str
    ) -> Request:
        return self._config.table_request(name, company_id, year_id, method)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self._config.base_url!r}, project={self._config.project!r})"
