"""The server: the tools on an MCP server, served over stdio or over
streamable HTTP behind a bearer token."""

from __future__ import annotations

import hmac
import socket
import sys
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from .. import Client, __version__
from ._options import is_loopback
from ._sql import TableStore
from ._tools import Limits, make_tools

__all__ = ["build_server", "serve_stdio", "serve_http", "BearerToken"]

INSTRUCTIONS = """\
Tools over a cloud ERP's data (read-only; the access token stays on this server).
- Receivables or payables by age, for all accounts or some, as of any day: `aging`.
- Customers over their credit limit, overdue since when: `credit_status`.
- One account's open documents: `dues`; many accounts': `dues_table`.
- Profit over a range, dues summary, payment days, accounts under a schedule: their tools.
- Anything else about the ERP's tables (sales_invoice, purchase_bill, receipt, payment,
  account, ...): `describe_table` for the columns, then `query` with one SELECT.
Money comes as exact decimal text and dates as ISO text; long answers are capped and say
how many rows were left out and how to narrow the question."""

PATH = "/mcp"


def build_server(client: Client, limits: Limits | None = None) -> MCPServer[Any]:
    """An MCP server whose tools ask the ERP through ``client`` (which it
    uses from worker threads, and does not close)."""
    limits = limits or Limits()
    store = TableStore(
        client,
        cache_seconds=limits.cache_seconds,
        query_seconds=limits.query_seconds,
        max_rows=limits.max_rows,
    )
    return MCPServer(
        "erpdata",
        title="ERP data (erpdata)",
        instructions=INSTRUCTIONS,
        version=__version__,
        tools=make_tools(client, limits, store),
        log_level="WARNING",
    )


def serve_stdio(server: MCPServer[Any]) -> None:
    """Serves one client over stdin and stdout until stdin closes."""
    anyio.run(server.run_stdio_async)


class BearerToken:
    """ASGI middleware: an HTTP request without ``Authorization: Bearer
    TOKEN`` (this server's MCP token, not the ERP's) gets 401 and never
    reaches the MCP app. The scheme's name is taken in any case, as HTTP
    has it (``bearer TOKEN`` too); the token must match exactly, compared
    in the same time whatever the header holds."""

    def __init__(self, app: Any, token: str) -> None:
        self._app = app
        self._expected = token.encode()

    def _allowed(self, header: bytes) -> bool:
        scheme, _, given = header.partition(b" ")
        # Compared in full whatever the scheme, so that the time taken
        # does not tell a right scheme from a wrong one either.
        matches = hmac.compare_digest(given, self._expected)
        return scheme.lower() == b"bearer" and matches

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = next((v for k, v in scope["headers"] if k == b"authorization"), b"")
            if not self._allowed(given):
                body = (
                    b'{"error":"invalid_token","error_description":'
                    b'"send this server\'s MCP token: Authorization: Bearer <token>"}'
                )
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="erpdata mcp"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self._app(scope, receive, send)


def serve_http(
    server: MCPServer[Any],
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    bearer_token: str | None = None,
    access_log: bool = False,
) -> None:
    """Serves streamable HTTP at ``http://HOST:PORT/mcp`` until
    interrupted, and says where on stderr once it listens (``port`` 0
    picks a free one). A host other than loopback needs ``bearer_token``;
    on loopback the SDK's Host and Origin checks apply too."""
    import uvicorn

    if bearer_token is None and not is_loopback(host):
        raise ValueError("an address other than loopback needs a bearer token")
    security = None
    if not is_loopback(host):
        # Behind a reverse proxy the Host header is the public name; the
        # bearer token, which a browser page cannot know, is the guard.
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app: Any = server.streamable_http_app(
        streamable_http_path=PATH, transport_security=security, host=host
    )
    if bearer_token is not None:
        app = BearerToken(app, bearer_token)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host.strip("[]"), port), family=family)
    bound = sock.getsockname()[1]
    shown = f"[{host.strip('[]')}]" if family == socket.AF_INET6 else host
    print(f"erpdata mcp: serving http://{shown}:{bound}{PATH}", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=access_log, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
