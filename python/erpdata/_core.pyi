# Type stubs for the native module (crates/erpdata-python).
from collections.abc import Iterable, Mapping
from typing import Any, final

from ._errors import ErpError, TransportError
from ._models import Dues, Id, Row, Table

__version__: str

def _decimals_built_directly() -> bool: ...
def _datetimes_built_directly() -> bool: ...

DEFAULT_TOTAL_TIMEOUT: float
"""300.0: seconds a whole call may take (a stream: waiting on the service)."""
DEFAULT_CONNECT_TIMEOUT: float
"""10.0: seconds to open a connection."""
DEFAULT_READ_TIMEOUT: float
"""30.0: seconds without a byte from the service."""
MAX_TIMEOUT: float
"""86400.0: the longest limit accepted."""
MAX_RETRIES: int
"""10: the most retries a call may be allowed."""
DEFAULT_MAX_RETRIES: int
"""2: retries after the first attempt, by default."""
DEFAULT_MAX_RETRY_AFTER: float
"""30.0: the longest ``Retry-After`` wait, in seconds, a call waits out by
default."""
MIN_BATCH_ROWS: int
"""1: the fewest rows per batch."""
MAX_BATCH_ROWS: int
"""1,048,576: the most rows per batch."""
MAX_CONCURRENCY: int
"""256: the most calls of a plan at a time."""
DEFAULT_BATCH_ROWS: int
"""65,536: rows per batch of Arrow, by default."""
DEFAULT_ROW_BATCH_ROWS: int
"""4,096: rows per batch of row dicts, by default."""

def check_max_retries(value: int) -> int:
    """``value`` if the core accepts it as ``max_retries`` (0 to
    ``MAX_RETRIES``); else ``InvalidInputError`` naming ``max_retries``."""

def check_max_retry_after(value: float) -> float:
    """``value`` in seconds if the core accepts it as ``max_retry_after`` (0
    to ``MAX_TIMEOUT``); else ``InvalidInputError`` naming
    ``max_retry_after``."""

def check_concurrency(value: int) -> int:
    """``value`` if the core accepts it as ``concurrency`` (1 to
    ``MAX_CONCURRENCY``); else ``InvalidInputError`` naming ``concurrency``."""

def check_batch_rows(value: int) -> int:
    """``value`` if the core accepts it as ``batch_rows``; else
    ``InvalidInputError`` naming ``batch_rows``."""

def check_timeout(total: float, connect: float, read: float) -> None:
    """Raises ``InvalidInputError`` naming ``timeout`` unless every limit
    is above 0 and at most ``MAX_TIMEOUT`` seconds."""

@final
class Send:
    """Send ``request`` (no redirect followed, no retry), then report its
    head (``Call.head``) or failure (``Call.failed``); ``connect`` and
    ``read`` are the attempt's limits, ``wait`` bounds the wait for the
    head (seconds)."""

    @property
    def request(self) -> Request: ...
    @property
    def connect(self) -> float: ...
    @property
    def read(self) -> float: ...
    @property
    def wait(self) -> float: ...

@final
class Read:
    """Read the next part of the body (at most ``wait`` seconds), then
    report it: ``Call.chunk``, ``Call.end`` or ``Call.failed``."""

    @property
    def wait(self) -> float: ...

@final
class Sleep:
    """Wait ``seconds``, then ask again."""

    @property
    def seconds(self) -> float: ...

@final
class Emit:
    """Hand ``batch`` to the caller of a stream, then ask again."""

    @property
    def batch(self) -> Batch: ...

@final
class Done:
    """The call succeeded: ``output`` is a ``Dues`` (dues), a
    ``TableData`` (table) or ``(notices, total_rows)`` (stream)."""

    @property
    def output(self) -> Any: ...

@final
class Failed:
    """The call failed with ``error`` (not raised)."""

    @property
    def error(self) -> ErpError: ...

Action = Send | Read | Sleep | Emit | Done | Failed

