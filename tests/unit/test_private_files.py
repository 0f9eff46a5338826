"""Exported histories hold ticket text and customer names: their files are 0600, made
new or written over, whatever the umask (signoff/service/history_export.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from signoff.service.history_export import write_private


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_and_an_overwritten_one_are_the_owners_alone(tmp_path: Path) -> None:
    fresh, shared = tmp_path / "fresh.json", tmp_path / "shared.json"
    shared.write_text("old")
    shared.chmod(0o644)
    previous = os.umask(0o002)
    try:
        write_private(fresh, '{"events": []}')
        write_private(shared, '{"events": []}')
    finally:
        os.umask(previous)
    assert (mode(fresh), mode(shared)) == (0o600, 0o600)
    assert shared.read_text() == '{"events": []}'
