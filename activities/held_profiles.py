"""What a name means on this worker: an agent of a profile file the worker loaded itself.

Design note. An activity's input is whoever reaches the task queue's to write: a
workflow of someone else's can call any activity by name with any arguments. So an
activity that needs what a tool *is* (an MCP server's transport, URL or command, a
tool's risk and policy) takes names, the run's profile content hash and agent, and
looks them up here, in the profiles this worker loaded and pinned by their hash. A
declaration that came with the input is never used. A hash the worker does not hold is
refused; the refusal is retryable, since during a rolling change of the profile file
another worker may hold it, and Temporal's retry policy bounds the attempts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from signoff.config.profiles import LoadedProfiles
from workflows.profile_contracts import AgentProfile


class ProfileNotHeld(Exception):
    """The run's profile (by hash) or its agent is not one this worker loaded."""


@dataclass(frozen=True)
class HeldProfiles:
    """The profile files a worker serves runs of, by content hash."""

    by_hash: dict[str, LoadedProfiles]

    @classmethod
    def of(cls, loaded: Iterable[LoadedProfiles]) -> HeldProfiles:
        return cls({profiles.content_hash: profiles for profiles in loaded})

    def agent(self, profile_hash: str, agent_name: str) -> AgentProfile:
        """The agent as this worker's own file declares it; ProfileNotHeld otherwise."""
        loaded = self.by_hash.get(profile_hash)
        if loaded is None:
            held = ", ".join(f"{p.name} {h[:12]}" for h, p in sorted(self.by_hash.items()))
            raise ProfileNotHeld(
                f"This worker does not hold the profile with sha256 {profile_hash[:64]!r} "
                f"(it holds: {held or 'none'}). A run is served only by workers started "
                "with the profile file it began on."
            )
        agent = loaded.profiles.agents.get(agent_name)
        if agent is None:
            raise ProfileNotHeld(
                f"The profile {loaded.name} held by this worker has no agent {agent_name[:64]!r}."
            )
        return agent
