"""A throwaway PostgreSQL cluster that `python -m bench.chaos` can stop and start again.

Debian's `postgresql` package (`/usr/lib/postgresql/N/bin`), as the store tests use it:
PostgreSQL refuses to run as root, so when this runs as root the cluster belongs to the
`postgres` OS user (`runuser`) in a fresh folder under /tmp. It listens on 127.0.0.1 on
a port it keeps across a stop and a start, with trust auth and no fsync (the data is
thrown away).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from signoff.wiring.local_stack import free_port

PG_CTL_GLOB = "/usr/lib/postgresql/*/bin/pg_ctl"
OS_USER = "postgres"
DATABASE = "signoff_chaos"
START_SECONDS = 60
OPTIONS = "-c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300"


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", OS_USER, "--", *command] if os.geteuid() == 0 else command


def _run(command: list[str]) -> None:
    done = subprocess.run(_as_server_user(command), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")


class Cluster:
    def __init__(self, root: Path) -> None:
        found = sorted(glob.glob(PG_CTL_GLOB), key=lambda path: int(Path(path).parts[-3]))
        if not found:
            raise SystemExit(f"No PostgreSQL server ({PG_CTL_GLOB}): apt-get install postgresql")
        self.bin = Path(found[-1]).parent
        self.root, self.port = root, free_port()
        self.data, self.log = root / "data", root / "server.log"

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{DATABASE}"

    def start(self) -> None:
        options = f"{OPTIONS} -p {self.port} -k {self.root}"
        _run(
            [str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options]
            + ["-w", "-t", str(START_SECONDS), "start"]
        )

    def stop(self) -> None:
        """Fast shutdown: every session is ended, its transaction rolled back."""
        _run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"])

    def sql(self, statement: str) -> list[tuple[object, ...]]:
        with psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname=DATABASE, autocommit=True
        ) as connection:
            cursor = connection.execute(statement.encode())
            return cursor.fetchall() if cursor.description else []


@contextmanager
def postgres_cluster() -> Iterator[Cluster]:
    """A started cluster with an empty database; stopped and deleted on the way out."""
    root = Path(tempfile.mkdtemp(prefix="signoff-chaos-pg-"))
    if os.geteuid() == 0:
        user = pwd.getpwnam(OS_USER)
        os.chown(root, user.pw_uid, user.pw_gid)
    cluster = Cluster(root)
    try:
        _run(
            [str(cluster.bin / "initdb"), "-D", str(cluster.data), "-U", "postgres", "-A"]
            + ["trust", "-E", "UTF8", "--no-locale", "--no-sync"]
        )
        cluster.start()
        with psycopg.connect(
            host="127.0.0.1", port=cluster.port, user="postgres", dbname="postgres", autocommit=True
        ) as admin:
            admin.execute(f"CREATE DATABASE {DATABASE}")
        yield cluster
    finally:
        subprocess.run(
            _as_server_user([str(cluster.bin / "pg_ctl"), "-D", str(cluster.data)])
            + ["-m", "immediate", "stop"],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(root, ignore_errors=True)
