"""The httpx client a Client makes for itself, with one shared TLS context.

httpx builds a new ``ssl.SSLContext`` for every client and loads the whole
CA bundle into it: about 45 ms of CPU a client, more than most calls take.
A context may serve any number of clients and threads, so the clients
share one for each trust setting httpx reads (the ``SSL_CERT_FILE`` or
``SSL_CERT_DIR`` variable, else certifi's bundle), made on first use."""

from __future__ import annotations

import os
import ssl
import threading
from typing import TypeVar

import httpx

__all__ = ["new_http", "default_context"]

_Http = TypeVar("_Http", httpx.Client, httpx.AsyncClient)

_contexts: dict[tuple[str | None, str | None], ssl.SSLContext] = {}
_lock = threading.Lock()


def default_context() -> ssl.SSLContext:
    """httpx's default context for the trust setting in effect now."""
    key = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    with _lock:
        context = _contexts.get(key)
        if context is None:
            context = _contexts[key] = httpx.create_ssl_context()
        return context


def new_http(
    http_class: type[_Http], context: ssl.SSLContext | None = None, *, proxy_allowed: bool = True
) -> _Http:
    """A client of ``http_class`` as httpx makes one by default, except that
    it never follows a redirect (the core decides), shares its TLS context
    (``context``, else the one for the trust setting in effect), and,
    unless ``proxy_allowed``, never goes through the proxy that
    ``HTTP_PROXY``, ``HTTPS_PROXY`` or ``ALL_PROXY`` names: to a loopback
    service, plain http with the token is allowed only because the request
    never leaves the machine, and through a proxy it went, token included,
    to the proxy's host. (The context is given, so ``trust_env`` decides
    nothing else.)"""
    return http_class(
        follow_redirects=False, verify=context or default_context(), trust_env=proxy_allowed
    )
