"""Load and size through the Python clients, against release sandboxes on
loopback; prints its figures and exits non-zero when a bound is missed.

    python scripts/reliability/python_load.py --sandbox BIN --package DIR [--parts load,stream,export,cuts] [--seed N]

(``make reliability-python`` builds both in release mode and runs this.)

1. load: ``AsyncClient`` makes 10,000 dues calls at concurrency 64 while
   the sandbox fails 1% of requests (``--fail-rate 1``: 503,
   ``Retry-After: 0``): no call may fail after retries, every answer must
   be the one for its own request (the account and kind in the body are
   the ones asked, the rows those of that account), and peak RSS after the
   run must be within 10% of peak RSS after the first 1,000 calls.
   Throughput is printed.
2. stream: ``Client.stream_table`` over a 5,000,000-row sales_invoice, in
   a fresh interpreter whose peak RSS (``ru_maxrss``) must stay under
   200 MB; every row must arrive.
3. export: ``Client.export`` of the same 5,000,000-row table into a
   Parquet dataset, then into a DuckDB file, each in a fresh interpreter
   whose peak RSS must stay under 300 MB; every row must be written.
4. cuts: a 1,000,000-row answer cut at 20 random points (alternately a
   short body with a matching Content-Length, ``truncate-N``, and a
   Content-Length the body never reaches, ``short-N``), read alternately
   with ``table`` and ``stream_table``: 20 errors, no short result.

Each part runs in a fresh interpreter (its own memory figures) that imports
erpdata from ``--package``; this parent only starts sandboxes and checks.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sandbox_process import SandboxProcess  # noqa: E402

TOKEN = "sandbox-token-not-secret"
CALLS = 10_000
CONCURRENCY = 64
FIRST = 1_000
RSS_GROWTH = 0.10
STREAM_ROWS = 5_000_000
STREAM_PEAK_LIMIT_MB = 200.0
EXPORT_PEAK_LIMIT_MB = 300.0
CUT_ROWS = 1_000_000
CUTS = 20


def peak_rss_mb() -> float:
    """Peak resident set of this process so far (Linux: ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def live_rss_mb() -> float:
    """Resident set now, after a full garbage collection: what is retained
    (httpx's requests and answers form reference cycles, freed only by the
    collector, so the peak also depends on when it last ran)."""
    gc.collect()
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def settings(**extra: Any) -> dict[str, Any]:
    return dict(project="demo", access_token=TOKEN, company_id=1, year_id=2025, **extra)


# -- the parts, each in its own interpreter -----------------------------------------


def part_load(url: str, seed: int) -> dict[str, Any]:
    import httpx

    import erpdata

    async def main() -> dict[str, Any]:
        # One kept-alive connection per worker: httpx keeps 20 by default,
        # so 64 workers would open and close connections all run long.
        limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY)
        async with (
            httpx.AsyncClient(limits=limits) as http,
            erpdata.AsyncClient(url, **settings(timeout=60.0), http_client=http) as client,
        ):
            accounts = await client.table("account")
            # Customers owe (receipts), suppliers are owed (payments).
            asked = [
                (str(row["acid"]), "RECEIPT" if row["kind"] == "customer" else "PAYMENT")
                for row in accounts
            ]
            # What each account's answer must hold, fetched before the clock.
            expected = {}
            for acid, kind in asked:
                expected[(acid, kind)] = (await client.dues(acid, kind)).rows
            done = 0
            failed: list[str] = []
            mismatched: list[str] = []
            rss_first = live_first = 0.0
            next_call = 0

            async def worker() -> None:
                nonlocal done, rss_first, live_first, next_call
                while next_call < CALLS:
                    i = next_call
                    next_call += 1
                    acid, kind = asked[i % len(asked)]
                    try:
                        dues = await client.dues(acid, kind)
                    except erpdata.ErpError as err:
                        failed.append(f"call {i} ({acid}): {err}")
                    else:
                        body = json.loads(dues.raw)
                        if (body.get("acid"), body.get("type"), dues.acid, dues.rows) != (
                            acid,
                            kind,
                            acid,
                            expected[(acid, kind)],
                        ):
                            mismatched.append(
                                f"call {i}: asked {acid} {kind}, got {body.get('acid')} {body.get('type')}"
                            )
                    done += 1
                    if done == FIRST:
                        rss_first = peak_rss_mb()
                        live_first = live_rss_mb()

            started = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
            seconds = time.perf_counter() - started
            return {
                "calls": done,
                "accounts": len(asked),
                "failed": failed[:5],
                "failed_count": len(failed),
                "mismatched": mismatched[:5],
                "mismatched_count": len(mismatched),
                "seconds": seconds,
                "rss_first_mb": rss_first,
                "rss_end_mb": peak_rss_mb(),
                "live_first_mb": live_first,
                "live_end_mb": live_rss_mb(),
            }

    return asyncio.run(main())


