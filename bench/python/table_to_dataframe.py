"""sales_invoice tables from the sandbox into Python: erpdata against what
a user would write by hand (httpx + json/orjson + pandas/polars,
pd.read_json), at several sizes, plus the same work with the body already
in memory (the client's own cost) and a growth table of the streaming path.

Each method runs in a fresh interpreter (so peak RSS is its own), five
times, the methods interleaved so that drift in the machine's load hits
each alike; every method imports its libraries before its clock starts,
so import time is counted for none. Printed: medians, min–max, peak RSS,
and ratios to httpx + orjson.loads + pd.DataFrame. Run by `make
bench-python` (release builds)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from sandbox_process import SandboxProcess  # noqa: E402

TOKEN = "sandbox-token-not-secret"
FLOOR = "httpx: the body streamed and dropped (the floor)"
WHOLE = "httpx: the body read whole (.content)"

SETUP = """
import sys, time, os
sys.path.insert(0, {python!r})
URL = {url!r}
FORM = dict(req="getdata", project="demo", accesstoken={token!r}, yearid="2025", compid="1",
            table="sales_invoice")
# The answer's rows, counted in a second read that streams it too (the
# peak RSS stays the first one's) and must be as long as the first.
def count_rows(received):
    import httpx
    rows, seen, tail = 0, 0, b""
    with httpx.stream("POST", URL + "apis/dataapi.php", data=FORM, timeout=300) as answer:
        for chunk in answer.iter_bytes():
            seen += len(chunk)
            window = tail + chunk
            rows += window.count(b'"invoice_no"')
            tail = window[-11:]  # shorter than the key: no row counted twice
    assert seen == received, (seen, received)
    return rows
def peak_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
"""

# Batches handed out as they arrive, never the whole table at once.
STREAM = """
import erpdata, pyarrow
t0 = time.perf_counter()
with erpdata.Client(URL, project="demo", access_token=FORM["accesstoken"], company_id=1, year_id=2025) as c:
    n = 0
    for batch in c.stream_table("sales_invoice", batch_format="arrow"):
        n += batch.num_rows
"""

METHODS = {
    "erpdata .to_pandas()": """
import erpdata, pandas, pyarrow
t0 = time.perf_counter()
with erpdata.Client(URL, project="demo", access_token=FORM["accesstoken"], company_id=1, year_id=2025) as c:
    df = c.table("sales_invoice").to_pandas()
n = len(df)
""",
    "erpdata .to_polars()": """
import erpdata, polars
t0 = time.perf_counter()
with erpdata.Client(URL, project="demo", access_token=FORM["accesstoken"], company_id=1, year_id=2025) as c:
    df = c.table("sales_invoice").to_polars()
n = df.height
""",
    "erpdata .to_arrow()": """
import erpdata, pyarrow
t0 = time.perf_counter()
with erpdata.Client(URL, project="demo", access_token=FORM["accesstoken"], company_id=1, year_id=2025) as c:
    df = c.table("sales_invoice").to_arrow()
n = df.num_rows
""",
    "erpdata .stream_table() (Arrow)": STREAM,
    "erpdata .stream_table(use_threads=True) (Arrow)": STREAM.replace(
        'batch_format="arrow"', 'batch_format="arrow", use_threads=True'
    ),
    "erpdata rows (dicts)": """
import erpdata
t0 = time.perf_counter()
with erpdata.Client(URL, project="demo", access_token=FORM["accesstoken"], company_id=1, year_id=2025) as c:
    rows = list(c.table("sales_invoice"))
n = len(rows)
""",
    "httpx + json.loads + pd.DataFrame": """
import httpx, json, pandas as pd
t0 = time.perf_counter()
body = httpx.post(URL + "apis/dataapi.php", data=FORM, timeout=300).content
df = pd.DataFrame(json.loads(body)["data"])
n = len(df)
""",
    "httpx + orjson.loads + pd.DataFrame": """
