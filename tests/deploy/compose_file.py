"""Reading temporal-dev.yml for its tests: the file as written, and as Compose resolves it.

`docker-compose config` (Debian's `docker-compose` package, which validates offline, no
Docker engine needed) checks the file against the Compose schema and prints it resolved:
`${VAR:-default}` substituted, YAML merge keys applied. The tests read that output, so
what they check is what `docker compose up` would run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = REPO_ROOT / "temporal-dev.yml"
SIGNOFF_IMAGE = "signoff:dev"


def docker_compose() -> str:
    found = shutil.which("docker-compose")
    if found is None:  # fail rather than skip: `make test` installs it
        raise RuntimeError(
            "docker-compose not found: run `make test` (scripts/ensure-system-packages.sh "
            "installs it) or `apt-get install -y docker-compose`."
        )
    return found


def compose_config(
    path: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [docker_compose(), "-f", str(path), "config"],
        capture_output=True,
        text=True,
        check=False,
        cwd=path.parent,
        env=env,
    )


def resolved(path: Path = COMPOSE_FILE) -> dict[str, Any]:
    completed = compose_config(path)
    assert completed.returncode == 0, completed.stderr
    document: dict[str, Any] = yaml.safe_load(completed.stdout)
    return document


def resolved_with(**variables: str) -> dict[str, Any]:
    """The file as Compose resolves it with these variables set in its environment."""
    completed = compose_config(COMPOSE_FILE, env={**os.environ, **variables})
    assert completed.returncode == 0, completed.stderr
    document: dict[str, Any] = yaml.safe_load(completed.stdout)
    return document


def signoff_services(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        name: service
        for name, service in document["services"].items()
        if service.get("image") == SIGNOFF_IMAGE
    }


def long_running(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Services that stay up; the others are one-shot steps (`restart: "no"`)."""
    return {
        name: service
        for name, service in document["services"].items()
        if service.get("restart", "no") != "no"
    }


def published_host_ports(service: dict[str, Any]) -> list[int]:
    return [port.published for port in published(service) if port.published is not None]


@dataclass(frozen=True)
class Published:
    """One `ports` entry: the host address and port, and the container port."""

    host_ip: str | None
    published: int | None
    target: str


def published(service: dict[str, Any]) -> list[Published]:
    """A service's `ports`, in either form docker-compose config prints: the long form
    (a mapping) or the short one, `[HOST_IP:]HOST_PORT:CONTAINER_PORT[/PROTOCOL]`."""
    found = []
    for entry in service.get("ports", []):
        if isinstance(entry, dict):
            port = entry.get("published")
            found.append(
                Published(
                    entry.get("host_ip"), None if port is None else int(port), str(entry["target"])
                )
            )
            continue
        parts = str(entry).split("/")[0].split(":")
        target = parts[-1]
        host_port = int(parts[-2]) if len(parts) >= 2 else None
        host_ip = ":".join(parts[:-2]) or None
        found.append(Published(host_ip, host_port, target))
    return found
