# atmsim: build, run, test and benchmark.
# Needs only python3 (>= 3.11), pip, make and a Rust toolchain (cargo).
.DEFAULT_GOAL := build

PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
VENV_STAMP := $(VENV)/.stamp-venv
export VIRTUAL_ENV := $(abspath $(VENV))

.PHONY: venv deps extras dev-deps build run test pytest cargo-test miri browser-deps shell-deps capture-deps bench fuzz regress regress-record clean

venv: $(VENV_STAMP)

# Idempotent: the venv is (re)made only when missing or when pyproject.toml changes.
$(VENV_STAMP): pyproject.toml
	test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q -U pip "maturin>=1.5,<2"
	touch $@

# The requirements of pyproject.toml: REQS core study ... prints the core's and the extras' named.
REQS = $(VPY) -c 'import sys, tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; print("\n".join(r for e in sys.argv[1:] for r in (p["dependencies"] if e == "core" else p["optional-dependencies"][e])))'

# Only the Python dependencies (what running needs and the dev extra), without building the core.
deps: $(VENV_STAMP)
	$(REQS) core dev > $(VENV)/requirements.txt
	$(VPY) -m pip install -q -r $(VENV)/requirements.txt

# The study and report extras (atmsim sweep / results / reproduce, atmsim report), no rebuild.
extras: $(VENV)/.stamp-extras
$(VENV)/.stamp-extras: pyproject.toml $(VENV_STAMP)
	$(REQS) study report > $(VENV)/requirements-extras.txt
	$(VPY) -m pip install -q -r $(VENV)/requirements-extras.txt
	touch $@

# The dev extra: the test tools and both extras (what `make test` needs beyond running).
dev-deps: $(VENV)/.stamp-dev
$(VENV)/.stamp-dev: pyproject.toml $(VENV_STAMP)
	$(REQS) dev > $(VENV)/requirements-dev.txt
	$(VPY) -m pip install -q -r $(VENV)/requirements-dev.txt
	touch $@ $(VENV)/.stamp-extras

# Installs what running needs (pyproject's dependencies, no extra) and builds the Rust core in
# release mode.
build: $(VENV_STAMP)
	$(VENV)/bin/maturin develop --release

run: build
	$(VENV)/bin/atmsim run scenarios/examples/demo.toml --out results/demo

cargo-test:
	cargo test -p atmsim-core --release

pytest: build dev-deps
	$(VPY) -m pytest -q tests

test: build cargo-test miri browser-deps shell-deps capture-deps pytest

# Miri over the ring's unit test (issue 27 item 3: `ring.rs` holds the core's `unsafe` blocks,
# a prefetch hint and unchecked slots), where the nightly toolchain has Miri; otherwise one line
# says it was skipped.
miri:
	@if cargo +nightly miri --version >/dev/null 2>&1; then \
		cargo +nightly miri test -p atmsim-core --lib ring::tests; \
	else \
		echo "miri: skipped (no nightly toolchain with Miri: rustup +nightly component add miri)"; \
	fi

# Headless Chromium and its driver for tests/test_report_browser.py (Debian's chromium and
# chromium-driver), installed with apt-get when missing and we are root; otherwise that test skips
# with the reason (under CI=true it fails instead).
# zsh and fish, for the completion tests (tests/test_newcomer.py); they skip without them
shell-deps:
	@if [ -x /usr/bin/zsh ] && [ -x /usr/bin/fish ]; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q zsh fish </dev/null >/dev/null \
	  || { DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null >/dev/null && \
	       DEBIAN_FRONTEND=noninteractive apt-get install -y -q zsh fish </dev/null >/dev/null; } \
	  || echo "shell-deps: apt-get could not install zsh fish"; \
	else echo "shell-deps: zsh or fish missing and apt-get unavailable or not root: their completion tests skip"; fi

browser-deps:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver </dev/null \
	  || echo "browser-deps: apt-get could not install chromium chromium-driver"; \
	else echo "browser-deps: chromium or chromium-driver missing and apt-get unavailable or not root: the browser test will skip"; fi

# tshark (Debian's tshark) for tests/test_pcap.py, which decodes the captures `atmsim trace --pcap`
# writes; installed like chromium above, else that test skips with the reason (fails under CI=true).
capture-deps:
	@if command -v tshark >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -q tshark </dev/null \
	  || echo "capture-deps: apt-get could not install tshark"; \
	else echo "capture-deps: tshark missing and apt-get unavailable or not root: the capture test will skip"; fi

# Regression comparison: every scenario under scenarios/ (seeds 1 and 2, durations capped) against
# tests/regress/baseline.json; run before every commit that moves code (tools/regress.py).
regress: build
	$(VPY) tools/regress.py check

# Re-records the baseline: only in a commit that changes results on purpose (name them in its message).
regress-record: build
	$(VPY) tools/regress.py record

# atmsim-bench: cases (a)-(f) and the reference, instruction counts when valgrind is installed
# (apt-get install -y valgrind); every writer merges its own key into target/bench.json; then the
# front end's row (d) through atmsim run, seed 004's instructions per cell-hop, the full seed 000
# reproduction (several minutes), and issue 27's table of them all (docs/performance.md).
# Not part of `make test`.
bench: build extras
	$(VPY) tools/bench_scenario_json.py scenarios/seed000/sat-sat.toml target/bench_f_satsat.json --duration 20
	cargo run --release -p atmsim-core --bin atmsim-bench
	$(VPY) tools/bench_memory.py
	$(VPY) tools/bench_seed004.py
	$(VPY) tools/bench_instructions.py
	$(VPY) tools/bench_front.py
	$(VPY) tools/bench_reproduce.py
	$(VPY) tools/bench_table.py

# The fuzzers (tests/test_fuzz_scenarios.py: scenarios; tests/test_fuzz_inputs.py: traces,
# workload scripts, fabric and host tables, study files, queries) with many more cases than
# `make test` runs, fresh randomness each time; prints the outcomes. FUZZ_EXAMPLES sets the
# number of cases (of each file).
FUZZ_EXAMPLES ?= 5000
fuzz: build dev-deps
	ATMSIM_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(VPY) -m pytest -q -s tests/test_fuzz_scenarios.py tests/test_fuzz_inputs.py

clean:
	cargo clean
	rm -rf $(VENV) results build dist .pytest_cache
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +
	rm -f python/atmsim/_core*.so python/atmsim/_core*.pyd
