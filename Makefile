# The same three commands everywhere: the docs, CI and developers run these.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Every install comes from uv.lock (every dependency, direct and transitive, pinned with
# its hashes), through uv, itself pinned here and kept in a venv of its own (.tools).
UV_VERSION := 0.13.9
TOOLS := .tools
UV := $(TOOLS)/bin/uv
# uv uses the interpreter it is given, never one it would download.
export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(VENV)
# Python keeps the bytecode of what it imports (in __pycache__, which git ignores). A
# machine that sets PYTHONDONTWRITEBYTECODE (CI images often do) made every process
# compile each module anew: a second of CPU for each `signoff` command and twice that
# for each `signoff dev`, hundreds of times in `make test`. The install compiles the
# dependencies once (--compile-bytecode); our own modules are kept on first import.
export PYTHONDONTWRITEBYTECODE :=

.PHONY: demo demo-reset test test-under-load test-fast test-calendar lint lock outdated bench bench-insight bench-cli bench-runs bench-store bench-scale bench-reconcile bench-memory bootstrap clean record-histories

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install --quiet uv==$(UV_VERSION)

# --locked: a uv.lock that no longer matches pyproject.toml stops the install (`make lock`).
$(STAMP): pyproject.toml uv.lock | $(UV)
	$(UV) sync --locked --compile-bytecode --extra dev --python $(PYTHON) --quiet
	touch $(STAMP)

# After a change to the dependencies in pyproject.toml; `make lock ARGS=--upgrade` moves
# every pin to the newest allowed release, `ARGS='--upgrade-package NAME'` one of them.
lock: | $(UV)
	$(UV) lock $(ARGS)

# What has a newer release than the lock pins (nothing is changed).
outdated: $(STAMP)
	$(UV) pip list --outdated --python $(BIN)/python

bootstrap: $(STAMP)

demo: $(STAMP)
	$(BIN)/signoff dev

# The demo as it first started (its refunds undone): with `make demo` stopped.
demo-reset: $(STAMP)
	$(BIN)/signoff demo reset

# Test processes (pytest-xdist): a test module stays in one process (--dist loadfile), so
# its module-scoped stacks start once there. Modules are handed out in the order they are
# collected, not largest first: a package's modules then follow each other in each
# process, and a package-scoped stack (tests/ui, tests/e2e) starts once per process
# instead of each time the process comes back to the package (docs/development/tests.md).
XDIST := -n 2 --dist loadfile --no-loadscope-reorder
# Three processes on 2 cores for `make test`: its dev-server and browser tests wait on
# timers, timeouts and pages much of the time, and the third process uses those waits.
XDIST_FULL := -n 3 --dist loadfile --no-loadscope-reorder

# The unit and store tests run once, in test-calendar (400 days ahead); `make test-fast`
# runs them at today's date.
test: $(STAMP)
	scripts/ensure-system-packages.sh
	$(BIN)/python -m pytest -q $(XDIST_FULL) --durations=30 --ignore=tests/unit --ignore=tests/store
	$(MAKE) --no-print-directory test-calendar

# `make test` with every core kept busy by another process (docs/development/tests.md):
# the dev-server and browser tiers must hold under load, with no timed assertion. One
# busy loop per core, stopped however the tests end.
test-under-load: $(STAMP)
	@hogs=""; for core in $$(seq $$(nproc)); do $(BIN)/python -c 'while True: pass' & hogs="$$hogs $$!"; done; \
	trap "kill $$hogs" EXIT; $(MAKE) --no-print-directory test

# Between edits (docs/development/tests.md): no dev server, browser, PostgreSQL or slow test.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q $(XDIST) -m "not devserver and not browser and not postgres and not slow"

# The tiers that never start a Temporal server, 400 days ahead under Debian's faketime:
# a test that holds a calendar date where the code reads the clock fails here first.
# A timed lock wait never expires under faketime (docs/development/tests.md), so a test
# that comes to need one hangs: `timeout`, outside the faked clock, turns that into a failure.
test-calendar: $(STAMP)
	scripts/ensure-system-packages.sh
	timeout --kill-after=10 300 faketime -f '+400d' $(BIN)/python -m pytest -q -p no:cacheprovider $(XDIST) tests/unit tests/store

# Not in `make test`: timings, not assertions (see docs/benchmarks/index.md).
# The inbox page and its template at 10 and 1,000 pending: about a minute, no Temporal.
# Writes bench/results/INBOX.md.
bench: $(STAMP)
	$(BIN)/python -m bench.inbox

