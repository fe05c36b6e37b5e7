//! A table answer decoded on a thread of its own while the caller goes on
//! reading the body, so that decoding overlaps the download instead of
//! following it: a whole table ([`CollectorSink`], `table()`) or a stream
//! of batches ([`CollectorStream`], `stream_table()` and the export).
//!
//! The caller puts each chunk in an inbox and returns to the socket at
//! once: a chunk the host lends ([`erpdata::Sink::feed_owned`], a Python
//! `bytes`) as it is, any other copied into a buffer of the inbox's own.
//! The decoder thread, without the GIL, takes the chunks once
//! [`HANDOVER_BYTES`] have gathered, so that it is handed (and woken for)
//! a quarter of a MiB, not each of the small chunks a server may send;
//! what has gathered it takes after [`LINGER`] without more, so that a
//! stream's batches still come out while the service pauses. Buffers go
//! round between the two, and lent chunks go back to the host
//! ([`Collector::spent`]), which frees them where it can.
//!
//! The results are the sequential decoder's: the same batches, and the
//! same error, only reported at a later call (the next `feed`, `check` or
//! `finish`). A stream's batches reach the caller as the core's call hands
//! out what the sink has ready; when the answer fails, the call hands out
//! the batches completed before the failure first, so the caller sees what
//! a decoder working chunk by chunk gives.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use erpdata::{unify_schemas, Batch, Error, Output, OwnedChunk, StreamEnd, TableBatches};

/// Bytes waiting for the decoder at most (4 MiB): the body is never held
/// whole, and a download faster than decoding waits for it.
const INBOX_BYTES: usize = 4 << 20;

/// The bytes that gather before the decoder thread takes them (small
/// enough to be decoded while still in the cache). PHP behind nginx
/// answers in HTTP chunks of 4 or 8 KiB, and handing each to the thread (a
/// buffer, a send, a wake-up) made the reading thread the bottleneck:
/// with a million sandbox invoices sent in 8 KiB chunks
/// (`erpdata-sandbox --chunk-bytes 8192`), `table()` took 0.56–0.63 s
/// handed over chunk by chunk and 0.43–0.50 s gathered,
/// `stream_table(use_threads=True)` 0.56–0.64 s and 0.44–0.49 s.
const HANDOVER_BYTES: usize = 256 << 10;

/// The smallest chunk worth lending rather than copying. The decoder takes
/// a lent chunk on its own, and each costs it about a microsecond more
/// than the same bytes in a buffer (the row cut at the chunk's end), while
/// copying a small one costs the reading thread less than that: httpx's
/// 33 KB chunks of a million invoices took the reading thread 0.024 s
/// lent and 0.061 s copied, and the decoder 0.012 s more; in the 8 KiB
/// chunks of PHP behind nginx, lending them all was no faster (0.846 s
/// copied, 0.860 s lent, within the noise).
pub(crate) const LEND_MIN_BYTES: usize = 16 << 10;

/// How long the decoder thread waits for a [`HANDOVER_BYTES`] worth before
/// it takes what there is: no longer than a batch of a stream should wait
/// on a service that pauses.
const LINGER: Duration = Duration::from_millis(2);

/// A part of the body on its way to the decoder thread.
enum Part {
    /// Chunks copied, one after the other, into a buffer of the inbox's.
    Copied(Vec<u8>),
    /// A chunk the host lent, read where it is: the reading thread bounds
    /// a large table's call, and copying was most of what handing a chunk
    /// over cost it (see [`LEND_MIN_BYTES`]).
    Lent(OwnedChunk),
}

impl Part {
    fn bytes(&self) -> &[u8] {
        match self {
            Part::Copied(buffer) => buffer,
            Part::Lent(chunk) => AsRef::<[u8]>::as_ref(&**chunk),
        }
    }
}

/// Parts the decoder thread takes together, in order.
#[derive(Default)]
struct Handover {
    parts: Vec<Part>,
    bytes: usize,
}

