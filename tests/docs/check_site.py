"""Opens the pages of the built documentation in headless Chromium and
checks every page (``make test-docs``).

    python tests/docs/check_site.py CHROMIUM DOCS_DIR

DOCS_DIR is served over HTTP on loopback (as the pages are meant to be
read); one Chromium, driven over the DevTools protocol on a pipe (no
dependency beyond the standard library), loads each ``*.html`` (two
browsers at once, ``TEST_DOCS_BROWSERS``) and, once it has loaded and run its
scripts, reads the rendered DOM.

rustdoc writes one page per item and per source file (over 300 of the 400
pages), all from the same templates and scripts: Chromium opens its index,
module and help pages, its type aliases' pages (a script writes their
implementations) and the first page of each other kind (a struct, an enum,
a source file...), which is where a script or stylesheet would fail, and the
other item pages are read from their HTML for their text, anchors and
links, checked as the opened pages' are (``TEST_DOCS_ALL=1`` opens every
page in Chromium, at about 0.6 s a page). A page fails when:

- it does not load, or its body has no text;
- a script throws an uncaught exception, or the browser logs an error (a
  stylesheet, script or image that cannot be loaded included);
- a link within the documentation points at a file that does not exist, or its ``#anchor`` is no ``id`` (or ``<a name>``) of the page
  it points at. Links with a scheme (https, mailto) are counted, not
  followed: the documentation is checked offline.

Prints one line per failure and a summary; exits 1 if anything failed.
"""

from __future__ import annotations

import functools
import html.parser
import http.server
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urljoin, urlsplit

LOAD_TIMEOUT = 20.0
SETTLE = 0.05  # scripts that run right after the load event (rustdoc's sidebar)

# What the page looks like once rendered: its text, links and anchors.
PROBE = """(() => {
  const ids = [...document.querySelectorAll("[id]")].map((e) => e.id);
  const names = [...document.querySelectorAll("a[name]")].map((e) => e.getAttribute("name"));
  // rustdoc copies other crates' documentation into trait implementations
  // (std, tracing, futures); links in those copies are marked.
  const copied = "#trait-implementations-list, #blanket-implementations-list, #synthetic-implementations-list";
  const links = [...document.querySelectorAll("a[href], link[href]")]
    .map((e) => [e.getAttribute("href"), e.href, e.closest(copied) !== null
      // a type alias's page shows the aliased type's own implementations
      || (document.querySelector("h1 .type") !== null && e.closest("#implementations-list") !== null)]);
  const refresh = document.querySelector('meta[http-equiv="refresh" i]');
  return JSON.stringify({
    url: location.href,
    text: document.body ? document.body.textContent.trim().length : 0,
    redirect: refresh !== null,
    title: document.title,
    ids: ids.concat(names),
    links,
  });
})()"""


class Browser:
    """Chromium with ``--remote-debugging-pipe``: commands on its fd 3,
    answers and events on its fd 4, each a JSON text ended by a NUL."""

    def __init__(self, binary: str) -> None:
        self.profile = tempfile.TemporaryDirectory(prefix="erpdata-docs-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        args = [
            binary,
            "--headless=new",
            "--remote-debugging-pipe",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--mute-audio",
            # Every tab is loading a page: none may be throttled as a background tab.
            "--disable-background-timer-throttling",
            "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows",
            f"--user-data-dir={self.profile.name}",
            "about:blank",
        ]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run as root otherwise
        # The shell moves the pipes to the descriptors Chromium reads and writes.
        log = open(Path(self.profile.name) / "stderr.txt", "wb")  # noqa: SIM115
        self.process = subprocess.Popen(
            ["bash", "-c", f'exec "$@" 3<&{to_browser_r} 4>&{from_browser_w}', "bash", *args],
            pass_fds=(to_browser_r, from_browser_w),
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        log.close()
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id = 0
        self._answers: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self.events: dict[str | None, queue.Queue[dict[str, Any]]] = {None: queue.Queue()}
        threading.Thread(target=self._read, daemon=True).start()

    def queue_for(self, session: str | None) -> queue.Queue[dict[str, Any]]:
        with self._lock:
            return self.events.setdefault(session, queue.Queue())

    def _read(self) -> None:
        buffer = b""
        while True:
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                with self._lock:
                    waiting = list(self.events.values())
                for events in waiting:
                    events.put({"method": "closed"})
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                if "id" in message:
                    with self._lock:
                        answer = self._answers.get(message["id"])
                    if answer is not None:
                        answer.put(message)
                else:
                    self.queue_for(message.get("sessionId")).put(message)

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = LOAD_TIMEOUT,
    ) -> dict[str, Any]:
        with self._lock:
            self._next_id += 1
            ident = self._next_id
            answer: queue.Queue[dict[str, Any]] = queue.Queue()
            self._answers[ident] = answer
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        try:
            reply = answer.get(timeout=timeout)
        except queue.Empty:
            raise RuntimeError(f"no answer to {method} within {timeout} s") from None
        finally:
            with self._lock:
                del self._answers[ident]
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error'].get('message')}")
        return dict(reply.get("result", {}))

    def last_words(self) -> str:
        """The end of what the browser printed, to say why it stopped."""
        code = self.process.poll()
        try:
            text = (Path(self.profile.name) / "stderr.txt").read_text(errors="replace").strip()
        except OSError:
            text = ""
        tail = " | ".join(text.splitlines()[-3:]) or "nothing on stderr"
        return f"exit status {code}: {tail}" if code is not None else f"still running: {tail}"

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.profile.cleanup()


