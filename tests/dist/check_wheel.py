"""What a wheel in dist/ must hold, checked without installing it (the
aarch64 wheel cannot run here): abi3 and manylinux2014 tags for its
architecture, the native module and the shipped sandbox built for that
architecture and needing no glibc newer than 2.17, the licence files, the
stubs, and the README as the long description.

Usage: python check_wheel.py ARCH WHEEL   (ARCH: x86_64 or aarch64)
"""

from __future__ import annotations

import re
import stat
import sys
import zipfile
from email.parser import HeaderParser
from pathlib import Path

ELF_MACHINE = {"x86_64": 62, "aarch64": 183}
GLIBC_FLOOR = (2, 17)


def check_elf(name: str, data: bytes, arch: str) -> None:
    assert data[:4] == b"\x7fELF", f"{name}: not an ELF file"
    machine = int.from_bytes(data[18:20], "little")
    assert machine == ELF_MACHINE[arch], f"{name}: ELF machine {machine}, not {arch}"
    versions = {
        tuple(int(p) for p in m.group(1).split(b"."))
        for m in re.finditer(rb"GLIBC_([0-9]+(?:\.[0-9]+)+)", data)
    }
    newest = max(versions, default=(0,))
    assert newest <= GLIBC_FLOOR, f"{name}: needs glibc {newest} > manylinux2014's 2.17"


def main() -> None:
    arch, wheel = sys.argv[1], Path(sys.argv[2])
    assert "-cp39-abi3-" in wheel.name, wheel.name
    assert f"manylinux2014_{arch}" in wheel.name and f"manylinux_2_17_{arch}" in wheel.name
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        dist_info = info.rsplit("/", 1)[0]
        for needed in (
            "erpdata/__init__.py",
            "erpdata/py.typed",
            "erpdata/_core.pyi",
            "erpdata/_core.abi3.so",
            "erpdata/_bin/erpdata-sandbox",
            f"{dist_info}/licenses/LICENSE-MIT",
            f"{dist_info}/licenses/LICENSE-APACHE",
            f"{dist_info}/RECORD",
        ):
            assert needed in names, f"{needed} missing from {wheel.name}"
        sandbox = z.getinfo("erpdata/_bin/erpdata-sandbox")
        assert (sandbox.external_attr >> 16) & stat.S_IXUSR, "the sandbox is not executable"
        check_elf("erpdata/_core.abi3.so", z.read("erpdata/_core.abi3.so"), arch)
        check_elf("erpdata/_bin/erpdata-sandbox", z.read("erpdata/_bin/erpdata-sandbox"), arch)
        record = z.read(f"{dist_info}/RECORD").decode()
        assert "erpdata/_bin/erpdata-sandbox," in record, "the sandbox is not in RECORD"
        metadata = HeaderParser().parsestr(z.read(info).decode())
    assert metadata["License-Expression"] == "MIT OR Apache-2.0", metadata["License-Expression"]
    assert metadata["Description-Content-Type"].startswith("text/markdown"), metadata
    assert metadata.get_payload().lstrip().startswith("#"), "no README as the long description"
    size = wheel.stat().st_size
    print(f"{wheel.name}: {size / 1e6:.1f} MB, {len(names)} files, {arch}, glibc <= 2.17")


if __name__ == "__main__":
    main()
