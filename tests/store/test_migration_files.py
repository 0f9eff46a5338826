"""The revision files of activities/store/migrations/versions/ list in the order Alembic
runs them: a reader (or `ls`) sees the chain as it is, and the newest file is the head
(activities/schema_head.py says so).

Alembic reads each file's `revision` and `down_revision`, never its name, so a file may
be renamed freely; the ids inside are what a deployed store records in
`alembic_version` and never change. A file's name starts with its revision's number,
and where several revisions share a number a letter after it gives their order
(`0005a_tool_effects.py` is revision `0005`, `0005b_accounts.py` is `0005_accounts`).
"""

from __future__ import annotations

import re
from pathlib import Path

from alembic.config import Config
from alembic.script import ScriptDirectory

from activities.schema_head import HEAD_REVISION
from activities.store.schema_migrations import MIGRATIONS

NUMBER = re.compile(r"^\d+")


def chain() -> list[tuple[str, str]]:
    """(file name, revision id) of every revision, from the first to the head, as
    Alembic reads and orders them."""
    config = Config()
    config.set_main_option("script_location", MIGRATIONS)
    scripts = list(ScriptDirectory.from_config(config).walk_revisions())
    assert scripts and all(script.path for script in scripts)
    return [(Path(script.path).name, script.revision) for script in reversed(scripts)]


def test_the_file_names_sort_in_the_chains_order() -> None:
    names = [name for name, _ in chain()]
    assert names == sorted(names)


def test_every_revision_file_is_in_the_chain() -> None:
    files = {path.name for path in (Path(MIGRATIONS) / "versions").glob("[0-9]*.py")}
    assert files == {name for name, _ in chain()}


def test_a_files_name_starts_with_its_revisions_number() -> None:
    for name, revision in chain():
        file_number, revision_number = NUMBER.match(name), NUMBER.match(revision)
        assert file_number and revision_number, (name, revision)
        assert file_number[0] == revision_number[0], (name, revision)


def test_the_last_file_is_the_head_the_code_runs_on() -> None:
    assert chain()[-1][1] == HEAD_REVISION