def open_page(browser: Browser) -> str:
    target = browser.send("Target.createTarget", {"url": "about:blank"}, timeout=60)["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
        "sessionId"
    ]
    for domain in ("Page.enable", "Runtime.enable", "Log.enable"):
        browser.send(domain, session=session)
    return str(session)


def drain(events: queue.Queue[dict[str, Any]]) -> None:
    while True:
        try:
            events.get_nowait()
        except queue.Empty:
            return


def loaded_by_state(browser: Browser, session: str, url: str) -> bool:
    state = (
        browser.send(
            "Runtime.evaluate",
            {
                "expression": "JSON.stringify([document.readyState, location.href])",
                "returnByValue": True,
            },
            session=session,
        )
        .get("result", {})
        .get("value")
    )
    if not isinstance(state, str):
        return False
    ready, href = json.loads(state)
    return bool(ready == "complete" and href.split("#")[0] == url.split("#")[0])


def visit(browser: Browser, session: str, url: str) -> tuple[dict[str, Any] | None, list[str]]:
    """Loads ``url``; returns what PROBE saw, and the problems met."""
    events = browser.queue_for(session)
    drain(events)
    problems: list[str] = []
    answer = browser.send("Page.navigate", {"url": url}, session=session)
    if answer.get("errorText"):
        return None, [f"does not load: {answer['errorText']}"]
    deadline = time.monotonic() + LOAD_TIMEOUT
    loaded = False
    settle_until = None
    while True:
        now = time.monotonic()
        if settle_until is not None and now >= settle_until:
            break
        if now >= deadline:
            problems.append(f"no load event within {LOAD_TIMEOUT:.0f} s")
            break
        wait = min((settle_until or deadline) - now, 0.5)
        try:
            event = events.get(timeout=max(wait, 0.001))
        except queue.Empty:
            if not loaded and loaded_by_state(browser, session, url):
                # The load event can be missed while several tabs load at
                # once; the document says it has loaded all the same.
                loaded = True
                settle_until = time.monotonic() + SETTLE
            continue
        method = event.get("method")
        params = event.get("params", {})
        if method == "Page.loadEventFired" and not loaded:
            loaded = True
            settle_until = time.monotonic() + SETTLE
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text", "")
            problems.append(f"script error: {text.splitlines()[0] if text else details}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            problems.append(f"browser error: {entry.get('text')} {entry.get('url', '')}".strip())
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            args = " ".join(
                str(a.get("value", a.get("description", ""))) for a in params.get("args", [])
            )
            problems.append(f"console.error: {args}")
        elif method == "closed":
            raise RuntimeError("Chromium exited")
    result = browser.send(
        "Runtime.evaluate", {"expression": PROBE, "returnByValue": True}, session=session
    )
    value = result.get("result", {}).get("value")
    if not isinstance(value, str):
        return None, problems + [f"could not read the page: {result}"]
    return json.loads(value), problems


# rustdoc's regions that copy another crate's documentation (as PROBE marks them).
COPIED_REGIONS = {
    "trait-implementations-list",
    "blanket-implementations-list",
    "synthetic-implementations-list",
}
VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


class PageHtml(html.parser.HTMLParser):
    """What PROBE reads from a rendered page, read from the page's HTML: the
    ids and ``a[name]``s, the ``a``/``link`` hrefs (resolved against the
    page's URL, and whether they sit in a copied region) and the text."""

    def __init__(self, url: str, type_alias: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.url = url
        self.type_alias = type_alias
        self.open: list[tuple[str, bool]] = []  # tag, inside a copied region
        self.ids: list[str] = []
        self.links: list[tuple[str, str, bool]] = []
        self.text = 0
        self.redirect = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        copied = bool(self.open and self.open[-1][1])
        ident = found.get("id")
        if ident is not None:
            self.ids.append(ident)
            copied = copied or ident in COPIED_REGIONS
            copied = copied or (self.type_alias and ident == "implementations-list")
        if tag == "a" and "name" in found:
            self.ids.append(found["name"])
        if tag in ("a", "link") and "href" in found:
            self.links.append((found["href"], urljoin(self.url, found["href"]), copied))
        if tag == "meta" and found.get("http-equiv", "").lower() == "refresh":
            self.redirect = True
        if tag not in VOID:
            self.open.append((tag, copied))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.open.pop()

    def handle_endtag(self, tag: str) -> None:
        # An element left open closes with its parent, as a browser does.
        for depth in range(len(self.open) - 1, -1, -1):
            if self.open[depth][0] == tag:
                del self.open[depth:]
                return

    def handle_data(self, data: str) -> None:
        if not any(tag in ("script", "style", "head") for tag, _ in self.open):
            self.text += len(data.strip())


def read_html(page: Path, url: str) -> dict[str, Any]:
    """A page's PROBE result from its HTML, without a browser."""
    parser = PageHtml(url, type_alias=page.name.startswith("type."))
    parser.feed(page.read_text(encoding="utf-8", errors="replace"))
    parser.close()
    return {
        "url": url,
        "text": parser.text,
        "redirect": parser.redirect,
        "ids": parser.ids,
        "links": parser.links,
    }


def browsed(pages: list[Path], docs: Path) -> list[Path]:
    """The pages Chromium opens: all but redirect pages and rustdoc's item
    and source pages, of which the first of each kind."""
    if os.environ.get("TEST_DOCS_ALL"):
        return list(pages)
    kinds: set[str] = set()
    chosen = []
    for page in pages:
        name = page.relative_to(docs).as_posix()
        if b'http-equiv="refresh"' in page.read_bytes()[:2048].lower():
            # A redirect page moves on at once: evaluated in Chromium it
            # races the navigation. Its HTML names its target, which the
            # link check then finds.
            continue
        if name.startswith("rust/src/"):
            kind = "src"
        elif name.startswith("rust/") and "." in page.stem and not page.name.startswith("type."):
            kind = page.stem.split(".", 1)[0]  # struct, enum, fn, constant, trait...
        else:
            # A type alias's page gets the aliased type's implementations
            # from a script: only a browser sees its anchors.
            chosen.append(page)
            continue
        if kind not in kinds:
            kinds.add(kind)
            chosen.append(page)
    return chosen


# Links known to be broken in generated pages, each with the reason; they
# are counted, and printed as KNOWN, not failures. Keys: (page prefix, href).
KNOWN: dict[tuple[str, str], str] = {}


class QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A browser closed while a page was still loading resets its
        # connections; that says nothing about the pages.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        # Uncached: tabs asking for the same script at once would otherwise
        # wait on the browser's cache lock (20 s) for one another.
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


def serve(docs: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """DOCS_DIR over HTTP on loopback: as the pages are meant to be read
    (a file: page may not load another file's SVG icons, as TypeDoc's do)."""
    handler = functools.partial(Quiet, directory=str(docs))
    server = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def main() -> int:
    binary, docs = sys.argv[1], Path(sys.argv[2]).resolve()
    tabs = int(os.environ.get("TEST_DOCS_BROWSERS", "2"))
    pages = sorted(docs.rglob("*.html"))
    if not pages:
        print(f"test-docs: no pages under {docs}: run make docs")
        return 1
    started = time.monotonic()
    server, base = serve(docs)
    origin = urlsplit(base).netloc

    def url_of(page: Path) -> str:
        return base + "/" + quote(page.relative_to(docs).as_posix())

    def file_of(url: str) -> Path:
        return (docs / unquote(urlsplit(url).path).lstrip("/")).resolve()

    seen: dict[Path, dict[str, Any]] = {}
    failures: list[str] = []
    todo: queue.Queue[Path] = queue.Queue()
    opened = browsed(pages, docs)
    for page in opened:
        todo.put(page)

    def record(page: Path, info: dict[str, Any]) -> None:
        name = page.relative_to(docs).as_posix()
        redirect = b'http-equiv="refresh"' in page.read_bytes()[:2048].lower()
        if info["text"] == 0 and not redirect:
            failures.append(f"{name}: the body has no text")
        # A redirect page (rustdoc has some) ends on another file.
        info["file"] = file_of(info["url"])
        info["name"] = name
        seen[page] = info

    for page in sorted(set(pages) - set(opened)):
        record(page, read_html(page, url_of(page)))

    def worker() -> None:
        # One browser per worker, with one tab: tabs of one browser loading
        # at once sometimes never finish loading.
        # A busy machine may start one browser too slowly: it gets a second
        # chance, then the others take its pages (a page no browser opened
        # fails below).
        for attempt in (1, 2):
            browser = Browser(binary)
            try:
                session = open_page(browser)
                break
            except (RuntimeError, OSError) as exc:
                said = browser.last_words()
                browser.close()
                if attempt == 2:
                    print(
                        f"test-docs: a browser did not start ({exc!r}; {said}); going on with the others"
                    )
                    return
        while True:
            try:
                page = todo.get_nowait()
            except queue.Empty:
                browser.close()
                return
            began = time.monotonic()
            try:
                info, problems = visit(browser, session, url_of(page))
            except RuntimeError as exc:
                info, problems = None, [str(exc)]
            if os.environ.get("TEST_DOCS_TIMES"):
                print(f"{time.monotonic() - began:6.2f} s {page.relative_to(docs)}")
            name = page.relative_to(docs).as_posix()
            failures.extend(f"{name}: {p}" for p in problems)
            if info is not None:
                record(page, info)

    try:
        threads = [threading.Thread(target=worker) for _ in range(max(1, tabs))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        server.shutdown()
    # Anchors of a file: from its own visit; a page that redirected (a meta
    # refresh, read perhaps mid-way) only for a file not visited itself.
    failures.extend(
        f"{p.relative_to(docs).as_posix()}: not opened (no browser started)"
        for p in pages
        if p not in seen and todo.qsize()
    )
    by_file = {page: info for page, info in seen.items() if info["file"] == page}
    for info in seen.values():
        by_file.setdefault(info["file"], info)

    external = internal = anchors = copied = 0
    known: dict[str, str] = {}
    for info in seen.values():
        name = info["name"]
        for raw, resolved, in_copy in info["links"]:
            parts = urlsplit(resolved)
            reason = next(
                (
                    why
                    for (prefix, href), why in KNOWN.items()
                    if name.startswith(prefix) and raw == href
                ),
                None,
            )
            if reason is not None:
                known[f"{name}: {raw}"] = reason
                continue
            if (
                parts.scheme in ("http", "https")
                and parts.netloc != origin
                or parts.scheme in ("mailto", "data")
            ):
                external += 1
                continue
            # rustdoc's copies of another crate's text are not checked further
            # when they fail: that text's links point into that crate's docs.
            lenient = name.startswith("rust/") and in_copy

            def bad(message: str, lenient: bool = lenient) -> None:
                nonlocal copied
                if lenient:
                    copied += 1
                else:
                    failures.append(message)

            if parts.scheme in ("javascript", "about"):
                continue
            if parts.scheme != "http":
                bad(f"{name}: link {raw!r}: not a URL a browser can follow ({parts.scheme}:)")
                continue
            internal += 1
            target = file_of(resolved)
            if not target.is_relative_to(docs):
                bad(f"{name}: link {raw!r} leaves the documentation")
                continue
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                bad(f"{name}: link {raw!r}: {target.relative_to(docs)} does not exist")
                continue
            fragment = parts.fragment
            if not fragment or target.suffix != ".html":
                continue
            anchors += 1
            target_info = by_file.get(target)
            if target_info is None:
                bad(f"{name}: link {raw!r}: {target.relative_to(docs)} was not opened")
                continue
            ids = set(target_info["ids"])
            # As a browser does: the fragment as written, else percent-decoded.
            if fragment in ids or unquote(fragment) in ids:
                continue
            # rustdoc's source pages take line ranges (#38-40), read by their script.
            first = fragment.split("-", 1)[0]
            if "/src/" in target.as_posix() and first.isdigit() and first in ids:
                continue
            bad(f"{name}: link {raw!r}: no anchor #{fragment} in {target.relative_to(docs)}")

    failures = [
        f for f in failures if not f.endswith("/favicon.ico")
    ]  # the browser asks every site
    for line, why in sorted(known.items()):
        print(f"test-docs: KNOWN {line} ({why})")
    for line in sorted(set(failures)):
        print(f"test-docs: FAIL {line}")
    print(
        f"test-docs: {len(pages)} pages ({len(opened)} opened in Chromium, the other rustdoc "
        f"pages read from their HTML), {internal} internal links "
        f"({anchors} with anchors) resolved, {external} external links not followed, "
        f"{copied} broken links in rustdoc's copies of other crates' docs and {len(known)} known broken "
        f"links not checked, {len(set(failures))} failures, "
        f"{time.monotonic() - started:.1f} s"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
