"""Carrying out a flow's operations (``_flow.py``) with httpx: the only
code that differs between ``Client`` and ``AsyncClient``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from typing import TypeVar

import httpx

from ._core import Batch
from ._flow import Close, Emit, Flow, Read, Result, Send, Sleep

__all__ = ["run", "run_stream", "arun", "arun_stream"]

T = TypeVar("T")


# -- sync ------------------------------------------------------------------------


def _perform(http: httpx.Client, op: object, opened: list[httpx.Response]) -> Result:
    try:
        if isinstance(op, Send):
            response = http.send(op.request, stream=True, follow_redirects=False)
            opened.append(response)
            return response
        if isinstance(op, Read):
            if op.body.chunks is None:
                op.body.chunks = op.body.response.iter_bytes()
            return next(op.body.chunks, b"")
    except httpx.HTTPError as exc:
        # Handed to the flow as a value, so the error it raises is not
        # chained to httpx's (which holds the request and its URL).
        return exc
    if isinstance(op, Sleep):
        time.sleep(op.seconds)
    elif isinstance(op, Close):
        op.response.close()
    else:
        raise TypeError(f"unknown operation {op!r}")
    return None


def run(http: httpx.Client, flow: Flow[T]) -> T:
    """Runs ``flow`` to its result; closes every answer it opened."""
    opened: list[httpx.Response] = []
    try:
        result: Result = None
        while True:
            try:
                op = flow.send(result)
            except StopIteration as stop:
                value: T = stop.value
                return value
            result = _perform(http, op, opened)
    finally:
        flow.close()
        for response in opened:
            response.close()


def run_stream(http: httpx.Client, flow: Flow[None]) -> Iterator[Batch]:
    """Runs ``flow``, yielding the batches it emits."""
    opened: list[httpx.Response] = []
    try:
        result: Result = None
        while True:
            try:
                op = flow.send(result)
            except StopIteration:
                return
            if isinstance(op, Emit):
                yield op.batch
                result = None
            else:
                result = _perform(http, op, opened)
    finally:
        flow.close()
        for response in opened:
            response.close()


# -- async -----------------------------------------------------------------------


async def _aperform(http: httpx.AsyncClient, op: object, opened: list[httpx.Response]) -> Result:
    try:
        if isinstance(op, Send):
            response = await http.send(op.request, stream=True, follow_redirects=False)
            opened.append(response)
            return response
        if isinstance(op, Read):
            if op.body.chunks is None:
                op.body.chunks = op.body.response.aiter_bytes()
            try:
                chunk: bytes = await op.body.chunks.__anext__()
            except StopAsyncIteration:
                return b""
            return chunk
    except httpx.HTTPError as exc:
        return exc
    if isinstance(op, Sleep):
        await asyncio.sleep(op.seconds)
    elif isinstance(op, Close):
        await op.response.aclose()
    else:
        raise TypeError(f"unknown operation {op!r}")
    return None


async def arun(http: httpx.AsyncClient, flow: Flow[T]) -> T:
    """Runs ``flow`` to its result; closes every answer it opened."""
    opened: list[httpx.Response] = []
    try:
        result: Result = None
        while True:
            try:
                op = flow.send(result)
            except StopIteration as stop:
                value: T = stop.value
                return value
            result = await _aperform(http, op, opened)
    finally:
        flow.close()
        for response in opened:
            await response.aclose()


async def arun_stream(http: httpx.AsyncClient, flow: Flow[None]) -> AsyncIterator[Batch]:
    """Runs ``flow``, yielding the batches it emits."""
    opened: list[httpx.Response] = []
    try:
        result: Result = None
        while True:
            try:
                op = flow.send(result)
            except StopIteration:
                return
            if isinstance(op, Emit):
                yield op.batch
                result = None
            else:
                result = await _aperform(http, op, opened)
    finally:
        flow.close()
        for response in opened:
            await response.aclose()