import httpx, orjson, pandas as pd
t0 = time.perf_counter()
body = httpx.post(URL + "apis/dataapi.php", data=FORM, timeout=300).content
df = pd.DataFrame(orjson.loads(body)["data"])
n = len(df)
""",
    "httpx + orjson.loads + pl.DataFrame": """
import httpx, orjson, polars as pl
t0 = time.perf_counter()
body = httpx.post(URL + "apis/dataapi.php", data=FORM, timeout=300).content
df = pl.DataFrame(orjson.loads(body)["data"])
n = df.height
""",
    "httpx + pd.read_json": """
import httpx, io, pandas as pd
t0 = time.perf_counter()
body = httpx.post(URL + "apis/dataapi.php", data=FORM, timeout=300).content
# The rows sit under "data": read_json's own "records" orient needs them
# alone, so the envelope is cut off as a user would.
start = body.index(b"[")
df = pd.read_json(io.BytesIO(body[start:body.rindex(b"]") + 1]), orient="records")
n = len(df)
""",
    # The transport floor, as the goal names it: httpx reading the body and
    # dropping each chunk, nothing decoded or kept (the way erpdata reads
    # it, iter_bytes()).
    FLOOR: """
import httpx
received = 0
t0 = time.perf_counter()
with httpx.stream("POST", URL + "apis/dataapi.php", data=FORM, timeout=300) as answer:
    for chunk in answer.iter_bytes():
        received += len(chunk)
read = time.perf_counter() - t0
n = count_rows(received)  # off the clock
t0 = time.perf_counter() - read
""",
    # The body as the baselines read it: whole, in one bytes object.
    WHOLE: """
import httpx
t0 = time.perf_counter()
body = httpx.post(URL + "apis/dataapi.php", data=FORM, timeout=300).content
read = time.perf_counter() - t0
n = body.count(b'"invoice_no"')  # the row count the runner checks, off the clock:
t0 = time.perf_counter() - read
""",
    "httpx + orjson.loads (dicts)": """
import httpx, orjson
t0 = time.perf_counter()
body = httpx.post(URL + "apis/dataapi.php", data=FORM, timeout=300).content
rows = orjson.loads(body)["data"]
n = len(rows)
""",
}

# The same work with the body already in memory: what the client itself
# costs, without the sandbox making and sending the answer.
IN_MEMORY = {
    "in memory: erpdata parse + .to_pandas()": """
from erpdata._core import Config
import pandas, pyarrow
body = open(BODY, "rb").read()
t0 = time.perf_counter()
df = Config(URL, project="demo", access_token=FORM["accesstoken"]).parse_table(200, body).to_pandas()
n = len(df)
""",
    "in memory: erpdata parse + rows": """
from erpdata._core import Config
body = open(BODY, "rb").read()
t0 = time.perf_counter()
rows = list(Config(URL, project="demo", access_token=FORM["accesstoken"]).parse_table(200, body))
n = len(rows)
""",
    "in memory: orjson.loads + pd.DataFrame": """
import orjson, pandas as pd
body = open(BODY, "rb").read()
t0 = time.perf_counter()
df = pd.DataFrame(orjson.loads(body)["data"])
n = len(df)
""",
    "in memory: orjson.loads (dicts)": """
import orjson
body = open(BODY, "rb").read()
t0 = time.perf_counter()
rows = orjson.loads(body)["data"]
n = len(rows)
""",
}
METHODS.update(IN_MEMORY)

# A table into a Parquet file: erpdata's export (streamed, one partition
# written batch by batch) against the whole body through orjson and pandas.
EXPORT = {
    "erpdata Client.export → Parquet": """
import erpdata, pyarrow, tempfile, pathlib
folder = tempfile.mkdtemp()
t0 = time.perf_counter()
with erpdata.Client(URL, project="demo", access_token=FORM["accesstoken"], company_id=1, year_id=2025) as c:
    n = c.export("sales_invoice", to=pathlib.Path(folder) / "dataset", progress=False).rows