# The approval insight (/insight) with 1,000,000 audit rows: a few minutes to fill, no
# Temporal. Writes bench/results/INSIGHT.md.
bench-insight: $(STAMP)
	$(BIN)/python -m bench.insight


# signoff's refund run against two raw Temporal workflows of its shape: one on signoff's
# own activities, one minimal with its own (the cost of the code, and of the design);
# `--quick` on a shared machine (a few minutes). Writes bench/results/RESULTS.md.
bench-runs: $(STAMP)
	$(BIN)/python -m bench.runs --quick --baseline minimal

# The CLI's start-up: `signoff --help`, `status`, `pending` and `approve`, each as a new
# process, at 10,000 live runs waiting (about an hour). Writes bench/results/CLI.md.
# `python -m bench.cli --waiting 20 --seeded 10000 --rounds 20` for a try (about a minute).
bench-cli: $(STAMP)
	$(BIN)/python -m bench.cli

# Fault injection (docs/operating/faults.md): workers killed at each phase, the dev server
# restarted, an overloaded model, PostgreSQL stopped 10 s, reviewers racing, Stripe killed
# and Stripe out under approved refunds. Writes bench/results/CHAOS.md; about 25 minutes
# at the default 20 runs a fault. `python -m bench.chaos --quick` for a try.
.PHONY: chaos chaos-outage
chaos: $(STAMP)
	$(BIN)/python -m bench.chaos

# The Stripe outage alone (bench/chaos/stripe_outage.py), about 10 minutes; writes
# bench/results/CHAOS-OUTAGE.md.
chaos-outage: $(STAMP)
	$(BIN)/python -m bench.chaos --faults outage

# The reviewer UI's screenshots in docs/images/, taken by the browser tests that check
# those pages (tests/ui/browser.py `screenshot(..., docs=True)`; every page, en and fr,
# 1280 and 375 px, in docs/images/pages/); a few minutes.
DOCS_IMAGE_TESTS := tests/ui/test_browser_edit.py tests/ui/test_browser_batch.py \
	tests/ui/test_browser_n_of_m.py tests/ui/test_browser_live_run.py \
	tests/ui/test_browser_languages.py tests/ui/test_browser_every_page.py
.PHONY: docs-images
docs-images: $(STAMP)
	scripts/ensure-system-packages.sh
	SIGNOFF_DOCS_IMAGES=1 $(BIN)/python -m pytest -q $(DOCS_IMAGE_TESTS)

# The inbox's read model (10,000 waiting) and the audit (100,000 decisions), paged
# through the service on a temporary SQLite file: about a minute, no Temporal. Writes
# bench/results/STORE.md.
bench-store: $(STAMP)
	$(BIN)/python -m bench.store

# The scale point: 1,000, 5,000 and 10,000 live runs waiting on one worker and
# the dev server; worker RSS and every face's first and last page at each. Writes
# bench/results/SCALE.md; about an hour on 2 cores. `python -m bench.scale --quick` (200, 500) for a try.
bench-scale: $(STAMP)
	$(BIN)/python -m bench.scale

# A round of the read model's reconcile, full and incremental, at 10,000 waiting runs
# (stand-ins: see the module). Writes bench/results/RECONCILE.md; about 2 minutes.
bench-reconcile: $(STAMP)
	$(BIN)/python -m bench.scale.reconcile_rounds

# The worker's memory (RSS, Python's heap, glibc's) at 500 to 3,500 waiting
# runs, and each forced round of the read model's reconcile. Writes bench/results/MEMORY.md;
# about 25 minutes on 2 cores.
bench-memory: $(STAMP)
	nice -n 10 $(BIN)/python -m bench.memory

# Records the named scenario(s) of tests/replay/record_histories.py into tests/histories/.
# Until the first release: the scenarios a change to workflow code alters, recorded
# again. From the first release on, only a new scenario: a history that stops replaying
# then needs a workflow.patched gate.
record-histories: $(STAMP)
	@test -n "$(NAME)" || { echo "usage: make record-histories NAME=scenario [NAME='a b']" >&2; exit 2; }
	$(BIN)/python -m tests.replay.record_histories $(NAME)

# The docs site is built strictly (a broken link or anchor fails) into the git-ignored
# site/, and the CLI reference must be what the commands say (scripts/cli_reference.py).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site
	$(BIN)/python scripts/cli_reference.py --check

clean:
	rm -rf .tools .signoff .pytest_cache .mypy_cache .ruff_cache site
