#!/usr/bin/env python3
"""Prints the fault matrix: each fault of the sandbox's hostile mode against
each client, from the files the fault-matrix suites write
(target/fault-matrix/LANG.json: {"ROW": {"outcome": "...", "ok": true}}).

The rows are those of tests/vectors/faults.json, in its order. Exits
non-zero when a cell is missing, not ok, or a file holds a row that is not
in the table (its columns would not line up).

    scripts/fault-matrix.py [DIR]      (default: target/fault-matrix)
"""

import json
import sys
import time
from pathlib import Path

CLIENTS = ["python-sync", "python-async", "js", "rust-async", "rust-blocking"]
FAULTS = Path(__file__).resolve().parent.parent / "tests" / "vectors" / "faults.json"
"""The shared table every client's fault-matrix suite runs: its rows, in order."""
ROWS = [case["name"] for case in json.loads(FAULTS.read_text(encoding="utf-8"))["cases"]]


def load(folder):
    """Each client's column, or None when its file is missing or unreadable;
    and the problems found reading them."""
    columns, problems = {}, []
    for client in CLIENTS:
        path = folder / f"{client}.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            columns[client] = None
            problems.append(f"{client}: no {path}")
            continue
        except (OSError, ValueError) as e:
            columns[client] = None
            problems.append(f"{client}: unreadable {path}: {e}")
            continue
        if not isinstance(data, dict):
            columns[client] = None
            problems.append(f"{client}: {path} is not a JSON object")
            continue
        columns[client] = data
        age = time.time() - path.stat().st_mtime
        if age > 3600:
            print(f"note: {path} is {age / 3600:.1f} hours old", file=sys.stderr)
        for extra in sorted(set(data) - set(ROWS)):
            problems.append(f"{client}: unknown row {extra!r}")
    for other in sorted(folder.glob("*.json")):
        if other.stem not in CLIENTS:
            problems.append(f"unknown column file {other.name}")
    return columns, problems


def cell(column, row):
    """The cell's text and whether it is ok."""
    if column is None:
        return "(no file)", False
    entry = column.get(row)
    if not isinstance(entry, dict):
        return "(missing)", False
    outcome = str(entry.get("outcome", "(no outcome)"))
    ok = entry.get("ok") is True
    return (outcome if ok else f"FAIL: {outcome}"), ok


def main(argv):
    folder = Path(argv[1]) if len(argv) > 1 else Path("target/fault-matrix")
    columns, problems = load(folder)
    table = [["fault"] + CLIENTS]
    for row in ROWS:
        line = [row]
        for client in CLIENTS:
            text, ok = cell(columns[client], row)
            line.append(text)
            if not ok and columns[client] is not None:
                problems.append(f"{row} × {client}: {text}")
        table.append(line)
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    rule = "-+-".join("-" * w for w in widths)
    print(f"\nFault matrix ({folder})")
    for i, line in enumerate(table):
        print(" | ".join(text.ljust(w) for text, w in zip(line, widths)).rstrip())
        if i == 0:
            print(rule)
    if problems:
        print(f"\n{len(problems)} problem(s):", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    print(f"\nall {len(ROWS)} faults ok in all {len(CLIENTS)} clients")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
