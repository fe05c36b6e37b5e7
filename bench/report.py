"""Writes bench/results.md from the figures the benchmarks left in
target/bench/ (rust.json, rust-mimalloc.json, rust-clients.json, python.json, js.json,
and capacity-start.json from `--probe`), with the machine, the versions and the date,
and checks them against the performance targets.

    python bench/report.py [--out bench/results.md]

Standard library only. A missing figure file is reported, not invented.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "target" / "bench"
PY_BASE = "httpx + orjson.loads + pd.DataFrame"
PY_EXPORT = "erpdata Client.export → Parquet"
PY_EXPORT_BASE = "httpx + orjson + pd.DataFrame + to_parquet"
PY_MEMORY_BASE = "in memory: orjson.loads + pd.DataFrame"
PY_FLOOR = "httpx: the body streamed and dropped (the floor)"
# The names `crates/erpdata-bench/benches/ratios.rs` gives serde_json on two
# threads, and the two-thread decoder dropping each batch as the one-thread
# row does (the decoding's scaling without a whole table kept).
SERDE_HALVES = "serde_json IgnoredAny, 2 threads (halves)"
TWO_DROPPED = "decoder → Arrow, 2 threads, batches dropped"


def command(*argv: str) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _spin(_: int) -> int:
    total = 0
    for i in range(5_000_000):
        total += i
    return total


def parallel_capacity() -> str:
    """How many cores the machine really gave at the time: the same busy
    loop once alone, then twice at once in two processes. A shared virtual
    machine can offer two cores and deliver one, which is what decides any
    multi-core figure below."""
    import multiprocessing
    import time

    start = time.perf_counter()
    _spin(0)
    alone = time.perf_counter() - start
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.map(_spin, [0, 1])  # both workers started
        start = time.perf_counter()
        pool.map(_spin, [0, 1], chunksize=1)
        both = time.perf_counter() - start
    return f"{2 * alone / both:.2f} of 2 cores (two busy processes ran at {alone / both:.0%} of one's speed each)"


def machine() -> list[str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))  # type: ignore[union-attr]
        mem = f", {kb / 2**20:.1f} GiB memory"
    except (OSError, AttributeError):
        pass
    python = ROOT / ".venv" / "bin" / "python"
    libs = command(
        str(python),
        "-c",
        "import importlib.metadata as m;print(', '.join(f'{p} {m.version(p)}' for p in "
        "('httpx','orjson','pandas','polars','pyarrow','numpy')))",
    )
    # A busy host can slow one part of a run and not the next: `make bench`
    # probes as it begins (`--probe`), and the report again as it is written.
    began = load("capacity-start")
    start = (
        [f"- Cores delivered as the run began ({began['at']}): {began['capacity']}"]
        if began
        else []
    )
    return [
        f"- Machine: {cpu}, {os.cpu_count()} cores{mem}; {platform.system()} {platform.release()}",
        *start,
        f"- Cores delivered when the report was written: {parallel_capacity()}",
        f"- Rust: {command('rustc', '--version')}",
        f"- Python: {command(str(python), '--version')}; {libs}",
        f"- Node: {command('node', '--version')}",
        f"- erpdata: commit {command('git', '-C', str(ROOT), 'rev-parse', '--short', 'HEAD')}",
        f"- Date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
    ]


def load(name: str) -> dict[str, Any] | None:
    path = FIGURES / f"{name}.json"
    if not path.exists():
        return None
    result: dict[str, Any] = json.loads(path.read_text())
    return result


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def target(name: str, goal: str, measured: float, ok: bool, aside: str = "") -> str:
    return f"| {name} | {goal} | {measured:.2f}×{aside} | {verdict(ok)} |"


def growth_table(
    title: str,
    growth: dict[str, Any],
    time_key: str,
    to_seconds: float,
    peak_key: str,
    floor: dict[str, Any] | None = None,
) -> list[str]:
    """Time and peak memory against row count, for a streaming path; with
    `floor`, the same body read and dropped, in the same run."""
    if not growth:
        return []
    extra = " | body read and dropped: wall s | peak RSS MB" if floor else ""
    out = [
        f"### Growth of {title}",
        "",
        f"| rows | wall s | µs per row | peak RSS MB{extra} |",
        "|---:|---:|---:|---:" + ("|---:|---:" if floor else "") + "|",
    ]
    for rows, g in sorted(growth.items(), key=lambda kv: int(kv[0])):
        seconds = g[time_key] * to_seconds
        row = (
            f"| {int(rows):,} | {seconds:.2f} | {seconds / int(rows) * 1e6:.2f} | {g[peak_key]:.0f}"
        )
        if floor and rows in floor:
            f = floor[rows]
            row += f" | {f[time_key] * to_seconds:.2f} | {f[peak_key]:.0f}"
        elif floor:
            row += " | | "
        out.append(row + " |")
    return out + [""]


def rust_section(
    fig: dict[str, Any] | None, mimalloc: dict[str, Any] | None, targets: list[str]
) -> list[str]:
    out = ["## Rust: the decoder against serde_json", ""]
    if fig is None or "styles" not in fig:
        return out + ["No figures (run `make bench-rust`).", ""]
    out += [
        f"{fig['rows']:,} rows of `sales_invoice` decoded in memory, in each answer style of the sandbox "
        "(`native`: money as JSON numbers; `mysqlnd`: DECIMAL as strings; `strings`: every value a string), "
        f"{fig['rounds']} rounds; in each round every contender runs once, back to back, and the "
        "ratio is taken within the round (`cargo bench -p erpdata-bench --bench ratios`). "
        "The ceiling is a loop written for this one table (`crates/erpdata-bench/src/ceiling.rs`): "
        "it takes the columns and their types from the first row and reads every row as exactly that "
        "shape, storing what the decoder stores, with no key lookup, type inference, error or "
        "streaming: what a typed decoder could reach at best on the same body. "
        "serde_json on two threads reads the same body cut beforehand, untimed, at the first row "
        "boundary past its middle, one half on each thread: what two cores of this machine "
        "give the floor itself, beside the decoder's two threads. "
        "One thread streams the batches and drops each once converted; two threads keep the whole "
        "table (`decode_parallel_map`), as a caller that wants it does. The two-thread row "
        "with each batch dropped does the one-thread row's work on two threads: the decoding's "
        "own scaling, apart from what keeping the table costs (about 110 MB of fresh memory, "
        "faulted in a page at a time).",
        "",
        *ratio_table(fig),
    ]
    rust_targets(fig, "", targets)
    if mimalloc is not None and "styles" in mimalloc:
        out += [
            "### With mimalloc as the global allocator",
            "",
            "The same contenders in a build whose global allocator is mimalloc "
            "(`cargo bench -p erpdata-bench --features mimalloc --bench ratios -- --only Arrow`). "
            "The decoder's output is fresh memory every round; glibc's allocator gives much of what "
            "is freed back to the kernel, which faults each page in again, where mimalloc keeps it "
            "for the next round, as in a service that decodes again and again. serde_json keeps "
            "nothing, so its time hardly changes. What that spares depends on the machine: "
            "mimalloc gives each thread segments of its own, which on some machines cost the "
            "two-thread rows more than they spare; the spread (min–max) shows when.",
            "",
            *ratio_table(mimalloc),
        ]
        rust_targets(mimalloc, ", mimalloc", targets)
    return out + clients_section(load("rust-clients"))


# The Rust clients, each beside the transport under it reading the same
# body (names as `crates/erpdata-bench/benches/clients.rs` gives them).
RUST_CLIENT_FLOORS = {
    "BlockingClient::stream_table → Arrow, kept": (
        "ureq: the body read and dropped (BlockingClient's floor)"
    ),
    "AsyncClient::stream_table → Arrow, kept": (
        "reqwest: the body read and dropped (AsyncClient's floor)"
    ),
}
RUST_CLIENT_BASE = "reqwest + serde_json::Value"


def clients_section(fig: dict[str, Any] | None) -> list[str]:
    out = ["### The clients over HTTP", ""]
    if fig is None:
        return out + ["No figures (run `make bench-rust`).", ""]
    by_name = {r["name"]: r for r in fig["contenders"]}
    base = by_name[RUST_CLIENT_BASE]["s"]
    out += [
        f"{fig['rows']:,} rows of `sales_invoice` ({fig['bytes'] / 2**20:.0f} MiB, `mysqlnd` style) "
        "over loopback, streamed by each client to Arrow batches, all kept; beside them, the "
        "HTTP stack under each reading the same body and dropping it (its transport floor), and "
        "reqwest reading it whole for `serde_json` to parse into a `Value`, what a service "
        f"without the client would write. {fig['rounds']} rounds; in each, every contender runs "
        "once, back to back (`cargo bench -p erpdata-bench --bench clients`). Each client reads "
        "the body ahead on a thread or task of its own while it decodes.",
        "",
        "| contender | s (median) | s min–max | ×faster than reqwest + serde_json | × its floor |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in fig["contenders"]:
        floor = RUST_CLIENT_FLOORS.get(r["name"])
        against = f"{r['s'] / by_name[floor]['s']:.2f}" if floor in by_name else ""
        out.append(
            f"| {r['name']} | {r['s']:.3f} | {r['s_min']:.3f}–{r['s_max']:.3f} | "
            f"{base / r['s']:.2f} | {against} |"
        )
    return [*out, ""]


def ratio_table(fig: dict[str, Any]) -> list[str]:
    out = [
        "| style | contender | MiB/s (median) | MiB/s min–max | ratio to serde (median) | ratio min–max |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for style, run in fig["styles"].items():
        for r in run["results"]:
            out.append(
                f"| {style} ({run['body_mib']:.0f} MiB) | {r['name']} | {r['mib_s']:.0f} | "
                f"{r['mib_s_min']:.0f}–{r['mib_s_max']:.0f} | "
                f"{r['ratio']:.2f} | {r['ratio_min']:.2f}–{r['ratio_max']:.2f} |"
            )
    return [*out, ""]


def rust_targets(fig: dict[str, Any], label: str, targets: list[str]) -> None:
    """The 1- and 2-thread Arrow goals of each style in `fig`; beside the
    2-thread one, what serde_json itself reaches on two threads there, and
    the decoder when it keeps no table."""
    for style, run in fig["styles"].items():
        by_name = {r["name"]: r for r in run["results"]}
        asides = [
            f"{what}: {r['ratio']:.2f}×"
            for what, r in (
                ("serde_json on two threads", by_name.get(SERDE_HALVES)),
                ("each batch dropped, as on one thread", by_name.get(TWO_DROPPED)),
            )
            if r
        ]
        for name, threads, goal in (
            ("decoder → Arrow", "1 thread", 1.0),
            ("decoder → Arrow, 2 threads", "2 threads", 1.8),
        ):
            if r := by_name.get(name):
                aside = f" ({'; '.join(asides)})" if asides and threads == "2 threads" else ""
                targets.append(
                    target(
                        f"Rust decoder → Arrow, {threads} ({style}{label})",
                        f"≥ {goal:.1f}× serde",
                        r["ratio"],
                        r["ratio"] >= goal,
                        aside,
                    )
                )


def python_methods(title: str, results: dict[str, Any], baseline: str = PY_BASE) -> list[str]:
    """One table of methods, each against the baseline of its kind."""
    base = results.get(baseline)
    out = [
        f"### {title}",
        "",
        "| method | wall s | min–max s | peak RSS MB | ×faster | ×memory |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for method, r in results.items():
        against = results.get(PY_MEMORY_BASE) if method.startswith("in memory") else base
        faster = f"{against['seconds'] / r['seconds']:.2f}" if against else ""
        memory = f"{r['peak_mb'] / against['peak_mb']:.2f}" if against else ""
        out.append(
            f"| {method} | {r['seconds']:.2f} | {r['min']:.2f}–{r['max']:.2f} | "
            f"{r['peak_mb']:.0f} | {faster} | {memory} |"
        )
    return out + [""]


def python_section(fig: dict[str, Any] | None, targets: list[str]) -> list[str]:
    out = ["## Python", ""]
    if fig is None:
        return out + ["No figures (run `make bench-python`).", ""]
    out += [
        "Each method in a fresh interpreter, its libraries imported before the clock starts; "
        f"medians of {fig['repeat']} interleaved runs. Ratios against `{PY_BASE}` "
        "(×faster: its time / this time; ×memory: this peak RSS / its peak RSS); "
        f"the in-memory rows (body already read) against `{PY_MEMORY_BASE}`. The sizes are served in the "
        "sandbox's default answer style, `mysqlnd` (DECIMAL as strings, INT as numbers), like a PHP service "
        "over MySQL; the DataFrames are measured in the other styles too. The transport floor is "
        f"`{PY_FLOOR}`: httpx streaming the body as erpdata reads it (`iter_bytes()`), each chunk "
        "dropped; the baselines read it whole (`.content`), which joins the chunks.",
        "",
    ]
    largest = max(fig["sizes"], key=int) if fig["sizes"] else None
    for rows, results in sorted(fig["sizes"].items(), key=lambda kv: int(kv[0])):
        out += python_methods(f"{int(rows):,} rows", results)
    if largest and int(largest) >= 1_000_000:
        r = fig["sizes"][largest]
        base, slow = r[PY_BASE], r["httpx + json.loads + pd.DataFrame"]
        dicts = r["httpx + orjson.loads (dicts)"]
        floor = r.get(PY_FLOOR)
        if floor is not None:
            over = r["erpdata .to_pandas()"]["seconds"] / floor["seconds"]
            targets.append(
                target(
                    "Python .to_pandas() over HTTP: time vs httpx reading the body (the floor)",
                    "≤ 1.2×",
                    over,
                    over <= 1.2,
                )
            )
            threaded = r.get("erpdata .stream_table(use_threads=True) (Arrow)")
            if threaded is not None:
                over = threaded["seconds"] / floor["seconds"]
                targets.append(
                    target(
                        "Python .stream_table(use_threads=True) over HTTP: time vs the floor",
                        "≤ 1.2×",
                        over,
                        over <= 1.2,
                    )
                )
        for name in ("erpdata .to_polars()", "erpdata .to_pandas()"):
            m = r[name]
            fast, faster = base["seconds"] / m["seconds"], slow["seconds"] / m["seconds"]
            memory = m["peak_mb"] / base["peak_mb"]
            targets.append(
                target(f"Python {name}: speed vs orjson + pd.DataFrame", "≥ 15×", fast, fast >= 15)
            )
            targets.append(
                target(
                    f"Python {name}: speed vs json.loads + pd.DataFrame",
                    "≥ 10×",
                    faster,
                    faster >= 10,
                )
            )
            targets.append(
                target(
                    f"Python {name}: peak RSS vs orjson + pd.DataFrame",
                    "≤ 0.25×",
                    memory,
                    memory <= 0.25,
                )
            )
        rows_t = r["erpdata rows (dicts)"]["seconds"] / dicts["seconds"]
        targets.append(target("Python rows: time vs orjson.loads", "≤ 0.7×", rows_t, rows_t <= 0.7))
        m = r["erpdata .to_pandas()"]
        fast = base["seconds"] / m["seconds"]
        targets.append(
            target(
                "Python .to_pandas() (mysqlnd: DECIMAL as strings) vs orjson + pd.DataFrame",
                "≥ 5×",
                fast,
                fast >= 5,
            )
        )
    for style, run in fig.get("styles", {}).items():
        results = run["results"]
        base = results[PY_BASE]
        out += python_methods(f"{int(run['rows']):,} rows, answer style `{style}`", results)
        fast = base["seconds"] / results["erpdata .to_pandas()"]["seconds"]
        targets.append(
            target(
                f"Python .to_pandas() ({style}) vs orjson + pd.DataFrame", "≥ 5×", fast, fast >= 5
            )
        )
    export = fig.get("export") or {}
    if export.get("results"):
        results = export["results"]
        out += python_methods(
            f"{int(export['rows']):,} rows into a Parquet file", results, PY_EXPORT_BASE
        )
        m, base = results[PY_EXPORT], results[PY_EXPORT_BASE]
        fast = base["seconds"] / m["seconds"]
        memory = m["peak_mb"] / base["peak_mb"]
        targets.append(
            target(
                "Python export → Parquet: speed vs orjson + pandas + to_parquet",
                "> 1×",
                fast,
                fast > 1,
            )
        )
        targets.append(
            target(
                "Python export → Parquet: peak RSS vs orjson + pandas + to_parquet",
                "< 1×",
                memory,
                memory < 1,
            )
        )
    out += growth_table(
        "`stream_table` (Arrow batches)", fig.get("growth", {}), "seconds", 1.0, "peak_mb"
    )
    return out


def js_section(fig: dict[str, Any] | None, targets: list[str]) -> list[str]:
    out = ["## JavaScript", ""]
    if fig is None:
        return out + ["No figures (run `make bench-js`).", ""]
    out += [
        f"Node {fig['node']}; each case in a fresh process; medians of {fig['runs']} interleaved runs. "
        "×json: `fetch` + `res.json()` time / this time (in-memory cases: `JSON.parse` time / this time); "
        "heap: what the result keeps after a GC.",
        "",
    ]
    for rows, results in sorted(fig["sizes"].items(), key=lambda kv: int(kv[0])):
        out += [
            f"### {int(rows):,} rows",
            "",
            "| case | wall ms | min–max ms | ×json | CPU ms | heap MB | peak RSS MB |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for name, r in results.items():
            base = results["memory json" if name.startswith("memory") else "json"]
            out.append(
                f"| {name} | {r['ms']:.0f} | {r['min']:.0f}–{r['max']:.0f} | {base['ms'] / r['ms']:.2f} | "
                f"{r['cpuMs']:.0f} | {r['heapMB']:.1f} | {r['peakMB']:.0f} |"
            )
        out.append("")
    million = fig["sizes"].get("1000000")
    if million:
        base = million["json"]["ms"]
        columns = base / million["columns"]["ms"]
        rows = million["rows"]["ms"] / base
        rss = million["columns"]["peakMB"] / million["json"]["peakMB"]
        targets.append(target("JS columns(): speed vs res.json()", "≥ 3×", columns, columns >= 3))
        targets.append(target("JS columns(): peak RSS vs res.json()", "≤ 0.4×", rss, rss <= 0.4))
        if "memory columns" in million:
            parse = million["memory json"]["ms"] / million["memory columns"]["ms"]
            targets.append(
                target("JS columns() in memory: speed vs JSON.parse", "≥ 3×", parse, parse >= 3)
            )
        targets.append(target("JS rows: time vs res.json()", "≤ 1.0×", rows, rows <= 1.0))
    five = fig.get("growth", {}).get("5000000")
    floor = fig.get("growthFloor", {})
    if five:
        read = floor.get("5000000")
        aside = f" (`node:http` reading the body alone: {read['peakMB']:.0f} MB)" if read else ""
        targets.append(
            f"| JS streamTable of 5M rows: peak RSS | ≤ 150 MB | {five['peakMB']:.0f} MB{aside} | "
            f"{verdict(five['peakMB'] <= 150)} |"
        )
    if floor:
        out += [
            "The transport floor beside each size: the client's transport in Node (`node:http`) "
            "reading the same body chunk by chunk and dropping it (`read`: no client, no wasm "
            "module), in the same run.",
            "",
        ]
    out += growth_table("`streamTable`", fig.get("growth", {}), "ms", 1e-3, "peakMB", floor)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results.md"))
    parser.add_argument(
        "--probe", metavar="FILE", help="only measure the cores delivered, into FILE"
    )
    args = parser.parse_args()
    if args.probe:
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        probe = {"at": now, "capacity": parallel_capacity()}
        Path(args.probe).parent.mkdir(parents=True, exist_ok=True)
        Path(args.probe).write_text(json.dumps(probe) + "\n")
        print(f"cores delivered as the run begins: {probe['capacity']}")
        return
    targets: list[str] = []
    body = (
        rust_section(load("rust"), load("rust-mimalloc"), targets)
        + python_section(load("python"), targets)
        + js_section(load("js"), targets)
    )
    lines = [
        "# Benchmark results",
        "",
        "Written by `make bench` (`bench/report.py`) from the figures of its three parts; "
        "every ratio compares two measurements of the same run on the same machine. "
        "Loopback HTTP to the sandbox (`crates/erpdata-sandbox`, release build) unless marked in memory. "
        "The sandbox makes each answer once, before the clock, and sends it again from memory "
        "(`--cache-answers`), as a service on another machine costs the client's cores only the sending; "
        "making a million rows takes it 0.20–0.26 s of CPU.",
        "",
        *machine(),
        "",
        "## Targets (1M rows)",
        "",
        "| target | goal | measured | |",
        "|---|---|---:|---|",
        *targets,
        "",
        *body,
    ]
    Path(args.out).write_text("\n".join(lines).rstrip() + "\n")
    print("\n".join(["", "Targets (1M rows):", *targets, "", f"written to {args.out}"]))


if __name__ == "__main__":
    main()
