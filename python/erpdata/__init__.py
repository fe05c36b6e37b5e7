"""erpdata: client SDK for the cloud ERP data interface.

Two operations: the dues query (``Client.receivables``, ``Client.payables``,
``Client.dues``) and the table data fetch (``Client.table``,
``Client.stream_table``), with :class:`Client` (sync) and
:class:`AsyncClient` (asyncio). Every wire rule lives in the Rust core
(``erpdata._core``); this package sends the requests it describes with
httpx. pyarrow, pandas and polars are optional (``erpdata[arrow]``,
``erpdata[pandas]``, ``erpdata[polars]``).

Values are typed by one rule in the core, whether the service sent them as
JSON numbers or as strings (as PHP does for DECIMAL columns): exact
``Decimal``, ``int``, ``datetime.date``, naive ``datetime.datetime``, MySQL's
zero dates as ``None``. Every call that returns rows takes
``schema_overrides`` (declared column types) and ``infer_strings``.
"""

from ._async_client import AsyncClient
from ._client import Client
from ._core import Batch, __version__
from ._errors import (
    DecodeError,
    ErpError,
    HttpStatusError,
    InvalidInputError,
    ServiceError,
    TimeoutError,
    TransportError,
)
from ._finance import aging, credit_status
from ._kinds import DuesKind
from ._models import AjaxAnswer, Dues, Row, Table
from ._stream import AsyncTableStream, TableStream
from ._timeouts import Timeout
from .excel import write_excel

__all__ = [
    "Client",
    "AsyncClient",
    "Timeout",
    "DuesKind",
    "Dues",
    "AjaxAnswer",
    "Table",
    "TableStream",
    "AsyncTableStream",
    "Batch",
    "Row",
    "aging",
    "credit_status",
    "write_excel",
    "ErpError",
    "InvalidInputError",
    "TransportError",
    "TimeoutError",
    "HttpStatusError",
    "ServiceError",
    "DecodeError",
    "__version__",
]
