"""``erpdata mcp``'s options and what it does with them. This module
imports nothing of the extra, so ``erpdata mcp --help`` works without it;
running the server imports it (or says which extra installs it)."""

from __future__ import annotations

import argparse
import ipaddress
import logging
import math
import sys
from typing import TYPE_CHECKING, Callable

from .. import InvalidInputError
from .._token_file import read_token_file

if TYPE_CHECKING:
    from .. import Client

__all__ = ["add_options", "run", "is_loopback"]


def is_loopback(host: str) -> bool:
    """Whether ``host`` is an address of this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _positive(kind: type[int] | type[float]) -> Callable[[str], float]:
    def parse(text: str) -> float:
        # Text that is not a number raises ValueError, which argparse
        # reports as "invalid int value" and the CLI's parser says without
        # the text: it may be the token, pasted after the wrong option.
        value = kind(text)
        if not 0 < value < math.inf:
            wanted = "at least 1" if kind is int else "a finite number above 0"
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {value}")
        return value

    parse.__name__ = kind.__name__
    return parse


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``erpdata mcp`` (the connection options are the
    CLI's own)."""
    serving = parser.add_argument_group("serving (default: stdio, as desktop assistants start it)")
    serving.add_argument(
        "--http",
        action="store_true",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio",
    )
    serving.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on with --http [127.0.0.1]; any other than loopback "
        "needs --mcp-token-file",
    )
    serving.add_argument(
        "--port", type=int, default=8000, help="port with --http; 0 picks a free one [8000]"
    )
    serving.add_argument(
        "--mcp-token-file",
        metavar="FILE",
        help="a file holding the bearer token MCP clients must send with --http "
        "(Authorization: Bearer ...); not the ERP's access token",
    )
    serving.add_argument(
        "--list-tools",
        action="store_true",
        help="print the tools an assistant is offered, one a line, and exit",
    )
    answers = parser.add_argument_group("answers")
    answers.add_argument(
        "--company-id", metavar="ID", help="company the tools default to [ERPDATA_COMPANY_ID]"
    )
    answers.add_argument(
        "--year-id", metavar="ID", help="financial year the tools default to [ERPDATA_YEAR_ID]"
    )
    answers.add_argument(
        "--max-rows",
        type=_positive(int),
        default=100,
        metavar="N",
        help="rows shown in an answer; the rest are counted [100]",
    )
    answers.add_argument(
        "--cache-seconds",
        type=_positive(float),
        default=300.0,
        metavar="S",
        help="how long a table fetched for SQL is reused before it is fetched again [300]",
    )
    answers.add_argument(
        "--query-seconds",
        type=_positive(float),
        default=10.0,
        metavar="S",
        help="how long one SQL statement may run [10]",
    )


def _mcp_token(args: argparse.Namespace, client: Client) -> str | None:
    if args.mcp_token_file is None:
        return None
    token = read_token_file(args.mcp_token_file, "--mcp-token-file")
    # Told by the client's redaction, which finds the ERP's token in any
    # text: the server's frames need not hold that token to compare.
    if client._config.redact(token) != token:
        raise InvalidInputError(
            "--mcp-token-file holds the ERP's access token; give MCP clients a token of "
            "their own (e.g. `openssl rand -hex 32`), so the ERP's never leaves the server",
            field="--mcp-token-file",
        )
    return token


def _check(args: argparse.Namespace) -> None:
    if not args.http:
        for option, given in (
            ("--mcp-token-file", args.mcp_token_file is not None),
            ("--host", args.host != "127.0.0.1"),
            ("--port", args.port != 8000),
        ):
            if given:
                raise InvalidInputError(f"{option} needs --http", field=option)
    elif args.mcp_token_file is None and not is_loopback(args.host):
        raise InvalidInputError(
            # The value is not repeated: a token pasted after the wrong
            # option would be printed.
            "--host names a host that is not loopback: serving there needs "
            "--mcp-token-file, a bearer token every MCP client must send",
            field="--mcp-token-file",
        )


def run(args: argparse.Namespace, client: Client) -> int:
    """Serves until stdin closes (stdio) or the process is interrupted
    (HTTP); returns the exit code."""
    _check(args)
    mcp_token = _mcp_token(args, client)
    if not logging.getLogger().handlers:
        # Warnings and errors only, on stderr (stdout is the protocol's);
        # -v logs each tool call and request.
        logging.basicConfig(
            stream=sys.stderr, level=logging.WARNING, format="erpdata mcp: %(message)s"
        )
    from . import Limits, build_server, serve_http, serve_stdio

    limits = Limits(
        max_rows=args.max_rows,
        cache_seconds=args.cache_seconds,
        query_seconds=args.query_seconds,
    )
    server = build_server(client, limits)
    if args.list_tools:
        import anyio

        for tool in anyio.run(server.list_tools):
            print(f"{tool.name}: {tool.title}")
        return 0
    if args.http:
        serve_http(
            server,
            host=args.host,
            port=args.port,
            bearer_token=mcp_token,
            access_log=args.verbose > 0,
        )
    else:
        serve_stdio(server)
    return 0
