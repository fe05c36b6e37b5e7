"""The httpx client a client makes for itself trusts what httpx's own
default would: the file or folder ``SSL_CERT_FILE`` or ``SSL_CERT_DIR``
names when the client is made, else certifi's bundle. The clients share
one TLS context for each such setting (loading the CA bundle costs about
45 ms a client), so these tests pin that sharing changes nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

import erpdata
from conftest import SECRET_TOKEN, TlsSandbox


def settings(url: str) -> dict[str, object]:
    return {
        "base_url": url,
        "project": "demo",
        "access_token": SECRET_TOKEN,
        "company_id": 1,
        "year_id": 2025,
        "timeout": 10,
        "max_retries": 0,
    }


def rows_over_tls(url: str) -> int:
    with erpdata.Client(**settings(url)) as client:  # type: ignore[arg-type]
        return len(client.table("account"))


async def rows_over_tls_async(url: str) -> int:
    async with erpdata.AsyncClient(**settings(url)) as client:  # type: ignore[arg-type]
        return len(await client.table("account"))


@pytest.fixture
def no_trust_setting(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    return monkeypatch


def test_the_certificate_file_in_the_environment_is_trusted_by_clients_made_after(
    tls_sandbox: TlsSandbox, no_trust_setting: pytest.MonkeyPatch
) -> None:
    # certifi's bundle first: the sandbox's self-signed certificate is refused.
    attempts: list[Callable[[], int]] = [
        lambda: rows_over_tls(tls_sandbox.url),
        lambda: asyncio.run(rows_over_tls_async(tls_sandbox.url)),
    ]
    for attempt in attempts:
        with pytest.raises(erpdata.TransportError) as info:
            attempt()
        assert "certificate" in str(info.value).lower()
        assert SECRET_TOKEN not in str(info.value)
    # Then the file naming it: clients made now trust it, sync and async.
    no_trust_setting.setenv("SSL_CERT_FILE", str(tls_sandbox.cert))
    assert rows_over_tls(tls_sandbox.url) > 0
    assert asyncio.run(rows_over_tls_async(tls_sandbox.url)) > 0
    # And without it again, certifi's bundle again.
    no_trust_setting.delenv("SSL_CERT_FILE")
    with pytest.raises(erpdata.TransportError):
        rows_over_tls(tls_sandbox.url)


def transport_errors_retried(url: str) -> list[erpdata.TransportError]:
    """The TransportError of a table read at `url` with three retries
    allowed, by a Client and by an AsyncClient."""
    retried = {**settings(url), "max_retries": 3}
    with erpdata.Client(**retried) as client:  # type: ignore[arg-type]
        with pytest.raises(erpdata.TransportError) as info:
            client.table("account")

    async def table_async() -> None:
        async with erpdata.AsyncClient(**retried) as client:  # type: ignore[arg-type]
            await client.table("account")

    with pytest.raises(erpdata.TransportError) as info_async:
        asyncio.run(table_async())
    return [info.value, info_async.value]


def test_a_certificate_not_trusted_is_a_tls_failure_sent_once(
    tls_sandbox: TlsSandbox, no_trust_setting: pytest.MonkeyPatch
) -> None:
    # Retrying would meet the same certificate: one request, kind "tls".
    for error in transport_errors_retried(tls_sandbox.url):
        assert error.transport_kind == "tls", str(error)
        assert error.attempts == 1, str(error)
        assert "TLS certificate of https://127.0.0.1" in str(error)
        assert "CERTIFICATE_VERIFY_FAILED" in str(error)


def test_clients_share_one_context_for_one_setting(
    tls_sandbox: TlsSandbox, no_trust_setting: pytest.MonkeyPatch
) -> None:
    def context(client: erpdata.Client | erpdata.AsyncClient) -> object:
        # An AsyncClient's httpx client is asked for outside any event loop.
        http = client._pool._http if isinstance(client, erpdata.AsyncClient) else client._http
        return http._transport._pool._ssl_context  # type: ignore[union-attr]

    nowhere = settings("http://127.0.0.1:9/")
    first = erpdata.Client(**nowhere)  # type: ignore[arg-type]
    second = erpdata.AsyncClient(**nowhere)  # type: ignore[arg-type]
    assert context(first) is context(second)
    no_trust_setting.setenv("SSL_CERT_FILE", str(tls_sandbox.cert))
    third = erpdata.Client(**nowhere)  # type: ignore[arg-type]
    assert context(third) is not context(first)
    for client in (first, third):
        client.close()
    asyncio.run(second.aclose())


def test_an_async_client_keeps_its_trust_in_a_later_event_loop(
    tls_sandbox: TlsSandbox, no_trust_setting: pytest.MonkeyPatch
) -> None:
    # The connections a later loop gets are made as the first were, with
    # the trust setting in effect when the client was made.
    no_trust_setting.setenv("SSL_CERT_FILE", str(tls_sandbox.cert))
    client = erpdata.AsyncClient(**settings(tls_sandbox.url))  # type: ignore[arg-type]
    no_trust_setting.delenv("SSL_CERT_FILE")

    async def rows() -> int:
        return len(await client.table("account"))

    assert asyncio.run(rows()) == asyncio.run(rows()) > 0
    asyncio.run(client.aclose())


def test_https_to_a_server_of_plain_http_says_so_and_is_sent_once(sandbox_url: str) -> None:
    # A base URL of https:// for a service without TLS (the sandbox here):
    # OpenSSL reads its HTTP answer as a TLS record and says "wrong version
    # number"; the message says what happened, and it is not retried.
    url = sandbox_url.replace("http://", "https://", 1)
    origin = url.rstrip("/")
    for error in transport_errors_retried(url):
        assert error.transport_kind == "tls", str(error)
        assert error.attempts == 1, str(error)
        assert f"{origin} answered in plain HTTP, not TLS" in str(error)
        assert "begins http://" in str(error)
        assert SECRET_TOKEN not in str(error)
