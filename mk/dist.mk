# Release artifacts into dist/, and their smoke tests.
#
#   make dist           every artifact below (both wheels, the sdist, the npm
#                       tarball, the crate)
#   make dist-wheel     dist/erpdata-V-cp39-abi3-manylinux_2_17_x86_64...whl
#   make dist-aarch64   the same for aarch64 (cross-built with zig; not part
#                       of make test: it cannot run here and costs a release
#                       build; its tags, ELF machine and glibc floor are checked)
#   make dist-sdist     dist/erpdata-V.tar.gz
#   make dist-npm       dist/erpdata-V.tgz (npm pack of js/, the wasm inside)
#   make dist-crate     dist/erpdata-V.crate (cargo package -p erpdata,
#                       which builds the packaged crate to verify it)
#   make test-dist      each artifact but the aarch64 wheel installed into a
#                       clean place and smoke-tested against the sandbox
#   make test-dist-docs the code blocks of the READMEs and docs/ run from the
#                       x86_64 wheel and the npm tarball (part of test-dist,
#                       whose wheel build runs the python and sh blocks)
#   make test-demo      make demo's script on the x86_64 wheel and the wasm
#                       module (part of test-dist)
#
# The wheels are manylinux2014 abi3 (Python >= 3.9), linked with zig
# (maturin --zig; ziglang from requirements-dev.txt), and each carries the
# sandbox built for its platform as erpdata/_bin/erpdata-sandbox, for
# `erpdata sandbox`. Every release build here shares one CARGO_TARGET_DIR
# (target/dist-build); the debug builds of the sdist's and the crate's
# smoke tests use the checkout's own target folder, whose dependencies
# `make python` and `make test-rust` compiled already.

DIST          := $(ROOT)/dist
DIST_BUILD    := $(ROOT)/target/dist-build
DIST_TEST     := $(ROOT)/target/test-dist
# The debug builds of the sdist's and the crate's smoke tests: the
# checkout's target folder, where the same dependencies are built already
# (their own crates, at other paths, get artifacts of their own).
DIST_DEBUG    := $(ROOT)/target
DIST_VERSION  := $(shell sed -n '/^\[workspace\.package\]/,/^\[/{s/^version = "\(.*\)"$$/\1/p}' Cargo.toml)
DIST_ENV      := CARGO_TARGET_DIR=$(DIST_BUILD) PATH="$(VENV)/bin:$$PATH"
DIST_SDIST    := $(DIST)/erpdata-$(DIST_VERSION).tar.gz
DIST_NPM      := $(DIST)/erpdata-$(DIST_VERSION).tgz
DIST_CRATE    := $(DIST)/erpdata-$(DIST_VERSION).crate
PY39          ?= $(firstword $(wildcard /root/.pyenv/versions/3.9*/bin/python3.9 $(HOME)/.pyenv/versions/3.9*/bin/python3.9))
PY313         ?= $(firstword $(wildcard /root/.pyenv/versions/3.13*/bin/python3.13 $(HOME)/.pyenv/versions/3.13*/bin/python3.13))
# The sandbox the smoke tests talk to: the one the x86_64 wheel ships.
DIST_SANDBOX  := $(DIST_BUILD)/x86_64-unknown-linux-gnu/release/erpdata-sandbox
# The wheel of an architecture in dist/ (maturin orders the two platform
# tags either way).
dist-wheel-of = $(firstword $(wildcard $(DIST)/erpdata-$(DIST_VERSION)-cp39-abi3-*$(1)*.whl))

.PHONY: check-version dist dist-wheel dist-aarch64 dist-sdist dist-npm dist-crate \
        test-dist test-dist-wheel test-dist-sdist test-dist-npm test-dist-crate test-dist-docs \
        test-lowest

dist: dist-wheel dist-aarch64 dist-sdist dist-npm dist-crate
	scripts/check-version.sh
	ls -l $(DIST)

# zig, cargo-zigbuild and wheel (requirements-dev.txt), checked at the
# start of a wheel's recipe rather than by a target of their own: under
# make -j that target's job let the wasm module and the debug builds take
# the free jobs ahead of the wheel, the longest chain of make test.
define dist-tools-check
	@$(VENV)/bin/python -m ziglang version >/dev/null
	@test -x $(VENV)/bin/cargo-zigbuild && test -x $(VENV)/bin/wheel
endef

