//! A table answer decoded on a thread of its own while the caller goes on
//! reading the body, so that decoding overlaps the download instead of
//! following it: a whole table ([`CollectorSink`], `table()`) or a stream
//! of batches ([`CollectorStream`], `stream_table()` and the export).
//!
//! The caller hands over each chunk (copied) and returns to the socket at
//! once; the decoder thread runs without the GIL. A whole table's chunks
//! are gathered into buffers of [`HANDOVER_BYTES`] first, so that the
//! thread is handed (and woken for) a buffer, not each of the small chunks
//! a server may send; a stream's go one by one, so that its batches come
//! out as soon as their rows arrive. The results are the sequential
//! decoder's: the same batches, and the same error, only reported at a
//! later call (the next `feed`, `check` or `finish`). A stream's batches
//! reach the caller as the core's call hands out what the sink has ready;
//! when the answer fails, the call hands out the batches completed before
//! the failure first, so the caller sees what a decoder working chunk by
//! chunk gives.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use erpdata::{unify_schemas, Batch, Error, Output, StreamEnd, TableBatches};

/// A stream's chunks waiting for the decoder at most: the body is never
/// held whole, and a download faster than decoding waits for it.
const QUEUED_CHUNKS: usize = 64;

/// A whole table's buffers waiting for the decoder at most (4 MiB).
const QUEUED_BUFFERS: usize = 16;

/// The bytes a whole table's chunks are gathered into before the decoder
/// thread gets them. PHP behind nginx answers in HTTP chunks of 4 or 8
/// KiB, and handing each to the thread (a buffer, a send, a wake-up) made
/// the reading thread the bottleneck: `table()` of a million sandbox
/// invoices sent in 8 KiB chunks (`erpdata-sandbox --chunk-bytes 8192`)
/// took 0.56–0.63 s, and takes 0.43–0.50 s gathered; in the default
/// chunks of about 64 KiB, the same 0.36–0.39 s.
const HANDOVER_BYTES: usize = 256 << 10;

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
    /// A stream's batches, complete and not yet handed out.
    ready: Mutex<VecDeque<Batch>>,
    /// A whole table's buffers the decoder is done with, for the next
    /// chunks to be gathered in (fresh memory costs a page fault per 4 KiB).
    spent: Mutex<Vec<Vec<u8>>>,
}

impl Shared {
    fn error(&self) -> Option<Error> {
        self.error
            .lock()
            .map(|e| e.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }
}

/// Where the decoder thread puts the batches it completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Batches {
    /// Kept for the whole table, unified at the end.
    Keep,
    /// Handed to the caller through [`Shared::ready`].
    HandOut,
}

type Outcome = (erpdata::TableDecoder, Vec<Batch>);

fn decode(
    mut decoder: erpdata::TableDecoder,
    chunks: Receiver<Message>,
    shared: &Shared,
    batches: Batches,
) -> Outcome {
    let mut kept = Vec::new();
    let mut failed = false;
    for message in chunks {
        match message {
            Message::Chunk(chunk) if !failed => {
                match decoder.feed(&chunk) {
                    Ok(done) if batches == Batches::HandOut => ready(shared).extend(done),
                    Ok(done) => kept.extend(done),
                    Err(err) => {
                        failed = true;
                        if let Ok(mut slot) = shared.error.lock() {
                            *slot = Some(err);
                        }
                    }
                }
                shared.rows.store(decoder.rows(), Ordering::Release);
                if batches == Batches::Keep {
                    give_back(shared, chunk);
                }
            }
            Message::Chunk(_) => {}
            Message::Sync(done) => {
                let _ = done.send(());
            }
        }
    }
    (decoder, kept)
}

/// Keeps `chunk`'s buffer for later chunks, as many as can be in flight.
fn give_back(shared: &Shared, mut chunk: Vec<u8>) {
    if let Ok(mut spent) = shared.spent.lock() {
        if spent.len() < QUEUED_BUFFERS {
            chunk.clear();
            spent.push(chunk);
        }
    }
}

/// The stream's ready batches, even after a panic elsewhere held the lock.
fn ready(shared: &Shared) -> std::sync::MutexGuard<'_, VecDeque<Batch>> {
    shared.ready.lock().unwrap_or_else(|p| p.into_inner())
}