@final
class Call:
    """One call as the core's state machine: ``next(now)`` says what to do,
    the host does it and reports what happened. ``now`` is
    ``time.monotonic()``. Every decision (attempts, redirects, retries,
    waits, time limits, errors) is the core's. Close the open answer
    whenever the action is ``Send``, ``Sleep``, ``Done`` or ``Failed``."""

    @staticmethod
    def start(
        invocation: Invocation,
        typing: Typing | None = None,
        *,
        stream: bool = False,
        threads: bool = False,
        batch_rows: int = ...,
        total: float,
        connect: float,
        read: float,
        max_retries: int,
        max_retry_after: float = ...,
        now: float,
    ) -> Call:
        """The call of ``invocation``: its ``Done`` output is what the
        operation answers (an ``erpdata.Dues``, an ``erpdata.AjaxAnswer`` or
        a ``TableData``), typed as ``typing`` says. A table is decoded on a
        thread of its own as it arrives; with ``stream``, ``Emit`` actions
        hand out its batches of ``batch_rows`` rows (default
        ``DEFAULT_BATCH_ROWS``) and the output is ``(notices, total_rows)``;
        with ``threads`` too, a stream is decoded on a thread of its own
        while the body is read. Only a table can be streamed."""
    def next(self, now: float) -> Action: ...
    def head(
        self,
        now: float,
        status: int,
        location: str | None = None,
        retry_after: str | None = None,
        date: float | None = None,
    ) -> None: ...
    def chunk(self, now: float, data: bytes) -> None: ...
    def end(self, now: float) -> None: ...
    def failed(self, now: float, kind: str, detail: str) -> None: ...
    def no_free_connection(self, now: float) -> None: ...
    @property
    def id(self) -> int:
        """The call's number in this process, which its log lines start with."""
    def request_line(self) -> str:
        """The core's log line of the request just sent (``call 7: request
        2: POST https://... form: ...``), its URL and form redacted."""
    def answer_line(self, status: int) -> str:
        """The core's log line of an answer's head (``call 7: answer 503``)."""
    def waiting_line(self, seconds: float) -> str:
        """The core's log line of a ``Sleep`` of ``seconds`` before the next
        request (``call 7: waiting 0.52 s before request 2 (as the core's
        call asks)``)."""
    def done_line(self) -> str:
        """The core's log line of a call that ended with its result (``call
        7: done after 2 requests``)."""
    def ended_line(self) -> str | None:
        """The core's log line of a call its caller ended before its answer
        did (``call 7: ended by its caller after 40 rows``); None if it
        sent nothing."""
    def failed_line(self, message: str) -> str:
        """The core's log line of a call that ended with the error whose
        message is ``message`` (``call 7: failed after 1 request: ...``)."""
    @property
    def attempts(self) -> int: ...
    @property
    def rows_received(self) -> int: ...
    @property
    def rows_delivered(self) -> int: ...

__all__ = [
    "Call",
    "Send",
    "Read",
    "Sleep",
    "Emit",
    "Done",
    "Failed",
    "Config",
    "Request",
    "Invocation",
    "Plan",
    "PlannedCall",
    "Batch",
    "TableData",
    "DuesData",
    "Typing",
    "DEFAULT_TOTAL_TIMEOUT",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_READ_TIMEOUT",
    "MAX_TIMEOUT",
    "MAX_RETRIES",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_MAX_RETRY_AFTER",
    "MIN_BATCH_ROWS",
    "MAX_BATCH_ROWS",
    "MAX_CONCURRENCY",
    "DEFAULT_BATCH_ROWS",
    "DEFAULT_ROW_BATCH_ROWS",
    "check_max_retries",
    "check_max_retry_after",
    "check_batch_rows",
    "check_concurrency",
    "check_timeout",
    "aging",
    "credit_status",
    "pay_days",
    "account_ids",
    "catalogue_json",
    "closest_name",
    "__version__",
]

