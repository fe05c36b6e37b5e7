"""erpdata: client SDK for the cloud ERP data interface.

Two operations: the dues query (``Client.receivables``, ``Client.payables``,
``Client.dues``) and the table data fetch (``Client.table``). Every wire
rule lives in the Rust core (``erpdata._core``); this package sends the
requests it describes with httpx.
"""

from ._core import __version__
from ._client import Client
from ._errors import (
    DecodeError,
    ErpError,
    HttpStatusError,
    InvalidInputError,
    ServiceError,
    TimeoutError,
    TransportError,
)
from ._kinds import DuesKind
from ._models import Dues, Row, Table

__all__ = [
    "Client",
    "DuesKind",
    "Dues",
    "Table",
    "Row",
    "ErpError",
    "InvalidInputError",
    "TransportError",
    "TimeoutError",
    "HttpStatusError",
    "ServiceError",
    "DecodeError",
    "__version__",
]
