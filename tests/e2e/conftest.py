"""The dev stack the end-to-end tests share: `signoff dev` as a user starts it.

The launcher starts the Temporal dev server from the venv's `temporal` binary, a worker
and the demo data, on free ports and a private home; it is stopped with Ctrl-C (SIGINT)
after the last test of this package, and must stop cleanly.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from signoff.wiring.local_stack import signoff_dev_stack


@pytest.fixture(scope="package")
def dev_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    home = tmp_path_factory.mktemp("signoff-home")
    log_path = home / "dev.log"
    with signoff_dev_stack(home, task_queue=f"e2e-{os.getpid()}") as (env, launcher):
        yield env
    assert launcher.returncode == 0, log_path.read_text()
    assert "Stopped the worker and the Temporal dev server" in log_path.read_text()