/// The body's bytes on their way from the caller to the decoder thread.
#[derive(Default)]
struct Inbox {
    /// Handovers of [`HANDOVER_BYTES`] or more, in order, for the decoder.
    full: VecDeque<Handover>,
    /// The handover the next chunk goes into.
    filling: Handover,
    /// Buffers the decoder is done with, for chunks to be copied into.
    spare: Vec<Vec<u8>>,
    /// Lent chunks the decoder is done with, for the host to free.
    spent: Vec<OwnedChunk>,
    /// Bytes received, and bytes decoded (taken and fed), so far.
    received: u64,
    decoded: u64,
    /// No more bytes: the body ended, or the caller let go.
    closed: bool,
    /// `check()` waits: the decoder takes what there is at once.
    flush: bool,
    /// The decoder thread has ended (done, or by a panic).
    gone: bool,
    /// Who waits on a [`Condvar`], so that nobody is woken for nothing.
    decoder_waits: bool,
    caller_waits: bool,
}

/// What the decoder thread and the caller share.
#[derive(Default)]
struct Shared {
    inbox: Mutex<Inbox>,
    /// The decoder waits here for bytes.
    work: Condvar,
    /// The caller waits here for room in the inbox, or for its bytes to
    /// be decoded.
    room: Condvar,
    rows: AtomicU64,
    /// The decoder's first error; bytes after it are not decoded.
    error: Mutex<Option<Error>>,
    /// A stream's batches, complete and not yet handed out.
    ready: Mutex<VecDeque<Batch>>,
}

impl Shared {
    fn error(&self) -> Option<Error> {
        self.error
            .lock()
            .map(|e| e.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }

    /// The inbox, even after a panic elsewhere held the lock.
    fn inbox(&self) -> MutexGuard<'_, Inbox> {
        self.inbox.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The caller waits on [`Shared::room`].
    fn caller_wait<'a>(&self, mut inbox: MutexGuard<'a, Inbox>) -> MutexGuard<'a, Inbox> {
        inbox.caller_waits = true;
        let mut inbox = self
            .room
            .wait(inbox)
            .unwrap_or_else(PoisonError::into_inner);
        inbox.caller_waits = false;
        inbox
    }

    /// Wakes the decoder thread if it waits.
    fn wake_decoder(&self, inbox: MutexGuard<'_, Inbox>) {
        let waits = inbox.decoder_waits;
        drop(inbox);
        if waits {
            self.work.notify_one();
        }
    }

    /// The decoder thread waits for the next handover to decode: a full
    /// one, or the one filling once `check()` or the end asks for it or
    /// after [`LINGER`] without more. `None` at the end of the body.
    fn take(&self) -> Option<Handover> {
        let mut inbox = self.inbox();
        loop {
            let some = inbox.filling.bytes > 0;
            let taken = match inbox.full.pop_front() {
                Some(full) => Some(full),
                None if some && (inbox.closed || inbox.flush) => {
                    inbox.flush = false;
                    Some(inbox.take_filling())
                }
                None if inbox.closed => return None,
                None => {
                    inbox.decoder_waits = true;
                    if some {
                        let (guard, waited) = self
                            .work
                            .wait_timeout(inbox, LINGER)
                            .unwrap_or_else(PoisonError::into_inner);
                        inbox = guard;
                        inbox.decoder_waits = false;
                        (waited.timed_out() && inbox.full.is_empty() && inbox.filling.bytes > 0)
                            .then(|| inbox.take_filling())
                    } else {
                        inbox = self
                            .work
                            .wait(inbox)
                            .unwrap_or_else(PoisonError::into_inner);
                        inbox.decoder_waits = false;
                        None
                    }
                }
            };
            if let Some(handover) = taken {
                if inbox.caller_waits {
                    self.room.notify_all();
                }
                return Some(handover);
            }
        }
    }

    /// A handover the decoder is done with: its bytes decoded, its
    /// buffers for later chunks, its lent chunks for the host to free.
    fn done(&self, handover: Handover) {
        let mut inbox = self.inbox();
        inbox.decoded += handover.bytes as u64;
        for part in handover.parts {
            match part {
                Part::Copied(mut buffer) if inbox.spare.len() < INBOX_BYTES / HANDOVER_BYTES => {
                    buffer.clear();
                    inbox.spare.push(buffer);
                }
                Part::Copied(_) => {}
                Part::Lent(chunk) => inbox.spent.push(chunk),
            }
        }
        if inbox.caller_waits {
            self.room.notify_all();
        }
    }
}