""",
    "httpx + orjson + pd.DataFrame + to_parquet": """
import httpx, orjson, pandas as pd, pyarrow, tempfile, os
folder = tempfile.mkdtemp()
t0 = time.perf_counter()
body = httpx.post(URL + "apis/dataapi.php", data=FORM, timeout=300).content
df = pd.DataFrame(orjson.loads(body)["data"])
df.to_parquet(os.path.join(folder, "sales_invoice.parquet"))
n = len(df)
""",
}
METHODS.update(EXPORT)
EXPORT_BASELINE = "httpx + orjson + pd.DataFrame + to_parquet"

REPORT = """
elapsed = time.perf_counter() - t0
print(elapsed, peak_mb(), n)
"""

BASELINE = "httpx + orjson.loads + pd.DataFrame"
MEMORY_BASELINE = "in memory: orjson.loads + pd.DataFrame"
# The in-memory figures need the body on disk: at the largest size only.
END_TO_END = [m for m in METHODS if m not in IN_MEMORY and m not in EXPORT]
# What the other answer styles are measured with: the DataFrames, and the
# baseline they are compared against.
STYLE_METHODS = ["erpdata .to_pandas()", "erpdata .to_polars()", BASELINE]


def run(method: str, url: str, rows: int, body: str, package: str) -> tuple[float, float]:
    setup = SETUP.format(python=package, url=url, token=TOKEN) + f"BODY = {body!r}\n"
    code = setup + METHODS[method] + REPORT
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"{method} failed:\n{done.stderr}")
    elapsed, peak, n = done.stdout.split()
    assert int(n) == rows, (method, n)
    return float(elapsed), float(peak)


def summary(runs: list[tuple[float, float]]) -> dict[str, float]:
    times = [r[0] for r in runs]
    peaks = [r[1] for r in runs]
    return {
        "seconds": statistics.median(times),
        "min": min(times),
        "max": max(times),
        "peak_mb": statistics.median(peaks),
        "runs": len(runs),
    }


def measure(
    binary: str, rows: int, methods: list[str], repeat: int, package: str, style: str = "mysqlnd"
) -> dict[str, dict[str, float]]:
    """Every method `repeat` times, interleaved so that drift in the
    machine's load hits each alike; the sandbox answers in `style`."""
    with (
        SandboxProcess(binary, "--rows", str(rows), "--cache-answers") as sandbox,
        tempfile.TemporaryDirectory() as tmp,
    ):
        url = f"{sandbox.url}/_style/{style}/"
        body = os.path.join(tmp, "body.json")
        # Asked for once before the clock: the sandbox keeps the answer it
        # made (--cache-answers) and sends it again to every method, as a
        # service elsewhere would, without making it on the cores measured.
        # The methods that start from the body in memory read it from here.
        keep = any(m in IN_MEMORY for m in methods)
        with httpx.Client(timeout=600) as http, open(body if keep else os.devnull, "wb") as out:
            form = dict(
                req="getdata",
                project="demo",
                accesstoken=TOKEN,
                yearid="2025",
                compid="1",
                table="sales_invoice",
            )
            with http.stream("POST", url + "apis/dataapi.php", data=form) as answer:
                for chunk in answer.iter_bytes():
                    out.write(chunk)
        runs: dict[str, list[tuple[float, float]]] = {m: [] for m in methods}
        for _ in range(repeat):
            for method in methods:
                runs[method].append(run(method, url, rows, body, package))
        return {m: summary(r) for m, r in runs.items()}


