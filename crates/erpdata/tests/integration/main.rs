//! The crate's integration tests, in one test binary: one build and one
//! link of the crate and its dependencies instead of one per file. Each
//! module is one subject; those needing a ready client are compiled with
//! its feature (`make test-rust` enables them all).
//!
//! Kept apart in binaries of their own: `token_leak` (it installs a
//! process-wide log capture), `reliability` (run in release by `make
//! reliability-rust`), `facades` (run by `make generate`) and the PHP
//! suite's `php`.

#[cfg(all(feature = "reqwest", feature = "blocking"))]
#[path = "../clients/mod.rs"]
mod clients;
#[path = "../common/mod.rs"]
mod common;
#[cfg(any(feature = "reqwest", feature = "blocking"))]
#[path = "../sandbox/mod.rs"]
mod sandbox;

mod arrow;
#[cfg(feature = "reqwest")]
mod async_client;
#[cfg(all(feature = "reqwest", feature = "blocking"))]
mod bad_input;
#[cfg(feature = "blocking")]
mod blocking_client;
mod config_vectors;
mod decoder;
#[cfg(all(feature = "reqwest", feature = "blocking"))]
mod fault_matrix;
mod finance_vectors;
#[cfg(all(feature = "reqwest", feature = "blocking"))]
mod functions;
#[cfg(all(feature = "reqwest", feature = "blocking"))]
mod late_connection;
mod parallel;
mod plan_vectors;
#[cfg(all(feature = "reqwest", feature = "blocking"))]
mod plans;
mod policy_vectors;
#[cfg(all(feature = "reqwest", feature = "blocking"))]
mod proxy;
mod public_api;
#[cfg(any(feature = "reqwest", feature = "blocking"))]
mod raw_server;
#[cfg(all(feature = "reqwest", feature = "blocking"))]
mod read_ahead;
mod readme;
#[cfg(all(feature = "reqwest", feature = "blocking"))]
mod retry_budget;
mod round_trip;
#[cfg(all(feature = "serde", feature = "blocking"))]
mod serialize;
#[cfg(all(feature = "reqwest", feature = "blocking"))]
mod tls;
mod type_vectors;
#[cfg(all(feature = "reqwest", feature = "blocking"))]
mod unreachable;
mod vectors;
