# mcp-compare — every job a maintainer or CI runs is a target here.
#   make compare   the whole pipeline: pin → models → diff → run → rows/cite → render → site
#   make test      lint, type-check and the whole test suite (real clients, real git, real mkdocs, real Chromium)
#   make serve     serve the built site on http://127.0.0.1:8000
#   make golden    rewrite tests/golden/ from what the pinned clients do now (after an upgrade)
# The spec source is MCP_COMPARE_SPEC (git URL, local clone or plain folder); unset, the
# upstream repository is tried and ../shared/mcp-spec is used when it cannot be reached.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
MC     := $(BIN)/mcp-compare
STAMP  := $(VENV)/.installed-stamp

.PHONY: all venv tools sysdeps chromium testdeps actionlint compare test lint typecheck datacheck pytest golden serve lock clean bench

all: compare

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# The real clients at the exact versions the target files name, into ./tools (idempotent;
# skipped in a fraction of a second while build/stamps/tools.json holds).
tools: venv
	$(MC) tools install

# Debian packages the tests drive: Chromium for the browser tests (Playwright drives this one;
# no browser download) and for the chrome-devtools-mcp target (its launch line names
# /usr/bin/chromium), and strace for the test that watches every client's connect() calls.
sysdeps:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v strace >/dev/null 2>&1 || missing="$$missing strace"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	@chromium --version && strace -V | head -1

chromium: sysdeps

# Test-only npm packages (axe-core for the browser tests' accessibility check). They are not
# MCP targets, so they stay out of tools/package.json (generated from the target files); their
# own committed lock in tests/site/npm/ is installed with `npm ci` (exact versions, no resolving).
TESTNPM := tests/site/npm
$(TESTNPM)/node_modules/.stamp: $(TESTNPM)/package.json $(TESTNPM)/package-lock.json
	cd $(TESTNPM) && npm ci --no-audit --no-fund
	touch $@

testdeps: $(TESTNPM)/node_modules/.stamp

# actionlint checks .github/workflows/compare.yml (tests/test_ci_workflow.py): built from its
# pinned module version with the machine's Go, into tools/bin (not a target's client).
ACTIONLINT_VERSION := v1.7.12
ACTIONLINT := tools/bin/actionlint
$(ACTIONLINT):
	GOBIN=$(CURDIR)/tools/bin GOFLAGS=-mod=mod go install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

actionlint: $(ACTIONLINT)

# One process runs pin verify, models, diff --quiet, run, rows, cite --check, render, export
# and site in order, stopping at the first that fails; each stage is skipped while its stamp
# (build/stamps/<stage>.json) says its inputs and outputs are unchanged, so a warm run with
# nothing changed takes well under 2 s. `mcp-compare compare --force` runs every stage.
compare: venv tools sysdeps
	$(MC) compare

lint: venv
	$(BIN)/ruff check compare tests bench
	$(BIN)/ruff format --check compare tests bench

typecheck: venv
	$(BIN)/mypy

# The committed data against the pinned sources: generated models current, area files
# valid and linted, every citation verified (or honestly unavailable). `rows --lint` verifies
# each citation once and records it; `cite --check` fails on that record (or verifies afresh
# when an area file, scenario, pin, tools lock or the verifier changed since).
datacheck: venv tools
	$(MC) pin verify
	$(MC) models --check
	$(MC) diff --quiet
	$(MC) rows --lint
	$(MC) cite --check

