"""Runs the Python and JavaScript examples of markdown pages against a
sandbox, as written (the sandbox URL swapped for the one started here).

    python tests/docs/run_examples.py --sandbox target/debug/erpdata-sandbox PAGE.md...

A ```python block runs with the package from python/ (``make python``); a
```js block runs as an ES module under Node, with ``erpdata`` resolved to
js/ (``make wasm``). A block whose first line is ``// edge`` is imported
and its default export's ``fetch`` called, as an edge runtime would. A
block is skipped if it does not mention the quickstart URL (fragments that
assume a client). Exits non-zero on the first failure, printing it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART_URL = "http://127.0.0.1:8787"
TOKEN = "sandbox-token-not-secret"

sys.path.insert(0, str(ROOT / "scripts"))


def blocks(page: Path, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", page.read_text(encoding="utf-8"), re.S)


def run_python(code: str, url: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(
            compile(code.replace(QUICKSTART_URL, url), "<example>", "exec"),
            {"__name__": "__main__"},
        )
    return out.getvalue()


EDGE_DRIVER = """
import handler from "./example.mjs";
const env = { ERPDATA_BASE_URL: process.argv[2], ERPDATA_PROJECT: "demo", ERPDATA_ACCESS_TOKEN: process.argv[3] };
const res = await handler.fetch(new Request("https://dashboard.example/dues?acid=C001"), env);
if (res.status !== 200) throw new Error(`status ${res.status}`);
console.log(JSON.stringify(await res.json()).slice(0, 200));
"""


def run_js(code: str, url: str, workdir: Path) -> str:
    (workdir / "example.mjs").write_text(code.replace(QUICKSTART_URL, url), encoding="utf-8")
    edge = "export default" in code and "fetch(request" in code
    if edge:
        (workdir / "driver.mjs").write_text(EDGE_DRIVER, encoding="utf-8")
        argv = ["node", "driver.mjs", url, TOKEN]
    else:
        argv = ["node", "example.mjs"]
    env = {
        **os.environ,
        "ERPDATA_BASE_URL": url,
        "ERPDATA_PROJECT": "demo",
        "ERPDATA_ACCESS_TOKEN": TOKEN,
        "ERPDATA_COMPANY_ID": "1",
        "ERPDATA_YEAR_ID": "2025",
    }
    done = subprocess.run(argv, cwd=workdir, env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(done.stdout + done.stderr)
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sandbox", required=True)
    parser.add_argument("pages", nargs="+", type=Path)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "python"))
    from sandbox_process import SandboxProcess  # scripts/sandbox_process.py

    failures = 0
    with SandboxProcess(args.sandbox) as sandbox, tempfile.TemporaryDirectory() as tmp:
        url = sandbox.url
        work = Path(tmp)
        (work / "node_modules").mkdir()
        (work / "node_modules" / "erpdata").symlink_to(ROOT / "js")
        (work / "package.json").write_text('{"type": "module"}', encoding="utf-8")
        for page in args.pages:
            for lang, runner in (
                ("python", lambda c: run_python(c, url)),
                ("js", lambda c: run_js(c, url, work)),
            ):
                for i, code in enumerate(blocks(page, lang)):
                    name = f"{page} {lang} block {i + 1}"
                    if QUICKSTART_URL not in code and "export default" not in code:
                        print(f"skip  {name} (a fragment)")
                        continue
                    try:
                        out = runner(code)
                    except BaseException as exc:  # noqa: BLE001 - report every kind
                        failures += 1
                        print(f"FAIL  {name}: {type(exc).__name__}: {exc}")
                        continue
                    if TOKEN in out:
                        failures += 1
                        print(f"FAIL  {name}: printed the token")
                    elif not out.strip():
                        failures += 1
                        print(f"FAIL  {name}: printed nothing")
                    else:
                        print(f"ok    {name}: {out.strip().splitlines()[-1][:90]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