# $(1): x86_64 or aarch64. The sandbox first (cargo zigbuild, glibc 2.17 as
# manylinux2014 requires, symbols stripped), then maturin's wheel, then the
# wheel unpacked, the sandbox added under erpdata/_bin and packed again
# (wheel pack writes the RECORD).
define dist-wheel-for
	$(dist-tools-check)
	$(call rustup-target,$(1)-unknown-linux-gnu)
	$(DIST_ENV) CARGO_PROFILE_RELEASE_STRIP=symbols cargo zigbuild --release --quiet --locked \
	  -p erpdata-sandbox --target $(1)-unknown-linux-gnu.2.17
	rm -rf $(DIST_BUILD)/wheel-$(1) && mkdir -p $(DIST)
	$(DIST_ENV) $(VENV)/bin/maturin build --release --quiet --locked --zig --compatibility manylinux2014 \
	  --target $(1)-unknown-linux-gnu --out $(DIST_BUILD)/wheel-$(1)/built
	$(VENV)/bin/wheel unpack --dest $(DIST_BUILD)/wheel-$(1)/tree $(DIST_BUILD)/wheel-$(1)/built/*.whl
	install -D -m 755 $(DIST_BUILD)/$(1)-unknown-linux-gnu/release/erpdata-sandbox \
	  $(DIST_BUILD)/wheel-$(1)/tree/erpdata-$(DIST_VERSION)/erpdata/_bin/erpdata-sandbox
	rm -f $(DIST)/erpdata-*-cp39-abi3-*$(1)*.whl
	$(VENV)/bin/wheel pack --dest-dir $(DIST) $(DIST_BUILD)/wheel-$(1)/tree/erpdata-$(DIST_VERSION)
	$(VPY) tests/dist/check_wheel.py $(1) $(DIST)/erpdata-$(DIST_VERSION)-cp39-abi3-*$(1)*.whl
endef

dist-wheel: venv
	$(call dist-wheel-for,x86_64)
	$(if $(PAGES_WITH_WHEEL),$(pages-python-blocks))

dist-aarch64: venv
	$(call dist-wheel-for,aarch64)

# What pip builds from: the workspace crates the module needs, the Python
# sources, the licence files (tests/dist/check_sdist.py lists them).
dist-sdist: venv
	mkdir -p $(DIST) && rm -f $(DIST_SDIST)
	$(VENV)/bin/maturin sdist --out $(DIST)
	$(VPY) tests/dist/check_sdist.py $(DIST_SDIST)

# npm pack of js/, after js/pkg is built (npm's prepack would build it
# when older than the Rust sources, but not while make builds it for the
# tests). mk/runtimes.mk takes the tarball from here.
# (make wasm builds both modules, in one job.)
dist-npm: wasm
	mkdir -p $(DIST) && rm -f $(DIST_NPM)
	cd js && $(WASM_ENV) npm pack --silent --pack-destination $(DIST) >/dev/null
	@test -f $(DIST_NPM) || { echo "npm pack made no $(DIST_NPM)"; exit 1; }
	tar -tzf $(DIST_NPM) | sort | tr '\n' ' ' && echo
	@files="$$(tar -tzf $(DIST_NPM))"; for f in package/LICENSE-MIT package/LICENSE-APACHE package/README.md \
	  package/pkg/erpdata_wasm_bg.wasm package/src/index.js package/src/index.d.ts; do \
	  grep -qx "$$f" <<<"$$files" || { echo "$$f missing from $(DIST_NPM)"; exit 1; }; done

# --allow-dirty: the working tree is packaged as it is (other work in
# progress included); a fresh clone is clean anyway. The verify step builds
# the unpacked crate alone, outside the workspace; test-dist-crate builds
# (and runs) the unpacked crate itself, so it skips that step.
CRATE_VERIFY ?=
dist-crate:
	mkdir -p $(DIST) && rm -f $(DIST_CRATE)
	CARGO_TARGET_DIR=$(DIST_BUILD) cargo package -p erpdata --locked --allow-dirty --quiet $(CRATE_VERIFY)
	cp $(DIST_BUILD)/package/erpdata-$(DIST_VERSION).crate $(DIST_CRATE)
	@files="$$(tar -tzf $(DIST_CRATE))"; for f in LICENSE-MIT LICENSE-APACHE README.md Cargo.toml src/lib.rs; do \
	  grep -qx "erpdata-$(DIST_VERSION)/$$f" <<<"$$files" || { echo "$$f missing from $(DIST_CRATE)"; exit 1; }; done

# --- smoke tests of the artifacts --------------------------------------------

# One version everywhere first (it needs no build), then each artifact.
# The pages' blocks first of those: they take longest, and when make's walk
# finds them and the shorter smoke tests ready together, it starts them
# first, so that the others run beside them, not after.
#
# Their python and sh blocks (two minutes) need only the wheel: here they
# run in the wheel's own recipe, as soon as it is built. A target of their
# own, ready behind make's walk, waited two and a half minutes for a job
# (see `test` in the Makefile), and the wheel is the longest chain of make
# test. test-dist-docs then runs the js and ts blocks. Set here, the
# variable holds for every target test-dist builds (make test's too, whose
# walk reaches the wheel through test-dist first); `make dist` and `make
# dist-wheel` only build.
test-dist: PAGES_WITH_WHEEL := 1
test-dist: check-version test-dist-docs test-dist-wheel test-dist-sdist test-dist-npm test-dist-crate \
  test-lowest test-demo

check-version:
	scripts/check-version.sh

# The x86_64 wheel in fresh virtualenvs of the oldest and newest Pythons
# (only the wheel and its dependencies: no pyarrow, pandas or polars); the
# smoke test starts the sandbox the wheel ships with `erpdata sandbox`.
test-dist-wheel: dist-wheel
	@test -n "$(PY39)" -a -n "$(PY313)" || { echo "no Python 3.9 / 3.13 (pyenv): set PY39= PY313="; exit 1; }
	@set -e; for py in $(PY39) $(PY313); do \
	  venv=$(DIST_TEST)/wheel-$$(basename $$py); rm -rf $$venv; \
	  $$py -m venv $$venv; \
	  $$venv/bin/python -m pip install --quiet --disable-pip-version-check $(call dist-wheel-of,x86_64); \
	  (cd $(DIST_TEST) && $$venv/bin/python $(ROOT)/tests/python/wheel_smoke.py --shipped-sandbox); \
	done

# `make demo`'s script, on the release builds make test has made anyway:
# the x86_64 wheel unpacked (its module, and the sandbox it ships) and the
# wasm module, so that the main command cannot break unseen. The demo
# exits non-zero on any error of any client. (zipfile keeps no file
# modes: the sandbox is made executable again.)
DEMO_TEST     := $(ROOT)/target/test-demo
.PHONY: test-demo
test-demo: dist-wheel wasm
	rm -rf $(DEMO_TEST)
	$(VPY) -m zipfile -e $(call dist-wheel-of,x86_64) $(DEMO_TEST)/pkg
	chmod +x $(DEMO_TEST)/pkg/erpdata/_bin/erpdata-sandbox
	$(VPY) scripts/demo.py --sandbox $(DEMO_TEST)/pkg/erpdata/_bin/erpdata-sandbox --package $(DEMO_TEST)/pkg

# The x86_64 wheel with the oldest versions of its dependencies and extras
# that pyproject.toml declares (scripts/lowest-requirements.py pins them),
# in fresh virtualenvs of the oldest Python each extra runs on (mcp needs
# 3.10, and a newer httpx than the oldest the package takes, which the
# installer then picks): what each extra is for, against the sandbox the
# wheel ships (tests/python/lowest_smoke.py). Not spark: Spark's own test
# needs a Java and a minute.
PY310         ?= $(firstword $(wildcard /root/.pyenv/versions/3.10*/bin/python3.10 $(HOME)/.pyenv/versions/3.10*/bin/python3.10))
LOWEST        := $(DIST_TEST)/lowest
LOWEST_UV     := UV_CACHE_DIR=$(ROOT)/target/uv-cache $(VENV)/bin/uv
# lowest-run: a virtualenv LOWEST/$(1) of Python $(2) with the pins of
# extras $(3) (and options $(4) of lowest-requirements.py), and the smoke
# test of those extras.
define lowest-run
	rm -rf $(LOWEST)/$(1) && mkdir -p $(LOWEST)/$(1)
	$(VPY) scripts/lowest-requirements.py $(4) $(3) > $(LOWEST)/$(1)/pins.txt
	$(LOWEST_UV) venv --quiet --python $(2) $(LOWEST)/$(1)/venv
	$(LOWEST_UV) pip install --quiet --python $(LOWEST)/$(1)/venv/bin/python \
	  $(call dist-wheel-of,x86_64) -r $(LOWEST)/$(1)/pins.txt
	cd $(LOWEST)/$(1) && venv/bin/python $(ROOT)/tests/python/lowest_smoke.py pins.txt $(3)
