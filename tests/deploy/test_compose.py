"""temporal-dev.yml, checked statically (no Docker engine here, and no image pulls).

It parses; `docker-compose config` accepts it (and refuses a broken copy, so that check
can fail); every variable a signoff service sets is a Settings field; every command is a
real `signoff` command; published ports do not clash; the search attributes registered
are those the code declares; every long-running service has a health check, and the
start order is a chain of conditions.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import typer.main
import yaml
from sqlalchemy.engine import make_url
from typer import _click
from typer.testing import CliRunner

from signoff.config.settings import Settings
from signoff.wiring.app import app
from signoff.wiring.search_attributes import KEYWORD_ATTRIBUTES, KEYWORD_LIST_ATTRIBUTES
from tests.deploy.compose_file import (
    COMPOSE_FILE,
    REPO_ROOT,
    compose_config,
    long_running,
    published,
    published_host_ports,
    resolved,
    resolved_with,
    signoff_services,
)

SETUP_SCRIPT = REPO_ROOT / "deploy" / "temporal" / "setup.sh"
CONDITIONS = {"service_healthy", "service_completed_successfully"}


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return resolved()


def settings_variables() -> set[str]:
    """Every environment variable Settings reads: SIGNOFF_<FIELD> and declared aliases."""
    prefix = Settings.model_config.get("env_prefix", "")
    names = set()
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        choices = getattr(alias, "choices", None)
        if choices:
            names.update(str(choice).upper() for choice in choices)
        else:
            names.add(f"{prefix}{name}".upper())
    return names


def test_it_parses_and_has_the_stack_of_the_issue() -> None:
    written = yaml.safe_load(COMPOSE_FILE.read_text())
    assert {"postgresql", "temporal", "temporal-ui", "worker", "ui", "seed"} <= set(
        written["services"]
    )


def test_docker_compose_accepts_it_and_refuses_a_broken_copy(tmp_path: Path) -> None:
    assert compose_config(COMPOSE_FILE).returncode == 0
    broken = tmp_path / "temporal-dev.yml"
    broken.write_text(
        COMPOSE_FILE.read_text().replace("service_completed_successfully", "service_done", 1)
    )
    refused = compose_config(broken)
    assert refused.returncode != 0
    assert "service_done" in refused.stderr


def test_signoff_services_set_only_settings_variables_with_valid_values(
    document: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    known = settings_variables()
    services = signoff_services(document)
    assert set(services) == {"migrate", "seed", "decision-keys", "worker", "ui"}
    for name, service in services.items():
        environment = service.get("environment", {})
        unknown = set(environment) - known
        assert not unknown, f"{name} sets {unknown}, which Settings does not read"
        for variable in known & set(os.environ):
            monkeypatch.delenv(variable)
        for variable, value in environment.items():
            if value is not None:  # None: passed on from the shell when set there
                monkeypatch.setenv(variable, str(value))
        Settings()  # the values are valid, not only the names


def test_every_command_is_a_real_signoff_command(document: dict[str, Any]) -> None:
    group = typer.main.get_command(app)
    context = _click.Context(group)
    runner = CliRunner()
    for name, service in signoff_services(document).items():
        command = service["command"]
        assert command[0] in group.list_commands(context), f"{name} runs `signoff {command[0]}`"
        shown = runner.invoke(app, [*command, "--help"])
        assert shown.exit_code == 0, f"{name}: {shown.output}"


def test_every_port_is_published_on_loopback_unless_told_otherwise(
    document: dict[str, Any],
) -> None:
    """Temporal (no TLS), its Web UI (no sign-in) and the reviewer UI (plain HTTP) are
    reachable from this host only; PUBLISH_ADDRESS opens them on purpose."""
    entries = [entry for service in document["services"].values() for entry in published(service)]
    assert len(entries) == 3
    assert {entry.host_ip for entry in entries} == {"127.0.0.1"}, entries
    opened = resolved_with(PUBLISH_ADDRESS="0.0.0.0")
    assert {
        entry.host_ip for service in opened["services"].values() for entry in published(service)
    } == {"0.0.0.0"}


def test_published_ports_do_not_clash_and_workers_can_scale(document: dict[str, Any]) -> None:
    ports = [
        port for service in document["services"].values() for port in published_host_ports(service)
    ]
    assert len(ports) == len(set(ports)), ports
    worker = document["services"]["worker"]
    # `--scale worker=N` needs N containers: no fixed name, no fixed host port.
    assert "container_name" not in worker
    assert published_host_ports(worker) == []


def test_the_search_attributes_registered_are_those_the_code_declares(
    document: dict[str, Any],
) -> None:
    registered = dict(re.findall(r"^retry register (\w+) (\w+)$", SETUP_SCRIPT.read_text(), re.M))
    assert registered == {
        **{name: "Keyword" for name in KEYWORD_ATTRIBUTES},
        **{name: "KeywordList" for name in KEYWORD_LIST_ATTRIBUTES},
    }
    setup = document["services"]["temporal-setup"]
    namespaces = {
        service["environment"]["SIGNOFF_TEMPORAL_NAMESPACE"]
        for service in signoff_services(document).values()
    }
    assert namespaces == {setup["environment"]["TEMPORAL_NAMESPACE"]}
    assert setup["command"] == ["/signoff-deploy/setup.sh"]


def test_every_long_running_service_has_a_health_check(document: dict[str, Any]) -> None:
    running = long_running(document)
    assert {"postgresql", "temporal", "temporal-ui", "worker", "ui"} <= set(running)
    for name, service in running.items():
        assert service.get("healthcheck", {}).get("test"), f"{name} has no health check"


def test_start_order_is_a_chain_of_conditions(document: dict[str, Any]) -> None:
    services = document["services"]
    for name, service in services.items():
        for needed, rule in service.get("depends_on", {}).items():
            condition = rule["condition"]
            assert condition in CONDITIONS, f"{name} -> {needed}: {condition}"
            if condition == "service_healthy":
                assert services[needed].get("healthcheck"), f"{needed} has no health check"
            else:
                assert services[needed].get("restart") == "no", f"{needed} is not one-shot"

    def before(name: str, seen: tuple[str, ...] = ()) -> set[str]:
        assert name not in seen, f"a cycle: {seen + (name,)}"
        found = set()
        for needed in services[name].get("depends_on", {}):
            found |= {needed} | before(needed, seen + (name,))
        return found

    for face in ("worker", "ui"):
        assert {
            "postgresql",
            "temporal-schema",
            "temporal",
            "temporal-setup",
            "migrate",
            "seed",
            "decision-keys",
        } <= before(face)


def test_signoff_runs_as_its_runtime_role_and_only_migrate_as_the_owner(
    document: dict[str, Any],
) -> None:
    """The audit's writers cannot rewrite it: every signoff process but the migration runs
    as signoff_app, which never migrates; no signoff process is the superuser."""
    services = signoff_services(document)
    superuser = document["services"]["postgresql"]["environment"]["POSTGRES_USER"]
    for name, service in services.items():
        environment = service["environment"]
        runtime = make_url(environment["SIGNOFF_DATABASE_URL"]).username
        assert runtime == "signoff_app" != superuser, name
        assert environment["SIGNOFF_MIGRATE_AT_START"] == "false", name
        owner_url = environment.get("SIGNOFF_MIGRATION_DATABASE_URL")
        if name == "migrate":
            assert service["command"] == ["store", "migrate"]
            assert make_url(owner_url).username == "signoff_owner"
        else:
            assert owner_url is None, f"{name} holds the owner role's password"
    roles_script = f"{REPO_ROOT / 'deploy' / 'postgres' / 'roles.sh'}:/docker-entrypoint-initdb.d/"
    mounted = document["services"]["postgresql"]["volumes"]
    assert any(str(volume).startswith(roles_script) for volume in mounted), mounted


def test_only_the_decision_service_mounts_the_private_keys(document: dict[str, Any]) -> None:
    services = document["services"]
    ring = "/var/lib/signoff-keys/decision-signing-keys.json"
    for name in ("decision-keys", "ui"):
        assert services[name]["environment"]["SIGNOFF_DECISION_SIGNING_KEYS_FILE"] == ring
    for name, service in services.items():
        mounts = " ".join(str(volume) for volume in service.get("volumes", []))
        holds_ring = "/var/lib/signoff-keys" in mounts
        assert holds_ring == (name in ("decision-keys", "ui")), name


def test_images_are_pinned_and_mounted_files_exist(document: dict[str, Any]) -> None:
    for name, service in document["services"].items():
        image = service["image"]
        if "build" not in service:
            _, _, tag = image.rpartition(":")
            assert re.fullmatch(r"\d+(\.\d+)+(-[\w.]+)?", tag), f"{name}: {image} is not pinned"
        for volume in service.get("volumes", []):
            source = volume.split(":")[0] if isinstance(volume, str) else volume.get("source")
            if source and source.startswith("/"):  # a bind mount of this repository
                assert Path(source).exists(), f"{name} mounts {source}, which is missing"


def test_the_worker_drains_before_compose_kills_it(document: dict[str, Any]) -> None:
    worker = document["services"]["worker"]
    grace = worker["stop_grace_period"]
    assert grace.endswith("s")
    assert float(grace[:-1]) > float(worker["environment"]["SIGNOFF_WORKER_SHUTDOWN_SECONDS"])
    heartbeat = worker["environment"]["SIGNOFF_WORKER_HEARTBEAT_FILE"]
    assert heartbeat in " ".join(worker["healthcheck"]["test"])


def test_the_ui_listens_where_it_is_published_and_checked(document: dict[str, Any]) -> None:
    ui = document["services"]["ui"]
    port = ui["environment"]["SIGNOFF_UI_PORT"]
    assert ui["environment"]["SIGNOFF_UI_HOST"] == "0.0.0.0"
    assert [entry.target for entry in published(ui)] == [port]
    assert f"127.0.0.1:{port}/signin" in " ".join(ui["healthcheck"]["test"])
