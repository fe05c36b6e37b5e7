# The Rust crate's promises to its users, kept true: its minimum Rust
# version (rust-version in the workspace's Cargo.toml) and the oldest
# versions of its dependencies that its Cargo.toml allows. The crate is
# built with that toolchain, with no feature and with every feature a user
# may turn on: once with the workspace's Cargo.lock, once with each of its
# own dependencies moved to the oldest version its requirement allows (a
# copy of the crate alone, scripts/minimal-versions.py; cargo's
# -Z direct-minimal-versions, from a nightly of a fixed date). rustup
# installs the toolchains if they are missing.
#
#   make test-msrv      (part of make test)

MSRV    := $(shell sed -n 's/^rust-version = "\(.*\)"$$/\1/p' $(ROOT)/Cargo.toml)
NIGHTLY := nightly-2026-05-20
MINIMAL := $(ROOT)/target/msrv/minimal
MSRV_FEATURES := blocking,reqwest,arrow,parallel,serde
# rustup-toolchain: the toolchain $(1), installed quietly when missing, and
# on a failure tried again aloud to say why.
rustup-toolchain = rustup toolchain install $(1) --profile minimal >/dev/null 2>&1 || \
  rustup toolchain install $(1) --profile minimal

.PHONY: test-msrv
test-msrv:
	@test -n "$(MSRV)" || { echo "test-msrv: no rust-version in Cargo.toml"; exit 1; }
	$(call rustup-toolchain,$(MSRV))
	cargo +$(MSRV) check --locked --quiet -p erpdata --no-default-features --target-dir $(ROOT)/target/msrv
	cargo +$(MSRV) check --locked --quiet -p erpdata --features $(MSRV_FEATURES) \
	  --target-dir $(ROOT)/target/msrv
	$(call rustup-toolchain,$(NIGHTLY))
	$(VPY) scripts/minimal-versions.py $(MINIMAL)
	cd $(MINIMAL) && cargo +$(NIGHTLY) update --quiet -Z direct-minimal-versions
	cd $(MINIMAL) && cargo +$(MSRV) check --quiet --lib --no-default-features --target-dir $(ROOT)/target/msrv
	cd $(MINIMAL) && cargo +$(MSRV) check --quiet --lib --features $(MSRV_FEATURES) \
	  --target-dir $(ROOT)/target/msrv
	@echo "test-msrv: erpdata builds with Rust $(MSRV), its rust-version, and with the oldest versions of its dependencies"