@final
class Request:
    """One request to send. ``url`` and ``body`` may hold the access token;
    show ``display_url`` (token redacted) instead."""

    @property
    def method(self) -> str: ...
    @property
    def url(self) -> str: ...
    @property
    def headers(self) -> list[tuple[str, str]]: ...
    @property
    def body(self) -> bytes: ...
    @property
    def display_url(self) -> str: ...

@final
class Config:
    """A validated configuration: builds requests, parses answers.

    Raises InvalidInputError for any invalid setting.
    """

    def __new__(
        cls,
        base_url: str | None = None,
        *,
        project: str | None = None,
        project_folder: str | None = None,
        access_token: str | None = None,
        company_id: Id | None = None,
        year_id: Id | None = None,
        allow_insecure_http: bool = False,
        ajax_token: bool = False,
        environ: Mapping[str, str] | None = None,
    ) -> Config: ...
    @property
    def base_url(self) -> str: ...
    @property
    def display_base_url(self) -> str:
        """The base URL to show: the token redacted where the caller put
        it in the URL."""
    @property
    def project(self) -> str | None: ...
    @property
    def project_folder(self) -> str | None: ...
    @property
    def has_access_token(self) -> bool: ...
    @property
    def company_id(self) -> str | None: ...
    @property
    def year_id(self) -> str | None: ...
    @property
    def allow_insecure_http(self) -> bool: ...
    @property
    def ajax_token(self) -> bool: ...
    @property
    def proxy_allowed(self) -> bool:
        """Whether requests may go through a proxy: not to a loopback base
        URL, where plain http with the token is allowed only because the
        request never leaves the machine."""
    def invoke(self, operation: str, args: dict[str, Any]) -> Invocation:
        """The operation of the core's catalogue called ``operation`` (its
        snake or JavaScript name) with ``args`` (names to values of plain
        shapes; ``None``: not given), every argument checked and the
        request built before this returns. Raises InvalidInputError naming
        the argument."""
    def parse_table(self, status: int, body: bytes, typing: Typing | None = None) -> Table: ...
    def redact(self, text: str) -> str: ...
    def transport_error(self, kind: str, message: str) -> TransportError: ...

@final
class Invocation:
    """An operation of the catalogue with its arguments checked by the
    core (made by ``Config.invoke``): its request, and what its answer
    becomes. Start it with ``Call.start``."""

    @property
    def operation(self) -> str: ...
    @property
    def answer(self) -> str: ...
    def request(self) -> Request: ...
    def parse(self, status: int, body: bytes, typing: Typing | None = None) -> Any:
        """A whole answer parsed as the operation says: an ``erpdata.Dues``,
        an ``erpdata.AjaxAnswer`` or a ``TableData``."""

@final
class PlannedCall:
    """A call a plan asks for: hand ``id`` back with its result."""

    @property
    def id(self) -> int: ...
    @property
    def invocation(self) -> Invocation: ...
    def start(
        self,
        *,
        total: float,
        connect: float,
        read: float,
        max_retries: int,
        max_retry_after: float = ...,
        now: float,
    ) -> Call:
        """The call, with the plan's typing; it keeps its result for
        ``Plan.done``."""

