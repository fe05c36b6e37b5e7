"""Writes the response bodies of tests/vectors/responses.json as seed
inputs for a fuzz target (header bytes first, as the target reads them)."""

import hashlib
import json
import pathlib
import sys

target, out = sys.argv[1], pathlib.Path(sys.argv[2])
cases = json.loads((pathlib.Path(__file__).parent.parent / "tests/vectors/responses.json").read_text())
for case in cases["cases"]:
    response = case.get("response", {})
    if "body_hex" in response:
        body = bytes.fromhex(response["body_hex"])
    elif "body" in response:
        body = response["body"].encode()
    else:
        continue
    header = bytes([0, 2, 85, 170]) if target in ("table", "simd") else bytes([0])
    data = header + body
    (out / hashlib.sha1(data).hexdigest()).write_bytes(data)