endef
test-lowest: dist-wheel
	@test -n "$(PY39)" -a -n "$(PY310)" || { echo "no Python 3.9 / 3.10 (pyenv): set PY39= PY310="; exit 1; }
	$(call lowest-run,py39,$(PY39),arrow pandas polars export excel report dlt)
	$(call lowest-run,py310,$(PY310),mcp,--extras-only)

# The sdist built from source by pip (maturin from PyPI in pip's isolated
# build environment, cargo for the crates it carries) in a fresh virtualenv.
# What it proves is that the sdist builds and works, not how fast the
# module runs: maturin builds it with cargo's dev profile (a release build
# from the sdist costs a minute more), in the checkout's target folder.
# After `make python`: both leave their module in target/debug, and
# maturin develop must have copied its own before this build replaces it.
test-dist-sdist: dist-sdist dist-wheel python
	rm -rf $(DIST_TEST)/sdist && $(PYTHON) -m venv $(DIST_TEST)/sdist
	CARGO_TARGET_DIR=$(DIST_DEBUG) MATURIN_PEP517_ARGS="--profile dev" \
	  $(DIST_TEST)/sdist/bin/python -m pip install --quiet \
	  --disable-pip-version-check --no-binary erpdata $(DIST_SDIST)
	cd $(DIST_TEST) && ERPDATA_SANDBOX_BIN=$(DIST_SANDBOX) $(DIST_TEST)/sdist/bin/python \
	  $(ROOT)/tests/python/wheel_smoke.py --no-shipped-sandbox

