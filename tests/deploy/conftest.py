"""Fixtures of the deployment tests: a throwaway CA."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.deploy.certificates import Certificates, make_certificates


@pytest.fixture
def certificates(tmp_path: Path) -> Certificates:
    return make_certificates(tmp_path)
