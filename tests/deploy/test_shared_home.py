"""Workers scaled out on one shared SIGNOFF_HOME (temporal-dev.yml's volume) make or read
the same generated secret (the UI cookie key): a process never reads a secret file
another is still writing."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

from signoff.config.secret_files import load_secret

PROCESSES = 4


def _load(args: tuple[str, Any]) -> str:
    home, barrier = args
    barrier.wait()  # all at once, as `docker compose up --scale worker=4` starts them
    return load_secret(None, Path(home) / "ui-secret", "SIGNOFF_UI_SECRET")


def test_processes_starting_together_share_one_complete_key(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        barrier = manager.Barrier(PROCESSES)
        with context.Pool(PROCESSES) as pool:
            keys = pool.map(_load, [(str(tmp_path), barrier)] * PROCESSES)
    assert len(set(keys)) == 1
    assert (tmp_path / "ui-secret").read_text() == keys[0]
    assert [path.name for path in tmp_path.iterdir()] == ["ui-secret"]  # no drafts left
