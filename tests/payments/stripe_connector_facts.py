"""The test key the "Connect Stripe" page uses: any key of the right shape, for
localstripe checks none."""

from __future__ import annotations

DOC_KEY = "sk_test_walkthroughDemoKey0123456789"
