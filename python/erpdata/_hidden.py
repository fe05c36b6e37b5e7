"""Settings that travel through frames with the token among them.

A traceback printed with each frame's locals (Sentry's default,
``traceback.TracebackException(..., capture_locals=True)``) shows the
``repr`` of every dict a frame holds: the dlt source's settings and
Spark's options, held for a whole extraction, showed the token. The
client itself keeps the token in the core alone.
"""

from __future__ import annotations

from typing import Any

SHOWN_INSTEAD = "[REDACTED]"
"""What the ``repr`` shows instead of a token (the core's marker)."""


class Settings(dict[str, Any]):
    """A dict of settings whose ``repr`` withholds the value of every name
    that holds ``token`` in any case (``access_token``, ``accessToken``)."""

    def __repr__(self) -> str:
        shown = {
            name: SHOWN_INSTEAD if "token" in str(name).lower() and value is not None else value
            for name, value in self.items()
        }
        return f"{type(self).__name__}({shown!r})"
