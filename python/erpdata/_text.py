"""Values as erpdata writes them out as text: the command line's CSV and
JSON, the terminal and HTML reports, notebooks, workbook cells."""

from __future__ import annotations

from decimal import Decimal

__all__ = ["decimal_text"]


def decimal_text(value: Decimal) -> str:
    """``value``'s digits at its scale, as the service sent them.

    ``str`` switches to exponent form below 1E-6: a zero of scale 8 (an
    exchange rate or quantity column, a DOUBLE of 1.0e-7) is ``0E-8``,
    ``0.00000012`` is ``1.2E-7``, which a spreadsheet or a database reads
    as a float, not the column's fixed point. ``str`` is kept where it has
    no exponent: it is the fast path of a million rows."""
    text = str(value)
    # "E" only in the exponent form (NaN and Infinity have none).
    return format(value, "f") if "E" in text else text
