"""The dev stack the end-to-end tests share: `signoff dev` as a user starts it.

The launcher starts the Temporal dev server from the venv's `temporal` binary, a worker
and the demo data, on free ports and a private home. It is the test process's shared
stack (tests/dev_stack.py), which the UI and CLI tests use too: stopped with Ctrl-C
(SIGINT) when the session ends, it must stop cleanly.
"""

from __future__ import annotations

import pytest

from tests.dev_stack import DevStack


@pytest.fixture(scope="package")
def dev_stack(shared_dev_stack: DevStack) -> dict[str, str]:
    return shared_dev_stack.env
