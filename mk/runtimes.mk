# The npm tarball on the runtimes the README promises besides the Node the
# suites run on: Deno, Bun, Cloudflare's workerd and Node 18, 22, 24 and 26,
# each running tests/runtimes/smoke.mjs against a sandbox ERP on loopback
# (tests/runtimes/run.mjs says how).
#
#   make test-runtimes
#
# The runtimes' binaries install from npm into tests/runtimes/node_modules
# (npm ci of tests/runtimes/package-lock.json). A runtime that cannot be
# installed or does not run here prints one SKIPPED line saying why; any
# other failure fails the target.

RUNTIMES_DIR     := $(ROOT)/tests/runtimes
RUNTIMES_WORK    := $(ROOT)/target/runtimes
RUNTIMES_STAMP   := $(RUNTIMES_DIR)/node_modules/.installed
RUNTIMES_NPM_LOG := $(RUNTIMES_WORK)/npm-ci.log
ERPDATA_JS_VERSION := $(shell node -p 'require("./js/package.json").version' 2>/dev/null)

.PHONY: test-runtimes runtimes-tarball runtimes-install

# The tarball: `make dist-npm`'s (dist/erpdata-VERSION.tgz) where mk/dist.mk
# has that target, else `npm pack` of js/ after `make wasm`.
ifneq ($(shell grep -lw 'dist-npm' mk/dist.mk 2>/dev/null),)
RUNTIMES_TARBALL := $(ROOT)/dist/erpdata-$(ERPDATA_JS_VERSION).tgz
runtimes-tarball: dist-npm
	@test -f $(RUNTIMES_TARBALL) || { echo "make dist-npm made no $(RUNTIMES_TARBALL)"; exit 1; }
else
RUNTIMES_TARBALL := $(RUNTIMES_WORK)/pack/erpdata-$(ERPDATA_JS_VERSION).tgz
runtimes-tarball: wasm
	rm -rf $(RUNTIMES_WORK)/pack && mkdir -p $(RUNTIMES_WORK)/pack
	cd js && npm pack --silent --pack-destination $(RUNTIMES_WORK)/pack >/dev/null
	@test -f $(RUNTIMES_TARBALL) || { echo "npm pack made no $(RUNTIMES_TARBALL)"; exit 1; }
endif

# npm ci (its verbose log kept for run.mjs to quote) failing, or leaving out
# an optional runtime it could not fetch, is not a test failure: run.mjs
# skips the runtimes whose binaries are missing, saying why. The stamp is
# made only once every binary is there, so a later make tries again.
$(RUNTIMES_STAMP): $(RUNTIMES_DIR)/package.json $(RUNTIMES_DIR)/package-lock.json
	@mkdir -p $(RUNTIMES_WORK)
	@echo "npm ci in tests/runtimes (Deno, Bun, workerd and Node from npm; log: target/runtimes/npm-ci.log)"
	@if ! (cd $(RUNTIMES_DIR) && npm ci --no-audit --no-fund --loglevel=verbose) >$(RUNTIMES_NPM_LOG) 2>&1; then \
	  echo "npm ci in tests/runtimes failed; the runtimes it did not install are skipped"; \
	elif node $(RUNTIMES_DIR)/run.mjs --installed; then \
	  touch $@; \
	fi

runtimes-install: $(RUNTIMES_STAMP)

test-runtimes: sandbox runtimes-tarball runtimes-install
	RUNTIMES_INSTALL_LOG=$(RUNTIMES_NPM_LOG) node $(RUNTIMES_DIR)/run.mjs \
	  $(RUNTIMES_TARBALL) $(SANDBOX) $(RUNTIMES_WORK)