impl Inbox {
    /// Bytes in `full` and `filling`, waiting for the decoder.
    fn queued(&self) -> usize {
        self.full.iter().map(|h| h.bytes).sum::<usize>() + self.filling.bytes
    }

    /// Whether `bytes` more fit (any number do in an empty inbox).
    fn has_room(&self, bytes: usize) -> bool {
        let queued = self.queued();
        queued == 0 || queued + bytes <= INBOX_BYTES
    }

    /// The handover filling, replaced by an empty one.
    fn take_filling(&mut self) -> Handover {
        std::mem::take(&mut self.filling)
    }

    /// `chunk` copied after the chunks filling the handover.
    fn copy(&mut self, chunk: &[u8]) {
        if let Some(Part::Copied(buffer)) = self.filling.parts.last_mut() {
            buffer.extend_from_slice(chunk);
        } else {
            let mut buffer = self.spare.pop().unwrap_or_default();
            buffer.reserve(HANDOVER_BYTES.max(chunk.len()));
            buffer.extend_from_slice(chunk);
            self.filling.parts.push(Part::Copied(buffer));
        }
        self.filling.bytes += chunk.len();
    }

    /// A lent chunk after the chunks filling the handover.
    fn lend(&mut self, chunk: OwnedChunk) {
        self.filling.bytes += AsRef::<[u8]>::as_ref(&*chunk).len();
        self.filling.parts.push(Part::Lent(chunk));
    }
}

/// A chunk for [`Collector::feed`]: one to copy, or one lent to keep.
pub(crate) enum Chunk<'a> {
    Borrowed(&'a [u8]),
    Lent(OwnedChunk),
}

impl Chunk<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Chunk::Borrowed(bytes) => bytes,
            Chunk::Lent(chunk) => AsRef::<[u8]>::as_ref(&**chunk),
        }
    }
}

/// Tells the caller when the decoder thread ends, even by a panic: it
/// would otherwise wait for room or for its bytes forever.
struct Gone<'a>(&'a Shared);

impl Drop for Gone<'_> {
    fn drop(&mut self) {
        self.0.inbox().gone = true;
        self.0.room.notify_all();
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

fn decode(mut decoder: erpdata::TableDecoder, shared: &Shared, batches: Batches) -> Outcome {
    let _gone = Gone(shared);
    let mut kept = Vec::new();
    let mut failed = false;
    while let Some(handover) = shared.take() {
        let mut fed = false;
        for part in &handover.parts {
            if failed {
                break;
            }
            fed = true;
            match decoder.feed(part.bytes()) {
                Ok(done) if batches == Batches::HandOut => ready(shared).extend(done),
                Ok(done) => kept.extend(done),
                Err(err) => {
                    failed = true;
                    if let Ok(mut slot) = shared.error.lock() {
                        *slot = Some(err);
                    }
                }
            }
        }
        if fed {
            shared.rows.store(decoder.rows(), Ordering::Release);
        }
        shared.done(handover);
    }
    (decoder, kept)
}

/// The stream's ready batches, even after a panic elsewhere held the lock.
fn ready(shared: &Shared) -> MutexGuard<'_, VecDeque<Batch>> {
    shared.ready.lock().unwrap_or_else(|p| p.into_inner())
}

