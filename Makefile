# erpdata: one Rust core, Python and JavaScript packages.
#
#   make demo   start the sandbox ERP and query it through every client
#   make test   every suite: Rust, Python, JavaScript, shared vectors
#
# Everything installs itself into ignored folders of this checkout
# (.venv, target, js/node_modules).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT          := $(CURDIR)
PYTHON        ?= python3.11
VENV          := $(ROOT)/.venv
VPY           := $(VENV)/bin/python
SANDBOX       := $(ROOT)/target/debug/erpdata-sandbox
WASM_TARGET   := wasm32-unknown-unknown

export CARGO_TERM_COLOR ?= never
# make test's sub-make (make -jN) runs cargo in recipes it does not give its
# jobserver to, and cargo would warn that it cannot connect to it: cargo
# reads CARGO_MAKEFLAGS before MAKEFLAGS, so an empty one has it use its own.
export CARGO_MAKEFLAGS :=

# Python's bytecode cache, kept in one ignored folder. Where the machine
# sets PYTHONDONTWRITEBYTECODE (CI images often do), every Python process
# the suites start (the CLI's runs, fresh interpreters, the doc blocks'
# virtualenvs, Spark's workers) would compile each module it imports from
# source again: a second or more for pandas, pyarrow and httpx, each time.
# With the prefix the cache is written once, and nothing beside the sources.
export PYTHONPYCACHEPREFIX := $(ROOT)/target/pycache
export PYTHONDONTWRITEBYTECODE :=

# A Rust target's standard library, added with rustup if missing: quiet
# when it is there, and on a failure tried again aloud to say why.
rustup-target = rustup target add $(1) >/dev/null 2>&1 || rustup target add $(1)