def table(
    rows: int, results: dict[str, dict[str, float]], repeat: int, baseline: str = BASELINE
) -> None:
    base = results.get(baseline)
    print(f"\n{rows:,} rows of sales_invoice, medians of {repeat} runs, each in a fresh process")
    print(
        f"{'method':48} {'wall s':>8} {'min–max s':>13} {'peak MB':>8} {'x faster':>9} {'x memory':>9}"
    )
    for method, r in results.items():
        against = results.get(MEMORY_BASELINE) if method in IN_MEMORY else base
        ratio = f"{against['seconds'] / r['seconds']:8.2f}x" if against else ""
        mem = f"{r['peak_mb'] / against['peak_mb']:8.2f}x" if against else ""
        print(
            f"{method:48} {r['seconds']:8.2f} {r['min']:6.2f}–{r['max']:<6.2f} {r['peak_mb']:8.0f} {ratio:>9} {mem:>9}"
        )
    if base:
        aside = (
            f" (in memory: against {MEMORY_BASELINE})" if IN_MEMORY.keys() & results.keys() else ""
        )
        print(f"x faster, x memory: against {baseline}{aside}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sandbox", required=True, help="the erpdata-sandbox binary")
    parser.add_argument(
        "--sizes", default="10000,100000,1000000", help="table sizes, comma-separated"
    )
    parser.add_argument(
        "--growth",
        default="10000,1000000,5000000",
        help="sizes for the streaming growth table (empty: none)",
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--export-rows", default="1000000", help="rows of the export comparison (0: none)"
    )
    parser.add_argument("--growth-repeat", type=int, default=3)
    parser.add_argument("--json", help="write every figure here as JSON")
    parser.add_argument(
        "--styles",
        default="native,strings",
        help="answer styles besides the default mysqlnd (DECIMAL as strings) for which the largest size's "
        "DataFrame methods are measured too (native: money as JSON numbers; strings: every value a string)",
    )
    parser.add_argument(
        "--package",
        default=str(ROOT / "python"),
        help="folder holding the erpdata package to measure (default: the checkout's)",
    )
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",") if x]
    export_rows = int(args.export_rows)
    report: dict[str, object] = {
        "repeat": args.repeat,
        "sizes": {},
        "growth": {},
        "styles": {},
        "export": {},
    }
    for rows in sizes:
        methods = END_TO_END + (list(IN_MEMORY) if rows == max(sizes) else [])
        results = measure(args.sandbox, rows, methods, args.repeat, args.package)
        report["sizes"][str(rows)] = results  # type: ignore[index]
        print("\nstyle: mysqlnd (DECIMAL as strings)")
        table(rows, results, args.repeat)
    styles = [s for s in args.styles.split(",") if s]
    if sizes and styles:
        rows = max(sizes)
        for style in styles:
            results = measure(args.sandbox, rows, STYLE_METHODS, args.repeat, args.package, style)
            report["styles"][style] = {"rows": rows, "results": results}  # type: ignore[index]
            print(f"\nstyle: {style}")
            table(rows, results, args.repeat)
    if export_rows:
        results = measure(args.sandbox, export_rows, list(EXPORT), args.repeat, args.package)
        report["export"] = {"rows": export_rows, "results": results}
        print("\nexport: a table into a Parquet file")
        table(export_rows, results, args.repeat, EXPORT_BASELINE)
    growth = [int(x) for x in args.growth.split(",") if x]
    if growth:
        print(f"\ngrowth of stream_table (Arrow batches), medians of {args.growth_repeat}")
        print(f"{'rows':>10} {'wall s':>8} {'µs/row':>8} {'peak MB':>8}")
        for rows in growth:
            r = measure(
                args.sandbox,
                rows,
                ["erpdata .stream_table() (Arrow)"],
                args.growth_repeat,
                args.package,
            )
            g = r["erpdata .stream_table() (Arrow)"]
            report["growth"][str(rows)] = g  # type: ignore[index]
            print(
                f"{rows:>10,} {g['seconds']:8.2f} {g['seconds'] / rows * 1e6:8.2f} {g['peak_mb']:8.0f}"
            )
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
