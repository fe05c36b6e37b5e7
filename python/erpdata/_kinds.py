"""The two kinds of dues the service reports."""

from __future__ import annotations

from enum import Enum

__all__ = ["DuesKind"]


class DuesKind(str, Enum):
    """Which side of the ledger a dues query asks for.

    A ``str`` too, so ``"RECEIPT"`` and ``DuesKind.RECEIPT`` are
    interchangeable (the core also accepts any case).
    """

    RECEIPT = "RECEIPT"
    """Outstanding receivables: what a customer owes."""
    PAYMENT = "PAYMENT"
    """Outstanding payables: what is owed to a supplier."""

    def __str__(self) -> str:
        # Same on every Python version (3.11 changed str() of mixed enums).
        return self.value
