# Type stubs for the native module (crates/erpdata-python).
from collections.abc import Iterable, Mapping
from typing import Any, final

from ._errors import TransportError
from ._models import Dues, Id, Row, Table

__version__: str

def _decimals_built_directly() -> bool: ...

__all__ = [
    "Config",
    "Request",
    "RetryPolicy",
    "TableDecoder",
    "TableCollector",
    "Batch",
    "TableData",
    "Typing",
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
        base_url: str,
        *,
        project: str | None = None,
        project_folder: str | None = None,
        access_token: str | None = None,
        company_id: Id | None = None,
        year_id: Id | None = None,
        allow_insecure_http: bool = False,
    ) -> Config: ...
    @property
    def base_url(self) -> str: ...
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
    def dues_request(self, acid: Id, kind: str) -> Request: ...
    def table_request(
        self,
        table: str,
        company_id: Id | None = None,
        year_id: Id | None = None,
        method: str = "POST",
    ) -> Request: ...
    def parse_dues(
        self, acid: Id, kind: str, status: int, body: bytes, typing: Typing | None = None
    ) -> Dues: ...
    def parse_table(self, status: int, body: bytes, typing: Typing | None = None) -> Table: ...
    def parse_table_rows(
        self, status: int, body: bytes, typing: Typing | None = None
    ) -> tuple[list[Row], list[str], list[str]]: ...
    def follow_redirect(
        self, request: Request, status: int, location: str | None, hops_done: int
    ) -> Request | None: ...
    def redact(self, text: str) -> str: ...
    def transport_error(self, kind: str, message: str) -> TransportError: ...

@final
class RetryPolicy:
    """The core's retry decision; the clients only sleep."""

    def __new__(cls, max_retries: int = 2) -> RetryPolicy: ...
    @property
    def max_retries(self) -> int: ...
    def decide(
        self,
        retries_done: int,
        *,
        random: float,
        status: int | None = None,
        transport: str | None = None,
        retry_after: str | None = None,
        now: float | None = None,
    ) -> float | None: ...

@final
class Typing:
    """How a table's values get their column types: declared types
    (column, core type name), string inference, one schema for a stream.
    Raises InvalidInputError naming ``schema_overrides["column"]`` for a
    type name the core does not know."""

    def __new__(
        cls,
        schema_overrides: Mapping[str, str] | Iterable[tuple[str, Any]] | None = None,
        *,
        infer_strings: bool = True,
        one_schema: bool = False,
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
    def to_rows(self) -> list[Row]: ...
    def __arrow_c_array__(
        self, requested_schema: object | None = None
    ) -> tuple[object, object]: ...
    def __arrow_c_schema__(self) -> object: ...

@final
class TableData:
    """A whole table as Arrow record batches of one schema."""

    @property
    def num_rows(self) -> int: ...
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

@final
class TableDecoder:
    """The core's streaming table decoder."""

    def __new__(
        cls,
        config: Config,
        status: int,
        *,
        batch_rows: int = 65536,
        collect: bool = False,
        typing: Typing | None = None,
    ) -> TableDecoder: ...
    def feed(self, chunk: bytes) -> list[Batch]: ...
    @property
    def rows(self) -> int: ...
    @property
    def rows_delivered(self) -> int: ...
    def finish(self) -> tuple[list[Batch], list[str], int]: ...
    def finish_table(self) -> TableData: ...

@final
class TableCollector:
    """The core's table decoder on a thread of its own: ``feed`` hands a
    chunk over and returns; errors surface at a later ``feed``, ``check``
    or ``finish_table``."""

    def __new__(
        cls, config: Config, status: int, *, batch_rows: int = 65536, typing: Typing | None = None
    ) -> TableCollector: ...
    def feed(self, chunk: bytes) -> None: ...
    def check(self) -> None: ...
    @property
    def rows(self) -> int: ...
    def finish_table(self) -> TableData: ...
