"""The sandbox's fault API (requests counted and recorded per KEY): what a
fault-injection test reads back after its calls."""

from __future__ import annotations

import http.client
import itertools
import json
import os
import threading
import time
import urllib.parse
from typing import Any, cast

import httpx

__all__ = ["prefix", "new_key", "count", "log", "total", "close_connections"]

_SERIAL = itertools.count(1)


def new_key(*parts: str) -> str:
    """A KEY no other test (nor language, nor run of this process) uses."""
    return "-".join(["py", *parts, str(os.getpid()), str(next(_SERIAL))])


def prefix(base_url: str, fault: str, key: str) -> str:
    """The base URL of a client that meets ``fault``, counted under ``key``."""
    return f"{base_url.rstrip('/')}/_faults/{fault}/{key}/"


_LOCAL = threading.local()
# Every thread's connections, so that those of a thread that has ended are
# closed too (close_connections), not left to the collector.
_OPENED: list[http.client.HTTPConnection] = []
_OPENED_LOCK = threading.Lock()


def close_connections() -> None:
    """Closes the connections every thread kept (at the session's end)."""
    with _OPENED_LOCK:
        opened = _OPENED[:]
        _OPENED.clear()
    for conn in opened:
        conn.close()


def _plain_get(url: str) -> bytes:
    """GET over a kept-alive ``http.client`` connection (one per thread
    and origin): a read of the fault API costs a fraction of an httpx
    request, which matters to tests that read it after every example."""
    parts = urllib.parse.urlsplit(url)
    connections: dict[str, http.client.HTTPConnection] = _LOCAL.__dict__.setdefault(
        "connections", {}
    )
    for attempt in range(2):
        conn = connections.get(parts.netloc)
        if conn is None:
            conn = connections[parts.netloc] = http.client.HTTPConnection(parts.netloc, timeout=10)
            with _OPENED_LOCK:
                _OPENED.append(conn)
        try:
            conn.request("GET", parts.path)
            response = conn.getresponse()
            body = response.read()
        except (http.client.HTTPException, OSError):
            conn.close()
            del connections[parts.netloc]
            if attempt:
                raise
            continue
        if response.status != 200:
            raise AssertionError(f"GET {url}: status {response.status}: {body[:200]!r}")
        return body
    raise AssertionError("unreachable")


def _get(base_url: str, path: str, http_client: httpx.Client | None) -> bytes:
    url = f"{base_url.rstrip('/')}/_faults/{path}"
    if http_client is None and url.startswith("http://"):
        return _plain_get(url)
    response = (http_client or httpx).get(url, timeout=10)
    response.raise_for_status()
    return response.content


def count(base_url: str, key: str, http_client: httpx.Client | None = None) -> int:
    """Requests the sandbox at ``base_url`` saw under ``key``."""
    return int(_get(base_url, f"count/{key}", http_client))


def wait_for(
    base_url: str, key: str, at_least: int = 1, seconds: float = 30.0, every: float = 0.05
) -> int:
    """Waits (at most ``seconds``) until the sandbox at ``base_url`` has seen
    ``at_least`` requests under ``key``: a process started to make them is
    then past its start (which a busy machine makes slow). The count."""
    deadline = time.monotonic() + seconds
    seen = count(base_url, key)
    while seen < at_least and time.monotonic() < deadline:
        time.sleep(every)
        seen = count(base_url, key)
    return seen


def log(base_url: str, key: str, http_client: httpx.Client | None = None) -> list[dict[str, Any]]:
    """What each request under ``key`` carried: method, path, query,
    headers (lower-cased) and body, in arrival order."""
    return cast(list[dict[str, Any]], json.loads(_get(base_url, f"log/{key}", http_client)))


def total(base_url: str, http_client: httpx.Client | None = None) -> int:
    """Every request the sandbox has seen (the fault API's reads excluded)."""
    return int(_get(base_url, "total", http_client))
