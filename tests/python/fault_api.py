"""The sandbox's fault API (requests counted and recorded per KEY): what a
fault-injection test reads back after its calls."""

from __future__ import annotations

import itertools
import os
from typing import Any, Optional, cast

import httpx

__all__ = ["prefix", "new_key", "count", "log", "total"]

_SERIAL = itertools.count(1)


def new_key(*parts: str) -> str:
    """A KEY no other test (nor language, nor run of this process) uses."""
    return "-".join(["py", *parts, str(os.getpid()), str(next(_SERIAL))])


def prefix(base_url: str, fault: str, key: str) -> str:
    """The base URL of a client that meets ``fault``, counted under ``key``."""
    return f"{base_url.rstrip('/')}/_faults/{fault}/{key}/"


def _get(base_url: str, path: str, http: Optional[httpx.Client]) -> httpx.Response:
    url = f"{base_url.rstrip('/')}/_faults/{path}"
    if http is not None:
        response = http.get(url, timeout=10)
    else:
        response = httpx.get(url, timeout=10)
    response.raise_for_status()
    return response


def count(base_url: str, key: str, http: Optional[httpx.Client] = None) -> int:
    """Requests the sandbox at ``base_url`` saw under ``key``."""
    return int(_get(base_url, f"count/{key}", http).text)


def log(base_url: str, key: str, http: Optional[httpx.Client] = None) -> list[dict[str, Any]]:
    """What each request under ``key`` carried: method, path, query,
    headers (lower-cased) and body, in arrival order."""
    return cast(list[dict[str, Any]], _get(base_url, f"log/{key}", http).json())


def total(base_url: str, http: Optional[httpx.Client] = None) -> int:
    """Every request the sandbox has seen (the fault API's reads excluded)."""
    return int(_get(base_url, "total", http).text)
