"""A store migrated by a newer signoff stops every command at once, with exit code 2 and
the sentence that says what to do; the real console script, as a user runs it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from sqlalchemy import text

from activities.store import make_engine
from signoff.wiring.local_stack import SIGNOFF, free_port

COMMAND_SECONDS = 60


def test_a_newer_schema_is_refused_with_exit_code_2(tmp_path: Path) -> None:
    store = make_engine(f"sqlite:///{tmp_path / 'signoff.db'}")
    with store.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999future'"))
    store.dispose()
    env = {
        **os.environ,
        "SIGNOFF_HOME": str(tmp_path),
        "SIGNOFF_TEMPORAL_ADDRESS": f"127.0.0.1:{free_port()}",
    }

    seeded = subprocess.run(
        [SIGNOFF, "seed"], env=env, capture_output=True, text=True, timeout=COMMAND_SECONDS
    )

    assert seeded.returncode == 2
    assert "error: The store's schema is at revision 9999future" in seeded.stderr
    assert "Upgrade signoff" in seeded.stderr
    assert "Traceback" not in seeded.stderr
