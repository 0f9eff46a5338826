"""The Dockerfile, checked statically: a pinned slim base, the installed package without
dev extras, every package of the project copied in, a non-root user, `signoff` as the
entry point, and local state kept out of the build context."""

from __future__ import annotations

import json
import re
import tomllib

from tests.deploy.compose_file import REPO_ROOT

DOCKERFILE = REPO_ROOT / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments), with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE.read_text())
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            found.append((keyword.upper(), rest.strip()))
    return found


def final_stage() -> list[tuple[str, str]]:
    steps = instructions()
    last_from = max(index for index, (keyword, _) in enumerate(steps) if keyword == "FROM")
    return steps[last_from:]


def test_every_base_is_a_pinned_slim_python() -> None:
    bases = [rest.split()[0] for keyword, rest in instructions() if keyword == "FROM"]
    assert bases
    for base in bases:
        assert re.fullmatch(r"python:\d+\.\d+\.\d+-slim(-\w+)?", base), base


def test_the_image_runs_as_a_user_who_is_not_root() -> None:
    users = [rest for keyword, rest in final_stage() if keyword == "USER"]
    assert users, "no USER in the final stage: it would run as root"
    assert users[-1].split(":")[0] not in {"root", "0"}


def test_the_package_is_installed_from_the_lock_without_dev_extras() -> None:
    text = DOCKERFILE.read_text()
    assert "[dev]" not in text
    runs = " ".join(rest for keyword, rest in instructions() if keyword == "RUN")
    installed = re.search(r"uv sync (?P<options>[^&;]*)", runs)
    assert installed, "the project is not installed with uv sync"
    options = installed["options"].split()
    assert "--locked" in options and "--no-editable" in options
    # Only the extras a running signoff needs: the PostgreSQL driver, never the dev tools.
    extras = {options[index + 1] for index, word in enumerate(options) if word == "--extra"}
    assert extras <= {"postgres"} and "--all-extras" not in options
    assert "pip install ." not in runs and "pip install -e" not in runs


def test_the_image_installs_with_the_uv_the_makefile_pins() -> None:
    pinned = re.search(r"^UV_VERSION := (\S+)$", (REPO_ROOT / "Makefile").read_text(), re.M)
    assert pinned, "the Makefile pins no UV_VERSION"
    runs = " ".join(rest for keyword, rest in instructions() if keyword == "RUN")
    assert f"pip install uv=={pinned[1]}" in runs


def test_every_package_of_the_project_is_copied_in() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    packages = {
        pattern.rstrip("*")
        for pattern in project["tool"]["setuptools"]["packages"]["find"]["include"]
    }
    copied = {
        source
        for keyword, rest in instructions()
        if keyword == "COPY" and not rest.startswith("--from")
        for source in rest.split()[:-1]
    }
    assert packages <= copied, packages - copied
    assert {"pyproject.toml", "uv.lock", "README.md"} <= copied  # the build reads the readme


def test_the_entry_point_is_signoff() -> None:
    entrypoints = [rest for keyword, rest in final_stage() if keyword == "ENTRYPOINT"]
    assert [json.loads(entry) for entry in entrypoints][-1] == ["signoff"]


def test_local_state_stays_out_of_the_build_context() -> None:
    ignored = set((REPO_ROOT / ".dockerignore").read_text().split())
    assert {".venv", ".signoff", ".git", "tests"} <= ignored