@final
class Plan:
    """A flow over many calls (the core's ``dues_table``, ``aging``,
    ``credit_status``). ``next()`` gives a ``PlannedCall`` to start,
    ``None`` (wait for a started call to end, then ``done``), or the
    answer, an ``erpdata.Table``; it raises the plan's first error. Every
    input is checked when the plan is made."""

    @staticmethod
    def dues_table(
        config: Config,
        acids: Iterable[Id],
        kind: str,
        concurrency: int,
        typing: Typing | None = None,
    ) -> Plan: ...
    @staticmethod
    def dues_many(
        config: Config,
        acids: Iterable[Id],
        kind: str,
        concurrency: int,
        typing: Typing | None = None,
    ) -> Plan:
        """Each account's dues on their own: the answer is a dict of
        ``erpdata.Dues`` keyed by account id as sent."""
    @staticmethod
    def aging(
        config: Config,
        *,
        kind: str,
        accounts: Iterable[Id] | None,
        as_of: Any,
        buckets: Iterable[int],
        accounts_table: str,
        company_id: Id | None,
        year_id: Id | None,
        concurrency: int,
    ) -> Plan: ...
    @staticmethod
    def credit_status(
        config: Config,
        *,
        accounts: Iterable[Id] | None,
        as_of: Any,
        pay_days: bool,
        accounts_table: str,
        company_id: Id | None,
        year_id: Id | None,
        concurrency: int,
    ) -> Plan: ...
    def next(self) -> PlannedCall | Table | dict[str, Dues] | None: ...
    def done(self, id: int, call: Call) -> None:
        """Call ``id`` (from ``PlannedCall.start``) ended; its result goes
        to the plan."""
    def answer(self, id: int, status: int, body: bytes) -> None:
        """Call ``id`` answered ``status`` with ``body`` (a whole answer,
        for a host doing its own I/O): parsed and handed to the plan."""
    @property
    def running(self) -> int: ...
    @property
    def concurrency(self) -> int: ...

@final
class Typing:
    """How a table's values get their column types: declared types
    (column, core type name), string inference, one schema for a stream.
    Raises InvalidInputError naming ``schema_overrides["column"]`` for a
    type name the core does not know, redacted by ``config`` where given."""

    def __new__(
        cls,
        schema_overrides: Mapping[str, str] | Iterable[tuple[str, Any]] | None = None,
        *,
        infer_strings: bool = True,
        one_schema: bool = False,
        config: Config | None = None,
    ) -> Typing: ...
    @property
    def schema_overrides(self) -> list[tuple[str, str]]: ...
    @property
    def infer_strings(self) -> bool: ...
    @property
    def one_schema(self) -> bool: ...

@final
class Batch:
    """One batch of a streamed table: an Arrow record batch (Arrow
    PyCapsule protocol) that also gives its rows as dicts."""

    @property
    def num_rows(self) -> int: ...
    @property
    def columns(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def to_rows(self, start: int = 0, stop: int | None = None) -> list[Row]: ...
    def __arrow_c_array__(
        self, requested_schema: object | None = None
    ) -> tuple[object, object]: ...
    def __arrow_c_schema__(self) -> object: ...

@final
class DuesData:
    """A parsed dues answer as the core holds it (kept by ``erpdata.Dues``)."""

    def table(self) -> Table: ...

@final
class TableData:
    """A whole table as Arrow record batches of one schema."""

    @property
    def num_rows(self) -> int: ...
    @property
    def schema(self) -> list[tuple[str, str]]: ...
    @property
    def num_batches(self) -> int: ...
    @property
    def columns(self) -> list[str]: ...
    @property
    def notices(self) -> list[str]: ...
    def rows(self, start: int = 0, stop: int | None = None) -> list[Row]: ...
    def row(self, index: int) -> Row: ...
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...
    def __arrow_c_schema__(self) -> object: ...

def aging(
    dues: object,
    as_of: str,
    buckets: Iterable[int],
    due_date_column: str | None,
    balance_column: str | None,
    account: str | None,
) -> Table:
    """The core's aging of any Arrow table (``__arrow_c_stream__``);
    ``account`` names the one account whose dues it holds (a ``Dues``)."""

def credit_status(
    accounts: object,
    dues: object,
    pay_days: list[tuple[str, str | None]],
    as_of: str,
    acids: object,
) -> Table:
    """The core's credit status of an account table's customers."""

def pay_days(acid: str, answer: str) -> str | None:
    """The average payment days in an ``avgPayDays`` answer's JSON text."""

def account_ids(accounts: object, kind: str) -> list[str]:
    """The acids of an account table's customers (receipt) or suppliers (payment)."""

def catalogue_json() -> str:
    """The core's catalogue of operations as JSON."""

def closest_name(given: str, known: list[str]) -> str | None:
    """The name among ``known`` that ``given`` most likely meant, if one is close."""
