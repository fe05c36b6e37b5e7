"""The ``erpdata`` logger, and redaction of httpx's own log lines.

Every line erpdata logs passes through the core's redaction first. httpx
logs each request's URL at INFO, and for the GET form of the table fetch
that URL holds the token, so httpx's lines are redacted too.
"""

from __future__ import annotations

import logging
import threading
import weakref

from ._core import Config

__all__ = ["logger", "watch"]

logger = logging.getLogger("erpdata")
"""Each request and answer at DEBUG, each wait before another attempt at
INFO, as the core's call asks for them."""


class _RedactHttpxLog(logging.Filter):
    """Passes httpx's log lines through the redaction of every live client's
    configuration."""

    def __init__(self) -> None:
        super().__init__()
        # The live configurations, as a tuple replaced whole: httpx logs
        # from every thread that sends (a fan-out's workers) while other
        # threads make clients, and a set read while another thread adds
        # to it raises "Set changed size during iteration". The filter
        # reads the tuple without a lock: reading allocates, which may run
        # the garbage collector on that thread, whose finalizers (an unread
        # httpx answer closed) log through this filter again; under a lock
        # that thread deadlocked on itself, and every thread after it.
        self.refs: tuple[weakref.ref[Config], ...] = ()
        self.lock = threading.Lock()  # between threads adding

    def add(self, config: Config) -> None:
        with self.lock:
            live = tuple(ref for ref in self.refs if ref() is not None)
            self.refs = (*live, weakref.ref(config))

    def filter(self, record: logging.LogRecord) -> bool:
        configs = [config for config in (ref() for ref in self.refs) if config is not None]
        if configs:
            text = record.getMessage()
            redacted = text
            for config in configs:
                redacted = config.redact(redacted)
            if redacted != text:
                record.msg, record.args = redacted, None
        return True


_FILTER = _RedactHttpxLog()
for _name in ("httpx", "httpcore", "httpcore.http11", "httpcore.connection", "httpcore.proxy"):
    # A logger's filters do not apply to its children's records, so each
    # logger that formats request details gets the filter itself.
    logging.getLogger(_name).addFilter(_FILTER)


def watch(config: Config) -> None:
    """Redacts ``config``'s token from httpx's log lines while it lives."""
    if config.has_access_token:
        _FILTER.add(config)
