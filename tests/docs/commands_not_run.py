"""The docs' shell commands that no test runs, each with why: what they need that the
demo stack lacks, or what they would cost. Everything else a page prints is run, by the
test module tests/docs/test_documented_commands.py names for the page, or by the module
named here for a section that needs a stack of its own.
"""

from __future__ import annotations

# Pages none of whose commands can run beside the demo stack: how many commands each
# prints (one more fails tests/docs/test_documented_commands.py until it is looked at),
# and why.
PAGES_NOT_RUN: dict[str, tuple[int, str]] = {
    "docs/configuration/models.md": (
        3,
        "pulls and serves a model with Ollama; tests/openai/ runs the adapter against a "
        "local Chat Completions server",
    ),
    "docs/operating/stack.md": (
        10,
        "Docker Compose; tests/deploy/test_compose.py and test_dockerfile.py check "
        "temporal-dev.yml and the image",
    ),
    "docs/operating/temporal.md": (
        8,
        "the settings of a production cluster (mutual TLS, Temporal Cloud); "
        "tests/deploy/test_temporal_tls.py connects over mutual TLS",
    ),
    "docs/operating/postgresql.md": (
        7,
        "a PostgreSQL server of a deployment (db.internal) and its roles; "
        "tests/e2e/test_refund_on_postgres.py runs the demo on PostgreSQL and "
        "tests/deploy/test_postgres_roles.py the two roles",
    ),
    "docs/ui/slack.md": (2, "a Slack app's secrets file under /etc"),
    "docs/development/tests.md": (4, "asks the package index, and rewrites uv.lock"),
    "docs/ui/pages.md": (
        1,
        "`make docs-images` drives the browser tests for minutes and rewrites the committed "
        "pictures; tests/ui/test_browser_every_page.py is the test that takes them",
    ),
}

# Sections whose commands need a stack of their own, and the module that runs them as
# written; the page's own module (tests/docs/test_documented_commands.py) runs the rest.
SECTIONS_RUN_ELSEWHERE = {
    "docs/connect-helpdesk.md": {
        # The server must start on the reader's secrets file (the shared stack did not).
        "Try it on the demo": "tests/intake/test_helpdesk_docs.py",
    },
    "docs/configuration/profiles.md": {
        # A stack on the strict profile, which that module starts for its browser test.
        "The reply to the customer, and the strict profile": "tests/ui/test_browser_reply.py",
    },
}

# Single commands of pages whose other commands are run, by page.
COMMANDS_NOT_RUN = {
    "README.md": {
        "make demo": "the stack itself: the test runs on `signoff dev`, what it starts",
        "make test": "the whole suite",
    },
    "docs/getting-started.md": {
        "make demo": "the stack itself: the test runs on `signoff dev`, what it starts",
        "make test": "the whole suite",
    },
    "docs/connect-helpdesk.md": {
        "chmod 600 /etc/signoff/intake-secrets.json": (
            "a deployment's file under /etc; tests/intake/ check the secrets file's "
            "mode and content"
        ),
        "export SIGNOFF_INTAKE_SECRETS=/etc/signoff/intake-secrets.json": "as chmod above",
    },
    "docs/connect-stripe.md": {
        "signoff order link --tenant acme --order A-1001 --payment pi_3Pxyz... "
        '--customer "Ada Lovelace"': (
            "a payment of the reader's own Stripe account; the walk-through below links "
            "C-1042 to a payment it makes in localstripe, and "
            "tests/payments/test_connect_stripe_doc.py runs it"
        ),
    },
    "docs/configuration/profiles.md": {
        "signoff run --ticket T-1042 --kind refund": (
            "needs a worker on a profile with [budgets.refund] (the page's example; the "
            "built-in profile budgets only the default kind); "
            "tests/cli/test_profiles_commands.py runs --kind against a profile"
        ),
    },
    "docs/ui/index.md": {
        ".venv/bin/signoff ui [--host H] [--port P]": (
            "a server that runs until stopped: each stack here serves it, and "
            "tests/deploy/test_clean_install.py starts `signoff ui` alone until it answers"
        ),
    },
    "docs/reviewing.md": {
        'signoff approve RUN --hash HASH --as alice --text "Hello Ms Martin, ..." '
        '--reason "tone"': (
            "a reply draft needs the strict profile's send_reply, which the demo stack's "
            "worker does not load; tests/ui/test_edit_routes.py approves a rewritten one"
        ),
        'signoff approve RUN --hash HASH --as alice --set value=10 --reason "smaller voucher"': (
            "a voucher needs a team's tool, which the demo stack's worker does not load; "
            "tests/cli/test_cli_errors.py reads --set into the edits the service is sent, "
            "and tests/ui/test_edit_routes.py approves an edit through that service"
        ),
    },
    "docs/approvals-policies.md": {
        "signoff pending": (
            "2 of 3 approvals need a worker on a profile that asks for three; "
            "tests/ui/test_browser_n_of_m.py shows those words"
        ),
        "signoff status RUN_ID": "as `signoff pending` above",
    },
    "docs/evals.md": {
        "signoff eval evals/": "evals/slow/ takes minutes; it is run by hand",
        "signoff eval evals/redteam --json": (
            "tests/evals/test_scenario_set.py runs evals/basics and evals/redteam in one "
            "`signoff eval ... --json`, the scenarios' waits paid once"
        ),
        "signoff eval evals/basics --evidence": "as evals/redteam above",
        "signoff eval my.yaml --repeat 5": (
            "a reader's own scenario; tests/e2e/test_eval_on_dev_server.py runs one with --repeat"
        ),
        "signoff eval slow.yaml --timeout 900": "a reader's own scenario, that takes minutes",
    },
    "docs/ui/languages.md": {
        ".venv/bin/pybabel extract -F babel.cfg -o approvals_ui/locales/messages.pot "
        "--no-location --sort-output .": (
            "rewrites the committed template; tests/unit/test_ui_catalogs.py runs the same "
            "extraction and fails when a catalog lags"
        ),
        ".venv/bin/pybabel update -i approvals_ui/locales/messages.pot "
        "-d approvals_ui/locales --no-fuzzy-matching --ignore-obsolete": (
            "rewrites the committed catalogs (as extract)"
        ),
        ".venv/bin/python -m pytest -q tests/unit/test_ui_catalogs.py": "a test of this suite",
        ".venv/bin/python -m pytest -q tests/ui/test_languages.py "
        "tests/ui/test_page_languages.py": "tests of this suite",
        "make docs-images": (
            "drives the browser tests for minutes; run by hand after a page changes"
        ),
        ".venv/bin/pybabel init -i approvals_ui/locales/messages.pot "
        "-d approvals_ui/locales -l de": (
            "adds a German catalog to the repository; tests/unit/test_ui_catalogs.py "
            "compiles every catalog there is"
        ),
        ".venv/bin/pybabel compile -d approvals_ui/locales -l de --statistics": ("as init above"),
        ".venv/bin/python -m pytest -q tests/unit/test_ui_catalogs.py "
        "tests/unit/test_locale_choice.py": "tests of this suite",
    },
}