/// A table answer decoded on a thread of its own, as Rust sees it: the
/// Python `TableCollector` and the table call's sinks share it.
pub(crate) struct Collector {
    sender: Option<SyncSender<Message>>,
    /// A whole table's chunks not yet handed over.
    pending: Vec<u8>,
    batches: Batches,
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
    /// A collector of a whole table, for an answer with HTTP status
    /// `status` (the test suite's `TableCollector`).
    #[cfg(feature = "testing")]
    pub(crate) fn start(
        config: &erpdata::Config,
        status: u16,
        options: erpdata::DecoderOptions,
    ) -> Result<Self, Error> {
        Self::spawn(config, status, options, Batches::Keep)
    }

    fn spawn(
        config: &erpdata::Config,
        status: u16,
        options: erpdata::DecoderOptions,
        batches: Batches,
    ) -> Result<Self, Error> {
        let decoder = erpdata::TableDecoder::new(config, status, options);
        let queued = match batches {
            Batches::Keep => QUEUED_BUFFERS,
            Batches::HandOut => QUEUED_CHUNKS,
        };
        let (sender, chunks) = mpsc::sync_channel(queued);
        let shared = Arc::new(Shared::default());
        let theirs = shared.clone();
        let worker = std::thread::Builder::new()
            .name("erpdata-decode".to_owned())
            .spawn(move || decode(decoder, chunks, &theirs, batches))
            .map_err(|_| lost())?;
        Ok(Collector {
            sender: Some(sender),
            pending: Vec::new(),
            batches,
            worker: Some(worker),
            shared,
        })
    }

    #[cfg(feature = "testing")]
    pub(crate) fn finished(&self) -> bool {
        self.sender.is_none()
    }

