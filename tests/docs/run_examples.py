"""Runs the code blocks of the READMEs and guides as a new user would: from
the release artifacts in dist/ (never the checkout), installed the way the
pages say, against the sandbox the wheel ships.

    python tests/docs/run_examples.py --wheel dist/erpdata-V-...whl \\
        --npm dist/erpdata-V.tgz --work target/test-dist/docs \\
        --python python3.11 --tsc js/node_modules/.bin/tsc README.md python/README.md ...

(``--reuse-venvs`` keeps the last run's virtualenvs, while editing pages.
``--part python`` runs only the python and sh blocks, which need only the
wheel, and lists the other languages' blocks; ``--part js`` only the js
and ts blocks, which need the tarball too. ``make test`` runs the first
as soon as the wheel is built, the second once the tarball is.)

Which blocks run (``make test-dist-docs``; everything else is listed as a
fragment and skipped):

- A ```python, ```js or ```sh block runs when it mentions the quickstart
  URL, http://127.0.0.1:8787 (replaced by the URL of the sandbox started
  here). A block without it is a fragment that assumes a client or
  settings from the text around it. So: to make a block run, give it the
  URL; to show a fragment, leave it out.
- A ```js block that is an edge handler (``export default { async
  fetch(request, env) ... }``) runs too: it is imported and its ``fetch``
  called with a Request and an env holding the sandbox's settings.
- Every ```ts block, and every ```js block that runs, is type-checked by
  ``tsc --strict --noEmit`` (the js blocks with ``checkJs``). The ts
  blocks are fragments: a global ``client`` (an ErpClient) and ``*.wasm``
  modules (as a Workers project's types give them) are declared for them.
- Other languages are not run here (```rust: README.md's quickstart is
  the doc test of crates/erpdata/README.md; ```text is output).

How each runs:

- Python: each block in a fresh virtualenv (``python -m venv``) where
  ``pip install`` put the wheel file with the extras the block needs, and
  nothing else: PYTHON_NEEDS below says which code needs which extra, the
  same as the pages' install tables. One virtualenv per set of extras, so
  a block that needs an extra the pages do not name fails here as it would
  for a user. The plain one is made as the pages say (``python -m venv``,
  ``pip install``); those with extras with ``uv venv`` and ``uv pip
  install`` of the same requirement (``--uv``): the same packages, linked
  from one cache (``UV_CACHE_DIR``) rather than unpacked nine times; the
  Spark one from that cache alone first (``--offline``), where pyspark is
  built already (BUILT_FROM_SOURCE). The block runs as ``python
  example.py`` in a folder of its own, and must exit 0, print something,
  and never print the token; a block that configures ``logging`` must also
  log something.
  A Spark block is imported, not run, here: its virtualenv is made (so
  ``erpdata[spark]`` must install it) and ``import erpdata.spark`` must
  work there; ``make test-spark`` (tests/spark) runs each of the pages'
  Spark blocks as written on a local Spark and checks its totals (a Spark
  session costs half a minute or more: it runs once, there).
- sh: each command of the block (continued lines joined) in bash, in the
  virtualenv its command needs (CLI_NEEDS), in one folder per block, after
  the block's ``export``/``read`` lines before it (``read`` gets the
  sandbox's token on stdin). Each must exit 0 and never print the token.
  ``erpdata sandbox`` lines are not run again: that is how the sandbox here
  was started, from the plain virtualenv, as ``erpdata sandbox --port 0``.
  HOME is a fresh folder holding ``~/.erpdata-token``.
- JavaScript: a fresh npm project (``npm init -y``, which makes a
  CommonJS package.json, then ``npm install`` of the tarball); each block
  saved as a ``.mjs`` file, as the pages say, and run with node: exit 0,
  something printed, never the token.
- Every block runs with ERPDATA_ACCESS_TOKEN set to the sandbox's token
  (the pages keep the token out of code) and no other ERPDATA_* variable,
  and with dlt's telemetry off (RUNTIME__DLTHUB_TELEMETRY=false).
- Every ``erpdata[EXTRA]`` a page names must be an extra the wheel
  declares.

A failure names the page, the line where the block starts and what
failed; the run goes on, and exits 1 after the summary line.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

QUICKSTART_URL = "http://127.0.0.1:8787"
TOKEN = "sandbox-token-not-secret"

# What Python code needs beyond `pip install erpdata`: an erpdata extra
# (a bare name) or another requirement. The pages' install tables say the
# same (python/README.md, docs/cli.md).
PYTHON_NEEDS: list[tuple[str, tuple[str, ...]]] = [
    (r"\.to_pandas\(", ("pandas",)),
    (r"\.to_polars\(|^import polars|^from polars", ("polars",)),
    (r"^import pyarrow|^from pyarrow|\.to_arrow\(|batch_format=\"arrow\"", ("arrow",)),
    (r"^import duckdb|^from erpdata\.export|^import erpdata\.export|\.export\(", ("export",)),
    (r"pyspark|erpdata\.spark", ("spark",)),
    (r"erpdata\.dlt|^import dlt", ("dlt",)),
    (r"destination=\"duckdb\"", ("dlt[duckdb]",)),
    (r"_html\(", ("report",)),
    (r"\.to_excel\(|write_excel\(|erpdata\.excel", ("excel",)),
]

# What one command of an sh block needs.
CLI_NEEDS: list[tuple[str, tuple[str, ...]]] = [
    (r"^erpdata export\b", ("export",)),
    (r"^erpdata mcp\b", ("mcp",)),
    (r"--format parquet", ("arrow",)),
    (r"--format html", ("report",)),
    (r"--format xlsx", ("excel",)),
    (r"import duckdb", ("export",)),
]

# The extras that need a package PyPI has only as an sdist (pyspark).
BUILT_FROM_SOURCE = frozenset({"spark"})

EDGE_DRIVER = """\
import handler from "./{module}";
const env = {{ ERPDATA_BASE_URL: process.argv[2], ERPDATA_PROJECT: "demo", ERPDATA_ACCESS_TOKEN: process.argv[3] }};
const res = await handler.fetch(new Request("https://dashboard.example/dues?acid=C005"), env);
const text = await res.text();
if (res.status !== 200) throw new Error(`status ${{res.status}}: ${{text.slice(0, 300)}}`);
console.log(text.slice(0, 300));
"""

# For the ts fragments: what the text around them assumes.
TS_GLOBALS = """\
declare const client: import("erpdata").ErpClient;
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
"""

TSCONFIG = """\
{
  "compilerOptions": {
    "strict": true,
    "noEmit": true,
    "allowJs": true,
    "checkJs": true,
    "moduleDetection": "force",
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "target": "es2022",
    "lib": ["es2022", "dom", "dom.iterable", "dom.asynciterable"],
    "types": [],
    "skipLibCheck": false
  },
  "files": [%s]
}
"""


@dataclass
class Block:
    page: Path
    line: int
    lang: str
    number: int
    code: str
    failures: list[str] = field(default_factory=list)
    skipped: str = ""

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line} ({self.lang} block {self.number})"

    @property
    def slug(self) -> str:
        stem = re.sub(r"[^A-Za-z0-9]+", "-", str(self.page.with_suffix(""))).strip("-").lower()
        return f"{stem}-{self.number}"

    def fail(self, why: str) -> None:
        self.failures.append(why)


def read_blocks(page: Path) -> list[Block]:
    found: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i, count = 0, 0
    while i < len(lines):
        fence = re.match(r"^```([A-Za-z]*)", lines[i])
        if fence is None:
            i += 1
            continue
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        count += 1
        found.append(Block(page, start, fence.group(1) or "text", count, "\n".join(body) + "\n"))
        i += 1
    return found


# Which blocks each --part takes, by language: the js part those that need
# the tarball, the python part every other (it lists the fragments of the
# languages not run here).
PARTS: dict[str, Callable[[str], bool]] = {
    "all": lambda lang: True,
    "python": lambda lang: lang not in ("js", "ts"),
    "js": lambda lang: lang in ("js", "ts"),
}


def is_edge(code: str) -> bool:
    return "export default" in code and "fetch(request" in code


def runs(block: Block) -> bool:
    if block.lang in ("python", "sh"):
        return QUICKSTART_URL in block.code
    if block.lang == "js":
        return QUICKSTART_URL in block.code or is_edge(block.code)
    return False


# Extras that install pyarrow themselves (pyproject.toml), so that code
# needing Arrow beside them needs no `arrow` of its own.
WITH_PYARROW = {"pandas", "export", "spark", "dlt"}


def needs_of(code: str, table: list[tuple[str, tuple[str, ...]]]) -> frozenset[str]:
    found: set[str] = set()
    for pattern, needs in table:
        if re.search(pattern, code, re.M):
            found.update(needs)
    if found & WITH_PYARROW:
        found.discard("arrow")
    return frozenset(found)


def tail(text: str, lines: int = 12) -> str:
    return "\n".join("      " + s for s in text.strip().splitlines()[-lines:])


class Environments:
    """The virtualenvs, one per set of needs."""

    def __init__(self, python: str, wheel: Path, work: Path, reuse: bool, uv: Path | None) -> None:
        self.python, self.wheel, self.work, self.reuse = python, wheel, work, reuse
        self.uv = uv
        self.made: dict[frozenset[str], Path] = {}

    def make(self, all_needs: set[frozenset[str]]) -> None:
        """Makes them all, three at a time (pip mostly waits on the network
        and the disk)."""
        with concurrent.futures.ThreadPoolExecutor(3) as pool:
            for needs, venv in zip(all_needs, pool.map(self._make, all_needs)):
                self.made[needs] = venv

    def get(self, needs: frozenset[str]) -> Path:
        if needs not in self.made:
            self.made[needs] = self._make(needs)
        return self.made[needs]

    def _make(self, needs: frozenset[str]) -> Path:
        name = "-".join(sorted(re.sub(r"\W+", "_", n) for n in needs)) or "plain"
        venv = self.work / f"venv-{name}"
        if self.reuse and (venv / ".made").exists():
            return venv
        shutil.rmtree(venv, ignore_errors=True)
        extras = sorted(n for n in needs if "[" not in n)
        others = sorted(n for n in needs if "[" in n)
        spec = f"{self.wheel}[{','.join(extras)}]" if extras else str(self.wheel)
        began = time.monotonic()
        python = str(venv / "bin" / "python")
        if needs and self.uv is not None:
            tool = "uv pip"
            subprocess.run(
                [str(self.uv), "venv", "--quiet", "--python", self.python, str(venv)], check=True
            )
            install = [str(self.uv), "pip", "install", "--quiet", "--python", python]
        else:
            tool = "pip"
            subprocess.run([self.python, "-m", "venv", str(venv)], check=True)
            # --no-compile: the same files, without compiling their bytecode
            # ahead (a third of the time of pandas or pyspark).
            install = [python, "-m", "pip", "install", "--quiet", "--no-compile"]
            install.append("--disable-pip-version-check")
        done = None
        if tool == "uv pip" and needs & BUILT_FROM_SOURCE:
            # From uv's cache alone first: the checkout's virtualenv put
            # these packages there, pyspark built from its sdist (PyPI has
            # no wheel of it). Online, uv would download the 480 MB sdist
            # and build it again whenever the index answers its
            # revalidation as modified, as some registries and proxies do.
            done = subprocess.run(
                [*install, "--offline", spec, *others], capture_output=True, text=True
            )
        if done is None or done.returncode != 0:
            done = subprocess.run([*install, spec, *others], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{tool} install {spec} {' '.join(others)} failed:\n{done.stderr}")
        (venv / ".made").touch()
        print(
            f"venv  {venv.name}: {tool} install {Path(spec).name} {' '.join(others)}"
            f" ({time.monotonic() - began:.0f} s)",
            flush=True,
        )
        return venv


def block_env(home: Path, venv: Path | None = None) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ERPDATA_")
        and k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "NODE_PATH", "NODE_OPTIONS")
    }
    env["HOME"] = str(home)
    env["ERPDATA_ACCESS_TOKEN"] = TOKEN
    env["RUNTIME__DLTHUB_TELEMETRY"] = "false"  # as docs/data-stack.md says
    # dlt keeps a pipeline's state (the DuckDB file's path included) in
    # /var/dlt when run as root, else ~/.dlt: a fresh folder each run, or a
    # second run would look for the first run's file.
    env["DLT_DATA_DIR"] = str(home / ".dlt")
    if venv is not None:
        env["PATH"] = f"{venv / 'bin'}:{env['PATH']}"
    return env


def check_output(block: Block, what: str, out: str, err: str, *, quiet_ok: bool = False) -> None:
    if TOKEN in out or TOKEN in err:
        block.fail(f"{what} printed the token")
    elif not quiet_ok and not out.strip():
        block.fail(f"{what} printed nothing")


def run_python(block: Block, url: str, envs: Environments, work: Path, home: Path) -> str:
    needs = needs_of(block.code, PYTHON_NEEDS)
    venv = envs.get(needs)
    if "spark" in needs:
        done = subprocess.run(
            [str(venv / "bin" / "python"), "-c", "import erpdata.spark, pyspark.sql"],
            env=block_env(home, venv),
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            block.fail(f"import erpdata.spark failed (venv {venv.name})\n{tail(done.stderr)}")
            return ""
        return f"{venv.name}: imports; run on Spark by make test-spark"
    folder = work / "py" / block.slug
    folder.mkdir(parents=True)
    (folder / "example.py").write_text(block.code.replace(QUICKSTART_URL, url), encoding="utf-8")
    done = subprocess.run(
        [str(venv / "bin" / "python"), "example.py"],
        cwd=folder,
        env=block_env(home, venv),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        block.fail(
            f"python exited {done.returncode} (venv {venv.name})\n{tail(done.stdout + done.stderr)}"
        )
        return ""
    check_output(block, "python", done.stdout, done.stderr)
    if re.search(r"^logging\.", block.code, re.M) and not done.stderr.strip():
        block.fail("it configures logging, but nothing was logged")
    return f"{venv.name}: {(done.stdout.strip().splitlines() or [''])[-1][:80]}"


def commands(code: str) -> list[str]:
    joined = code.replace("\\\n", " ")
    out = []
    for line in joined.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            out.append(stripped)
    return out


def run_sh(block: Block, url: str, envs: Environments, work: Path, home: Path) -> str:
    folder = work / "sh" / block.slug
    folder.mkdir(parents=True)
    prologue: list[str] = []
    ran = 0
    for command in commands(block.code.replace(QUICKSTART_URL, url)):
        if re.match(r"(export|read)\b", command):
            prologue.append(command)
            continue
        if re.match(r"erpdata sandbox\b", command):
            continue  # the sandbox of this run was started so
        venv = envs.get(needs_of(command, CLI_NEEDS))
        script = "set -eu -o pipefail\n" + "\n".join([*prologue, command]) + "\n"
        done = subprocess.run(
            ["bash", "-c", script],
            cwd=folder,
            env=block_env(home, venv),
            input=TOKEN + "\n",
            capture_output=True,
            text=True,
            timeout=600,
        )
        ran += 1
        if done.returncode != 0:
            block.fail(
                f"`{command}` exited {done.returncode} (venv {venv.name})\n"
                f"{tail(done.stdout + done.stderr)}"
            )
        else:
            check_output(block, f"`{command}`", done.stdout, done.stderr, quiet_ok=True)
    return f"{ran} commands"


def run_js(block: Block, url: str, project: Path, home: Path) -> str:
    module = f"{block.slug}.mjs"
    (project / module).write_text(block.code.replace(QUICKSTART_URL, url), encoding="utf-8")
    if is_edge(block.code):
        driver = f"{block.slug}.driver.mjs"
        (project / driver).write_text(EDGE_DRIVER.format(module=module), encoding="utf-8")
        argv = ["node", driver, url, TOKEN]
    else:
        argv = ["node", module]
    done = subprocess.run(
        argv, cwd=project, env=block_env(home), capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        block.fail(f"node exited {done.returncode}\n{tail(done.stdout + done.stderr)}")
        return ""
    check_output(block, "node", done.stdout, done.stderr)
    return (done.stdout.strip().splitlines() or [""])[-1][:90]


def typecheck(blocks: list[Block], project: Path, tsc: str) -> None:
    """One tsc run over the ts blocks and the js blocks that run; each error
    is charged to the block of its file."""
    files: dict[str, Block | None] = {"docs-globals.d.ts": None}
    (project / "docs-globals.d.ts").write_text(TS_GLOBALS, encoding="utf-8")
    for block in blocks:
        if block.lang == "ts":
            name = f"{block.slug}.mts"
            (project / name).write_text(block.code, encoding="utf-8")
        else:
            name = f"{block.slug}.mjs"  # written by run_js
        files[name] = block
    listed = ", ".join(f'"{name}"' for name in files)
    (project / "tsconfig.docs.json").write_text(TSCONFIG % listed, encoding="utf-8")
    done = subprocess.run(
        [tsc, "-p", "tsconfig.docs.json"], cwd=project, capture_output=True, text=True
    )
    errors: dict[str, list[str]] = {}
    for line in done.stdout.splitlines():
        hit = re.match(r"^(\S+?)\((\d+),\d+\): (.*)", line)
        if hit:
            errors.setdefault(hit.group(1), []).append(f"line {hit.group(2)}: {hit.group(3)}")
    for name, found in errors.items():
        owner = files.get(name)
        if owner is None:
            raise SystemExit(f"tsc failed outside the blocks:\n{done.stdout}")
        owner.fail("tsc --strict:\n" + "\n".join("      " + e[:300] for e in found))
    if done.returncode != 0 and not errors:
        raise SystemExit(f"tsc failed:\n{done.stdout}{done.stderr}")


def wheel_extras(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode("utf-8")
    return set(re.findall(r"^Provides-Extra: (\S+)", text, re.M))


def start_sandbox(venv: Path, work: Path, home: Path) -> tuple[subprocess.Popen[bytes], str]:
    log = work / "sandbox.out"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [str(venv / "bin" / "erpdata"), "sandbox", "--port", "0"],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=block_env(home, venv),
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        first = log.read_text(encoding="utf-8", errors="replace").split("\n", 1)
        if len(first) > 1 and first[0].startswith("http"):
            return process, first[0].strip().rstrip("/")
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    raise SystemExit(f"`erpdata sandbox` did not start:\n{log.read_text(errors='replace')}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", required=True, type=Path)
    parser.add_argument("--npm", type=Path, help="the npm tarball (all but --part python)")
    parser.add_argument("--work", required=True, type=Path, help="emptied, then used")
    parser.add_argument("--python", default=sys.executable, help="makes the virtualenvs")
    parser.add_argument("--tsc", type=Path, help="js/'s tsc (all but --part python)")
    parser.add_argument(
        "--part",
        choices=sorted(PARTS),
        default="all",
        help="python: the python and sh blocks (and the other languages' fragments); "
        "js: the js and ts blocks; all: both (the default)",
    )
    parser.add_argument(
        "--uv", type=Path, help="makes the virtualenvs with extras (else pip makes them all)"
    )
    parser.add_argument(
        "--reuse-venvs",
        action="store_true",
        help="keep the virtualenvs of the last run (while editing pages)",
    )
    parser.add_argument("pages", nargs="+", type=Path)
    args = parser.parse_args()
    runs_js = args.part != "python"
    if runs_js and (args.npm is None or args.tsc is None):
        parser.error(f"--part {args.part} runs the js blocks: give --npm and --tsc")
    began = time.monotonic()
    work = args.work.resolve()
    if args.reuse_venvs:
        for old in work.glob("*"):
            if old.is_dir() and not old.name.startswith("venv-"):
                shutil.rmtree(old)
            elif not old.is_dir():
                old.unlink()
    else:
        shutil.rmtree(work, ignore_errors=True)
    home = work / "home"
    home.mkdir(parents=True)
    (home / ".erpdata-token").write_text(TOKEN + "\n", encoding="utf-8")
    wheel = args.wheel.resolve()

    blocks = [b for page in args.pages for b in read_blocks(page) if PARTS[args.part](b.lang)]
    problems: list[str] = []
    extras = wheel_extras(wheel)
    for page in args.pages if args.part != "js" else []:
        for named in sorted(set(re.findall(r"erpdata\[([a-z,]+)\]", page.read_text("utf-8")))):
            unknown = set(named.split(",")) - extras
            if unknown:
                problems.append(
                    f"{page}: erpdata[{named}]: the wheel has no extra {sorted(unknown)}"
                )

    envs = Environments(args.python, wheel, work, args.reuse_venvs, args.uv)
    wanted: set[frozenset[str]] = {frozenset()}
    for block in blocks:
        if runs(block) and block.lang == "python":
            wanted.add(needs_of(block.code, PYTHON_NEEDS))
        elif runs(block) and block.lang == "sh":
            wanted.update(needs_of(c, CLI_NEEDS) for c in commands(block.code))
    envs.make(wanted)
    sandbox, url = start_sandbox(envs.get(frozenset()), work, home)
    print(
        f"sandbox: `erpdata sandbox --port 0` from {envs.get(frozenset()).name}: {url}", flush=True
    )

    project = work / "npm"
    project.mkdir()
    if runs_js:
        subprocess.run(["npm", "init", "-y"], cwd=project, check=True, capture_output=True)
        subprocess.run(
            ["npm", "install", "--offline", "--no-audit", "--no-fund", "--silent"]
            + [str(args.npm.resolve())],
            cwd=project,
            check=True,
        )

    checked_ts: list[Block] = []
    notes: dict[int, str] = {}  # of the js blocks, shown once tsc has checked them
    try:
        for block in blocks:
            if block.lang == "ts":
                checked_ts.append(block)
                continue
            if not runs(block):
                block.skipped = "a fragment"
                print(f"skip  {block.name}: {block.skipped}", flush=True)
                continue
            started = time.monotonic()
            try:
                if block.lang == "python":
                    note = run_python(block, url, envs, work, home)
                elif block.lang == "sh":
                    note = run_sh(block, url, envs, work, home)
                else:
                    notes[id(block)] = run_js(block, url, project, home)
                    notes[id(block)] += f" ({time.monotonic() - started:.0f} s)"
                    checked_ts.append(block)
                    continue
            except subprocess.TimeoutExpired as exc:
                block.fail(f"timed out after {exc.timeout} s")
                note = ""
            if note.startswith("skip:"):
                block.skipped = note[5:].strip()
                print(f"skip  {block.name}: {block.skipped}", flush=True)
            elif not block.failures:
                print(
                    f"ok    {block.name}: {note} ({time.monotonic() - started:.0f} s)", flush=True
                )
        if runs_js:
            typecheck(checked_ts, project, str(args.tsc.resolve()))
    finally:
        sandbox.kill()
        sandbox.wait(10)
    for block in checked_ts:
        if not block.failures:
            ran = f"{notes[id(block)]}; " if id(block) in notes else ""
            print(f"ok    {block.name}: {ran}tsc --strict")
    failed = [b for b in blocks if b.failures]
    for block in failed:
        for why in block.failures:
            print(f"FAIL  {block.name}: {why}")
    for problem in problems:
        print(f"FAIL  {problem}")
    passed = [b for b in blocks if not b.failures and not b.skipped]
    counts: dict[str, int] = {}
    for block in passed:
        counts[str(block.page)] = counts.get(str(block.page), 0) + 1
    print("passed, by page: " + ", ".join(f"{page} {n}" for page, n in counts.items()))
    print(f"time: {time.monotonic() - began:.0f} s")
    skipped = sum(1 for b in blocks if b.skipped)
    part = "" if args.part == "all" else f" ({args.part} part)"
    print(
        f"docs{part}: {len(passed)} passed, {len(failed) + len(problems)} failed, {skipped} skipped"
    )
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