# The suite runs in TEST_WORKERS pytest-xdist workers: much of its time is spent waiting on
# real programs, so three workers on two cores take about half the time of one. A worker takes a whole group at a time (a module, or one
# target of a module that plays its cells per target), longest first: tests/_groups.py.
# The CLI clients' run goes first, with no other test beside it (only the data check, in
# `make test`), as their goldens were measured: several of them
# start a bridge or a model call against a fixed timeout of their own, which a machine loaded
# by the other workers overruns (mcpc's 5 s bridge start did, at load 10).
# TEST_WORKERS=0 runs the rest in one process too.
TEST_WORKERS ?= 3
CLI_TESTS := tests/play/clients/test_clients.py
PHASE := $(PYTHON) bench/phase.py
pytest: venv tools sysdeps testdeps
	$(PHASE) pytest-cli -- $(BIN)/pytest $(CLI_TESTS); cli=$$?; \
	$(PHASE) pytest-rest -- $(BIN)/pytest -n $(TEST_WORKERS) --dist loadscope --ignore=$(CLI_TESTS); \
	rest=$$?; exit $$(( cli || rest ))

# Each part records its wall time in build/phases.jsonl (bench/phase.py; bench/ci.py reads
# it). Lint and the type check need only the virtual environment, so they run while the
# clients are installed and built (network and compilers); the data check needs the clients.
#
# The tests play every pinned program but rust-mcp-filesystem: no mechanism of ours is its
# alone (server-filesystem answers roots and takes the file probes the same way), its
# behaviour is kept by its golden cells, and its `cargo install` (tests/install/test_cargo.py
# tests that path on a crate of its own) was CI's largest build, about 100 CPU-seconds of the
# 20 minutes CI may take. Every install of the run leaves it out (MCP_COMPARE_TOOLS_EXCEPT,
# read by `tools install` and the tests' own installs alike); `make compare` installs it.
test: export MCP_COMPARE_TOOLS_EXCEPT := rust-mcp-filesystem
#
# The data check runs beside the CLI clients' module, which leaves most of a core idle while
# its clients start (its log is shown when it ends); its failure fails the run all the same.
test: venv
	@rm -f build/phases.jsonl
	$(PHASE) prep -- $(MAKE) -j4 --output-sync=target lint typecheck tools sysdeps testdeps actionlint
	@mkdir -p build; $(PHASE) datacheck -- $(MAKE) datacheck > build/datacheck.log 2>&1 & data=$$!; \
	$(MAKE) pytest; tests=$$?; wait $$data; checked=$$?; \
	echo "--- make datacheck (run beside the tests), exit $$checked:"; cat build/datacheck.log; \
	exit $$(( tests || checked ))

# Play the golden cells again (tests/golden_cells.py record: the real recordings the tests
# judge again), then run the tests that compare real programs with tests/golden/*.json so
# that they write what they observe instead (atomic, sorted: no change in behaviour, no
# diff). Review with `git diff tests/golden/` before committing. To choose the golden cells
# afresh from a whole run (a new area, rule or target): tests/golden_cells.py pick --from results
golden: venv tools
	$(BIN)/python tests/golden_cells.py record
	$(BIN)/pytest --update-golden tests/play/clients/test_clients.py \
	  tests/hosts/test_sdk_runs.py tests/test_golden_cells.py

serve: venv
	$(MC) site --serve

bench: venv tools
	$(BIN)/python bench/pipeline.py
	$(BIN)/python bench/warm.py
	$(BIN)/python bench/cli.py
	$(BIN)/python bench/harness_overhead.py
	$(BIN)/python bench/conformance.py

# Re-resolve the exact Python versions (run after changing pyproject.toml dependencies).
lock:
	rm -rf .lock-venv && $(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -m pip install -q --upgrade pip
	.lock-venv/bin/python -m pip install -q -e '.[dev]'
	{ echo "# Exact versions for every Python install of the project (pip install -c constraints.txt)."; \
	  echo "# Regenerate: make lock"; \
	  .lock-venv/bin/python -m pip freeze --exclude-editable | grep -v '^mcp-compare'; } > constraints.txt
	rm -rf .lock-venv

clean:
	rm -rf $(VENV) .cache build results site/build site/docs site/.work tools/node_modules tools/venvs tools/hosts tools/bin \
	  $(TESTNPM)/node_modules