def part_stream(url: str, seed: int) -> dict[str, Any]:
    import erpdata

    started = time.perf_counter()
    rows = 0
    with erpdata.Client(url, **settings(timeout=erpdata.Timeout(total=600.0, read=60.0))) as client:
        with client.stream_table(
            "sales_invoice", batch_format="arrow", batch_rows=65_536
        ) as stream:
            for batch in stream:
                rows += batch.num_rows
            finished, received = stream.finished, stream.bytes_received
    return {
        "rows": rows,
        "finished": finished,
        "bytes": received,
        "seconds": time.perf_counter() - started,
        "peak_rss_mb": peak_rss_mb(),
    }


def part_cuts(url: str, seed: int) -> dict[str, Any]:
    import erpdata

    with erpdata.Client(url, **settings(timeout=120.0)) as client:
        # The whole answer once: its size, to cut it anywhere.
        with client.stream_table("sales_invoice", batch_format="arrow") as stream:
            whole_rows = sum(b.num_rows for b in stream)
            size = stream.bytes_received
    rng = random.Random(seed)
    outcomes = []
    for i in range(CUTS):
        at = rng.randrange(1, size)
        fault = f"{'truncate' if i % 2 == 0 else 'short'}-{at}"
        op = "table" if (i // 2) % 2 == 0 else "stream_table"
        base = f"{url}/_faults/{fault}/py-cut-{os.getpid()}-{i}/"
        started = time.perf_counter()
        got_rows = None
        error = None
        rows_received = None
        with erpdata.Client(base, **settings(timeout=120.0)) as client:
            try:
                if op == "table":
                    got_rows = len(client.table("sales_invoice"))
                else:
                    with client.stream_table("sales_invoice", batch_format="arrow") as stream:
                        got_rows = sum(b.num_rows for b in stream)
            except erpdata.ErpError as err:
                error = type(err).__name__
                rows_received = err.rows_received
        outcomes.append(
            {
                "fault": fault,
                "op": op,
                "error": error,
                "rows": got_rows,
                "rows_received": rows_received,
                "seconds": time.perf_counter() - started,
            }
        )
    return {"size": size, "rows": whole_rows, "cuts": outcomes}


def _export(url: str, to: str) -> dict[str, Any]:
    import tempfile

    import erpdata

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="erpdata-export-") as folder:
        with erpdata.Client(url, **settings(timeout=erpdata.Timeout(total=900.0, read=60.0))) as c:
            result = c.export("sales_invoice", to=Path(folder) / to, progress=False)
        size = sum(f.stat().st_size for f in Path(folder).rglob("*") if f.is_file())
    return {
        "rows": result.rows,
        "bytes": result.partitions[0].bytes,
        "written": size,
        "seconds": time.perf_counter() - started,
        "peak_rss_mb": peak_rss_mb(),
    }


def part_export_parquet(url: str, seed: int) -> dict[str, Any]:
    return _export(url, "dataset")


def part_export_duckdb(url: str, seed: int) -> dict[str, Any]:
    return _export(url, "erp.duckdb")


PARTS: dict[str, Callable[[str, int], dict[str, Any]]] = {
    "load": part_load,
    "stream": part_stream,
    "cuts": part_cuts,
    "export-parquet": part_export_parquet,
    "export-duckdb": part_export_duckdb,
}


# -- the parent: sandboxes and checks ------------------------------------------------------


