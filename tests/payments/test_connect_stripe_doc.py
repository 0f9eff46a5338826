"""The "Connect Stripe" walk-through, run as written, and the Stripe key looked for
everywhere it must not be.

The page's two tested blocks (marked `walk-through: configure` and `walk-through:
refund`) run in bash against localstripe and a private `signoff dev`, started here as
the page says to start them, with JSON logs at DEBUG. Then: one refund in localstripe,
of the amount paid there, with signoff's key in its metadata; the reviewer's JSON API
lists the order's refunds as Stripe holds them, a refund made outside signoff
included; a payment Stripe does not know is refused with a clean message; and the key
appears in no log line, no Temporal server log, no exported history and nothing any
command printed, and no span exported.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from signoff.wiring.local_stack import signoff_dev_stack
from tests.e2e.cli import signoff
from tests.e2e.test_observability_on_dev_server import otlp_receiver
from tests.payments.localstripe import LocalStripe
from tests.payments.stripe_connector_facts import DOC_KEY

pytestmark = pytest.mark.devserver

REPO_ROOT = Path(__file__).resolve().parents[2]
PAGE = REPO_ROOT / "docs" / "connect-stripe.md"
BLOCK = re.compile(r"<!-- walk-through: (\w+) -->\n```bash\n(.*?)\n```", re.DOTALL)
SCRIPT_SECONDS = 300
SPANS_SECONDS = 30.0
REFUND_SPAN = "signoff.refund"


def walk_through_blocks() -> dict[str, str]:
    return dict(BLOCK.findall(PAGE.read_text(encoding="utf-8")))


def bash(script: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=SCRIPT_SECONDS,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def api(url: str) -> Any:
    basic = base64.b64encode(b"alice:demo-alice").decode()
    request = urllib.request.Request(url, headers={"Authorization": f"Basic {basic}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def test_the_walk_through_refunds_once_and_writes_the_key_nowhere(
    tmp_path: Path, localstripe: LocalStripe
) -> None:
    blocks = walk_through_blocks()
    assert set(blocks) == {"configure", "refund"}
    home = tmp_path / "home"
    venv_bin = str(Path(sys.executable).parent)
    base = {
        **os.environ,
        "PATH": f"{venv_bin}:{os.environ['PATH']}",
        "SIGNOFF_HOME": str(home),
        "SIGNOFF_STRIPE_API_BASE": localstripe.url,
    }
    bash(blocks["configure"], base)
    key_file = home / "demo-stripe.key"
    assert key_file.read_text().strip() == DOC_KEY
    assert key_file.stat().st_mode & 0o077 == 0

    printed: list[str] = []
    with (
        otlp_receiver() as (otlp_port, spans),
        signoff_dev_stack(
            home,
            task_queue=f"stripe-doc-{os.getpid()}",
            SIGNOFF_STRIPE_API_BASE=localstripe.url,
            SIGNOFF_STRIPE_KEYS_FILE=str(home / "stripe-keys.json"),
            SIGNOFF_LOG_FORMAT="json",
            SIGNOFF_LOG_LEVEL="DEBUG",
            SIGNOFF_MODEL="scripted",
            OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{otlp_port}",
            OTEL_BSP_SCHEDULE_DELAY="200",
        ) as (env, _),
    ):
        env = {**env, "PATH": base["PATH"]}
        walked = bash(blocks["refund"], env)
        printed += [walked.stdout, walked.stderr]
        (refund,) = localstripe.all_refunds()
        run_id = refund["metadata"]["signoff_idempotency_key"].split(":")[0]
        assert refund["amount"] == 4999 and refund["id"] in walked.stdout

        # A refund made in Stripe's dashboard, not by signoff: the reviewer sees it too.
        elsewhere = localstripe.client().v1.refunds.create(
            params={"charge": refund["charge"], "amount": 100}
        )
        detail = api(f"http://127.0.0.1:{env['SIGNOFF_UI_PORT']}/api/approvals/{run_id}")
        printed.append(json.dumps(detail))
        listed = [(r["id"], r["amount"], r["approvers"]) for r in detail["prior_refunds"]]
        # Oldest first; Stripe dates a refund to the second, so two made in the same
        # second have no order between them.
        assert sorted(listed) == sorted(
            [(refund["id"], "49.99", ["alice"]), (elsewhere.id, "1.00", [])]
        )
        made_at = [r["created_at"] for r in detail["prior_refunds"]]
        assert all(made_at) and made_at == sorted(made_at)

        unknown = signoff(
            env, "order", "link", "--tenant", "demo", "--order", "C-2210", "--payment", "pi_nope"
        )
        printed += [unknown.stdout, unknown.stderr]
        assert unknown.returncode == 1, unknown.stderr
        assert "Traceback" not in unknown.stderr and "pi_nope" in unknown.stderr
        exported = signoff(env, "history", "export", run_id, "--output", str(tmp_path / "h.json"))
        printed += [exported.stdout, exported.stderr]
        assert exported.returncode == 0, exported.stderr
        deadline = time.monotonic() + SPANS_SECONDS
        while not [s for s in spans.of_run(run_id) if s["name"] == REFUND_SPAN]:
            assert time.monotonic() < deadline, "the refund's span never arrived"
            time.sleep(0.5)
    written = {
        "launcher output and log lines": (home / "dev.log").read_text(),
        "Temporal server log": (home / "temporal.log").read_text(errors="replace"),
        "exported history": (tmp_path / "h.json").read_text(),
        "spans": b"".join(spans.bodies).decode("latin-1"),
        "printed lines": "\n".join(printed),
    }
    assert "execute_refund" in written["launcher output and log lines"]
    assert [where for where, text in written.items() if DOC_KEY in text] == []
