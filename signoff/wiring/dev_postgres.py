"""`signoff dev --postgres`: the demo's store on a PostgreSQL cluster of its own.

Design note. Debian's `postgresql` package brings the server binaries, as for the
store tests (`tests/postgres.py`); this starts a cluster whose data lives in
`$SIGNOFF_HOME/postgres` (so the demo's records outlive a restart, as the SQLite file
does), listening on 127.0.0.1 only, on `SIGNOFF_DEV_POSTGRES_PORT`, with trust
authentication: a local demo, not a deployment (production points
`SIGNOFF_DATABASE_URL` at its own server). PostgreSQL refuses to run as root, so as
root the cluster is made and run by the `postgres` OS user (`runuser`), which must be
able to reach `$SIGNOFF_HOME`. The cluster is stopped by the `signoff dev` that started
it; one left running by a killed `signoff dev` is stopped and started again.

The demo keeps the deployment's two roles (deploy/postgres/roles.sh): `signoff_owner`
owns the database and runs the migrations, `signoff_app` is what the worker, the UI and
the CLI connect as, with INSERT and SELECT only on the audit (runtime_grants.py). The
superuser only makes the roles and the database. Trust authentication, so no passwords.
"""

from __future__ import annotations

import glob
import os
import pwd
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from signoff.cli.support import fail, say
from signoff.config.settings import Settings

PG_CTL_GLOB = "/usr/lib/postgresql/*/bin/pg_ctl"
OS_USER = "postgres"
DATABASE = "signoff"
OWNER_ROLE = "signoff_owner"  # migrations
RUNTIME_ROLE = "signoff_app"  # everything else
START_TIMEOUT_SECONDS = 60


def bin_dir() -> Path:
    """The newest installed server's bin folder."""
    found = sorted(glob.glob(PG_CTL_GLOB), key=lambda path: int(Path(path).parts[-3]))
    if not found:
        fail(
            f"PostgreSQL's server is not installed ({PG_CTL_GLOB} not found). Install "
            "Debian's package (`apt-get install -y postgresql`), or set "
            "SIGNOFF_DATABASE_URL to a PostgreSQL server of yours instead of --postgres."
        )
    return Path(found[-1]).parent


def database_url(settings: Settings, role: str = RUNTIME_ROLE) -> str:
    """The store's URL as `role` (the runtime role unless told)."""
    return f"postgresql+psycopg://{role}@127.0.0.1:{settings.dev_postgres_port}/{DATABASE}"


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", OS_USER, "--", *command] if os.geteuid() == 0 else command


def _run(command: list[str], check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(_as_server_user(command), capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        fail(f"`{' '.join(command)}` failed ({done.returncode}): {done.stderr.strip()}")
    return done


def _prepare(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        server_user = pwd.getpwnam(OS_USER)
        os.chown(root, server_user.pw_uid, server_user.pw_gid)
        os.chmod(root, 0o700)


@contextmanager
def dev_postgres(settings: Settings) -> Iterator[str]:
    """A running cluster with the `signoff` database; yields its SQLAlchemy URL."""
    binaries = bin_dir()
    root = settings.home / "postgres"
    data, log = root / "data", root / "server.log"
    _prepare(root)
    if not (data / "PG_VERSION").exists():
        say(f"PostgreSQL: a new cluster in {data} ...")
        _run(
            [str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust"]
            + ["-E", "UTF8", "--no-locale"]
        )
    pg_ctl = [str(binaries / "pg_ctl"), "-D", str(data)]
    if _run([*pg_ctl, "status"], check=False).returncode == 0:  # left by a killed dev
        _run([*pg_ctl, "-m", "fast", "stop"])
    options = f"-c listen_addresses=127.0.0.1 -p {settings.dev_postgres_port} -k {root}"
    started = _run(
        [*pg_ctl, "-l", str(log), "-o", options, "-w", "-t", str(START_TIMEOUT_SECONDS), "start"],
        check=False,
    )
    if started.returncode != 0:
        fail(
            f"PostgreSQL did not start on 127.0.0.1:{settings.dev_postgres_port} (see {log}). "
            "If the port is taken, set SIGNOFF_DEV_POSTGRES_PORT to a free one."
        )
    try:
        _ensure_database(settings)
        yield database_url(settings)
    finally:
        _run([*pg_ctl, "-m", "fast", "stop"], check=False)


def _ensure_database(settings: Settings) -> None:
    try:
        import psycopg  # only `--postgres` needs the driver
    except ImportError:
        fail("--postgres needs the PostgreSQL driver: pip install 'signoff[postgres]'.")
    with psycopg.connect(
        host="127.0.0.1",
        port=settings.dev_postgres_port,
        user="postgres",
        dbname="postgres",
        autocommit=True,
    ) as admin:
        for role in (OWNER_ROLE, RUNTIME_ROLE):
            found = admin.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,))
            if found.fetchone() is None:
                admin.execute(f"CREATE ROLE {role} LOGIN")
        exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,))
        if exists.fetchone() is None:
            admin.execute(f"CREATE DATABASE {DATABASE} OWNER {OWNER_ROLE}")
            admin.execute(f"REVOKE ALL ON DATABASE {DATABASE} FROM PUBLIC")
            admin.execute(f"GRANT CONNECT ON DATABASE {DATABASE} TO {RUNTIME_ROLE}")
            with psycopg.connect(
                host="127.0.0.1",
                port=settings.dev_postgres_port,
                user="postgres",
                dbname=DATABASE,
                autocommit=True,
            ) as inside:
                inside.execute(f"ALTER SCHEMA public OWNER TO {OWNER_ROLE}")
                inside.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
            return
        owner = admin.execute(
            "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = %s", (DATABASE,)
        ).fetchone()
        if owner is None or owner[0] != OWNER_ROLE:
            fail(
                f"This dev cluster's database belongs to {owner[0] if owner else 'nobody'}, "
                f"not {OWNER_ROLE}: an older signoff made it as the superuser. Remove "
                f"{settings.home / 'postgres'} to start afresh (the demo data is seeded again)."
            )
