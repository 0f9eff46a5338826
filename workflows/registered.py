"""Every workflow type a signoff worker registers, in one list.

The worker runs them and `signoff replay` replays histories against them; both read
this list, so a new workflow type cannot be served without being replayable.
"""

from __future__ import annotations

from workflows.agent_run import AgentRun
from workflows.triage import TriageTicket

WORKFLOW_TYPES: tuple[type, ...] = (AgentRun, TriageTicket)
