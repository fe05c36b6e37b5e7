"""A token read from a file the command line names: ``--access-token-file``
(the ERP's token) and ``erpdata mcp``'s ``--mcp-token-file`` (the one MCP
clients send)."""

from __future__ import annotations

from pathlib import Path

from ._errors import InvalidInputError


def read_token_file(path: str, option: str) -> str:
    """The token in the file at ``path``, given by ``option``: its UTF-8
    text without the line end or a byte order mark (Windows editors save
    one). Refused with an :class:`InvalidInputError` naming ``option``; the
    path is not repeated (given the token itself by mistake, it would be
    the token), nor are the bytes of a file that is not text."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as exc:
        hint = (
            " (it takes the path of a file holding the token, not the token)"
            if isinstance(exc, FileNotFoundError)
            else ""
        )
        raise InvalidInputError(
            f"cannot read {option}: {exc.strerror}{hint}", field=option
        ) from None
    except UnicodeDecodeError:
        # Not the decoder's message: it quotes the bytes around the fault.
        raise InvalidInputError(
            f"cannot read {option}: it is not UTF-8 text "
            "(it takes a text file holding the token alone)",
            field=option,
        ) from None
    token = text.strip()
    if not token:
        raise InvalidInputError(f"{option} is empty", field=option)
    return token