/// A table answer decoded on a thread of its own, as Rust sees it: the
/// Python `TableCollector` and the table call's sinks share it.
pub(crate) struct Collector {
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
        let shared = Arc::new(Shared::default());
        let theirs = shared.clone();
        let worker = std::thread::Builder::new()
            .name("erpdata-decode".to_owned())
            .spawn(move || decode(decoder, &theirs, batches))
            .map_err(|_| lost())?;
        Ok(Collector {
            worker: Some(worker),
            shared,
        })
    }

    #[cfg(feature = "testing")]
    pub(crate) fn finished(&self) -> bool {
        self.worker.is_none()
    }

    /// Takes the next chunk (blocking only while the inbox is full); the
    /// decoder's error if an earlier chunk made the answer fail.
    pub(crate) fn feed(&mut self, chunk: Chunk<'_>) -> Result<(), Error> {
        if let Some(err) = self.shared.error() {
            return Err(err);
        }
        if self.worker.is_none() {
            return Err(lost());
        }
        let len = chunk.bytes().len();
        let mut inbox = self.shared.inbox();
        // A chunk larger than the inbox goes in once it is empty.
        while !inbox.has_room(len) && !inbox.gone {
            inbox = self.shared.caller_wait(inbox);
        }
        if inbox.gone {
            return Err(lost());
        }
        // The decoder waits for a first byte, then for a handover's worth.
        let first = inbox.queued() == 0;
        match chunk {
            Chunk::Borrowed(bytes) => inbox.copy(bytes),
            Chunk::Lent(chunk) => inbox.lend(chunk),
        }
        inbox.received += len as u64;
        let full = inbox.filling.bytes >= HANDOVER_BYTES;
        if full {
            let filled = inbox.take_filling();
            inbox.full.push_back(filled);
        }
        if first || full {
            self.shared.wake_decoder(inbox);
        }
        Ok(())
    }

    /// Waits until every chunk fed so far is decoded; the decoder's error
    /// if one made the answer fail.
    pub(crate) fn check(&mut self) -> Result<(), Error> {
        if self.worker.is_none() {
            return Err(lost());
        }
        let mut inbox = self.shared.inbox();
        inbox.flush = true;
        if inbox.decoder_waits {
            self.shared.work.notify_one();
        }
        while inbox.decoded < inbox.received && !inbox.gone {
            inbox = self.shared.caller_wait(inbox);
        }
        if inbox.decoded < inbox.received {
            return Err(lost());
        }
        drop(inbox);
        match self.shared.error() {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// The lent chunks the decoder is done with, for the caller to free.
    pub(crate) fn spent(&self) -> Vec<OwnedChunk> {
        std::mem::take(&mut self.shared.inbox().spent)
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

    /// No more bytes: the decoder thread ends once it decoded the rest.
    fn close(&self) {
        let mut inbox = self.shared.inbox();
        inbox.closed = true;
        self.shared.wake_decoder(inbox);
    }

    /// Ends the body once the thread decoded every chunk: the batches it
    /// kept and the decoder's last word, or the core's error.
    fn end(&mut self) -> Result<(Vec<Batch>, erpdata::Finished), Error> {
        self.close();
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

impl Drop for Collector {
    /// An answer given up before its end: the thread ends without it.
    fn drop(&mut self) {
        if self.worker.is_some() {
            self.close();
        }
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

    /// The lent chunks the decoder is done with, for the caller to free.
    pub(crate) fn spent(&self) -> Vec<OwnedChunk> {
        self.current
            .as_ref()
            .map_or_else(Vec::new, Collector::spent)
    }
}

impl<T: Taken> erpdata::Sink for Threaded<T> {
    type Output = T::Output;

    fn start(&mut self, config: &erpdata::Config, status: u16) -> Result<(), Error> {
        // The thread of an earlier answer ends once its collector is dropped.
        self.current = Some(Collector::spawn(
            config,
            status,
            self.options.clone(),
            T::BATCHES,
        )?);
        Ok(())
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<(), Error> {
        self.current()?.feed(Chunk::Borrowed(chunk))
    }

    fn feed_owned(&mut self, chunk: OwnedChunk) -> Result<(), Error> {
        self.current()?.feed(Chunk::Lent(chunk))
    }

    fn next_batch(&mut self) -> Option<Batch> {
        self.current.as_ref().and_then(Collector::next_batch)
    }

    fn has_batch(&self) -> bool {
        self.current.as_ref().is_some_and(Collector::has_batch)
    }

    fn rows(&self) -> Option<u64> {
        Some(self.current.as_ref().map_or(0, Collector::rows))
    }

    fn check(&mut self) -> Result<(), Error> {
        self.current()?.check()
    }

    fn finish(&mut self) -> Result<T::Output, Error> {
        T::finish(self.current()?)
    }
}
