# Type stubs for the native module (crates/erpdata-python).
from typing import List, Optional, Tuple, final

from ._errors import TransportError
from ._models import Dues, Id, Table

__version__: str

@final
class Request:
    """One request to send. ``url`` and ``body`` may hold the access token;
    show ``display_url`` (token redacted) instead."""

    @property
    def method(self) -> str: ...
    @property
    def url(self) -> str: ...
    @property
    def headers(self) -> List[Tuple[str, str]]: ...
    @property
    def body(self) -> bytes: ...
    @property
    def display_url(self) -> str: ...

@final
class Config:
    """A validated configuration: builds requests, parses answers.

    Raises InvalidInputError for any invalid setting.
    """

    def __init__(
        self,
        base_url: str,
        *,
        project: Optional[str] = None,
        project_folder: Optional[str] = None,
        access_token: Optional[str] = None,
        company_id: Optional[Id] = None,
        year_id: Optional[Id] = None,
        allow_insecure_http: bool = False,
    ) -> None: ...
    @property
    def base_url(self) -> str: ...
    @property
    def project(self) -> Optional[str]: ...
    @property
    def project_folder(self) -> Optional[str]: ...
    @property
    def has_access_token(self) -> bool: ...
    @property
    def company_id(self) -> Optional[str]: ...
    @property
    def year_id(self) -> Optional[str]: ...
    @property
    def allow_insecure_http(self) -> bool: ...
    def dues_request(self, acid: Id, kind: str) -> Request: ...
    def table_request(
        self,
        table: str,
        company_id: Optional[Id] = None,
        year_id: Optional[Id] = None,
        method: str = "POST",
    ) -> Request: ...
    def parse_dues(self, acid: Id, kind: str, status: int, body: bytes) -> Dues: ...
    def parse_table(self, status: int, body: bytes) -> Table: ...
    def follow_redirect(
        self, request: Request, status: int, location: Optional[str], hops_done: int
    ) -> Optional[Request]: ...
    def redact(self, text: str) -> str: ...
    def transport_error(self, kind: str, message: str) -> TransportError: ...

@final
class RetryPolicy:
    """The core's retry decision; the clients only sleep."""

    def __init__(self, max_retries: int = 2) -> None: ...
    @property
    def max_retries(self) -> int: ...
    def decide(
        self,
        retries_done: int,
        *,
        random: float,
        status: Optional[int] = None,
        transport: Optional[str] = None,
        retry_after: Optional[str] = None,
        now: Optional[float] = None,
    ) -> Optional[float]: ...
