"""A real Jupyter kernel (ipykernel, driven by nbclient) runs what a
finance user writes in a notebook: the sync client inside the kernel's
running event loop, the async client with top-level await, to_pandas,
aging, credit status, and the HTML displays of each result."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from conftest import ROOT, SANDBOX_TOKEN, need

nbformat = need("nbformat")
nbclient = need("nbclient")

CELLS = [
    """import erpdata, os
client = erpdata.Client(os.environ["NOTEBOOK_SANDBOX_URL"], project="demo",
                        access_token=os.environ["NOTEBOOK_TOKEN"], company_id=1, year_id=2025)
table = client.table("sales_invoice")
table""",
    "df = table.to_pandas()\nprint(len(df), str(df['total'].dtype))",
    """async with erpdata.AsyncClient(os.environ["NOTEBOOK_SANDBOX_URL"], project="demo",
        access_token=os.environ["NOTEBOOK_TOKEN"], company_id=1, year_id=2025) as aclient:
    again = await aclient.table("sales_invoice")
print(len(again) == len(table))""",
    'aging = client.aging(as_of="2025-12-31")\naging',
    'erpdata.aging(client.dues_table(["C001", "C002"], "receipt"), as_of="2025-12-31").to_pandas()',
    'client.credit_status(as_of="2025-12-31")',
    'client.receivables("C001")',
    'client.avg_pay_days("C001")',
    "from erpdata import _progress\nprint(_progress.interactive())",
]


def outputs(cell: dict[str, Any]) -> tuple[str, str]:
    """A cell's text/html and its text (stream or plain) outputs."""
    html, text = [], []
    for out in cell["outputs"]:
        assert out["output_type"] != "error", "".join(out.get("traceback", []))
        data = out.get("data", {})
        html.append(data.get("text/html", ""))
        text.append(out.get("text", "") + data.get("text/plain", ""))
    return "".join(html), "".join(text)


def test_notebook_runs_in_a_real_kernel(sandbox_url: str, tmp_path: Path) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    env = {
        "NOTEBOOK_SANDBOX_URL": sandbox_url,
        "NOTEBOOK_TOKEN": SANDBOX_TOKEN,
        "PYTHONPATH": str(ROOT / "python"),
    }
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        client = nbclient.NotebookClient(
            notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
        )
        client.execute()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    target = ROOT / "target" / "notebook"
    target.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target / "finance.ipynb")

    cells = [outputs(c) for c in notebook.cells]
    table_html, _ = cells[0]
    assert "erpdata Table</b>: 40 rows" in table_html and "decimal(" in table_html
    assert re.fullmatch(r"40 decimal128\(\d+, 2\)\[pyarrow\]", cells[1][1].strip())
    assert cells[2][1].strip() == "True"
    assert "acid" in cells[3][0] and "91+" in cells[3][0]
    assert "<table" in cells[4][0] and "C002" in cells[4][0]  # a DataFrame's own HTML
    assert "over_limit" in cells[5][0] and "Acme Traders" in cells[5][0]
    assert "Receipt dues of C001" in cells[6][0]
    assert "avgPayDays (object)" in cells[7][0]
    assert cells[8][1].strip() == "True"  # a kernel counts as someone watching
    everything = "".join(h + t for h, t in cells)
    assert SANDBOX_TOKEN not in everything
