"""Renders the markdown guides to HTML and writes the documentation's index
page (part of ``make docs``).

    python tests/docs/build_site.py OUT

Starting from README.md, docs/*.md and the three package pages, every
markdown page of the repository they link to (transitively) is rendered
to ``OUT/guides/<its path>.html``, so relative links keep working with
``.md`` turned into ``.html``. A link that leaves the repository, or points
at a file of the repository that is not rendered (a source file), fails the
build: the guides link only to each other. ``OUT/index.html`` links the
guides and the API references (``OUT/rust``, ``OUT/python``, ``OUT/js``),
which must already be there.

Headings get GitHub's anchors (lower case, punctuation dropped, spaces as
hyphens, ``-1``, ``-2`` for repeats), so the same links work on GitHub and
here.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import markdown2

ROOT = Path(__file__).resolve().parents[2]
ROOTS = [
    "README.md",
    *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")),
    "python/README.md",
    "js/README.md",
    "crates/erpdata/README.md",
]

API = [
    (
        "Rust: the erpdata crate (rustdoc, features reqwest, blocking, arrow, parallel)",
        "rust/erpdata/index.html",
    ),
    ("Python: the erpdata package (pdoc)", "python/erpdata.html"),
    ("JavaScript: the erpdata npm package (TypeDoc)", "js/index.html"),
]

STYLE = """
body { font: 16px/1.55 system-ui, sans-serif; max-width: 56rem; margin: 2rem auto; padding: 0 1rem; color: #1f2328; }
pre { background: #f6f8fa; padding: .8rem; overflow-x: auto; border-radius: 6px; font-size: 14px; }
code { font-size: 90%; } table { border-collapse: collapse; display: block; overflow-x: auto; }
th, td { border: 1px solid #d0d7de; padding: .3rem .6rem; vertical-align: top; }
nav { font-size: 14px; margin-bottom: 1.5rem; } a { color: #0969da; }
"""


def slug(text: str) -> str:
    """GitHub's heading anchor for a heading's text."""
    text = re.sub(r"<[^>]+>", "", html.unescape(text)).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


class Page(markdown2.Markdown):  # type: ignore[misc]  # markdown2 has no types
    """markdown2 with GitHub's heading anchors."""

    def reset(self) -> None:
        super().reset()
        self._seen: dict[str, int] = {}

    def header_id_from_text(self, text: str, prefix: str, n: int) -> str:  # noqa: ARG002
        base = slug(text)
        count = self._seen.get(base, 0)
        self._seen[base] = count + 1
        return base if count == 0 else f"{base}-{count}"


def render(markdown: str) -> str:
    # Fence info strings as rustdoc reads them (`rust,no_run`) name the
    # language for highlighting; <details> blocks are kept as such (markdown2
    # would wrap or escape them) through placeholders.
    markdown = re.sub(r"^```(\w+)[,\w]*$", r"```\1", markdown, flags=re.M)
    markdown = re.sub(
        r"^<details><summary>(.*)</summary>$", r"DETAILS-OPEN \1", markdown, flags=re.M
    )
    markdown = re.sub(r"^</details>$", "DETAILS-CLOSE", markdown, flags=re.M)
    page = Page(extras=["fenced-code-blocks", "tables", "header-ids", "strike", "cuddled-lists"])
    body = str(page.convert(markdown))
    body = re.sub(r"<p>DETAILS-OPEN (.*?)</p>", r"<details><summary>\1</summary>", body)
    return body.replace("<p>DETAILS-CLOSE</p>", "</details>")


def rewrite_links(body: str, source: str, wanted: set[str], errors: list[str]) -> str:
    """Turns links to markdown pages into links to their HTML; records every
    page linked to in ``wanted``, and every link that cannot work."""

    def one(match: re.Match[str]) -> str:
        href = html.unescape(match.group(2))
        parts = urlsplit(href)
        if parts.scheme or href.startswith("#") or href.startswith("//"):
            return match.group(0)
        target = (ROOT / Path(source).parent / unquote(parts.path)).resolve()
        try:
            relative = target.relative_to(ROOT).as_posix()
        except ValueError:
            errors.append(f"{source}: {href} leaves the repository")
            return match.group(0)
        if not target.exists():
            errors.append(f"{source}: {href}: no such file in the repository")
            return match.group(0)
        if target.suffix != ".md":
            errors.append(
                f"{source}: {href} is not a markdown page (mention paths as code, link only pages)"
            )
            return match.group(0)
        wanted.add(relative)
        new = parts.path[: -len(".md")] + ".html" + (f"#{parts.fragment}" if parts.fragment else "")
        return f'{match.group(1)}{html.escape(new, quote=True)}"'

    return re.sub(r'(<a\s[^>]*?href=")([^"]*)"', one, body)


def wrap(title: str, body: str, depth: int) -> str:
    up = "../" * depth
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width"><link rel="icon" href="data:,"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}</style></head><body>\n"
        f'<nav><a href="{up}index.html">erpdata documentation</a></nav>\n<main>\n{body}\n</main>\n</body></html>\n'
    )


def title_of(markdown: str, fallback: str) -> str:
    found = re.search(r"^# (.+)$", markdown, re.M)
    return re.sub(r"[`*]", "", found.group(1)).strip() if found else fallback


def outside_paths(markdown: str, source: str) -> list[str]:
    """Relative paths in a page's text (code spans included) that climb out
    of the repository: a user who clones it alone has nothing there."""
    found = []
    for path in sorted(set(re.findall(r"(?:\.\./)+[\w./-]*", markdown))):
        target = (ROOT / Path(source).parent / path).resolve()
        if not target.is_relative_to(ROOT):
            found.append(f"{source}: mentions {path}, outside the repository")
    return found


def main() -> int:
    out = Path(sys.argv[1]).resolve()
    guides = out / "guides"
    errors: list[str] = []
    todo = list(ROOTS)
    done: dict[str, str] = {}
    while todo:
        source = todo.pop(0)
        if source in done:
            continue
        markdown = (ROOT / source).read_text(encoding="utf-8")
        errors.extend(outside_paths(markdown, source))
        wanted: set[str] = set()
        body = rewrite_links(render(markdown), source, wanted, errors)
        target = guides / (source[: -len(".md")] + ".html")
        target.parent.mkdir(parents=True, exist_ok=True)
        depth = len(Path(source).parts)  # guides/ plus the page's folders
        target.write_text(wrap(title_of(markdown, source), body, depth), encoding="utf-8")
        done[source] = title_of(markdown, source)
        todo.extend(sorted(wanted - set(done)))

    missing = [path for _, path in API if not (out / path).is_file()]
    errors.extend(f"API reference missing: {out / path} (run make docs)" for path in missing)
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1

    def item(path: str, title: str) -> str:
        return f'<li><a href="{html.escape(path)}">{html.escape(title)}</a> <code>{html.escape(path.replace("guides/", ""))}</code></li>'

    guide_pages = [s for s in done if s.startswith("docs/")]
    other_pages = [s for s in done if not s.startswith("docs/") and s != "README.md"]
    body = "\n".join(
        [
            "<h1>erpdata documentation</h1>",
            "<p>The client SDK for the cloud ERP's data interface: one Rust core, a Python package, "
            "an npm package, and a sandbox ERP.</p>",
            "<h2>API reference</h2><ul>",
            *(f'<li><a href="{p}">{html.escape(t)}</a></li>' for t, p in API),
            "</ul><h2>Guides</h2><ul>",
            item("guides/README.html", done["README.md"] + " (the front page)"),
            *(item("guides/" + s[:-3] + ".html", done[s]) for s in guide_pages),
            "</ul><h2>Package pages and more</h2><ul>",
            *(item("guides/" + s[:-3] + ".html", done[s]) for s in other_pages),
            "</ul>",
        ]
    )
    (out / "index.html").write_text(wrap("erpdata documentation", body, 0), encoding="utf-8")
    print(f"docs: {len(done)} markdown pages rendered into {guides}, index {out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
