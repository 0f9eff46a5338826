"""The profile file a worker runs on: read, validated against the tools that exist, hashed.

`load_profiles(settings)` reads SIGNOFF_PROFILES, or the built-in file shipped beside
this module. Whatever is wrong with a file raises one error type, `ProfileError`,
whose every line names the file, the key path and what is allowed:

    profiles.toml: agents.support.tool_policy.get_order.approval: a read tool takes no
    approval mode ('confirm' given); allowed: auto

The content hash is the SHA-256 of the validated profiles' canonical JSON (RFC 8785):
prompt files are read into it, defaults are filled in, and comments or layout are not
part of it. Two files that make agents behave alike have one hash; an edit that changes
what an agent may do changes it.
"""

from __future__ import annotations

import importlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from signoff.config.profile_messages import key_path, problems_of
from signoff.config.settings import Settings, parse_model
from signoff.models.registry import AUTO, known_providers
from signoff.tools import ToolRegistrationError, known_tools
from workflows.approval_policy import canonical_hash
from workflows.contracts import ModelRef
from workflows.profile_contracts import KNOWN_TOOLS, AgentProfile, ProfileSet, RunProfile
from workflows.tool_catalog import ToolDefinition

BUILTIN_PROFILES = Path(__file__).with_name("default_profiles.toml")
# Shipped beside it: the same agent, every reply to a customer confirmed by a reviewer.
STRICT_PROFILES = Path(__file__).with_name("strict_profiles.toml")


class ProfileError(Exception):
    """A profile file that cannot be used; one line per problem, each naming the file."""

    def __init__(self, file: Path, problems: list[tuple[str, str]]) -> None:
        self.file = file
        self.problems = problems  # (key path, what is wrong and what is allowed)
        super().__init__(
            "\n".join(
                f"{file}: {key}: {message}" if key else f"{file}: {message}"
                for key, message in problems
            )
        )


@dataclass(frozen=True)
class LoadedProfiles:
    """A validated profile file: what a worker runs new runs on."""

    name: str
    content_hash: str
    source: Path
    builtin: bool
    profiles: ProfileSet

    def run_profile(self, agent_name: str | None = None) -> RunProfile:
        """What a run records: this file's name and hash, and its agent's rules (the
        default agent when `agent_name` is None; its prompt goes to the run's prompt
        catalog). KeyError for an agent the file does not declare."""
        name = agent_name or self.profiles.default_agent
        return RunProfile(
            profile_name=self.name,
            content_hash=self.content_hash,
            agent_name=name,
            agent=self.profiles.agents[name].rules(),
        )


def profiles_path(settings: Settings) -> Path:
    return settings.profiles if settings.profiles is not None else BUILTIN_PROFILES


def load_profiles(settings: Settings) -> LoadedProfiles:
    """The profiles a worker loads: SIGNOFF_PROFILES, or the built-in file."""
    return load_profile_file(profiles_path(settings), builtin=settings.profiles is None)


@cache
def builtin_agent_name() -> str:
    """The built-in file's default agent: the one a request without a profile runs."""
    return load_profile_file(BUILTIN_PROFILES, builtin=True).profiles.default_agent


def load_profile_file(
    path: Path,
    *,
    builtin: bool = False,
    tools: Mapping[str, ToolDefinition] | None = None,
) -> LoadedProfiles:
    """Read and validate one profile file; raise ProfileError for anything wrong."""
    document = _read_toml(path)
    document.setdefault("name", path.stem)
    _read_prompt_files(path, document)
    _import_python_tools(path, document)
    context = {KNOWN_TOOLS: known_tools() if tools is None else tools}
    try:
        profiles = ProfileSet.model_validate(document, context=context)
    except ValidationError as error:
        raise ProfileError(path, problems_of(error)) from None
    _check_models(path, profiles)
    return LoadedProfiles(
        name=profiles.name,
        content_hash=canonical_hash(profiles.model_dump(mode="json")),
        source=path,
        builtin=builtin,
        profiles=profiles,
    )


def model_ref(agent: AgentProfile, settings: Settings) -> ModelRef:
    """The model a run of `agent` gets, resolved as `--model` is (`auto` by the key)."""
    return parse_model(agent.model.choice(), settings)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as error:
        raise ProfileError(path, [("", f"cannot read the file: {error.strerror}")]) from None
    except UnicodeDecodeError:
        raise ProfileError(path, [("", "not UTF-8 text; a profile is a TOML file")]) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        # The message ends with "(at line N, column M)".
        raise ProfileError(path, [("", f"TOML syntax error: {error}")]) from None


def _read_prompt_files(path: Path, document: dict[str, Any]) -> None:
    """Put each agent's `system_prompt_file` text into its `system_prompt`."""
    agents = document.get("agents")
    for name, agent in agents.items() if isinstance(agents, dict) else ():
        if not isinstance(agent, dict) or "system_prompt_file" not in agent:
            continue
        key = key_path(["agents", name, "system_prompt_file"])
        relative = agent["system_prompt_file"]
        if "system_prompt" in agent:
            raise ProfileError(path, [(key, "give system_prompt or system_prompt_file, not both")])
        if not isinstance(relative, str):
            raise ProfileError(path, [(key, "a path relative to this file, as a string")])
        try:
            agent["system_prompt"] = (path.parent / relative).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            why = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
            raise ProfileError(
                path, [(key, f"cannot read {relative!r} (relative to this file): {why}")]
            ) from None


def _import_python_tools(path: Path, document: dict[str, Any]) -> None:
    """Import the modules of `python_tools`: each registers its tools as it loads."""
    modules = document.get("python_tools", [])
    if not isinstance(modules, list):
        return  # the contract refuses it, with its own message
    for index, module in enumerate(modules):
        key = f"python_tools[{index}]"
        if not isinstance(module, str):
            continue
        try:
            importlib.import_module(module)
        except ToolRegistrationError as error:
            raise ProfileError(path, [(key, str(error))]) from None
        except ImportError as error:
            raise ProfileError(
                path,
                [(key, f"cannot import {module!r} ({error}); is it installed, or on PYTHONPATH?")],
            ) from None


def _check_models(path: Path, profiles: ProfileSet) -> None:
    """Each agent's model names a provider of the registry, with an id it takes."""
    for name, agent in profiles.agents.items():
        model = agent.model
        if model.provider == AUTO:
            continue
        provider = known_providers().get(model.provider)
        if provider is None:
            where = key_path(["agents", name, "model", "provider"])
            allowed = ", ".join([AUTO, *known_providers()])
            raise ProfileError(
                path, [(where, f"no model provider {model.provider!r}; allowed: {allowed}")]
            )
        problem = provider.id_problem(model.model_id)
        if problem is not None:
            raise ProfileError(path, [(key_path(["agents", name, "model", "model_id"]), problem)])
