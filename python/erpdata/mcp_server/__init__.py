"""The ERP for AI assistants: a Model Context Protocol server (``erpdata
mcp``; needs ``erpdata[mcp]``).

Assistants (desktop apps, IDE agents, a company's own agent) start it over
stdio, or reach it over streamable HTTP; either way the ERP's access
token stays with the server: it is read from the environment or a file,
sent only to the ERP, and never appears in a tool list, an argument, a
result, an error or a log line.

The tools are made from the core's catalogue of operations (adding an
operation adds its tool), plus the flows over many accounts (``aging``,
``credit_status``, ``dues_table``) and read-only SQL over the ERP's
tables (``describe_table``, ``query``). See docs/assistants.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._models import missing_extra

if TYPE_CHECKING:
    from ._server import build_server, serve_http, serve_stdio
    from ._tools import Limits

__all__ = ["Limits", "build_server", "serve_stdio", "serve_http"]


def __getattr__(name: str) -> Any:
    # Imported on first use, so that `erpdata mcp --help` (whose options
    # live in this package) works without the extra, and a missing
    # dependency is named with the pip command that installs it.
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        from . import _server, _tools
    except ImportError as exc:
        raise missing_extra(exc, "erpdata mcp", "mcp") from exc
    return getattr(_tools if name == "Limits" else _server, name)
