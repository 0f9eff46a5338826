"""The package from outside signoff (tests/outside_packages), installed for one test:
its folder put on `sys.path` with its `.dist-info`, as `pip install` would put it in
`site-packages`, and signoff's registries read again; removed afterwards."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from signoff.helpdesks.registry import reload_kinds
from signoff.intake.registry import reload_sources
from signoff.models.registry import reload_providers
from signoff.payments.registry import reload_platforms

OUTSIDE = Path(__file__).parent / "outside_packages"
PACKAGE = "acme_signoff"


def _read_registries_again() -> None:
    importlib.invalidate_caches()
    reload_providers()
    reload_platforms()
    reload_kinds()
    reload_sources()


def uninstall() -> None:
    if str(OUTSIDE) in sys.path:
        sys.path.remove(str(OUTSIDE))
    for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
        del sys.modules[name]
    _read_registries_again()


@contextmanager
def outside_package_installed() -> Iterator[None]:
    sys.path.insert(0, str(OUTSIDE))
    _read_registries_again()
    try:
        yield
    finally:
        uninstall()