# The npm tarball installed into a fresh npm project: an ES module consumer,
# a CommonJS consumer, tsc --noEmit of a TypeScript consumer, and programs
# bundled by esbuild (js/'s).
test-dist-npm: dist-npm dist-wheel
	rm -rf $(DIST_TEST)/npm && mkdir -p $(DIST_TEST)/npm
	cp tests/dist/npm/* $(DIST_TEST)/npm/
	cd $(DIST_TEST)/npm && npm install --offline --no-audit --no-fund --silent $(DIST_NPM)
	cd $(DIST_TEST)/npm && $(ROOT)/scripts/with-sandbox.sh $(DIST_SANDBOX) node esm.mjs
	cd $(DIST_TEST)/npm && $(ROOT)/scripts/with-sandbox.sh $(DIST_SANDBOX) node cjs.cjs
	cd $(DIST_TEST)/npm && $(ROOT)/js/node_modules/.bin/tsc -p tsconfig.json
	cd $(DIST_TEST)/npm && ESBUILD=$(ROOT)/js/node_modules/.bin/esbuild \
	  $(ROOT)/scripts/with-sandbox.sh $(DIST_SANDBOX) node bundled.mjs
	@echo "npm tarball: ESM, CommonJS, TypeScript and bundled consumers passed"

# The packaged crate, unpacked, as a path dependency of a scratch project
# (feature blocking) whose program runs against the sandbox: the build
# cargo package's verify step would make, and more.
test-dist-crate: CRATE_VERIFY := --no-verify
test-dist-crate: dist-crate dist-wheel
	rm -rf $(DIST_TEST)/crate && mkdir -p $(DIST_TEST)/crate
	tar -xzf $(DIST_CRATE) -C $(DIST_TEST)/crate
	cp -r tests/dist/crate $(DIST_TEST)/crate/smoke
	sed -i 's|@ERPDATA_PATH@|$(DIST_TEST)/crate/erpdata-$(DIST_VERSION)|' $(DIST_TEST)/crate/smoke/Cargo.toml
	cp Cargo.lock $(DIST_TEST)/crate/smoke/  # the dependency versions the workspace tests
	cd $(DIST_TEST)/crate/smoke && CARGO_TARGET_DIR=$(DIST_DEBUG) cargo build --quiet
	scripts/with-sandbox.sh $(DIST_SANDBOX) $(DIST_DEBUG)/debug/erpdata-crate-smoke

# The pages as a new user reads them: every python, js and sh block that
# names the quickstart URL (and every edge handler) run, and the ts blocks
# type-checked, from the wheel in fresh virtualenvs (one per set of extras
# the blocks need) and the tarball in a fresh `npm init -y` project,
# against the sandbox started by the wheel's `erpdata sandbox`;
# tests/docs/run_examples.py says which blocks and how. tsc is js/'s.
# Alone, it runs every block; under test-dist, the js and ts blocks only
# (the others ran in dist-wheel's recipe, see test-dist).
DOCS_PAGES := README.md python/README.md js/README.md $(sort $(wildcard docs/*.md))
DOCS_RUN    = UV_CACHE_DIR=$(ROOT)/target/uv-cache $(VPY) tests/docs/run_examples.py \
  --python $(PYTHON) --uv $(VENV)/bin/uv
# A shell glob, not dist-wheel-of: make expands a recipe before its first
# line runs, when dist-wheel's recipe has not built the wheel yet.
define pages-python-blocks
$(DOCS_RUN) --part python --wheel $(DIST)/erpdata-$(DIST_VERSION)-cp39-abi3-*x86_64*.whl \
  --work $(DIST_TEST)/docs-python $(DOCS_PAGES)
endef
test-dist-docs: dist-wheel dist-npm js/node_modules/.installed
	$(DOCS_RUN) --part $(if $(PAGES_WITH_WHEEL),js,all) --wheel $(call dist-wheel-of,x86_64) \
	  --npm $(DIST_NPM) --tsc $(ROOT)/js/node_modules/.bin/tsc --work $(DIST_TEST)/docs $(DOCS_PAGES)
