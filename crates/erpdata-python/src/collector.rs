//! `erpdata._core.TableCollector`: a whole table decoded on a thread of its
//! own while the caller goes on reading the body, so that decoding overlaps
//! the download instead of following it.
//!
//! The caller hands over each chunk (copied: a few microseconds for a
//! read's worth) and returns to the socket at once; the decoder thread runs
//! without the GIL. The results are the sequential decoder's: the same
//! batches, and the same error, only reported at a later call (the next
//! `feed`, `check` or `finish_table`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use erpdata::Error;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::config::Config;
use crate::errors::core;
use crate::table::TableData;
use crate::typing::Typing;

/// Chunks waiting for the decoder at most: the body is never held whole,
/// and a download faster than decoding waits for it.
const QUEUED_CHUNKS: usize = 64;

enum Message {
    Chunk(Vec<u8>),
    /// Answered once every chunk sent before it is decoded.
    Sync(mpsc::Sender<()>),
}

/// What the decoder thread tells the caller while it runs.
#[derive(Default)]
struct Shared {
    rows: AtomicU64,
    /// The decoder's first error; chunks after it are not decoded.
    error: Mutex<Option<Error>>,
}

impl Shared {
    fn error(&self) -> Option<Error> {
        self.error
            .lock()
            .map(|e| e.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }
}

type Outcome = (erpdata::TableDecoder, Vec<erpdata::Batch>);

fn decode(
    mut decoder: erpdata::TableDecoder,
    chunks: Receiver<Message>,
    shared: &Shared,
) -> Outcome {
    let mut kept = Vec::new();
    let mut failed = false;
    for message in chunks {
        match message {
            Message::Chunk(chunk) if !failed => {
                match decoder.feed(&chunk) {
                    Ok(batches) => kept.extend(batches),
                    Err(err) => {
                        failed = true;
                        if let Ok(mut slot) = shared.error.lock() {
                            *slot = Some(err);
                        }
                    }
                }
                shared.rows.store(decoder.rows(), Ordering::Release);
            }
            Message::Chunk(_) => {}
            Message::Sync(done) => {
                let _ = done.send(());
            }
        }
    }
    (decoder, kept)
}

/// Decodes a table answer on a thread of its own: `feed` the body's
/// chunks as they arrive, then `finish_table`.
#[pyclass(module = "erpdata._core")]
pub(crate) struct TableCollector {
    sender: Option<SyncSender<Message>>,
    worker: Option<JoinHandle<Outcome>>,
    shared: Arc<Shared>,
}

impl TableCollector {
    fn sender(&self) -> PyResult<&SyncSender<Message>> {
        self.sender
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("the collector has finished"))
    }

    /// Raises the decoder's error, if it has met one.
    fn raise_failure(&self, py: Python<'_>) -> PyResult<()> {
        match self.shared.error() {
            Some(err) => core(py, Err(err)),
            None => Ok(()),
        }
    }

    fn lost() -> PyErr {
        PyRuntimeError::new_err("the table decoder thread stopped unexpectedly")
    }
}

#[pymethods]
impl TableCollector {
    /// A collector for an answer with HTTP status `status`, typing
    /// columns as `typing` says (over the whole table).
    #[new]
    #[pyo3(signature = (config, status, *, batch_rows=65_536, typing=None))]
    fn new(
        config: &Config,
        status: u16,
        batch_rows: usize,
        typing: Option<&Typing>,
    ) -> PyResult<Self> {
        if batch_rows == 0 {
            return Err(PyValueError::new_err("batch_rows must be at least 1"));
        }
        let options = Typing::decoder_options(typing, batch_rows);
        let decoder = erpdata::TableDecoder::new(config.core_config(), status, options);
        let (sender, chunks) = mpsc::sync_channel(QUEUED_CHUNKS);
        let shared = Arc::new(Shared::default());
        let theirs = shared.clone();
        let worker = std::thread::Builder::new()
            .name("erpdata-decode".to_owned())
            .spawn(move || decode(decoder, chunks, &theirs))
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start a decoder thread: {e}")))?;
        Ok(TableCollector {
            sender: Some(sender),
            worker: Some(worker),
            shared,
        })
    }

    /// Hands over the next chunk. Raises the core's error if an earlier
    /// chunk made the answer fail.
    fn feed(&self, py: Python<'_>, chunk: &[u8]) -> PyResult<()> {
        self.raise_failure(py)?;
        let sender = self.sender()?;
        let message = Message::Chunk(chunk.to_vec());
        // Blocks only while the queue is full, without the GIL.
        py.detach(|| sender.send(message)).map_err(|_| Self::lost())
    }

    /// Waits until every chunk fed so far is decoded; raises the core's
    /// error if one made the answer fail.
    fn check(&self, py: Python<'_>) -> PyResult<()> {
        let sender = self.sender()?;
        let (done, wait) = mpsc::channel();
        py.detach(move || {
            sender.send(Message::Sync(done)).ok()?;
            wait.recv().ok()
        })
        .ok_or_else(Self::lost)?;
        self.raise_failure(py)
    }

    /// Complete rows decoded so far.
    #[getter]
    fn rows(&self) -> u64 {
        self.shared.rows.load(Ordering::Acquire)
    }

    /// Ends the body: the whole table, or the core's error (a
    /// `DecodeError` mentioning "truncated" for a body cut short).
    fn finish_table(&mut self, py: Python<'_>) -> PyResult<TableData> {
        self.sender()?;
        self.sender = None;
        let worker = self.worker.take().ok_or_else(Self::lost)?;
        let shared = self.shared.clone();
        let built = py.detach(move || {
            let Ok((decoder, mut kept)) = worker.join() else {
                return Ok(None);
            };
            if let Some(err) = shared.error() {
                return Err(err);
            }
            let finished = decoder.finish()?;
            shared.rows.store(finished.total_rows, Ordering::Release);
            kept.extend(finished.batches);
            TableData::build(kept, finished.notices).map(Some)
        });
        core(py, built)?.ok_or_else(Self::lost)
    }

    fn __repr__(&self) -> String {
        format!("<TableCollector: {} rows>", self.rows())
    }
}