# Further targets, one file a subject (dist, docs, runtimes).
-include $(wildcard mk/*.mk)

.PHONY: help demo test test-rust test-python test-js test-php lint fmt fuzz \
        sandbox venv python wasm js clean rust-test-scope

help:
	@echo "make demo   - start the sandbox ERP and query it through the Python and JS clients (release builds)"
	@echo "make test   - run every test suite (Rust, Python, JavaScript, shared vectors)"
	@echo "make lint   - cargo fmt --check, clippy -D warnings, mypy, ruff, biome, tsc"
	@echo "make bench  - benchmarks against the baselines (Rust decoder, Python, JS); not part of make test"
	@echo "make miri   - the core's unsafe code under Miri (nightly; about ten minutes); not part of make test"

# --- builds -----------------------------------------------------------------

# Built as the Rust suite builds it (its test scope, one small test of the
# sandbox crate): cargo then resolves the same features for every
# dependency, and `cargo test` finds tokio, hyper, axum, rustls and the
# sandbox itself compiled already instead of building each a second time
# with other features (85 CPU-seconds of a fresh `make test`).
sandbox:
	cargo test --no-run --quiet $(RUST_TEST_SCOPE) --test http

# uv (pinned in requirements-dev.txt) installs the rest: the same packages
# as pip, downloaded in parallel and not byte-compiled up front, in a
# quarter of pip's time; its cache in target/uv-cache is the one the
# doc-run's virtualenvs are made from.
$(VENV)/.installed: requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --disable-pip-version-check $$(grep -E '^uv==' requirements-dev.txt)
	UV_CACHE_DIR=$(ROOT)/target/uv-cache $(VENV)/bin/uv pip install --quiet --python $(VPY) \
	  -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed

# maturin develop finds .venv in the checkout without activation. The
# cargo feature `testing` adds erpdata._core._testing, which only the tests
# use; the released wheel (pyproject.toml's [tool.maturin]) is built
# without it.
python: venv
	VIRTUAL_ENV=$(VENV) $(VENV)/bin/maturin develop --quiet --features testing

js/node_modules/.installed: js/package.json js/package-lock.json
	cd js && npm ci --no-audit --no-fund --silent
	mkdir -p js/node_modules && touch $@

# js/pkg is the package's module; js/pkg-testing the tests' (the same
# crate with its test-only exports, see scripts/build-wasm.mjs). Built in
# a target folder of their own: the wasm build never waits for the lock
# of the host builds (clippy, cargo test, maturin) in target/. One recipe
# for both modules: under make -j a chain of targets loses its job to other
# targets between its steps, and this one is the longest. build-wasm.mjs
# builds the JS generator it runs (tools/wasm-bindgen) there too.
WASM_ENV := CARGO_TARGET_DIR=$(ROOT)/target/wasm
wasm: js/node_modules/.installed
	$(call rustup-target,$(WASM_TARGET))
	cd js && $(WASM_ENV) node scripts/build-wasm.mjs
	cd js && $(WASM_ENV) node scripts/build-wasm.mjs --testing

# --- the two commands -------------------------------------------------------

# Release builds, as users install them: the sandbox, and the Python
# package unpacked from its wheel into target/demo/pkg (the tests' debug
# build in .venv decodes ten times slower, and the demo ends by timing a
# million-row table). The JS module is a release build anyway.
demo: venv wasm
	$(call release-package,$(ROOT)/target/demo)
	$(VPY) scripts/demo.py --sandbox $(ROOT)/target/release/erpdata-sandbox --package $(ROOT)/target/demo/pkg

# Every suite, three jobs at a time: a suite spends much of its time
# waiting (on the sandbox, on subprocesses, on a browser, on a
# single-threaded link), so three jobs keep a 2-core machine busy where one
# leaves it half idle. The longest chain comes first: make walks this
# list in order, and the artifacts' tests wait for two release builds in a
# row (the wheel's sandbox, then the wheel, whose recipe goes on with the
# pages' python blocks: see test-dist in mk/dist.mk); the wasm module (its
# JS generator, then a fat-LTO build, which the JS, PHP, npm and runtime
# suites wait for) comes next, through the npm tarball. Named after the wasm module, the release builds started
# three minutes into a run and were the last to end. The order only holds
# at the start: when every job is busy, make waits at the next target its
# walk can start and gives it the job that frees first, so a target that
# becomes ready behind the walk (as the pages' blocks did, once the wheel
# was built) waits for the walk's next round, behind every suite started
# meanwhile.
# --output-sync prints each target's output whole when it ends;
# TEST_JOBS=1 runs them one after the other. The fault matrix is printed
# last, from the columns the three suites wrote.
TEST_JOBS ?= 3
test:
	$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target test-suites
	$(PYTHON) scripts/fault-matrix.py

.PHONY: test-suites system-packages
test-suites: system-packages test-dist wasm test-js test-php test-rust test-python test-spark test-docs test-runtimes \
  test-aarch64 test-wasm32 test-msrv

# The Debian packages of the suites (Chromium, LibreOffice, PHP, nginx,
# MariaDB), installed in one apt-get transaction while the first builds
# run, so that no suite waits for apt-get (scripts/system-packages.sh).
system-packages:
	bash scripts/system-packages.sh

# The fault × client table of the last run (target/fault-matrix/*.json).
.PHONY: fault-matrix
fault-matrix:
	$(PYTHON) scripts/fault-matrix.py

# The ready clients (features reqwest, blocking) are built once, with the
# workspace; their examples then run from target/ against a fresh sandbox.
# docs-rust: rustdoc of every feature with warnings denied (test-docs then
# finds it built).
test-rust: EXAMPLES := $(ROOT)/target/debug/examples
test-rust: EXAMPLE_ENV := ERPDATA_PROJECT=demo ERPDATA_ACCESS_TOKEN=sandbox-token-not-secret ERPDATA_COMPANY_ID=1 ERPDATA_YEAR_ID=2025
# The glue crates have no Rust tests (their code runs in the Python and JS
# suites), nor have the benchmarks' crate and the JS generator (make wasm
# builds and runs it): left out, pyo3, wasm-bindgen, criterion and walrus
# are not compiled for the host for nothing (clippy still checks all four).
RUST_TEST_SCOPE := --workspace --exclude erpdata-python --exclude erpdata-wasm --exclude erpdata-bench \
  --exclude erpdata-wasm-bindgen \
  --features erpdata/parallel,erpdata/reqwest,erpdata/blocking,erpdata/arrow,erpdata/serde
# For scripts run outside make (tests/php/run.sh): the scope, printed.
rust-test-scope:
	@echo $(RUST_TEST_SCOPE)
test-rust: sandbox docs-rust
	cargo test $(RUST_TEST_SCOPE)
	scripts/with-sandbox.sh $(SANDBOX) $(EXAMPLES)/sans_io
	$(EXAMPLE_ENV) scripts/with-sandbox.sh $(SANDBOX) $(EXAMPLES)/async_client
	$(EXAMPLE_ENV) scripts/with-sandbox.sh $(SANDBOX) $(EXAMPLES)/blocking_client
	$(EXAMPLE_ENV) ERPDATA_SANDBOX_ARGS="--rows 60000" scripts/with-sandbox.sh $(SANDBOX) \
	  $(EXAMPLES)/table_to_csv sales_invoice $(ROOT)/target/sales_invoice.csv
	$(EXAMPLE_ENV) ERPDATA_SANDBOX_ARGS="--rows 60000 --style strings" scripts/with-sandbox.sh $(SANDBOX) \
	  $(EXAMPLES)/table_to_parquet sales_invoice $(ROOT)/target/sales_invoice.parquet
	scripts/check-core-deps.sh

# Two workers, each taking whole test files (the suite mostly waits on
# the sandbox and on subprocesses; a file's session fixtures, such as the
# fault matrix's writer, stay in one worker).
# The HTML report test opens a report in headless Chromium
# (scripts/chromium.sh finds or installs it; without one it is skipped and
# pytest says so); its screenshot is kept in target/report/.
test-python: sandbox python system-packages
	ERPDATA_CHROMIUM=$$(bash scripts/chromium.sh || true) \
	ERPDATA_REPORT_SCREENSHOT=$(CURDIR)/target/report/aging.png \
	ERPDATA_LIBREOFFICE=$$(bash scripts/libreoffice.sh || true) \
	ERPDATA_XLSX_SCREENSHOT=$(CURDIR)/target/report/aging-xlsx.png \
	ERPDATA_SANDBOX_BIN=$(SANDBOX) $(VPY) -m pytest -q -n 2 --dist loadfile tests/python

# The wheel and the sdist as users install them: mk/dist.mk's smoke tests
# of dist/'s x86_64 wheel (fresh virtualenvs of Python 3.9 and 3.13) and of
# the sdist built from source by pip.
.PHONY: test-wheel test-large bench-python bench-js bench-rust bench
test-wheel: test-dist-wheel test-dist-sdist

# A release sandbox, and a release build of the Python package in $(1)/pkg,
# unpacked from its wheel so that a concurrent `make python` cannot swap
# the module in the middle of a run.
define release-package
	cargo build --release -p erpdata-sandbox
	rm -rf $(1)
	$(VENV)/bin/maturin build --release --quiet --out $(1)/dist
	$(VPY) -m zipfile -e $(1)/dist/*.whl $(1)/pkg
endef

# A 1M-row sales_invoice into an Excel workbook (the command line, and a
# stream into write_excel), with release builds: seconds, size, peak RSS.
.PHONY: bench-excel
bench-excel: venv
	$(call release-package,target/bench-excel)
	$(VPY) bench/python/excel_rows.py --sandbox target/release/erpdata-sandbox \
	    --package target/bench-excel/pkg --rows $(or $(ROWS),1000000) --json target/bench/excel.json

# Tables of 10k, 100k and 1M rows into Python against httpx + json/orjson +
# pandas/polars and pd.read_json, and a growth table to 5M rows, with
# release builds.
bench-python: venv
	$(call release-package,target/bench-python)
	$(VPY) bench/python/table_to_dataframe.py --sandbox target/release/erpdata-sandbox \
	    --package target/bench-python/pkg --json target/bench/python.json

# The JS client against fetch + res.json() on tables of 10k, 100k and 1M
# rows, and a growth table of streamTable to 5M rows.
bench-js: wasm
	cargo build --release -p erpdata-sandbox
	ERPDATA_SANDBOX_BIN=$(ROOT)/target/release/erpdata-sandbox node --expose-gc bench/js/table.mjs \
	    --json target/bench/js.json

# The core's decoder against serde_json on the sandbox's 1M-row answer:
# same-run ratios (crates/erpdata-bench/benches/ratios.rs), the clients
# over HTTP against their transports and reqwest + serde_json (clients.rs),
# the Arrow ratios again with mimalloc as the global allocator, then
# criterion's figures.
bench-rust:
	cargo bench -p erpdata-bench --bench ratios -- --json $(ROOT)/target/bench/rust.json
	cargo build --release -p erpdata-sandbox
	ERPDATA_SANDBOX_BIN=$(ROOT)/target/release/erpdata-sandbox \
	  cargo bench -p erpdata-bench --bench clients -- --json $(ROOT)/target/bench/rust-clients.json
	cargo bench -p erpdata-bench --features mimalloc --bench ratios -- \
	  --only Arrow --json $(ROOT)/target/bench/rust-mimalloc.json
	cargo bench -p erpdata-bench --bench decode -- \
	  'serde|columns|arrow|parallel' --warm-up-time 1 --measurement-time 5

# Tests too large for `make test` (a 350 MB body; ~3 GiB of memory).
test-large:
	cargo test --release -p erpdata --features parallel --test integration -- --ignored parallel::

# Load and size: 10,000 dues calls at concurrency 64 with 1% injected 503s,
# a 5M-row table streamed in bounded memory, and 20 randomly cut 1M-row
# bodies, through each client (not part of `make test`; prints figures).
.PHONY: reliability reliability-rust reliability-python reliability-js
reliability: reliability-rust reliability-python reliability-js

# The blocking client, release build: a 5M-row table streamed (peak RSS
# under 200 MB) and a 1M-row answer cut at 20 random points (20 errors).
reliability-rust:
	cargo build --release -p erpdata-sandbox
	ERPDATA_SANDBOX_BIN=$(ROOT)/target/release/erpdata-sandbox \
	  cargo test --release -p erpdata --features blocking --test reliability -- --ignored --nocapture

# Every benchmark above (not part of `make test`), then bench/results.md
# written from their figures.
.PHONY: bench-report
bench: bench-start bench-rust bench-python bench-js
	$(MAKE) --no-print-directory bench-report

# The cores the machine delivers as the run begins, for the report to show
# beside those it measures as it ends: a shared host can slow a run's first
# part and not its last.
.PHONY: bench-start
bench-start: venv
	$(VPY) bench/report.py --probe $(ROOT)/target/bench/capacity-start.json

bench-report: venv
	$(VPY) bench/report.py

# ERPDATA_PYTHON: DuckDB (Python) reads the Arrow IPC that toArrowIPC() writes.
test-js: sandbox wasm venv
	cd js && ERPDATA_PYTHON=$(VPY) ERPDATA_SANDBOX_BIN=$(SANDBOX) node --test ../tests/js/*.test.js

# The clients against a real PHP service over MariaDB (tests/php/README.md):
# php-cli, php-mysql and mariadb-server are installed with apt-get if
# missing (skipped, with one line saying why, where that is impossible).
test-php: sandbox python wasm system-packages
	VPY=$(VPY) RUST_TEST_SCOPE="$(RUST_TEST_SCOPE)" bash tests/php/run.sh

# erpdata.spark on a local Spark (pyspark from requirements-dev.txt). Spark
# needs Java; without it this says so in one line and passes, except under
# CI (CI set), where it fails: a CI run never passes without Spark tested.
.PHONY: test-spark
test-spark: sandbox python
	@if ! command -v java >/dev/null 2>&1; then \
	  echo "test-spark: skipped: no java on PATH (Spark needs Java 17 or later)"; \
	  test -z "$$CI"; \
	else \
	  ERPDATA_SANDBOX_BIN=$(SANDBOX) PYSPARK_PYTHON=$(VPY) $(VPY) -m pytest -q -p no:cacheprovider tests/spark; \
	fi

# Release builds, as for bench-python; scripts/reliability/python_load.py
# says what it checks.
reliability-python: venv
	$(call release-package,target/reliability-python)
	$(VPY) scripts/reliability/python_load.py --sandbox target/release/erpdata-sandbox \
	    --package target/reliability-python/pkg

reliability-js: wasm
	cargo build --release -p erpdata-sandbox
	node --expose-gc scripts/reliability/js_load.mjs $(ROOT)/target/release/erpdata-sandbox

# Coverage-guided fuzzing of the parsers (not part of `make test`).
fuzz:
	fuzz/run.sh table 600
	fuzz/run.sh dues 120

# Rust (rustfmt, clippy), Python (mypy, ruff: pyproject.toml [tool.ruff]),
# JS (biome: js/biome.json; tsc over the declarations and a consumer file).
# Two jobs: the Python and JS linters (and the installs they need first)
# run while clippy compiles, instead of a minute after it.
.PHONY: lint-rust lint-python lint-js
lint:
	$(MAKE) --no-print-directory -j2 --output-sync=target lint-rust lint-python lint-js

lint-rust:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
# Every feature next, the wasm glue's `testing` too: in a pass of its own
# (`-p erpdata-wasm`), cargo would check the core again with the glue's
# features alone, 20 CPU-seconds for one small crate.
	cargo clippy --workspace --all-targets \
	  --features erpdata/reqwest,erpdata/blocking,erpdata/parallel,erpdata/arrow,erpdata/serde,erpdata-wasm/testing -- -D warnings
# The fuzz targets are a workspace of their own, checked as built for wasm
# (natively, checking them would compile libFuzzer's C++ first).
	cargo fmt --manifest-path fuzz/Cargo.toml -- --check
	$(call rustup-target,wasm32-wasip1)
	cargo clippy --locked --manifest-path fuzz/Cargo.toml --target wasm32-wasip1 --target-dir fuzz/target/clippy --bins -- -D warnings

lint-python: venv
	$(VENV)/bin/mypy python/erpdata tests/python tests/docs
	$(VENV)/bin/ruff check python tests bench scripts
	$(VENV)/bin/ruff format --check python tests bench scripts

lint-js: js/node_modules/.installed
	cd js && node_modules/.bin/biome ci --colors=off src scripts ../scripts/wasi-run.mjs ../tests/js ../tests/dist/npm ../bench/js
	cd js && node_modules/.bin/tsc -p ../tests/js/types/tsconfig.json

fmt:
	cargo fmt --all

# The Python and JS methods of the functions of ajax.php, written from the
# core's catalogue (crates/erpdata/tests/facades.rs; test-rust fails while
# one is stale).
.PHONY: generate
generate:
	ERPDATA_GENERATE=1 cargo test --quiet -p erpdata --test facades

clean:
	cargo clean
	rm -rf $(VENV) js/node_modules js/pkg js/pkg-testing
