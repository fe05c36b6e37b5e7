"""Looking for the access token in text a user could see: every form it
could leak in (as given, and URL-encoded both ways)."""

from __future__ import annotations

import os
import traceback
import urllib.parse

__all__ = ["forms", "assert_clean", "error_text", "package_frames"]


def forms(token: str) -> tuple[str, ...]:
    """``token`` as given and in each URL encoding (form and path)."""
    return tuple(
        dict.fromkeys((token, urllib.parse.quote_plus(token), urllib.parse.quote(token, safe="")))
    )


def assert_clean(text: str, *tokens: str) -> None:
    """No form of any of ``tokens`` appears in ``text``."""
    for token in tokens:
        for form in forms(token):
            assert form not in text, f"a form of the token leaked: {form!r}"


def error_text(err: BaseException) -> str:
    """Everything an exception shows: traceback (with its chain), ``str``,
    ``repr``, ``args`` and attributes."""
    shown = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    return "\n".join([shown, str(err), repr(err), repr(err.args), repr(vars(err))])


def package_frames(err: BaseException) -> str:
    """The frames of erpdata's own code in ``err``'s traceback and in those
    of its causes and contexts, printed with their locals, as Sentry
    prints a traceback by default."""
    shown = []
    seen: set[int] = set()
    todo: list[BaseException | None] = [err]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        frames = [
            (frame, line)
            for frame, line in traceback.walk_tb(e.__traceback__)
            if f"{os.sep}erpdata{os.sep}" in frame.f_code.co_filename
        ]
        shown.append(
            "".join(traceback.StackSummary.extract(iter(frames), capture_locals=True).format())
        )
        todo += [e.__cause__, e.__context__]
    return "".join(shown)
