"""What an irreversible tool's effect demands, judged from the worker's own profiles.

The effect cannot take the command's word for its policy: anyone who reaches the task
queue writes the command. So it reads the policy of the tool in every agent of the
profiles its worker loaded, and demands what the strictest of them demands: a tool no
agent offers, or one any agent denies, is refused; each agent that asks for approval
needs as many signed approvals (one for `confirm`, two for `review`) from reviewers
holding one of its approver roles. Only when every agent that offers the tool lets it
run `auto` does it run without a proof.

Pure: the effect activity calls it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from workflows.profile_contracts import ProfileSet

REQUIRED_APPROVALS: Mapping[str, int] = MappingProxyType({"confirm": 1, "review": 2})


@dataclass(frozen=True)
class Requirement:
    """`approvals` different reviewers, each holding one of `roles`."""

    approvals: int
    roles: tuple[str, ...]


@dataclass(frozen=True)
class Requirements:
    needed: tuple[Requirement, ...] = ()
    # Why the tool may not run at all on this worker; "" when it may.
    refusal: str = ""


def effect_requirements(profiles: ProfileSet, tool: str) -> Requirements:
    needed: list[Requirement] = []
    offered_by = 0
    for name, agent in sorted(profiles.agents.items()):
        if tool not in agent.tools:
            continue
        offered_by += 1
        policy = agent.policy(tool)
        if policy.approval == "deny":
            return Requirements(refusal=f"agent '{name}' of this worker's profiles denies {tool}")
        approvals = REQUIRED_APPROVALS.get(policy.approval)
        if approvals is not None:
            needed.append(Requirement(approvals, tuple(policy.approver_roles)))
    if offered_by == 0:
        return Requirements(refusal=f"no agent of this worker's profiles offers {tool}")
    return Requirements(needed=tuple(needed))
