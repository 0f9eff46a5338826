"""The sandbox every signoff worker and replayer runs the workflows in.

Temporal's sandbox gives each run fresh copies of the modules its workflow imports, so
that one run cannot leak state into another. It does so by importing them again for
every new run: the workflow's own module is executed anew (and compiled, when no
bytecode is cached), which cost a refund run about a tenth of its worker CPU (a
py-spy profile of `bench/runs.py`). Our workflow modules hold no state between runs
(constants, pure functions and pydantic contracts) and do no I/O, so the `workflows`
package is passed through: imported once per process, like the standard library. The
sandbox still runs each run's code with its restrictions on the modules it proxies,
and replay (tests/replay) remains the proof of determinism.
"""

from __future__ import annotations

from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

# Modules whose code runs in workflows, passed through the sandbox (see above).
# `cryptography`: the `decide` validator checks Ed25519 signatures (pure computation,
# workflows/decision_keyring.py); its Rust core imports `cryptography.exceptions` when it
# raises InvalidSignature, and the sandbox would refuse that import made mid-run.
PASSED_THROUGH = ("workflows", "cryptography")


def workflow_runner(*modules: str) -> SandboxedWorkflowRunner:
    """The sandbox with our workflow modules (and `modules`) passed through."""
    restrictions = SandboxRestrictions.default.with_passthrough_modules(*PASSED_THROUGH, *modules)
    return SandboxedWorkflowRunner(restrictions=restrictions)
