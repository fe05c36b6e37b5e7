"""Smoke test of an installed wheel, run by `make test-wheel` in a fresh
virtualenv that has only the wheel and its dependencies (no pyarrow,
pandas or polars): the package imports from site-packages, ships its
stubs, talks to the sandbox, and its console script runs.

Usage: python wheel_smoke.py DIST_DIR  (ERPDATA_SANDBOX_BIN names the sandbox)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import erpdata


def main() -> None:
    dist = Path(sys.argv[1])
    wheels = list(dist.glob("*.whl"))
    sdists = list(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, (wheels, sdists)
    assert "-cp39-abi3-" in wheels[0].name, wheels[0].name
    with tarfile.open(sdists[0]) as sdist:
        names = sdist.getnames()
    # The sdist carries the core crate the module is built from.
    assert any(n.endswith("crates/erpdata/src/lib.rs") for n in names), names[:20]
    assert any(n.endswith("python/erpdata/py.typed") for n in names)

    package = Path(erpdata.__file__).parent
    assert "site-packages" in str(package), package
    for shipped in ("py.typed", "_core.pyi", "cli.py"):
        assert (package / shipped).exists(), shipped

    sandbox = subprocess.Popen(
        [os.environ["ERPDATA_SANDBOX_BIN"], "--port", "0", "--quiet"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert sandbox.stdout is not None
        url = sandbox.stdout.readline().strip()
        with erpdata.Client(
            url, project="demo", access_token="sandbox-token-not-secret", company_id=1, year_id=2025
        ) as client:
            assert client.receivables("C001").rows
            table = client.table("sales_invoice")
            assert len(table) == 40 and table[0]["invoice_no"] == "INV-2025-0001"
            assert sum(len(b) for b in client.stream_table("sales_invoice", batch_rows=7)) == 40
            try:
                table.to_arrow()
            except ImportError as exc:
                assert "erpdata[arrow]" in str(exc)
            else:
                raise AssertionError("pyarrow should not be installed here")
        script = Path(sys.executable).parent / "erpdata"
        env = {**os.environ, "ERPDATA_BASE_URL": url, "ERPDATA_PROJECT": "demo"}
        done = subprocess.run(
            [str(script), "dues", "C001", "--kind", "receipt"],
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0 and done.stdout.startswith("doc_no,"), done.stderr
    finally:
        sandbox.kill()
        sandbox.wait()
    print(
        f"wheel smoke test passed: {wheels[0].name}, {sdists[0].name}, erpdata {erpdata.__version__}"
    )


if __name__ == "__main__":
    main()
