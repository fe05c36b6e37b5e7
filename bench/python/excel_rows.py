"""A large sales_invoice from the sandbox into an Excel workbook, two ways:

- ``client.table`` then ``Table.to_excel``, as ``erpdata table --format
  xlsx`` does: the table read whole (typed over every row), then written
  batch by batch;
- ``stream_table`` into ``write_excel``: batches (of ``--batch-rows``
  rows, 10,000 by default) written as they arrive, the table never whole
  in memory.

Each runs once in a fresh interpreter (a 1M-row workbook takes minutes;
peak RSS is its own) and prints the seconds (fetching and writing
apart for the first), the file's size and the peak RSS. Run by `make
bench-excel` (release builds; ROWS=1000000 by default)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from sandbox_process import SandboxProcess  # noqa: E402

TOKEN = "sandbox-token-not-secret"

SETUP = """
import json, os, sys, time
sys.path.insert(0, {package!r})
import erpdata
URL, OUT = {url!r}, {out!r}
def peak_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
"""

METHODS = {
    "client.table -> Table.to_excel (as erpdata table --format xlsx)": """
t0 = time.perf_counter()
with erpdata.Client(URL, project="demo", access_token={token!r}, company_id=1, year_id=2025) as c:
    table = c.table("sales_invoice", progress=False)
t1 = time.perf_counter()
table.to_excel(OUT, sheet="sales_invoice", about={{"Table": "sales_invoice"}})
t2 = time.perf_counter()
print(json.dumps(dict(rows=len(table), fetch=t1 - t0, write=t2 - t1,
                      size=os.path.getsize(OUT), peak=peak_mb())))
""",
    "stream_table -> write_excel": """
t0 = time.perf_counter()
with erpdata.Client(URL, project="demo", access_token={token!r}, company_id=1, year_id=2025) as c:
    with c.stream_table("sales_invoice", batch_rows={batch_rows}) as stream:
        result = erpdata.write_excel(OUT, {{"sales_invoice": stream}})
t1 = time.perf_counter()
print(json.dumps(dict(rows=result.rows, seconds=t1 - t0, sheets=result.sheets,
                      size=os.path.getsize(OUT), peak=peak_mb())))
""",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sandbox", required=True, help="the erpdata-sandbox binary")
    parser.add_argument("--package", required=True, help="folder holding the erpdata package")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument(
        "--batch-rows",
        type=int,
        default=10_000,
        help="rows of a streamed batch: what the stream holds as row dicts at a time",
    )
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()
    figures: dict[str, dict[str, object]] = {}
    with SandboxProcess(args.sandbox, "--rows", str(args.rows)) as sandbox:
        with tempfile.TemporaryDirectory() as work:
            for name, body in METHODS.items():
                out = str(Path(work) / "book.xlsx")
                code = SETUP.format(package=args.package, url=sandbox.url, out=out)
                code += body.format(token=TOKEN, batch_rows=args.batch_rows)
                done = subprocess.run(
                    [sys.executable, "-c", code], capture_output=True, text=True, check=False
                )
                if done.returncode != 0:
                    raise SystemExit(f"{name} failed:\n{done.stderr[-3000:]}")
                figures[name] = json.loads(done.stdout.splitlines()[-1])
                print(f"{name}: {figures[name]}", flush=True)
    for name, got in figures.items():
        size = int(str(got["size"])) / 1e6
        if "seconds" in got:
            timing = f"{float(str(got['seconds'])):.1f} s"
        else:
            fetch, write = float(str(got["fetch"])), float(str(got["write"]))
            timing = f"fetch {fetch:.1f} s + write {write:.1f} s"
        print(
            f"{name}: {got['rows']:,} rows, {timing}, {size:.1f} MB, peak RSS {got['peak']:.0f} MB"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