    /// Takes the next chunk: a stream's goes to the decoder thread, a
    /// whole table's once [`HANDOVER_BYTES`] are gathered (blocking only
    /// while the queue is full); the decoder's error if an earlier chunk
    /// made the answer fail.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<(), Error> {
        if let Some(err) = self.shared.error() {
            return Err(err);
        }
        if self.batches == Batches::HandOut {
            return self.send(chunk.to_vec());
        }
        if self.pending.capacity() == 0 {
            let spent = self.shared.spent.lock().ok().and_then(|mut s| s.pop());
            self.pending = spent.unwrap_or_default();
            self.pending.reserve(HANDOVER_BYTES.max(chunk.len()));
        }
        self.pending.extend_from_slice(chunk);
        if self.pending.len() >= HANDOVER_BYTES {
            self.hand_over()?;
        }
        Ok(())
    }

    /// Sends the gathered chunks to the decoder thread.
    fn hand_over(&mut self) -> Result<(), Error> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let gathered = std::mem::take(&mut self.pending);
        self.send(gathered)
    }

    fn send(&self, chunk: Vec<u8>) -> Result<(), Error> {
        let sender = self.sender.as_ref().ok_or_else(lost)?;
        sender.send(Message::Chunk(chunk)).map_err(|_| lost())
    }

    /// Waits until every chunk fed so far is decoded; the decoder's error
    /// if one made the answer fail.
    pub(crate) fn check(&mut self) -> Result<(), Error> {
        self.hand_over()?;
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

    /// The next of a stream's batches that is complete.
    fn next_batch(&self) -> Option<Batch> {
        ready(&self.shared).pop_front()
    }

    fn has_batch(&self) -> bool {
        !ready(&self.shared).is_empty()
    }

    /// Ends the body once the thread decoded every chunk: the batches it
    /// kept and the decoder's last word, or the core's error.
    fn end(&mut self) -> Result<(Vec<Batch>, erpdata::Finished), Error> {
        self.hand_over()?;
        self.sender = None;
        let worker = self.worker.take().ok_or_else(lost)?;
        let (decoder, kept) = worker.join().map_err(|_| lost())?;
        if let Some(err) = self.shared.error() {
            return Err(err);
        }
        let finished = decoder.finish()?;
        self.shared
            .rows
            .store(finished.total_rows, Ordering::Release);
        Ok((kept, finished))
    }

    /// Ends a stream's body: its last batches join the ready ones; what
    /// the answer said, or the core's error.
    fn finish_stream(&mut self) -> Result<StreamEnd, Error> {
        let (_, finished) = self.end()?;
        ready(&self.shared).extend(finished.batches);
        Ok(StreamEnd {
            notices: finished.notices,
            total_rows: finished.total_rows,
        })
    }

    /// Ends the body: the whole table's columns, each column's type
    /// decided over all of them, or the core's error.
    pub(crate) fn finish(&mut self) -> Result<TableBatches, Error> {
        let (mut kept, finished) = self.end()?;
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

/// What a [`Threaded`] sink gives: a whole table, or a stream's batches.
pub(crate) trait Taken {
    /// Where the decoder thread puts the batches it completes.
    const BATCHES: Batches;
    /// The sink's output once the body ended.
    type Output;
    /// The output from the collector, once its body ended.
    fn finish(collector: &mut Collector) -> Result<Self::Output, Error>;
}

/// `table()`: the core's [`Output::Batches`], as its own sink for a table
/// gives it, every column typed over all the rows.
pub(crate) struct WholeTable;

impl Taken for WholeTable {
    const BATCHES: Batches = Batches::Keep;
    type Output = Output;

    fn finish(collector: &mut Collector) -> Result<Output, Error> {
        collector.finish().map(Output::Batches)
    }
}

/// `stream_table(..., use_threads=True)` and the export: batches of one
/// schema handed out as they complete, then the core's [`StreamEnd`], as
/// its own [`erpdata::TableStream`] gives them.
///
/// A batch the decoder completes while the host waits on the socket goes
/// out once the next chunk (or the end) came: while the service sends,
/// that is at once; while it pauses, the batch waits with the host. A
/// stream read by a person as it comes keeps the core's sink, which hands
/// out every batch before the next read.
pub(crate) struct Streamed;

impl Taken for Streamed {
    const BATCHES: Batches = Batches::HandOut;
    type Output = StreamEnd;

    fn finish(collector: &mut Collector) -> Result<StreamEnd, Error> {
        collector.finish_stream()
    }
}

/// The sink of a call whose answer is a table decoded on a thread of its
/// own: a [`Collector`] per accepted answer, so the body is decoded while
/// the host reads the next chunk.
pub(crate) struct Threaded<T> {
    options: erpdata::DecoderOptions,
    current: Option<Collector>,
    taken: std::marker::PhantomData<T>,
}

/// `table()`'s sink.
pub(crate) type CollectorSink = Threaded<WholeTable>;
/// The sink of a stream decoded on a thread of its own.
pub(crate) type CollectorStream = Threaded<Streamed>;

impl<T: Taken> Threaded<T> {
    pub(crate) fn new(options: erpdata::DecoderOptions) -> Self {
        Threaded {
            options: erpdata::DecoderOptions {
                // A whole table is typed over all its rows; every batch of
                // a stream has the first one's schema.
                one_schema: T::BATCHES == Batches::HandOut,
                ..options
            },
            current: None,
            taken: std::marker::PhantomData,
        }
    }

    fn current(&mut self) -> Result<&mut Collector, Error> {
        self.current.as_mut().ok_or_else(lost)
    }
}

impl<T: Taken> erpdata::Sink for Threaded<T> {
    type Output = T::Output;

    fn start(&mut self, config: &erpdata::Config, status: u16) -> Result<(), Error> {
        // The thread of an earlier answer ends once its queue is dropped.
        self.current = Some(Collector::spawn(
            config,
            status,
            self.options.clone(),
            T::BATCHES,
        )?);
        Ok(())
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<(), Error> {
        self.current()?.feed(chunk)
    }

    fn next_batch(&mut self) -> Option<Batch> {
        self.current.as_ref().and_then(Collector::next_batch)
    }

    fn has_batch(&self) -> bool {
        self.current.as_ref().is_some_and(Collector::has_batch)
    }

    fn rows(&self) -> u64 {
        self.current.as_ref().map_or(0, Collector::rows)
    }

    fn check(&mut self) -> Result<(), Error> {
        self.current()?.check()
    }

    fn finish(&mut self) -> Result<T::Output, Error> {
        T::finish(self.current()?)
    }
}
