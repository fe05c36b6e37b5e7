"""The sandbox binary as a child process, for the benchmark and reliability
scripts: started on a free loopback port with its stdout's first line (its
URL) read within a time limit, and killed when the ``with`` block ends.

(The test suite has its own fixture in ``tests/python/conftest.py``, which
also reports the sandbox's stderr through pytest.)
"""

from __future__ import annotations

import subprocess
import threading


class SandboxProcess:
    """``binary --port 0 --quiet ARGS...``; ``url`` is its base URL, without a
    trailing ``/``."""

    def __init__(self, binary: str, *args: str, start_timeout: float = 60.0) -> None:
        self.process = subprocess.Popen(
            [binary, "--port", "0", "--quiet", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        stdout = self.process.stdout
        assert stdout is not None
        line: list[str] = []
        reader = threading.Thread(target=lambda: line.append(stdout.readline()), daemon=True)
        reader.start()
        reader.join(start_timeout)
        self.url = line[0].strip().rstrip("/") if line else ""
        if not self.url.startswith("http"):
            self.process.kill()
            raise SystemExit(f"the sandbox {binary} did not start")

    def __enter__(self) -> SandboxProcess:
        return self

    def __exit__(self, *_: object) -> None:
        self.process.kill()
        self.process.wait(10)
