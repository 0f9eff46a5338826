"""The machine, versions and date a benchmark's result file opens with."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path


def machine() -> list[str]:
    memory = next(
        line.split()[1]
        for line in Path("/proc/meminfo").read_text().splitlines()
        if line.startswith("MemTotal")
    )
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    try:
        temporal = subprocess.run(
            [str(Path(sys.executable).parent / "temporal"), "--version"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        temporal = "unknown"
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return [
        f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; commit {commit or 'unknown'}",
        f"- machine: {os.cpu_count()} cores (nproc), {int(memory) / 1024 / 1024:.1f} GiB "
        f"memory, {platform.platform()}; load average at the end: {load}",
        f"- Python {platform.python_version()}, temporalio {version('temporalio')}, "
        f"SQLAlchemy {version('sqlalchemy')}, pydantic {version('pydantic')}; {temporal}",
    ]
