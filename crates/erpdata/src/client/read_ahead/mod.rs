//! A large body read ahead while the caller decodes what arrived, by a
//! thread ([`thread`], the blocking client) or a task ([`task`], the async
//! client) of its own.
//!
//! Read and decoded in turn, a body's socket is idle while a chunk
//! decodes, and the decoder idle while the next chunk is read; with
//! hyper, which reads an HTTP/1 body only when asked for the next chunk,
//! each chunk also waits for a round trip between the caller's task and
//! the connection's. Read ahead, the two overlap. The call still gets each
//! chunk in order, each wait and each failure as it would reading them
//! itself, so nothing it decides changes.

#[cfg(feature = "reqwest")]
pub(super) mod task;
#[cfg(feature = "blocking")]
pub(super) mod thread;

/// The bytes of a body read by the caller before the rest is read ahead:
/// an answer this small (most besides tables) costs no thread or task.
pub(super) const READ_AHEAD_AFTER: u64 = 256 * 1024;

/// Chunks read and not yet decoded, at most: 64 chunks of at most 64 KiB
/// (the blocking client's reads; reqwest's chunks of the sandbox's
/// answers are as large), 4 MiB, as the Python package lets wait for its
/// decoder thread.
const AHEAD_CHUNKS: usize = 64;
