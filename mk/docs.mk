# The API reference of the three packages and the guides, as HTML.
#
#   make docs        target/docs/index.html: rustdoc (erpdata, every feature),
#                    pdoc (the Python package), TypeDoc (js/src/index.d.ts)
#                    and the markdown guides (README.md, docs/, package pages)
#   make test-docs   its pages in headless Chromium (rustdoc's item pages: one
#                    of each kind, the others read from their HTML): renders,
#                    no script errors, every internal link and anchor resolves
#
# rustdoc builds in the checkout's target folder: it needs the dependencies
# checked (metadata only), which `make lint`'s clippy has made there with
# the same features, and their build scripts and proc macros, which the
# debug builds share. In a folder of its own it checked every dependency
# again: 133 CPU-seconds of a fresh CI run, where this takes 42-52. pdoc comes
# from requirements-dev.txt; TypeDoc installs from tests/docs/tools
# (package.json + lock) into target/docs-tools, never js/.

DOCS_OUT        := $(ROOT)/target/docs
DOCS_TOOLS      := $(ROOT)/target/docs-tools
DOCS_CARGO_DIR  := $(ROOT)/target
DOCS_FEATURES   := reqwest,blocking,arrow,parallel,serde
TYPEDOC         := $(DOCS_TOOLS)/node_modules/.bin/typedoc

.PHONY: docs docs-rust docs-python docs-js docs-guides test-docs

docs: docs-rust docs-python docs-js
	$(MAKE) --no-print-directory docs-guides

# Every feature, warnings denied; test-rust needs it too (one build a run).
docs-rust:
	@# Only this crate's pages: none left from another `cargo doc` here.
	rm -rf $(DOCS_CARGO_DIR)/doc
	CARGO_TARGET_DIR=$(DOCS_CARGO_DIR) RUSTDOCFLAGS=-Dwarnings \
	  cargo doc --no-deps --quiet -p erpdata --features $(DOCS_FEATURES)
	rm -rf $(DOCS_OUT)/rust && mkdir -p $(DOCS_OUT)/rust
	cp -R $(DOCS_CARGO_DIR)/doc/. $(DOCS_OUT)/rust/
	@# rustdoc's help and settings pages link ./index.html, which --no-deps leaves out.
	printf '%s\n' '<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=erpdata/index.html"><title>erpdata</title><p><a href="erpdata/index.html">The erpdata crate</a></p>' \
	  >$(DOCS_OUT)/rust/index.html

# pdoc imports the package: the native module must be built, and not be
# rebuilt while pdoc reads it (make python, once per make run).
docs-python: venv python
	rm -rf $(DOCS_OUT)/python
	PYTHONPATH=$(ROOT)/python $(VENV)/bin/pdoc erpdata erpdata.cli --docformat restructuredtext \
	  --no-search --template-directory tests/docs/tools/pdoc -o $(DOCS_OUT)/python

$(DOCS_TOOLS)/node_modules/.installed: tests/docs/tools/package.json tests/docs/tools/package-lock.json
	mkdir -p $(DOCS_TOOLS)
	cp tests/docs/tools/package.json tests/docs/tools/package-lock.json $(DOCS_TOOLS)/
	cd $(DOCS_TOOLS) && npm ci --no-audit --no-fund --silent
	touch $@

docs-js: $(DOCS_TOOLS)/node_modules/.installed
	rm -rf $(DOCS_OUT)/js
	$(TYPEDOC) --logLevel Warn --tsconfig tests/docs/tools/tsconfig.json \
	  --entryPoints js/src/index.d.ts --entryPoints js/src/edge.d.ts \
	  --name "erpdata (npm)" --readme none --disableSources --out $(DOCS_OUT)/js

docs-guides: venv
	$(VPY) tests/docs/build_site.py $(DOCS_OUT)

test-docs: docs system-packages
	VPY=$(VPY) DOCS=$(DOCS_OUT) bash tests/docs/run.sh