def child(part: str, url: str, package: str, seed: int = 0) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": package}
    done = subprocess.run(
        [sys.executable, __file__, "--child", part, "--url", url, "--seed", str(seed)],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0:
        raise SystemExit(f"part {part} crashed:\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def check(failures: list[str], ok: bool, what: str) -> None:
    print(f"  [{'ok' if ok else 'FAIL'}] {what}")
    if not ok:
        failures.append(what)


def run_load(binary: str, package: str, seed: int, failures: list[str]) -> None:
    print(
        f"load: {CALLS:,} dues calls, AsyncClient, concurrency {CONCURRENCY}, sandbox --fail-rate 1"
    )
    with SandboxProcess(binary, "--fail-rate", "1") as sandbox:
        r = child("load", sandbox.url, package)
    rate = r["calls"] / r["seconds"]
    growth = (r["rss_end_mb"] - r["rss_first_mb"]) / r["rss_first_mb"]
    print(
        f"  {r['calls']:,} calls over {r['accounts']} accounts in {r['seconds']:.2f} s: {rate:,.0f} req/s"
    )
    live = (r["live_end_mb"] - r["live_first_mb"]) / r["live_first_mb"]
    print(
        f"  peak RSS after {FIRST:,} calls {r['rss_first_mb']:.1f} MB, after the run {r['rss_end_mb']:.1f} MB ({growth:+.1%})"
    )
    print(
        f"  RSS after a full collection: {r['live_first_mb']:.1f} MB, then {r['live_end_mb']:.1f} MB ({live:+.1%})"
    )
    check(failures, r["calls"] == CALLS, f"{CALLS:,} calls made")
    check(
        failures,
        r["failed_count"] == 0,
        f"no call failed after retries ({r['failed_count']} did: {r['failed']})",
    )
    check(
        failures,
        r["mismatched_count"] == 0,
        f"every answer matches its request ({r['mismatched_count']} did not: {r['mismatched']})",
    )
    check(
        failures,
        growth <= RSS_GROWTH,
        f"peak RSS grew {growth:+.1%} after the first {FIRST:,} calls (bound {RSS_GROWTH:.0%})",
    )


def run_stream(binary: str, package: str, seed: int, failures: list[str]) -> None:
    print(f"stream: {STREAM_ROWS:,}-row sales_invoice through Client.stream_table (Arrow batches)")
    with SandboxProcess(binary, "--rows", str(STREAM_ROWS)) as sandbox:
        r = child("stream", sandbox.url, package)
    print(
        f"  {r['rows']:,} rows, {r['bytes'] / 1e6:,.0f} MB in {r['seconds']:.1f} s "
        f"({r['rows'] / r['seconds']:,.0f} rows/s); peak RSS {r['peak_rss_mb']:.1f} MB"
    )
    check(failures, r["rows"] == STREAM_ROWS and r["finished"], f"all {STREAM_ROWS:,} rows arrived")
    check(
        failures,
        r["peak_rss_mb"] < STREAM_PEAK_LIMIT_MB,
        f"peak RSS {r['peak_rss_mb']:.1f} MB < {STREAM_PEAK_LIMIT_MB:.0f} MB",
    )


def run_export(binary: str, package: str, seed: int, failures: list[str]) -> None:
    for target in ("parquet", "duckdb"):
        print(f"export: a {STREAM_ROWS:,}-row sales_invoice through Client.export into {target}")
        with SandboxProcess(binary, "--rows", str(STREAM_ROWS)) as sandbox:
            r = child(f"export-{target}", sandbox.url, package)
        print(
            f"  {r['rows']:,} rows, {r['bytes'] / 1e6:,.0f} MB read, {r['written'] / 1e6:,.0f} MB "
            f"written in {r['seconds']:.1f} s; peak RSS {r['peak_rss_mb']:.1f} MB"
        )
        check(failures, r["rows"] == STREAM_ROWS, f"all {STREAM_ROWS:,} rows exported")
        check(
            failures,
            r["peak_rss_mb"] < EXPORT_PEAK_LIMIT_MB,
            f"peak RSS {r['peak_rss_mb']:.1f} MB < {EXPORT_PEAK_LIMIT_MB:.0f} MB",
        )


def run_cuts(binary: str, package: str, seed: int, failures: list[str]) -> None:
    print(
        f"cuts: a {CUT_ROWS:,}-row answer cut at {CUTS} random points (--seed {seed} repeats them)"
    )
    with SandboxProcess(binary, "--rows", str(CUT_ROWS)) as sandbox:
        r = child("cuts", sandbox.url, package, seed)
    print(f"  whole answer: {r['rows']:,} rows, {r['size']:,} bytes")
    errors = 0
    for cut in r["cuts"]:
        short = cut["rows"] is not None
        errors += cut["error"] is not None and not short
        arrived = f", {cut['rows_received']:,} rows had arrived" if cut["rows_received"] else ""
        print(
            f"  {cut['fault']:>18} {cut['op']:<12} -> "
            f"{cut['error'] or 'NO ERROR: ' + str(cut['rows']) + ' rows'}{arrived} ({cut['seconds']:.1f} s)"
        )
    check(failures, r["rows"] == CUT_ROWS, f"the whole answer holds {CUT_ROWS:,} rows")
    check(failures, errors == CUTS, f"{errors} errors for {CUTS} cuts, no short result")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sandbox", help="the release sandbox binary")
    parser.add_argument("--package", help="folder holding the erpdata package to test")
    parser.add_argument("--parts", default="load,stream,export,cuts")
    parser.add_argument("--seed", type=int, help="where the cuts fall [default: random]")
    parser.add_argument("--child", choices=sorted(PARTS), help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(PARTS[args.child](args.url, args.seed)))
        return 0
    if not args.sandbox or not args.package:
        parser.error("--sandbox and --package are required")
    binary = str(Path(args.sandbox).resolve())
    package = str(Path(args.package).resolve())
    runs = {"load": run_load, "stream": run_stream, "cuts": run_cuts, "export": run_export}
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    failures: list[str] = []
    for part in args.parts.split(","):
        runs[part](binary, package, seed, failures)
    if failures:
        print(f"python reliability: {len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print("python reliability: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
