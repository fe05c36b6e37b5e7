//! The async client's read-ahead: a tokio task of its own reads the body.
//!
//! It sends each chunk on a bounded channel, so that at most
//! [`AHEAD_CHUNKS`] wait for the decoder. When the caller lets go (the
//! call ended, or a stream was dropped), the task is aborted, dropping the
//! body.

use bytes::Bytes;
use tokio::sync::mpsc::{self, Receiver};
use tokio::task::JoinHandle;

use super::AHEAD_CHUNKS;

/// What the task read: the next chunk, the end (`None`) or the failure.
type Read = reqwest::Result<Option<Bytes>>;

/// A body being read by a task of its own.
pub(crate) struct ReadAhead {
    chunks: Receiver<Read>,
    task: JoinHandle<()>,
}

impl ReadAhead {
    /// Starts reading `response`'s body on a task of the current tokio
    /// runtime; `Err` gives the response back outside of one.
    pub(crate) fn start(
        mut response: reqwest::Response,
    ) -> Result<ReadAhead, Box<reqwest::Response>> {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return Err(Box::new(response));
        };
        let (sender, chunks) = mpsc::channel(AHEAD_CHUNKS);
        let task = runtime.spawn(async move {
            loop {
                let read = response.chunk().await;
                let last = !matches!(read, Ok(Some(_)));
                if last {
                    // Read to its end, the connection is back in the pool
                    // before the caller knows.
                    drop(response);
                    let _ = sender.send(read).await;
                    return;
                }
                if sender.send(read).await.is_err() {
                    return;
                }
            }
        });
        Ok(ReadAhead { chunks, task })
    }

    /// The next chunk, the end (`Ok(None)`) or the failure; `None` if the
    /// task ended without either (it panicked).
    pub(crate) async fn next(&mut self) -> Option<Read> {
        self.chunks.recv().await
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        self.task.abort();
    }
}
