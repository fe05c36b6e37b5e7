# The Rust crate's minimum Rust version (rust-version in the workspace's
# Cargo.toml), kept true: the crate built with that toolchain, with no
# feature and with every feature a user may turn on, in a target folder
# of its own. rustup installs the toolchain if it is missing.
#
#   make test-msrv      (part of make test)

MSRV := $(shell sed -n 's/^rust-version = "\(.*\)"$$/\1/p' $(ROOT)/Cargo.toml)

.PHONY: test-msrv
test-msrv:
	@test -n "$(MSRV)" || { echo "test-msrv: no rust-version in Cargo.toml"; exit 1; }
	rustup toolchain install $(MSRV) --profile minimal >/dev/null 2>&1 || \
	  rustup toolchain install $(MSRV) --profile minimal
	cargo +$(MSRV) check --locked --quiet -p erpdata --no-default-features --target-dir $(ROOT)/target/msrv
	cargo +$(MSRV) check --locked --quiet -p erpdata --features blocking,reqwest,arrow,parallel \
	  --target-dir $(ROOT)/target/msrv
	@echo "test-msrv: erpdata builds with Rust $(MSRV), its rust-version"
