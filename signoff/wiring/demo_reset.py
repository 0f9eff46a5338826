"""`signoff demo reset` (`make demo-reset`): the demo as `make demo` first made it.

After a refund is approved in the demo, its order is refunded for good: the same ticket
again is refused ("59.90 EUR of 89.90 paid"), as it must be. Starting over means
deleting what `signoff dev` keeps under SIGNOFF_HOME: the store (SQLite, or the dev
stack's own PostgreSQL folder) and the Temporal dev server's database, so that no run
is left pointing at a store that forgot it. The next `signoff dev` seeds the demo data
again. The decision keys and the UI's session secret stay: they are the host's, not
the demo's.

Design note. Deleting is refused unless the data is surely the demo's: a store named by
SIGNOFF_DATABASE_URL is someone's (the command never deletes what it did not make), a
Temporal address off this machine is another server's, and while `signoff dev` runs
(its Temporal port answers) the files are in use. Each refusal says why and what to do.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import typer

from signoff.cli.support import fail, say, settings
from signoff.config.settings import Settings

demo = typer.Typer(help="The local demo that `make demo` (`signoff dev`) runs.")

# What `signoff dev` writes that holds the demo's runs, refunds and accounts. SQLite keeps
# a journal beside a database while it writes: it goes with it.
DATABASES = ("signoff.db", "temporal.db")
SQLITE_COMPANIONS = ("", "-wal", "-shm", "-journal")
POSTGRES_FOLDER = "postgres"  # `signoff dev --postgres`'s cluster (dev_postgres.py)


def register(app: typer.Typer) -> None:
    app.add_typer(demo, name="demo")


def refusal(current: Settings) -> str | None:
    """Why the data under SIGNOFF_HOME may not be deleted as the demo's, or None."""
    from signoff.wiring.dev import LOOPBACK, port_in_use, split_address

    if current.database_url:
        return (
            f"SIGNOFF_DATABASE_URL names a store of its own ({current.shown_database_url}); "
            "`signoff demo reset` deletes only the demo's embedded store under "
            f"{current.home}. Unset it to reset the demo. Nothing was deleted."
        )
    host, port = split_address(current.temporal_address)
    if host not in (*LOOPBACK, "localhost"):
        return (
            f"SIGNOFF_TEMPORAL_ADDRESS names a Temporal server on {host}, not the demo's on "
            "this machine: its runs are not the demo's to delete. Nothing was deleted."
        )
    if port_in_use(host, port):
        return (
            f"The demo is running (its Temporal server answers on {host}:{port}): stop "
            "`make demo` with Ctrl-C first, then reset. Nothing was deleted."
        )
    return None


def demo_files(home: Path) -> list[Path]:
    """The demo's data that exists under `home`."""
    found = [
        home / f"{name}{suffix}"
        for name in DATABASES
        for suffix in SQLITE_COMPANIONS
        if (home / f"{name}{suffix}").exists()
    ]
    if (home / POSTGRES_FOLDER).is_dir():
        found.append(home / POSTGRES_FOLDER)
    return found


@demo.command("reset")
def reset_command() -> None:
    """Delete the demo's runs, refunds and accounts; the next `make demo` starts afresh.

    Run it with the demo stopped. It deletes the store and the Temporal dev server's
    database under SIGNOFF_HOME, never a store SIGNOFF_DATABASE_URL names."""
    current = settings()
    refused = refusal(current)
    if refused is not None:
        fail(refused)
    found = demo_files(current.home)
    for path in found:
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    if not found:
        say(f"Nothing to reset under {current.home}: `make demo` starts the demo afresh.")
        return
    say(
        f"Demo reset: deleted {', '.join(path.name for path in found)} under {current.home}. "
        "`make demo` starts it again with the demo data as new."
    )
