"""What a face holds between two service calls: the store (`Store`) and the runs
(`Runs`), each an opaque handle around the SQLAlchemy `Engine` or the Temporal `Client`.

Design note. A face (the reviewer UI, the CLI) passes these on and never reaches
through them: neither class has a public attribute or method, so mypy refuses a face
that would use one as an engine or a client (`store.connect()`, `runs.start_workflow`),
and nothing a face prints shows what is inside. Only the service unwraps them
(`engine_of`, `client_of`); pyproject.toml's import contracts keep the faces from
importing this module, so they name the classes where the service exports them
(`signoff.service.store.Store`, `signoff.service.run_control.Runs`). The wiring, which
makes the engine and the client, wraps them here.

Light on purpose: `signoff status` loads neither SQLAlchemy nor `temporalio.client`,
and the types are named for mypy alone.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from temporalio.client import Client

__all__ = ["Runs", "Store", "client_of", "engine_of", "on_store"]

P = ParamSpec("P")
T = TypeVar("T")


class Store:
    """The shop's store a face passes to the service: made by `open_store` (or the
    wiring), closed by `close_store`."""

    __slots__ = ("_engine",)

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def __repr__(self) -> str:
        return "<signoff store>"


class Runs:
    """The connection to Temporal a face passes to the service's run functions: made by
    `connect` (signoff/service/run_connection.py) or the wiring."""

    __slots__ = ("_client",)

    def __init__(self, client: Client) -> None:
        self._client = client

    def __repr__(self) -> str:
        return "<signoff runs>"


def engine_of(store: Store) -> Engine:
    """The engine inside `store`: for the service's own calls into the store."""
    return store._engine


def client_of(runs: Runs) -> Client:
    """The client inside `runs`: for the service's own calls into Temporal."""
    return runs._client


def on_store(function: Callable[Concatenate[Engine, P], T]) -> Callable[Concatenate[Store, P], T]:
    """`function` of the store layer as the service offers it to a face: the same call,
    with the face's `Store` where the store layer takes its engine."""

    @wraps(function)
    def with_store(store: Store, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return function(store._engine, *args, **kwargs)

    return with_store
