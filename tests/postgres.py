"""A throwaway PostgreSQL cluster from Debian's `postgresql` package, for the store tests.

PostgreSQL refuses to run as root, and CI runs as root: the cluster is created and run
by the `postgres` OS user (`runuser`) in a fresh directory under /tmp that it owns (a
pytest tmp dir is root-only and not traversable by it). It listens on 127.0.0.1 on a
free port, its socket in that directory, trust auth, and no fsync: the data is thrown
away. Missing binaries fail the tests instead of skipping them, so that `make test`
always tests PostgreSQL; `.ci/run` installs the package when it is absent.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

PG_CTL_GLOB = "/usr/lib/postgresql/*/bin/pg_ctl"
OS_USER = "postgres"
DATABASE = "signoff_test"
START_TIMEOUT_SECONDS = 60
SERVER_OPTIONS = (
    "-c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off "
    "-c full_page_writes=off -c max_connections=200"
)


class PostgresUnavailable(RuntimeError):
    pass


def postgres_bin_dir() -> Path:
    """The newest installed server's bin folder."""
    found = sorted(glob.glob(PG_CTL_GLOB), key=lambda path: int(Path(path).parts[-3]))
    if not found:
        raise PostgresUnavailable(
            f"PostgreSQL server binaries not found ({PG_CTL_GLOB}). Run `.ci/run`, which "
            "installs them, or `apt-get install -y postgresql`."
        )
    return Path(found[-1]).parent


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", OS_USER, "--", *command] if os.geteuid() == 0 else command


def _run(command: list[str]) -> None:
    completed = subprocess.run(
        _as_server_user(command), capture_output=True, text=True, check=False
    )
    if completed.returncode != 0:
        raise PostgresUnavailable(
            f"{' '.join(command)} failed ({completed.returncode}):\n"
            f"{completed.stdout}\n{completed.stderr}"
        )


@contextmanager
def postgres_cluster() -> Iterator[str]:
    """Start a cluster with an empty database; yield its SQLAlchemy URL; stop and delete it."""
    bin_dir = postgres_bin_dir()
    root = Path(tempfile.mkdtemp(prefix="signoff-pg-"))
    if os.geteuid() == 0:
        server_user = pwd.getpwnam(OS_USER)
        os.chown(root, server_user.pw_uid, server_user.pw_gid)
    data, log = root / "data", root / "server.log"
    port = free_port()
    started = False
    try:
        _run(
            [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust"]
            + ["-E", "UTF8", "--no-locale", "--no-sync"]
        )
        options = f"{SERVER_OPTIONS} -p {port} -k {root}"
        _run(
            [str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options]
            + ["-w", "-t", str(START_TIMEOUT_SECONDS), "start"]
        )
        started = True
        with psycopg.connect(
            host="127.0.0.1", port=port, user="postgres", dbname="postgres", autocommit=True
        ) as admin:
            admin.execute(f"CREATE DATABASE {DATABASE}")
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/{DATABASE}"
    except PostgresUnavailable as error:
        server_log = log.read_text() if log.exists() else ""
        raise PostgresUnavailable(f"{error}\n{server_log}") from None
    finally:
        if started:
            _run([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"])
        shutil.rmtree(root, ignore_errors=True)
