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

use erpdata::{unify_schemas, Error, Output, TableBatches};

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

/// A table answer decoded on a thread of its own, as Rust sees it: the
/// Python `TableCollector` and the table call's sink share it.
pub(crate) struct Collector {
    sender: Option<SyncSender<Message>>,
    worker: Option<JoinHandle<Outcome>>,
    shared: Arc<Shared>,
}

/// The collector cannot go on: its thread is gone, or it has finished.
fn lost() -> Error {
    Error::Decode {
        reason: "the table decoder thread stopped unexpectedly".to_owned(),
        excerpt: String::new(),
        excerpt_at: None,
        call: None,
    }
}

impl Collector {
    /// A collector for an answer with HTTP status `status`.
    pub(crate) fn start(
        config: &erpdata::Config,
        status: u16,
        options: erpdata::DecoderOptions,
    ) -> Result<Self, Error> {
        let decoder = erpdata::TableDecoder::new(config, status, options);
        let (sender, chunks) = mpsc::sync_channel(QUEUED_CHUNKS);
        let shared = Arc::new(Shared::default());
        let theirs = shared.clone();
        let worker = std::thread::Builder::new()
            .name("erpdata-decode".to_owned())
            .spawn(move || decode(decoder, chunks, &theirs))
            .map_err(|_| lost())?;
        Ok(Collector {
            sender: Some(sender),
            worker: Some(worker),
            shared,
        })
    }

    #[cfg(feature = "testing")]
    pub(crate) fn finished(&self) -> bool {
        self.sender.is_none()
    }

    /// Hands over the next chunk (blocking only while the queue is full);
    /// the decoder's error if an earlier chunk made the answer fail.
    pub(crate) fn feed(&self, chunk: &[u8]) -> Result<(), Error> {
        if let Some(err) = self.shared.error() {
            return Err(err);
        }
        let sender = self.sender.as_ref().ok_or_else(lost)?;
        sender
            .send(Message::Chunk(chunk.to_vec()))
            .map_err(|_| lost())
    }

    /// Waits until every chunk fed so far is decoded; the decoder's error
    /// if one made the answer fail.
    pub(crate) fn check(&self) -> Result<(), Error> {
        let sender = self.sender.as_ref().ok_or_else(lost)?;
        let (done, wait) = mpsc::channel();
        sender.send(Message::Sync(done)).map_err(|_| lost())?;
        wait.recv().map_err(|_| lost())?;
        match self.shared.error() {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// Complete rows decoded so far.
    pub(crate) fn rows(&self) -> u64 {
        self.shared.rows.load(Ordering::Acquire)
    }

    /// Ends the body: the whole table's columns, each column's type
    /// decided over all of them, or the core's error.
    pub(crate) fn finish(&mut self) -> Result<TableBatches, Error> {
        self.sender = None;
        let worker = self.worker.take().ok_or_else(lost)?;
        let (decoder, mut kept) = worker.join().map_err(|_| lost())?;
        if let Some(err) = self.shared.error() {
            return Err(err);
        }
        let finished = decoder.finish()?;
        self.shared
            .rows
            .store(finished.total_rows, Ordering::Release);
        kept.extend(finished.batches);
        let schema = kept
            .iter()
            .fold(Vec::new(), |s, b| unify_schemas(&s, &b.schema()));
        let batches = kept
            .into_iter()
            .map(|b| {
                if b.schema() == schema {
                    Some(b)
                } else {
                    b.cast(&schema)
                }
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| Error::Decode {
                reason: "a batch does not fit the table's unified schema".to_owned(),
                excerpt: String::new(),
                excerpt_at: None,
                call: None,
            })?;
        Ok(TableBatches {
            schema,
            batches,
            notices: finished.notices,
            total_rows: finished.total_rows,
        })
    }
}

/// The sink of a call whose answer is a table: a [`Collector`] per
/// accepted answer, so the body is decoded on its own thread while the
/// host reads the next chunk. Its output is the core's
/// [`Output::Batches`], as the core's own sink for a table gives it.
pub(crate) struct CollectorSink {
    options: erpdata::DecoderOptions,
    current: Option<Collector>,
}

impl CollectorSink {
    pub(crate) fn new(options: erpdata::DecoderOptions) -> Self {
        CollectorSink {
            options: erpdata::DecoderOptions {
                // A whole table is typed over all its rows.
                one_schema: false,
                ..options
            },
            current: None,
        }
    }

    fn current(&mut self) -> Result<&mut Collector, Error> {
        self.current.as_mut().ok_or_else(lost)
    }
}

impl erpdata::Sink for CollectorSink {
    type Output = Output;

    fn start(&mut self, config: &erpdata::Config, status: u16) -> Result<(), Error> {
        // The thread of an earlier answer ends once its queue is dropped.
        self.current = Some(Collector::start(config, status, self.options.clone())?);
        Ok(())
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<(), Error> {
        self.current()?.feed(chunk)
    }

    fn rows(&self) -> u64 {
        self.current.as_ref().map_or(0, Collector::rows)
    }

    fn check(&mut self) -> Result<(), Error> {
        self.current()?.check()
    }

    fn finish(&mut self) -> Result<Output, Error> {
        self.current()?.finish().map(Output::Batches)
    }
}
