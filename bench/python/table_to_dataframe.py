"""A large sales_invoice from the sandbox into a DataFrame: erpdata against
what a user would write by hand (httpx + json/orjson + pandas).

Each method runs in a fresh interpreter (so peak RSS is its own), five
times; every method imports its libraries (pandas, polars, ...) before
its clock starts, as the hand-written baselines always did, so import
time is not counted for any; the medians of wall time and peak RSS are printed with ratios to
the orjson baseline. Run by `make bench-python` (release build).
"""

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
TOKEN = "sandbox-token-not-secret"

SETUP = """
import sys, time, os
sys.path.insert(0, {python!r})
URL = {url!r}
FORM = dict(req="getdata", project="demo", accesstoken={token!r}, yearid="2025", compid="1",
            table="sales_invoice")
def peak_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
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

REPORT = """
elapsed = time.perf_counter() - t0
print(elapsed, peak_mb(), n)
"""


def run(method: str, url: str, rows: int, body: str, package: str) -> tuple[float, float]:
    setup = SETUP.format(python=package, url=url, token=TOKEN) + f"BODY = {body!r}\n"
    code = setup + METHODS[method] + REPORT
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"{method} failed:\n{done.stderr}")
    elapsed, peak, n = done.stdout.split()
    assert int(n) == rows, (method, n)
    return float(elapsed), float(peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sandbox", required=True, help="the erpdata-sandbox binary")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--package",
        default=str(ROOT / "python"),
        help="folder holding the erpdata package to measure (default: the checkout's)",
    )
    args = parser.parse_args()
    sandbox = subprocess.Popen(
        [args.sandbox, "--port", "0", "--rows", str(args.rows), "--quiet"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert sandbox.stdout is not None
        url = sandbox.stdout.readline().strip().rstrip("/") + "/"
        body = tempfile.NamedTemporaryFile(suffix=".json", delete=False)
        with httpx.Client(timeout=600) as http, body:
            form = dict(req="getdata", project="demo", accesstoken=TOKEN, yearid="2025", compid="1",
                        table="sales_invoice")
            with http.stream("POST", url + "apis/dataapi.php", data=form) as answer:
                for chunk in answer.iter_bytes():
                    body.write(chunk)
        results: dict[str, tuple[float, float]] = {}
        for method in METHODS:
            runs = [run(method, url, args.rows, body.name, args.package) for _ in range(args.repeat)]
            results[method] = (
                statistics.median(r[0] for r in runs),
                statistics.median(r[1] for r in runs),
            )
            print(f"{method:38} {results[method][0]:7.2f} s {results[method][1]:8.0f} MB", flush=True)
    finally:
        sandbox.kill()
        sandbox.wait()
        if "body" in locals():
            os.unlink(body.name)
    base_t, base_m = results["httpx + orjson.loads + pd.DataFrame"]
    print(f"\n{args.rows:,} rows of sales_invoice, medians of {args.repeat} runs each")
    print(f"{'method':38} {'wall':>9} {'peak RSS':>10} {'speed vs orjson':>16} {'memory vs orjson':>17}")
    for method, (t, m) in results.items():
        print(f"{method:38} {t:7.2f} s {m:7.0f} MB {base_t / t:15.1f}x {m / base_m:16.2f}x")
    print(json.dumps({k: {"seconds": v[0], "peak_mb": v[1]} for k, v in results.items()}))


if __name__ == "__main__":
    main()
