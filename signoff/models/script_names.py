"""Which `scripted:NAME` values name a script: a name or a relative `.json` path inside
the scripts directory, never a path that leaves it.

A ModelRef travels in the run's request, written by whoever starts the run; the worker
reads the file it names. So the rule is checked twice: lexically here, when the CLI
parses `--model` (a clear error before anything starts), and again by the worker's
scripted model, which also resolves symlinks before it opens the file.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

SCRIPT_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def script_name_problem(name: str) -> str | None:
    """Why `name` cannot name a script in the scripts directory; None when it can."""
    path = PurePosixPath(name)
    inside = (
        name
        and "\\" not in name
        and not path.is_absolute()
        and all(SCRIPT_PART.match(part) and part != ".." for part in path.parts)
    )
    if inside:
        return None
    return (
        f"'{name}' is not a script name: use a name from the scripts directory "
        "(activities/scripts/, or SIGNOFF_SCRIPTS_DIR), or a relative path ending in .json "
        "inside it; absolute paths, '~' and '..' are refused."
    )
